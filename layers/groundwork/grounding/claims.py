"""An answer candidate cut into claims (one sentence each) with UTF-8 byte offsets."""

from __future__ import annotations

import re
from dataclasses import dataclass

from groundwork.grounding.features import analyse
from groundwork.text.sentences import split_sentences

# Sentences about the answer itself rather than the world: greetings, "Here is what I found.",
# offers of help, thanks, hedges with no content.
_NO_FACT = re.compile(
    r"""^\W*(?:
        (?:hi|hello|hey|greetings|good\ (?:morning|afternoon|evening)|thanks?|thank\ you|sure|
           certainly|of\ course|absolutely|okay|ok|great|yes|no|sorry)\b[\s\W]*(?:there)?\W*$
      | (?:here(?:\ is|\ are|['’]s)|below\ (?:is|are)|these\ are|this\ is|
         the\ following\ (?:is|are))
        \b.{0,60}\b(?:found|find|summary|answer|information|results?|overview|list|details|
        what\ (?:i|we)\ (?:know|have|could))\b
      | (?:i|we)\ (?:found|searched|looked|checked|have\ found|could\ find)\b
      | (?:based\ on|according\ to)\ (?:the|these|your|my)\ (?:documents?|sources?|facts|
        results?|information|context|search)\b[^,]*$
      | (?:i\ hope|hope)\ (?:this|that|it)\ helps
      | (?:let\ me\ know|feel\ free|don't\ hesitate|do\ not\ hesitate|please\ (?:let|ask|tell))
      | (?:(?:i|we)\ (?:can|could|would\ be\ happy\ to|am\ happy\ to|'d\ be\ happy\ to)\ (?:also\ )?
        (?:help|assist|provide|explain|look|tell|give|find))
      | (?:is\ there\ anything|anything\ else|would\ you\ like|do\ you\ want|shall\ i|should\ i)
      | (?:i\ don't\ know|i\ do\ not\ know|i\ am\ not\ sure|i'm\ not\ sure)
    )""",
    re.IGNORECASE | re.VERBOSE,
)

# A longer sentence that opens like one of those still carries content ("I found that ...").
_MAX_META_WORDS = 14


@dataclass(frozen=True)
class ClaimSpan:
    start_pos: int  # UTF-8 byte offsets, end exclusive
    end_pos: int
    text: str
    check_required: bool


def split_claims(candidate: str) -> list[ClaimSpan]:
    """One claim per sentence of ``candidate``."""
    claims: list[ClaimSpan] = []
    byte_pos = 0
    char_pos = 0
    for span in split_sentences(candidate):
        # Count bytes incrementally: the candidate may be long and is walked once.
        byte_pos += _utf8_length(candidate[char_pos : span.start])
        start = byte_pos
        byte_pos += _utf8_length(span.text)
        char_pos = span.end
        claims.append(ClaimSpan(start, byte_pos, span.text, check_required(span.text)))
    return claims


def check_required(sentence: str) -> bool:
    """False for a sentence that states no fact: a greeting, a question, an offer of help."""
    stripped = sentence.strip()
    if stripped.endswith(("?", "？")):
        return False
    if len(stripped.split()) <= _MAX_META_WORDS and _NO_FACT.search(stripped):
        return False
    return bool(analyse(stripped).stems)


def _utf8_length(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))
