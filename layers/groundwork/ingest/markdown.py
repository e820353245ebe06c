"""Markdown: front matter for metadata, headings for structure, paragraphs for passages.

Passages keep their Markdown as written, so a citation quotes the file exactly, but for what a
reader of the rendered page never sees: HTML comments (``<!-- markdownlint-disable … -->``),
MkDocs' ``::: package.name`` directives, which stand for API documentation made elsewhere, and
HTML tags (``<aside class="pquote">``, ``<img …>``, ``<a name="…"></a>``), whose text is kept,
and HTML character references (``c&oacute;digo``, ``&lt;2 weeks``), which are decoded outside
code: an answer quoting the page quotes what it shows. An HTML heading standing as a block
(``<h3 name="config">`` … ``</h3>``, as READMEs and FAQs on GitHub write them) is a heading.
An admonition's marker (``!!! warning``) is shown as its title ("Warning:"), and so is a content
tab's (``=== "Windows"``). What a page never shows is no passage: a thematic break (``---``),
a link reference definition (``[docs]: https://…``) and a MyST target label (``(install)=``).

MyST's directives (```` ```{note} ````, ``:::{tip}``, as Sphinx sites written in Markdown use
them) are read as Sphinx renders them: an admonition or a version note is prose under its title
("Note:", "Changed in version 8.4.0:"), a ``{code-block} python`` is a code block, and what
renders as no text of the page (``{toctree}``, ``{contents}``, ``{currentmodule}``,
``{image}``) is none; an ``{eval-rst}`` block is read as reStructuredText
(:func:`groundwork.ingest.rst.rst_blocks`), and any other directive stays a code block, as
written. The options that open
a directive's body (``:caption: app.py``) are not shown, and a role shows its text as Sphinx
does (``{meth}`~click.Context.invoke``` as ```invoke()```, ``{ref}`the options <options>```
as "the options").
"""

from __future__ import annotations

import html
import re

