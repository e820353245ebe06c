"""Questions a document suggests about itself, before any of them is tried.

Two kinds: a Q/A-shaped text's own questions (a catechism's "Q. 126. What do we mean by…?"),
and questions built from its headings, in the document's language. Passages and headings of
boilerplate (a licence, a transcriber's note, a preface) never suggest anything.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from groundwork.chat.language import detect_language
from groundwork.text.language_names import language_code
from groundwork.text.terms import STOPWORDS, terms, words

if TYPE_CHECKING:
    from groundwork.ingest.document import Document, Passage

#: A text is Q/A-shaped when at least this many of its passages, and this share of them,
#: open with a question; an essay's rhetorical questions are far fewer.
QA_MIN = 3
QA_SHARE = 0.25
#: Longest question proposed, in words.
_QUESTION_WORDS = 15
#: Text read to detect a document's language.
_SAMPLE_CHARS = 3000

_BOILERPLATE = re.compile(
    r"gutenberg|transcriber|produced by|e-?texts?\b|licen[cs]e|copyright|all rights reserved"
    r"|www\.|https?://|\bisbn\b|urheberrecht|impressum",
    re.IGNORECASE,
)
_BOILERPLATE_HEADINGS = re.compile(
    r"^(notes?|preface|foreword|(?:general\s+)?introduction|conclusion|einleitung|contents"
    r"|table of contents|index|appendix|acknowledge?ments?"
    r"|about|license|licence|copyright|bibliography|references|vorwort|inhalt"
    r"|inhaltsverzeichnis|anmerkungen?|anhang|sommaire|préface|índice|prólogo)\b",
    re.IGNORECASE,
)
# "Q. 126. What…?", "126. What…?", "Q: What…?", "Frage 3: Was…?"
_QUESTION_PREFIX = re.compile(
    r"^\s*(?:(?:Q|F|Frage|Question|Pregunta)\s*[.:]?\s*)?(?:\d{1,4}\s*[.:)]\s*)?"
    r"(?:\{\d+\}\s*)?",
    re.IGNORECASE,
)
_QUESTION = re.compile(r"^([^\n?]{8,200}\?)")
# "FEDERALIST No. 10.", "LESSON FIRST.", "Chapter 3:", "2.1", "§ 4"
_NUMBERING = re.compile(
    r"^\s*(?:(?:[A-Z][A-Za-z]*\s+No\.\s*\d+[.:]?)"
    r"|(?:(?:lesson|chapter|part|book|lektion|kapitel|teil|chapitre|capítulo)\s+[\w-]+[.:])"
    r"|(?:§\s*\d+[.:]?)|(?:\d+(?:\.\d+)*[.:)]?))\s+",
    re.IGNORECASE,
)
_INNER_CAPITALISED = re.compile(r"(?<=[\w,;] )([^\W\d_][^\W\d_]{3,})")
_CONTINUED = re.compile(r"^(.*\bcontinued\b.*|.*\bfortsetzung\b.*)\((.+)\)\s*$", re.IGNORECASE)
# "The Powers of the Senate Continued", "… Further Considered", "… Considered and Answered"
_AFTERTHOUGHT = re.compile(
    r",?\s+(?:continued|(?:further\s+)?considered(?:\s+and\s+answered)?|examined(?:\s+and"
    r"\s+sustained)?)\s*$",
    re.IGNORECASE,
)
_SAME_SUBJECT = re.compile(r"^the same subject continued,?\s+(?:and\s+)?", re.IGNORECASE)
_LEADING = re.compile(
    r"^(?:on|of|concerning|about|regarding|über|von|zu|sur|de|sobre)\s+", re.IGNORECASE
)
# Headings of code-heavy text that no person would ask about as written: markup and code
# ("* ``attached``", "os.path.join()", "--verbose", "max_tokens", "a = b", "<div>").
_CODE_LIKE = re.compile(
    r"[`*=<>{}\[\]|\\$#~^]|\(\)|(?:^|\s)--?\w|[a-z0-9]_[a-z0-9]|[a-z_]\.[a-z_]|::"
)
# "Article 1", "ARTICLE THREE", "Section 8", "Amendment XIV", "Artikel 3", "§ 4"
_REFERENCE = re.compile(
    r"^(?:article|section|amendment|clause|chapter|part|artikel|abschnitt|kapitel|absatz"
    r"|chapitre|capítulo|artículo|sección|§)\s*[\w-]+\.?$",
    re.IGNORECASE,
)

#: Templates by language: about a topic, and about a numbered part of the text.
TOPIC_TEMPLATES = {
    "en": "What is said about {topic}?",
    "de": "Was sagen die Dokumente zu „{topic}“?",
    "fr": "Que disent les documents sur « {topic} » ?",
    "es": "¿Qué dicen los documentos sobre «{topic}»?",
}
REFERENCE_TEMPLATES = {
    "en": "What does {reference} say about {term}?",
    "de": "Was sagt {reference} über {term}?",
    "fr": "Que dit {reference} sur {term} ?",
    "es": "¿Qué dice {reference} sobre {term}?",
}


@dataclass(frozen=True)
class Candidate:
    text: str
    language: str | None
    #: The passage it comes from, for spreading the chosen ones over the document.
    position: int
    kind: Literal["question", "heading"]


def document_language(document: Document) -> str | None:
    """Detected from the body; the declared language only when the text tells nothing."""
    sample = ""
    for passage in document.passages:
        if not is_boilerplate(passage.text):
            sample += passage.text + "\n"
        if len(sample) >= _SAMPLE_CHARS:
            break
    return detect_language(sample) or language_code(document.language or "")


def is_boilerplate(text: str) -> bool:
    return bool(_BOILERPLATE.search(text))


def candidates(document: Document, language: str | None) -> list[Candidate]:
    """Questions first when the text is Q/A-shaped, else questions from its headings."""
    asked = _own_questions(document, language)
    if len(asked) >= max(QA_MIN, QA_SHARE * len(document.passages)):
        return asked
    return [c for c in asked if c.kind == "heading"] + _heading_questions(document, language)


def _own_questions(document: Document, language: str | None) -> list[Candidate]:
    """Questions opening a passage, or asked by its heading (a FAQ's); the kind says which."""
    found = []
    for position, passage in enumerate(document.passages):
        if is_boilerplate(passage.text):
            continue
        heading = passage.heading_path[-1] if passage.heading_path else ""
        for text, kind in ((heading, "heading"), (passage.text, "question")):
            question = _question_in(text)
            if question:
                found.append(Candidate(question, language, position, kind))  # type: ignore[arg-type]
                break
    return _unique(found)


def _question_in(text: str) -> str | None:
    match = _QUESTION.match(_QUESTION_PREFIX.sub("", text.strip(), count=1))
    if not match:
        return None
    question = " ".join(match.group(1).split())
    # A starter is read at a glance: a long question is left to the documents.
    return question if 3 <= len(question.split()) <= _QUESTION_WORDS else None


def _heading_questions(document: Document, language: str | None) -> list[Candidate]:
    if language not in TOPIC_TEMPLATES:
        return []
    sections: dict[tuple[str, ...], list[tuple[int, Passage]]] = {}
    for position, passage in enumerate(document.passages):
        if passage.heading_path and not is_boilerplate(passage.text):
            sections.setdefault(tuple(passage.heading_path), []).append((position, passage))
    frequency = Counter(t for section in sections.values() for t in _section_terms(section))
    found = []
    for path, section in sections.items():
        text = _heading_question(path, section, frequency, len(sections), language, document.title)
        if text:
            found.append(Candidate(text, language, section[0][0], "heading"))
    return _unique(found)


def _heading_question(
    path: tuple[str, ...],
    section: list[tuple[int, Passage]],
    frequency: Counter[str],
    total: int,
    language: str,
    title: str | None,
) -> str | None:
    heading = path[-1].strip()
    if (
        _BOILERPLATE_HEADINGS.match(heading)
        or is_boilerplate(heading)
        or _CODE_LIKE.search(heading)
    ):
        return None
    if _REFERENCE.match(heading):
        if _is_list_of_names(section):
            return None
        term = _distinctive_term(section, frequency, total)
        parts = [p for p in path[-2:] if _REFERENCE.match(p.strip())]
        reference = ", ".join(_title_case(p.strip()) for p in parts)
        return (
            REFERENCE_TEMPLATES[language].format(reference=reference, term=term) if term else None
        )
    topic = _topic(heading, language)
    if topic is None or (title and topic.casefold() == title.casefold()):
        return None
    return TOPIC_TEMPLATES[language].format(topic=topic)


def _topic(heading: str, language: str) -> str | None:
    topic = _NUMBERING.sub("", heading, count=1)
    continued = _CONTINUED.match(topic)
    if continued:
        topic = continued.group(2)
    topic = _SAME_SUBJECT.sub("", topic)
    topic = _LEADING.sub("", topic.strip(" .:;,-–—")).strip(" .:;,-–—")
    topic = _AFTERTHOUGHT.sub("", topic)
    if _BOILERPLATE_HEADINGS.match(topic):
        return None
    content = [w for w in words(topic) if w not in STOPWORDS and not w.isdigit()]
    if not 2 <= len(content) <= 10 or any(ch.isdigit() for ch in topic):
        return None
    if language == "en":
        shouting = topic.isupper()
        return " ".join(w.lower() if shouting else _lower(w) for w in topic.split())
    return topic


def _lower(word: str) -> str:
    """English Title Case words are lower case in a sentence; an acronym or a name with an
    inner capital (GET, DynamoDB) is kept."""
    return word if any(ch.isupper() for ch in word[1:]) else word.lower()


def _title_case(reference: str) -> str:
    return reference.title() if reference.isupper() else reference


def _section_terms(section: list[tuple[int, Passage]]) -> set[str]:
    return {t for _, passage in section for t in terms(passage.text) if t.isalpha()}


def _is_list_of_names(section: list[tuple[int, Passage]]) -> bool:
    """Signatures, a list of members: mostly capitalised words."""
    found: list[str] = [w for _, p in section for w in re.findall(r"[^\W\d_]+", p.text)]
    return sum(1 for w in found if w[0].isupper()) > 0.5 * len(found)


def _distinctive_term(
    section: list[tuple[int, Passage]], frequency: Counter[str], total: int
) -> str | None:
    """The section's noun (a word capitalised inside a sentence: a name, or any noun in older
    English and in German) used most in it and least elsewhere, as written most often;
    None when it has none used twice. Kept as written: a name keeps its capital."""
    counts: Counter[str] = Counter()
    surface: dict[str, Counter[str]] = {}
    for _, passage in section:
        for match in _INNER_CAPITALISED.finditer(passage.text):
            word = match.group(1)
            if not word[0].isupper() or word.lower() in STOPWORDS:
                continue
            key = (terms(word) or [word.lower()])[0]
            counts[key] += 1
            surface.setdefault(key, Counter())[word] += 1
    ranked = sorted(
        (key for key in counts if counts[key] >= 2),
        key=lambda key: (-counts[key] * math.log(1 + total / max(frequency[key], 1)) ** 2, key),
    )
    if not ranked:
        return None
    return surface[ranked[0]].most_common(1)[0][0]


def _unique(found: list[Candidate]) -> list[Candidate]:
    seen: set[str] = set()
    kept = []
    for candidate in found:
        key = candidate.text.casefold()
        if key not in seen:
            seen.add(key)
            kept.append(candidate)
    return kept
