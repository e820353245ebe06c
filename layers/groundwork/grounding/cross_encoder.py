"""The trained verifier: a small MiniLM cross-encoder reads (evidence, claim) and says how fully
the evidence supports the claim.

The heuristic still chooses the evidence (an inverted index over the claims' words: fast
whatever the facts' length); the model then reads each claim with the passages chosen for it,
best first, cut to its token budget. ``blend`` weighs the heuristic's score against the model's:
0 is the model alone, 0.5 the two averaged. ``max_claims`` bounds the model's share of a long
candidate (docs/grounding.md). Weights, calibration and the model card are in a folder named
by ``GROUNDWORK_VERIFIER_WEIGHTS``, written by ``scripts/train_verifier.sh`` (this repository
keeps them in ``models/verifier/``): an experiment, not shipped in the layers, since on held-out
claims it scores no better than chance (docs/grounding.md).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from groundwork.grounding.base import Passage, Support, Verifier
from groundwork.grounding.heuristic import HeuristicVerifier

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy.typing as npt

#: The files a weights folder holds.
MODEL_FILE = "verifier-int8.onnx"
CARD_FILE = "verifier.json"
_TOKENIZER = Path(__file__).parents[1] / "embeddings" / "minilm_tokenizer.json"


class CrossEncoder:
    """The int8 ONNX model, run by onnxruntime: P(premise fully supports hypothesis)."""

    def __init__(self, weights: Path, *, threads: int = 1, batch_size: int = 16) -> None:
        # Heavy imports stay here so that importing the package stays cheap at cold start.
        import onnxruntime as ort
        from tokenizers import Tokenizer

        card = json.loads((weights / CARD_FILE).read_text(encoding="utf-8"))
        self._scale = float(card["calibration"]["scale"])
        self._shift = float(card["calibration"]["shift"])
        options = ort.SessionOptions()
        # One core per request is the Lambda and latency budget (docs/grounding.md).
        options.intra_op_num_threads = threads
        self._session = ort.InferenceSession(
            str(weights / MODEL_FILE), options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = Tokenizer.from_file(str(_TOKENIZER))
        self._tokenizer.enable_truncation(
            max_length=int(card["max_tokens"]), strategy="longest_first"
        )
        self._batch_size = batch_size

    def score(self, pairs: Sequence[tuple[str, str]]) -> npt.NDArray[np.float64]:
        """Calibrated probabilities, one per (premise, hypothesis) pair."""
        out = np.zeros(len(pairs), dtype=np.float64)
        encodings = self._tokenizer.encode_batch(list(pairs))
        # Sorting by length keeps padding small inside each batch.
        order = sorted(range(len(pairs)), key=lambda i: len(encodings[i].ids))
        for first in range(0, len(order), self._batch_size):
            chunk = order[first : first + self._batch_size]
            out[chunk] = self._logits([encodings[i] for i in chunk])
        probabilities: npt.NDArray[np.float64] = 1 / (
            1 + np.exp(-(self._scale * out + self._shift))
        )
        return probabilities

    def _logits(self, encodings: list[Any]) -> npt.NDArray[np.float32]:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        types = np.zeros_like(ids)
        mask = np.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            types[row, : len(encoding.ids)] = encoding.type_ids
            mask[row, : len(encoding.ids)] = 1
        logits: npt.NDArray[np.float32]
        (logits,) = self._session.run(
            ["logits"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        )
        return logits[:, 0]


@lru_cache(maxsize=1)
def shared_model(weights: Path) -> CrossEncoder:
    """One loaded model per process, whichever verifiers use it."""
    return CrossEncoder(weights)


def missing_files(weights: Path) -> list[str]:
    """The files a weights folder lacks (all of them when it does not exist)."""
    return [name for name in (MODEL_FILE, CARD_FILE) if not (weights / name).is_file()]


class CrossEncoderVerifier(Verifier):
    """Reads with ``model``, or with the model loaded once from the ``weights`` folder."""

    def __init__(
        self,
        model: CrossEncoder | None = None,
        *,
        weights: Path | None = None,
        blend: float = 0.0,
        max_claims: int = 200,
    ) -> None:
        if model is None and weights is None:
            raise ValueError("the trained verifier needs its model or its weights folder")
        self._model = model
        self._weights = weights
        self._blend = blend
        self._max_claims = max_claims
        self._candidates = HeuristicVerifier()

    def verify(self, claims: Sequence[str], passages: Sequence[Passage]) -> list[Support]:
        chosen = self._candidates.verify(claims, passages)
        asked = [i for i, support in enumerate(chosen) if support.passages]
        if len(asked) > self._max_claims:
            # Each claim costs the model some 20 ms on one core: past the budget, it reads the
            # claims the heuristic is least sure of, and the others keep the heuristic's score.
            asked = sorted(asked, key=lambda i: abs(chosen[i].score - 0.5))[: self._max_claims]
        if not asked:
            return chosen
        model = self._model or shared_model(self._weights)
        pairs = [(_premise(chosen[i], passages), claims[i]) for i in asked]
        results = list(chosen)
        for i, probability in zip(asked, model.score(pairs), strict=True):
            score = self._blend * chosen[i].score + (1 - self._blend) * float(probability)
            results[i] = Support(score, tuple((p, score) for p, _ in chosen[i].passages))
        return results


def _premise(support: Support, passages: Sequence[Passage]) -> str:
    """The chosen passages, best first, after their fact's attributes (which a claim may cite)."""
    context = passages[support.passages[0][0]].context
    text = " ".join(passages[i].text for i, _ in support.passages)
    return f"{context}. {text}" if context else text