from groundwork.ingest.document import (
    Document,
    TextBuilder,
    answer_of,
    is_content,
    nested,
    pack,
    slug,
)
from groundwork.ingest.rst import VERSION_TITLES, rst_blocks

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
# "Title" over a line of "=" (level 1) or "-" (level 2): a setext heading.
_UNDERLINE = re.compile(r"^\s{0,3}(=+|-+)\s*$")
_FENCE = re.compile(r"^(```|~~~)")
# A list item or a quote: a line of "-" under it ends it (a rule), it does not underline it.
_CONTAINER = re.compile(r"^\s{0,3}(?:[-*+]\s|\d{1,9}[.)]\s|>)")
# An HTML heading opening a line; its text runs to "</hN>", on this line or later ones.
_HTML_HEADING = re.compile(r"^\s{0,3}<h([1-6])(?:\s[^<>]*)?>(.*)$", re.IGNORECASE)
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(\*\*|__|\*|_)(?=\S)(.+?)(?<=\S)\1")
# An HTML comment, outside inline code (kept as group 1); an unclosed one runs on.
_COMMENT = re.compile(r"(`+[^`]*`+)|<!--.*?(?:-->|$)")
# mkdocstrings' "::: httpx.Client" (its options indented under it).
_DIRECTIVE = re.compile(r"^:::\s+[\w.]+\s*$")
# HTML's own elements: a "<T>" of a sentence about generics, or an autolink "<https://…>", is
# text.
_ELEMENTS = (
    r"a|abbr|aside|b|big|blockquote|br|center|cite|code|dd|del|details|div|dl|dt|em|embed"
    r"|figcaption|figure|font|h[1-6]|hr|i|iframe|img|input|ins|kbd|label|li|mark|ol|p|picture|q"
    r"|s|section|small|source|span|strike|strong|sub|summary|sup|table|tbody|td|th|thead|tr|u|ul"
    r"|video"
)
# An HTML tag outside inline code (kept as group 1).
_TAG = re.compile(rf"(`+[^`]*`+)|</?(?:{_ELEMENTS})(?:\s[^<>]*)?/?>", re.IGNORECASE)
# A line opening a tag whose attributes run on past it ("<iframe" over lines of "src=…", then
# ">"), as an HTML block does; within a sentence "x <b then" is text.
_OPEN_TAG = re.compile(rf"^\s*<(?:{_ELEMENTS})(?:\s[^<>]*)?$", re.IGNORECASE)
# MkDocs' (and Python-Markdown's) admonition: "!!! note", "!!! tip \"Gotcha\"", "??? warning".
_ADMONITION = re.compile(r'^(\s*)(?:!!!|\?\?\?\+?)\s+([\w-]+)(?:\s+"([^"]*)")?\s*$')
# GitHub's alert, a quote that opens with its kind: "> [!NOTE]", "> [!IMPORTANT] Read this."
_ALERT = re.compile(r"^(\s{0,3}>\s?)\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\][ \t]*(.*)$", re.I)
# pymdownx.tabbed's content tab: '=== "Windows"', its content indented under it.
_TAB = re.compile(r'^(\s*)===!?\s+"([^"]*)"\s*$')
# Lines the rendered page never shows, where a block would start: a thematic break, a link
# reference definition ("[docs]: https://…", read where the page links "[the docs][docs]"), a
# MyST target label ("(install)=", which Sphinx links to) and a block's attributes
# ("{.hide-header}", "{#intro .lead}", MyST's attrs_block), which style the block after them.
_UNSHOWN = re.compile(
    r"^\s{0,3}(?:([-*_])(?:\s*\1){2,}|\[[^\]]+\]:\s+\S+(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?"
    r"|\([\w.:-]+\)=|\{(?:\s*(?:[.#][\w-]+|[\w-]+=(?:\"[^\"]*\"|\S+)))+\s*\})\s*$"
)
# A character reference ("&eacute;", "&#160;", "&#x2014;") outside inline code (kept as group 1).
_REFERENCE = re.compile(
    r"(`+[^`]*`+)|&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});"
)
# A MyST directive's opening fence: "```{note} text", "````{code-block} python", ":::{tip}".
_MYST = re.compile(r"^\s{0,3}(`{3,}|~{3,}|:{3,})\{([\w:-]+)\}\s*(.*?)\s*$")
# An option opening a directive's body (":caption: app.py", ":class: hint").
_MYST_OPTION = re.compile(r"^\s*:[\w-]+:(?:\s.*)?$")
# Directives read as prose: Sphinx's admonitions and version notes, with the title they show.
_MYST_PROSE = {
    "admonition": "",
    "attention": "Attention",
    "caution": "Caution",
    "danger": "Danger",
    "error": "Error",
    "hint": "Hint",
    "important": "Important",
    "note": "Note",
    "seealso": "See also",
    "tip": "Tip",
    "warning": "Warning",
    **VERSION_TITLES,
    "topic": "",
    "sidebar": "",
}
_MYST_CODE = frozenset({"code", "code-block", "code-cell", "sourcecode"})
# Directives that render as no text of the page, or as text made elsewhere.
_MYST_UNSHOWN = frozenset(
    {"contents", "currentmodule", "image", "include", "literalinclude", "module", "toctree"}
)
# A run of backticks, which opens a code span and closes the one opened by as many; a MyST
# role is a name in braces right before a code span ("{func}`click.echo`").
_TICKS = re.compile(r"`+")
_ROLE_NAME = re.compile(r"\{(?:[\w-]+:)?([\w-]+)\}$")
# Roles that show their text as prose, not as code; a reference without a title shows its label.
_PROSE_ROLES = frozenset({"abbr", "doc", "download", "numref", "ref", "sub", "sup", "term"})
_FRONT_MATTER_KEYS = ("title", "author", "year", "url", "language", "period_start", "period_end")

PASSAGE_CHARS = 900


def parse_markdown(text: str) -> Document:
    document = Document()
    body = _front_matter(text, document)
    built = TextBuilder()
    outline: list[tuple[int, str]] = []
    path: list[str] = []
    anchor: str | None = None
    paragraphs: list[str] = []

    def flush() -> None:
        for piece, reference in pack(paragraphs, PASSAGE_CHARS):
            text, questions = answer_of(piece)
            for question in questions[:1]:
                built.add(question)
            document.passages.append(built.passage(text, path + questions[:1], anchor, reference))
        paragraphs.clear()

    for block in _blocks(body):
        heading = _heading(block)
        if heading:
            flush()
            level, title = heading[0], _decoded(heading[1])
            if level == 1 and document.title is None:
                document.title = title
            outline = nested(outline, level, title)
            path = [t for _, t in outline]
            anchor = slug(title)
            built.add(title)
        elif is_content(block):
            paragraphs.append(block if _FENCE.match(block) else _decoded(_roles(block)))
    flush()
    document.text = built.text
    return document


def _heading(block: str) -> tuple[int, str] | None:
    """An ATX (``## Title``) or setext (``Title`` over ``=====``) heading's level and text."""
    lines = block.split("\n")
    if len(lines) == 1:
        atx = _HEADING.match(block)
        return (len(atx.group(1)), _inline(_roles(atx.group(2)))) if atx else None
    underline = _UNDERLINE.match(lines[-1])
    if underline and not _FENCE.match(lines[0].strip()) and not _CONTAINER.match(lines[0]):
        title = " ".join(lines[:-1]).strip()
        return (1 if underline.group(1)[0] == "=" else 2), _inline(_roles(title))
    return None


