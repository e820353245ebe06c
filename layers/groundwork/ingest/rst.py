"""reStructuredText, read by docutils: the title, sections, and field lists as metadata.

Metadata comes from the document's bibliographic fields (a field list before the body:
``:Author:``, ``:Date:``, ``:Title:``…) and from a header of ``Title:``/``Author:``/``Created:``
lines at the top, as PEPs have; neither becomes a passage. The title is docutils' document
title (a lone top-level section title), else a ``Title`` field, else the first section's.
Sections give the heading path and the URL's anchor (docutils' section id, which Sphinx
keeps). Literal blocks and ``code-block`` directives stay code, fenced as in Markdown with
their line breaks; lists, definitions, tables and admonitions are kept as text.

docutils is pure Python and imported only here. Nothing outside the text is read: file
inclusion (``include``, ``literalinclude``, ``csv-table :file:``) and ``raw`` are off, the
roles of Sphinx or other extensions (``:func:`x```) are read as their text, and their
directives as the built page shows them (:func:`_register_directives`).
"""

from __future__ import annotations

import functools
import io
import re
from typing import TYPE_CHECKING, Any, ClassVar

from groundwork.ingest.document import Document, TextBuilder, answer_of, pack, year_in

if TYPE_CHECKING:
    from docutils import nodes

PASSAGE_CHARS = 900

# A header of "Name: value" lines at the very top (with indented continuation lines).
_HEADER_LINE = re.compile(r"^([A-Za-z][\w-]*):[ \t]*(.*)$")
_EMAIL = re.compile(r"\s*<[^<>\s]+@[^<>\s]+>")
_ROLE = re.compile(r":([A-Za-z0-9](?:[-_.:+]?[A-Za-z0-9]+)*):`")
_DIRECTIVE = re.compile(r"^\s*(?:[-*+]\s+)?\.\.\s+([A-Za-z0-9](?:[-_.:+]?[A-Za-z0-9]+)*)::", re.M)
# Directives of Sphinx or its extensions, by the last part of their name: those that show their
# content as code, and those that show text made elsewhere or when the site is built. A
# ``click:run`` shows the terminal session of running its code, which the file does not hold;
# its code quoted instead ("invoke(cli, args=['build'])") answered questions about the command
# line with Python no one types.
_CODE_DIRECTIVES = frozenset(
    {"example", "code-block", "sourcecode", "code-cell", "doctest", "testcode", "testoutput",
     "ipython", "jupyter-execute"}
)  # fmt: skip
_UNSHOWN_DIRECTIVES = frozenset(
    {"run", "toctree", "currentmodule", "module", "index", "literalinclude", "testsetup",
     "testcleanup"}
)  # fmt: skip
#: What Sphinx shows above a version note's text, before its version.
VERSION_TITLES = {
    "versionadded": "Added in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
}
_SETTINGS = {
    "file_insertion_enabled": False,
    "raw_enabled": False,
    "report_level": 5,
    "halt_level": 5,
    "_disable_config": True,
    "input_encoding": "unicode",
    "syntax_highlight": "none",
    "smart_quotes": False,
    "doctitle_xform": True,
    "docinfo_xform": True,
    "sectsubtitle_xform": False,
}
_METADATA = {
    "title": "title",
    "author": "author",
    "authors": "author",
    "date": "year",
    "created": "year",
    "published": "year",
    "year": "year",
    "language": "language",
    "url": "url",
}


def parse_rst(text: str) -> Document:
    from docutils import nodes

    document = Document()
    header, body = _header(text)
    tree = _doctree(body)
    fields = header | _docinfo(tree, nodes)
    for name, raw in fields.items():
        key = _METADATA.get(name)
        value = _EMAIL.sub("", raw).strip()
        if key == "year":
            document.year = document.year or year_in(value)
        elif key and getattr(document, key) is None:
            setattr(document, key, value)
        elif name in ("tags", "keywords"):
            document.tags = [t.strip() for t in re.split(r"[,;]", value) if t.strip()]
    titled = tree.get("title")
    if titled:
        document.title = " ".join(str(titled).split())
    _Walker(document, nodes).walk(tree)
    return document


def rst_blocks(text: str) -> list[str]:
    """A fragment's body as blocks in reading order, code fenced: what a Markdown page's
    ```` ```{eval-rst} ```` block shows. Its section titles, if any, are not read."""
    from docutils import nodes

    walker = _Walker(Document(), nodes)
    blocks = [
        block
        for node in _doctree(text).findall(nodes.Body)
        if isinstance(node.parent, nodes.document | nodes.section)
        for block in walker.shown(node)
    ]
    # "What it looks like:" over a ``click:run``, whose output is made when the site is built:
    # an introduction to nothing shown here.
    if blocks and blocks[-1].endswith(":") and not blocks[-1].startswith("```"):
        blocks.pop()
    return blocks


