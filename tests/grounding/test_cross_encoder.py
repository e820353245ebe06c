"""The trained verifier: the repository's weights (``models/verifier/``, not shipped in the
layers), what they were trained on, how checks use them, and the error without them."""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from fastapi.testclient import TestClient

from groundwork.api.app import create_app
from groundwork.grounding.base import Passage
from groundwork.grounding.cross_encoder import CrossEncoderVerifier, shared_model
from groundwork.grounding.factory import get_verifier
from groundwork.settings import Settings
from tests.conftest import REPO

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np
    import numpy.typing as npt

TRAINING_SCRIPT = REPO / "scripts" / "train_verifier.py"
WEIGHTS = REPO / "models" / "verifier"
EIFFEL = [Passage("The Eiffel Tower in Paris was completed in 1889 for the World's Fair.")]


def training_script() -> object:
    spec = importlib.util.spec_from_file_location("train_verifier", TRAINING_SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_given_the_weights_then_onnxruntime_loads_them_and_they_are_under_40_mb() -> None:
    import onnxruntime as ort

    model = WEIGHTS / "verifier-int8.onnx"
    # float32 weights of even three MiniLM layers weigh over 50 MB: under 40 means int8.
    assert model.stat().st_size < 40_000_000
    session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    assert {i.name for i in session.get_inputs()} == {
        "input_ids",
        "attention_mask",
        "token_type_ids",
    }


def test_given_the_model_card_then_the_weights_saw_only_sources_licensed_for_commercial_use() -> (
    None
):
    card = json.loads((WEIGHTS / "verifier.json").read_text(encoding="utf-8"))
    permissive = set(training_script().PERMISSIVE)  # type: ignore[attr-defined]
    assert card["sources"]
    assert set(card["sources"]) <= permissive
    assert card["settings"]["all_sources"] == "False"


def test_given_a_fact_when_a_claim_changes_its_year_or_negates_it_then_it_fails() -> None:
    model = shared_model(WEIGHTS)
    premise = EIFFEL[0].text
    supported, wrong_year, negated = model.score(
        [
            (premise, "The Eiffel Tower was completed in 1889."),
            (premise, "The Eiffel Tower was completed in 1925."),
            (premise, "The Eiffel Tower was not completed in 1889."),
        ]
    )
    assert supported > 0.5
    assert wrong_year < 0.5
    assert negated < 0.5


class CountingModel:
    """The shipped model, counting the pairs it is asked to read."""

    def __init__(self) -> None:
        self.pairs: list[tuple[str, str]] = []

    def score(self, pairs: Sequence[tuple[str, str]]) -> npt.NDArray[np.float64]:
        self.pairs += pairs
        return shared_model(WEIGHTS).score(pairs)


def test_given_a_claim_with_no_words_in_the_facts_when_verified_then_the_model_is_not_asked() -> (
    None
):
    model = CountingModel()
    verifier = CrossEncoderVerifier(model, blend=0.5)  # type: ignore[arg-type]
    unrelated, related = verifier.verify(
        ["Quantum chromodynamics binds quarks.", "The Eiffel Tower was completed in 1889."],
        EIFFEL,
    )
    assert unrelated.score == 0
    assert unrelated.passages == ()
    assert [claim for _, claim in model.pairs] == ["The Eiffel Tower was completed in 1889."]
    assert related.passages[0][0] == 0


@pytest.mark.parametrize("blend", [0.0, 0.5])
def test_given_the_model_or_the_combination_then_scores_and_citations_agree(blend: float) -> None:
    verifier = CrossEncoderVerifier(weights=WEIGHTS, blend=blend)
    (support,) = verifier.verify(["The Eiffel Tower was completed in 1889."], EIFFEL)
    assert support.passages == ((0, support.score),)
    assert support.cited(0.5) == [0]


def test_given_the_combined_verifier_when_the_endpoint_is_called_then_claims_are_scored(
    tmp_path: Path,
) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        bootstrap_docs=False,
        verifier="combined",
        verifier_weights=WEIGHTS,
    )
    with TestClient(create_app(settings)) as client:
        response = client.post(
            "/v1/grounding:check",
            json={
                "answerCandidate": "The Eiffel Tower was completed in 1889. It was built in 1925.",
                "facts": [{"factText": EIFFEL[0].text}],
                "groundingSpec": {"enableClaimLevelScore": True},
            },
        )
    assert response.status_code == 200
    faithful, wrong = response.json()["claims"]
    assert faithful["score"] > 0.5 > wrong["score"]
    assert faithful["citationIndices"] == [0]
    assert wrong.get("citationIndices", []) == []


def test_given_two_claims_when_joined_then_one_sentence_that_keeps_names_capitalised() -> None:
    join_claims = training_script().join_claims  # type: ignore[attr-defined]
    assert (
        join_claims("The tower is in Paris.", "It opened in 1889.")
        == "The tower is in Paris, and it opened in 1889."
    )
    assert join_claims("It rained", "Paris flooded.") == "It rained, and Paris flooded."


def test_given_pairs_when_two_part_claims_are_built_then_both_parts_must_be_supported() -> None:
    script = training_script()
    supported = [(f"Town {i} has {i} wells.", f"Town {i} has wells.", 1) for i in range(20)]
    unsupported = [(f"Town {i} has {i} mills.", f"Town {i} has no mills.", 0) for i in range(20)]
    pairs = supported + unsupported
    added = script.composites(pairs, 2.0, random.Random(3))  # type: ignore[attr-defined]

    built = pairs[40:]
    assert added == len(built) == 80
    assert {label for _, _, label in built} == {0, 1}
    for premise, claim, label in built:
        parts = claim.rstrip(".").split(", and ")
        assert len(parts) == 2
        part_labels = []
        for part in parts:
            (source,) = [row for row in supported + unsupported if row[1].rstrip(".") == part]
            assert source[0] in premise
            part_labels.append(source[2])
        assert label == min(part_labels)


@pytest.mark.parametrize("verifier", ["model", "combined"])
def test_given_the_model_verifier_without_weights_then_settings_refuse_to_load(
    verifier: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pydantic import ValidationError

    monkeypatch.setenv("GROUNDWORK_VERIFIER", verifier)
    monkeypatch.delenv("GROUNDWORK_VERIFIER_WEIGHTS", raising=False)

    with pytest.raises(ValidationError, match="needs GROUNDWORK_VERIFIER_WEIGHTS"):
        Settings(bootstrap_docs=False)


def test_given_a_weights_folder_without_the_model_then_the_missing_file_is_named(
    tmp_path: Path,
) -> None:
    from pydantic import ValidationError

    (tmp_path / "verifier.json").write_text("{}")

    with pytest.raises(ValidationError, match=r"lacks verifier-int8\.onnx"):
        Settings(bootstrap_docs=False, verifier="model", verifier_weights=tmp_path)


def test_given_the_weights_folder_setting_then_the_factory_verifier_reads_with_it(
    tmp_path: Path,
) -> None:
    settings = Settings(
        data_dir=tmp_path / "data", bootstrap_docs=False, verifier="model", verifier_weights=WEIGHTS
    )

    (support,) = get_verifier(settings).verify(["The Eiffel Tower was completed in 1925."], EIFFEL)

    assert support.score < 0.5


def test_given_the_layers_then_no_model_weights_ship_in_them() -> None:
    assert list((REPO / "layers").rglob("*.onnx")) == []
