"""Token counts for ``usage``: word pieces of the MiniLM tokenizer, which the service runs."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tokenizers import Tokenizer

_TOKENIZER = Path(__file__).parents[1] / "embeddings" / "minilm_tokenizer.json"


@lru_cache(maxsize=1)
def _tokenizer() -> Tokenizer:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(_TOKENIZER))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def count_tokens(*texts: str) -> int:
    """Word pieces in ``texts``, without the special tokens the model adds."""
    return sum(len(e.ids) for e in _tokenizer().encode_batch(list(texts), add_special_tokens=False))