def _doctree(text: str) -> nodes.document:
    from docutils.core import publish_doctree

    _register_roles(text)
    _register_directives(text)
    return publish_doctree(text, settings_overrides={**_SETTINGS, "warning_stream": io.StringIO()})


def _header(text: str) -> tuple[dict[str, str], str]:
    """A PEP-style header's fields (lower-cased names) and the text after it; none unless
    the text opens with at least two such lines."""
    lines = text.lstrip("\ufeff").split("\n")
    fields: dict[str, str] = {}
    last = None
    end = 0
    for number, line in enumerate(lines):
        if not line.strip():
            end = number
            break
        match = _HEADER_LINE.match(line)
        if match:
            last = match.group(1).lower()
            fields[last] = match.group(2).strip()
        elif line[:1].isspace() and last is not None:
            fields[last] = f"{fields[last]} {line.strip()}".strip()
        else:
            return {}, text
    else:
        return {}, text
    if len(fields) < 2:
        return {}, text
    return fields, "\n".join(lines[end:])


def _docinfo(tree: Any, nodes: Any) -> dict[str, str]:
    """The bibliographic fields docutils took from the field list that opens the body."""
    found: dict[str, str] = {}
    for info in tree.findall(nodes.docinfo):
        for item in info.children:
            if isinstance(item, nodes.field):
                name = item.children[0].astext().strip().lower()
                found[name] = " ".join(item.children[1].astext().split())
            else:
                found[item.tagname.lower()] = " ".join(item.astext().split())
    return found


def _register_roles(text: str) -> None:
    """Roles docutils does not know (Sphinx's ``:ref:``, ``:py:func:``…) read as their text."""
    from docutils.parsers.rst import roles

    known = getattr(roles, "_roles", {}).keys() | getattr(roles, "_role_registry", {}).keys()
    for name in set(_ROLE.findall(text)):
        if name.lower() not in known:
            roles.register_local_role(name, _text_role)


def _register_directives(text: str) -> None:
    """Directives docutils does not know (Sphinx's and its extensions') read as the page shows
    them, not dropped: one that shows code (``click:example``) is a code block, one whose text
    is made elsewhere or when the site is built (``autoclass``, ``click:run``, ``toctree``) is
    none, and any other (``tabs``, ``group-tab``) is its content, under its argument as a
    title."""
    from docutils.parsers.rst import directives
    from docutils.parsers.rst.languages import en

    kinds = _directive_kinds()
    known = {*directives._directive_registry, *directives._directives, *en.directives}
    for name in {n.lower() for n in _DIRECTIVE.findall(text)} - known:
        kind = name.rsplit(":", 1)[-1]
        if kind in _CODE_DIRECTIVES:
            directives.register_directive(name, kinds["code"])
        elif kind.startswith("auto") or kind in _UNSHOWN_DIRECTIVES:
            directives.register_directive(name, kinds["unshown"])
        else:
            directives.register_directive(name, kinds["content"])


@functools.cache
def _directive_kinds() -> dict[str, type]:
    from collections import defaultdict

    from docutils import nodes
    from docutils.parsers.rst import Directive, directives

    class Generic(Directive):  # type: ignore[misc]
        optional_arguments = 1
        final_argument_whitespace = True
        has_content = True
        # Any option, its value as written (and not shown); one key, since docutils reads no
        # options where the spec is empty.
        option_spec: ClassVar = defaultdict(
            lambda: directives.unchanged, {"class": directives.unchanged}
        )

    class Code(Generic):
        def run(self) -> list[nodes.Node]:
            code = "\n".join(self.content)
            return [nodes.literal_block(code, code)] if code.strip() else []

    class Unshown(Generic):
        def run(self) -> list[nodes.Node]:
            return []

    class Content(Generic):
        def run(self) -> list[nodes.Node]:
            node = nodes.container()
            label = VERSION_TITLES.get(self.name.rsplit(":", 1)[-1])
            if self.arguments and label:  # "8.0", or "8.0 Takes a path." on the same lines
                version, *text = self.arguments[0].split()
                ending = f": {' '.join(text)}" if text else ":" if self.content else "."
                title = f"{label} {version}{ending}"
                node += nodes.paragraph(title, title)
            elif self.arguments:
                title = f"{self.arguments[0]}:"
                node += nodes.paragraph(title, title)
            self.state.nested_parse(self.content, self.content_offset, node)
            return [node]

    return {"code": Code, "unshown": Unshown, "content": Content}