def _front_matter(text: str, document: Document) -> str:
    if not text.startswith("---\n"):
        return text
    end = text.find("\n---", 4)
    if end < 0:
        return text
    for line in text[4:end].splitlines():
        key, _, value = line.partition(":")
        key, value = key.strip().lower(), value.strip().strip("\"'")
        if key in _FRONT_MATTER_KEYS and value:
            setattr(document, key, _decoded(value))
        elif key == "tags" and value:
            document.tags = [t.strip() for t in value.strip("[]").split(",") if t.strip()]
    return text[end + 4 :]


def _blocks(body: str) -> list[str]:
    """Paragraphs, headings and fenced code blocks, each as one block."""
    blocks: list[str] = []
    current: list[str] = []
    fenced = False
    commented = False
    heading: tuple[int, list[str]] | None = None  # an HTML heading's level and text so far
    in_tag = False  # inside a tag whose attributes run on over lines
    # The MyST directives open around the line (their closing fence, whether they show no
    # text, the title they show), and whether it is among the options that open a body.
    directives: list[tuple[str, bool, str]] = []
    options = yaml_options = False  # the options may be a block of YAML between "---" lines
    rst: tuple[str, list[str]] | None = None  # an eval-rst block's fence and lines so far

    def end() -> None:
        if current:
            blocks.append("\n".join(current))
            current.clear()

    for line in body.splitlines():
        if rst is not None:
            if _closes(line.strip(), rst[0]):
                blocks.extend(rst_blocks("\n".join(rst[1])))
                rst = None
            else:
                rst[1].append(line)
            continue
        if not fenced:
            line, commented, hidden = _visible(line, commented)
            if hidden:
                continue
            line, in_tag = _outside_tags(line, in_tag)
            opened = None if heading else _HTML_HEADING.match(line)
            if opened:
                end()
                heading, line = (int(opened.group(1)), []), opened.group(2)
            if heading:
                level, text = heading
                closed = re.search(rf"</h{level}\s*>", line, re.IGNORECASE)
                text.append(_shown(line[: closed.start()] if closed else line))
                # As an HTML block, the heading ends at its closing tag or a blank line.
                if not closed and (opened or line.strip()):
                    continue
                title = " ".join(" ".join(text).split())
                if title:
                    blocks.append(f"{'#' * level} {title}")
                heading = None
                line = line[closed.end() :] if closed else ""
            line = _shown(line)
        if yaml_options or (options and line.strip() == "---"):
            yaml_options = not (yaml_options and line.strip() == "---")
            continue
        if options and (not line.strip() or _MYST_OPTION.match(line)):
            continue
        options = False
        if not fenced and directives and _closes(line.strip(), directives[-1][0]):
            title = directives.pop()[2]
            if current == [title] and title.endswith(":"):  # a title over no body ends there
                current[0] = f"{title[:-1]}."
            end()
            continue
        if directives and directives[-1][1]:
            continue
        myst = None if fenced else _MYST.match(line)
        if myst:
            fence, kind, argument = myst.groups()
            if kind == "eval-rst" and fence[0] != ":":
                end()
                rst = (fence, [argument] if argument else [])
                continue
            options = True
            if kind in _MYST_CODE and fence[0] != ":":
                current.append(f"{fence}{argument}")
                fenced = True
                continue
            if kind in _MYST_PROSE or kind in _MYST_UNSHOWN or fence[0] == ":":
                end()
                title = _myst_title(_MYST_PROSE.get(kind, ""), argument)
                directives.append((fence, kind in _MYST_UNSHOWN, title))
                if title and kind not in _MYST_UNSHOWN:
                    current.append(title)
                continue
        if _FENCE.match(line.strip()):
            current.append(line)
            fenced = not fenced
            if not fenced:
                end()
            continue
        if fenced:
            current.append(line)
        elif not line.strip():
            end()
        elif not current and _UNSHOWN.match(line):
            continue
        elif _HEADING.match(line):
            end()
            blocks.append(line)
        else:
            current.append(line)
            # A setext underline ends its heading even where no blank line follows.
            if len(current) > 1 and _UNDERLINE.match(line) and _heading("\n".join(current)):
                end()
    end()
    if rst is not None:  # a block the file leaves open runs to its end
        blocks.extend(rst_blocks("\n".join(rst[1])))
    return [b.strip() for b in blocks if b.strip() and not _DIRECTIVE.match(b.split("\n")[0])]


def _closes(line: str, fence: str) -> bool:
    """The line closes a fence: a run of its character at least as long (```` closes ```)."""
    return len(line) >= len(fence) and line == fence[0] * len(line)


