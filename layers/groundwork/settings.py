"""The one configuration object, read from ``GROUNDWORK_*`` variables and validated once."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

#: The repository checkout this package runs from, when it runs from one (``pip install -e .``).
_CHECKOUT = Path(__file__).resolve().parents[2]


def _default_docs_dir() -> Path | None:
    return _CHECKOUT if (_CHECKOUT / "README.md").is_file() else None


class Settings(BaseSettings):
    """Chooses the implementation of every port and where embedded state lives."""

    model_config = SettingsConfigDict(env_prefix="GROUNDWORK_", extra="ignore", frozen=True)

    data_dir: Path = Field(Path(".groundwork"), description="Where embedded state is kept.")
    storage: Literal["sqlite"] = Field("sqlite", description="Conversations, idempotency, cache.")
    retrieval: Literal["keyword"] = Field("keyword", description="The passage index.")
    embeddings: Literal["minilm"] = Field("minilm", description="The sentence embedding model.")
    generation: Literal["extractive"] = Field("extractive", description="The answer generator.")
    default_collection: str = Field("default", description="Collection used when none is named.")
    model_name: str = Field("groundwork-1", description="Model id reported by the API.")
    docs_dir: Path | None = Field(
        default_factory=_default_docs_dir,
        description="README.md and docs/ here are ingested into the default collection on first "
        "start when it is empty.",
    )
    bootstrap_docs: bool = Field(True, description="Ingest docs_dir on start when empty.")
    retrieval_k: int = Field(5, ge=1, le=50, description="Passages retrieved per question.")

    @property
    def index_path(self) -> Path:
        return self.data_dir / "index.sqlite3"

    @property
    def state_path(self) -> Path:
        return self.data_dir / "state.sqlite3"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