def _text_role(
    name: str,
    rawtext: str,
    text: str,
    lineno: int,
    inliner: Any,
    options: Any = None,
    content: Any = None,
) -> tuple[list[Any], list[Any]]:
    from docutils import nodes

    shown = text
    if shown.endswith(">") and "<" in shown:  # "the title <target>"
        shown = shown[: shown.rindex("<")].strip() or shown
    return [nodes.literal(rawtext, shown.lstrip("~!"))], []


class _Walker:
    """The doctree in reading order: headings into the path, body elements into passages."""

    def __init__(self, document: Document, nodes: Any) -> None:
        self.document = document
        self.nodes = nodes
        self.built = TextBuilder()
        self._skip = (
            nodes.comment, nodes.substitution_definition, nodes.target, nodes.system_message,
            nodes.raw, nodes.docinfo, nodes.decoration, nodes.title, nodes.subtitle,
            nodes.transition, nodes.problematic, nodes.pending,
        )  # fmt: skip

    def walk(self, tree: nodes.document) -> None:
        if self.document.title:
            self.built.add(self.document.title)
        self._section(tree, [], None)
        if self.document.title is None:
            first = next(iter(tree.findall(self.nodes.section)), None)
            if first is not None and first.children:
                self.document.title = " ".join(first.children[0].astext().split())
        self.document.text = self.built.text

    def _section(self, node: Any, path: list[str], anchor: str | None) -> None:
        paragraphs: list[str] = []
        for child in node.children:
            if isinstance(child, self.nodes.section):
                self._flush(paragraphs, path, anchor)
                title = " ".join(child.children[0].astext().split()) if child.children else ""
                ids = child.get("ids") or []
                self.built.add(title)
                self._section(child, [*path, title], ids[0] if ids else anchor)
            else:
                paragraphs += self.shown(child)
        self._flush(paragraphs, path, anchor)

    def shown(self, node: Any) -> list[str]:
        """A section's child as the blocks the page shows of it: none for a comment, a
        target, a table of contents…"""
        if isinstance(node, self._skip) or self._contents(node):
            return []
        return [b for b in self._blocks(node) if b.strip()]

    def _flush(self, paragraphs: list[str], path: list[str], anchor: str | None) -> None:
        for piece, reference in pack(paragraphs, PASSAGE_CHARS):
            text, questions = answer_of(piece)
            for question in questions[:1]:
                self.built.add(question)
            self.document.passages.append(
                self.built.passage(text, path + questions[:1], anchor, reference)
            )
        paragraphs.clear()

    def _contents(self, node: Any) -> bool:
        return isinstance(node, self.nodes.topic) and "contents" in node.get("classes", [])

    def _blocks(self, node: Any) -> list[str]:
        """A body element as blocks of text; code keeps its lines."""
        nodes = self.nodes
        if isinstance(node, nodes.literal_block | nodes.doctest_block):
            classes = [c for c in node.get("classes", []) if c not in ("code", "literal-block")]
            return [f"```{classes[0] if classes else ''}\n{node.astext().rstrip()}\n```"]
        if isinstance(node, nodes.bullet_list | nodes.enumerated_list):
            ordered = isinstance(node, nodes.enumerated_list)
            # An item of nothing shown (an ``autoclass``) is no item.
            items = [text for text in map(_flat, node.children) if text]
            return [
                "\n".join(
                    f"{f'{n}.' if ordered else '-'} {text}" for n, text in enumerate(items, start=1)
                )
            ]
        if isinstance(node, nodes.definition_list | nodes.field_list | nodes.option_list):
            return ["\n".join(f"{_flat(i.children[0])}: {_flat(i.children[-1])}" for i in node)]
        if isinstance(node, nodes.table):
            rows = [" | ".join(map(_flat, row.children)) for row in node.findall(nodes.row)]
            return ["\n".join(rows)]
        if isinstance(node, nodes.line_block):
            return ["\n".join(" ".join(line.astext().split()) for line in node.findall(nodes.line))]
        if isinstance(node, nodes.Admonition):
            label = node.tagname.capitalize() if node.tagname != "admonition" else ""
            inner = [b for child in node.children for b in self._blocks(child) if b.strip()]
            if label and inner:
                inner[0] = f"{label}: {inner[0]}"
            return inner
        if isinstance(node, nodes.Element) and any(
            isinstance(child, nodes.Body) for child in node.children
        ):
            # A container of body elements (a block quote, a topic, a figure): each of them.
            return [
                b
                for child in node.children
                if not isinstance(child, self._skip)
                for b in self._blocks(child)
            ]
        return [_flat(node)]


def _flat(node: Any) -> str:
    return " ".join(node.astext().split())
