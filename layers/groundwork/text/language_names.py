"""English names of the languages the service detects, by ISO 639-1 code."""

from __future__ import annotations

NAMES = {
    "ar": "Arabic", "cs": "Czech", "da": "Danish", "de": "German", "el": "Greek",
    "en": "English", "es": "Spanish", "fi": "Finnish", "fr": "French", "he": "Hebrew",
    "hi": "Hindi", "hu": "Hungarian", "it": "Italian", "ja": "Japanese", "ko": "Korean",
    "nl": "Dutch", "pl": "Polish", "pt": "Portuguese", "ro": "Romanian", "ru": "Russian",
    "sv": "Swedish", "tr": "Turkish", "uk": "Ukrainian", "zh": "Chinese",
}  # fmt: skip


def language_code(value: str) -> str | None:
    """``value`` as an ISO 639-1 code (two letters, any case, spaces around ignored), else None.

    What callers may give wherever a language is named: requests, the starters route, the CLI,
    a document's declared language.
    """
    code = value.strip().lower()
    return code if len(code) == 2 and code.isascii() and code.isalpha() else None
