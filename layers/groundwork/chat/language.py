"""The answer's language: the one asked for, or the question's, detected by py3langid.

py3langid ships its model inside the package, so nothing downloads at run time. Detection is
limited to widely used languages: over all 97 of its languages, short questions land on close
neighbours (Russian read as Bulgarian). Below the confidence floor nothing is claimed.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from py3langid.langid import LanguageIdentifier

LANGUAGES = "ar cs da de el en es fi fr he hi hu it ja ko nl pl pt ro ru sv tr uk zh".split()
#: Normalised probability under which a detection is not trusted ("ok" is 0.2 English).
_FLOOR = 0.5
#: Characters read: as many say which language it is as the whole text does, and py3langid
#: counts features in uint16, which overflows past 65,535 occurrences of one.
_SAMPLE_CHARS = 2000


def answer_language(requested: str | None, question: str) -> str | None:
    """``requested`` (an ISO 639-1 code, ``auto`` already mapped to None) or the detected one."""
    return requested or detect_language(question)


def detect_language(text: str) -> str | None:
    if not text.strip():
        return None
    code, probability = _identifier().classify(text[:_SAMPLE_CHARS])
    return str(code) if float(probability) >= _FLOOR else None


@lru_cache(maxsize=1)
def _identifier() -> LanguageIdentifier:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_pickled_model(MODEL_FILE, norm_probs=True)
    identifier.set_languages(LANGUAGES)
    return identifier