def _myst_title(title: str, argument: str) -> str:
    """What a prose directive shows above its body: its title and argument ("Note: Use…",
    "Changed in version 8.4.0:"), or the argument alone (an admonition's own title)."""
    if not title:
        return argument if argument[-1:] in ("", *".:?!") else f"{argument}:"
    if title.endswith(" version"):
        return f"{title} {argument}:"
    return f"{title}: {argument}".strip()


def _visible(line: str, commented: bool) -> tuple[str, bool, bool]:
    """The line without its HTML comments; whether a comment runs on past it; whether the
    line held nothing but comments (it is then no line at all, not a paragraph's end)."""
    original = line
    if commented:
        end = line.find("-->")
        if end < 0:
            return "", True, True
        line = line[end + 3 :]
    if "<!--" not in line:
        return line, False, commented and not line.strip()
    opened = False

    def drop(match: re.Match[str]) -> str:
        nonlocal opened
        if match.group(1):
            return match.group(1)
        opened = not match.group(0).endswith("-->")
        return ""

    line = _COMMENT.sub(drop, line).rstrip()
    return line, opened, bool(original.strip()) and not line.strip()


def _outside_tags(line: str, in_tag: bool) -> tuple[str, bool]:
    """The line less a tag that runs on over lines (its lines are a line of tags alone: a
    paragraph's end); whether the tag runs on past it. A blank line ends it, as it ends an
    HTML block: a line that only looked like one swallows its paragraph at most."""
    if in_tag:
        end = line.find(">")
        if end < 0:
            return "", bool(line.strip())
        line = line[end + 1 :]
    if _OPEN_TAG.match(line):
        return "", True
    return line, False


def _shown(line: str) -> str:
    """The line as the rendered page shows it: without HTML tags (a line of nothing else is a
    paragraph's end), an admonition's, a GitHub alert's or a content tab's marker as its
    title."""
    admonition = _ADMONITION.match(line)
    if admonition:
        indent, kind, title = admonition.groups()
        title = kind.capitalize() if title is None else title.strip()
        return f"{indent}{title}:" if title else ""
    alert = _ALERT.match(line)
    if alert:
        quote, kind, text = alert.groups()
        return f"{quote}{kind.capitalize()}: {text}".rstrip()
    tab = _TAB.match(line)
    if tab:
        return f"{tab.group(1)}{tab.group(2).strip()}:" if tab.group(2).strip() else ""
    if "<" not in line:
        return line
    return _TAG.sub(lambda m: m.group(1) or (" " if m.group(0)[1:3].lower() == "br" else ""), line)


def _roles(text: str) -> str:
    """MyST's roles as Sphinx shows them: "{meth}`~click.Context.invoke`" as
    "`invoke()`", "{ref}`the options <options>`" as "the options", "{pep}`538`" as "PEP 538".
    Code spans are paired in one pass (a pattern would rescan the text after every backtick
    that closes nothing), and a role inside one is code."""
    if "}`" not in text:
        return text
    runs = [m.span() for m in _TICKS.finditer(text)]
    closing: dict[int, int] = {}  # a run's index → the next run's as long
    following: dict[int, int] = {}
    for i in range(len(runs) - 1, -1, -1):
        length = runs[i][1] - runs[i][0]
        if length in following:
            closing[i] = following[length]
        following[length] = i
    pieces: list[str] = []
    done = i = 0
    while i < len(runs):
        j = closing.get(i)
        if j is None:
            i += 1
            continue
        start = runs[i][0]
        name = _ROLE_NAME.search(text, max(done, start - 40), start)
        if name:
            pieces += [text[done : name.start()], _role(name[1], text[runs[i][1] : runs[j][0]])]
            done = runs[j][1]
        i = j + 1
    return "".join(pieces) + text[done:]


def _role(role: str, content: str) -> str:
    """What Sphinx shows for a role: a name in code, a reference's title or label in prose."""
    content = " ".join(content.split())
    titled = re.fullmatch(r"(.+?)\s*<[^<>]+>", content)
    if role in ("pep", "rfc"):
        return f"{role.upper()} {content}"
    if role in _PROSE_ROLES:
        return titled[1] if titled else content
    if titled:
        content = titled[1]
    elif content.startswith("~"):
        content = content[1:].rsplit(".", 1)[-1]
    elif content.startswith("!"):
        content = content[1:]
    if role in ("func", "meth") and not content.endswith(")"):
        content += "()"
    return f"`{content}`"


def _decoded(text: str) -> str:
    """Character references decoded, but in inline code, which shows them as written. Only
    after the blocks are found: a decoded "&#35;" opens no heading."""
    if "&" not in text:
        return text
    return _REFERENCE.sub(lambda m: m.group(1) or html.unescape(m.group(0)), text)


def _inline(text: str) -> str:
    text = _LINK.sub(r"\1", text)
    text = _EMPHASIS.sub(r"\2", text)
    return text.replace("`", "")
