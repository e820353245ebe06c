from pathlib import Path

import pytest
from pydantic import ValidationError

from groundwork.settings import Settings


def test_given_environment_variables_when_settings_load_then_they_choose_the_values(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("GROUNDWORK_RETRIEVAL_K", "7")
    monkeypatch.setenv("GROUNDWORK_BOOTSTRAP_DOCS", "false")

    settings = Settings()

    assert settings.data_dir == tmp_path
    assert settings.retrieval_k == 7
    assert settings.bootstrap_docs is False
    assert settings.index_path.parent == tmp_path


def test_given_no_environment_when_settings_load_then_embedded_defaults_apply(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("GROUNDWORK_DATA_DIR", "GROUNDWORK_STORAGE", "GROUNDWORK_RETRIEVAL"):
        monkeypatch.delenv(name, raising=False)

    settings = Settings()

    assert settings.data_dir == Path(".groundwork")
    assert (settings.storage, settings.retrieval, settings.embeddings, settings.generation) == (
        "sqlite",
        "embedded",
        "e5",
        "extractive",
    )


def test_given_an_unknown_port_implementation_when_settings_load_then_validation_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GROUNDWORK_STORAGE", "cassandra")

    with pytest.raises(ValidationError, match="storage"):
        Settings()
