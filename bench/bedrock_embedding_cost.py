"""What Bedrock embeddings cost for collections like the real corpora of ``bench/data/real``.

Each corpus's documents are read as ingest reads them (``parse``, ``cards_of``) and each card's
embedded text (``passage_text``, cut as the Bedrock embedder cuts it) is measured: its
characters, hence tokens at the models' published ratios (Titan: 4.7 characters a token in
English; Cohere: about 4), and its calls (Titan: one a card; Cohere: 96 cards a call, per
source). From those, per model: a 10,000-document collection of such documents ingested once
(again at each ``groundwork reindex``), 100,000 questions (``precise`` embeds each once), and
the memory their vectors take (float32; the index's HNSW graph adds to it on OpenSearch).

No call is made: the prices are the published on-demand ones (per million input tokens; check
https://aws.amazon.com/bedrock/pricing/ for your region) and the token counts estimates from
characters. Run: ``.venv/bin/python -m bench.bedrock_embedding_cost``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bench.real_questions import corpora
from groundwork.embeddings.bedrock import BATCH_SIZES, COHERE, TITAN, clip
from groundwork.embeddings.models import BEDROCK_MODELS
from groundwork.ingest.pipeline import cards_of, discover, location_of, parse, source_id
from groundwork.retrieval.embedded import passage_text

#: US dollars per million input tokens, on demand.
PRICES = {TITAN: 0.02, COHERE: 0.10}
#: Characters per token: AWS's figure for Titan V2 in English, and its "1 token is about 4
#: characters" for Cohere Embed.
CHARS_PER_TOKEN = {TITAN: 4.7, COHERE: 4.0}
DOCUMENTS = 10_000
QUESTIONS = 100_000
#: Corpora of fewer documents (one book) say little of what 10,000 documents hold.
PROJECTED_FROM = 10
SHORT = {TITAN: "Titan V2", COHERE: "Cohere v3"}


@dataclass(frozen=True)
class Measured:
    name: str
    documents: int
    cards: int
    chars: int  # embedded characters of all cards
    calls: dict[str, int]  # InvokeModel calls to embed them all, per model
    question_chars: float  # mean characters of a question


def measure() -> list[Measured]:
    found = []
    for corpus in corpora():
        files, _ = discover(corpus.documents)
        cards = chars = 0
        calls = dict.fromkeys(PRICES, 0)
        for file in files:
            location = location_of(file, corpus.root)
            sid = source_id(corpus.name, location)
            of_file = cards_of(
                parse(file.suffix, file.read_bytes()), corpus.name, sid, location, []
            )
            cards += len(of_file)
            chars += sum(len(clip(passage_text(card))) for card in of_file)
            for model in calls:
                calls[model] += math.ceil(len(of_file) / BATCH_SIZES[model])
        asked = [row["question"] for row in corpus.questions()]
        found.append(
            Measured(
                corpus.name, len(files), cards, chars, calls, sum(map(len, asked)) / len(asked)
            )
        )
    return found


def main() -> None:
    rows = measure()
    print("Embedded text of the real corpora (cards as ingest makes them):\n")
    print("| corpus | documents | cards | characters / document | characters / question |")
    print("|---|---:|---:|---:|---:|")
    for m in rows:
        print(
            f"| {m.name} | {m.documents} | {m.cards:,} | {m.chars / m.documents:,.0f} "
            f"| {m.question_chars:.0f} |"
        )
    print(
        f"\nA collection of {DOCUMENTS:,} such documents (corpora of {PROJECTED_FROM} or more), "
        f"and {QUESTIONS:,} questions (US dollars, on demand):\n"
    )
    header = "| corpus like | model | tokens / document | ingest | calls to ingest |"
    print(header + " questions | vectors in memory |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for m in rows:
        if m.documents < PROJECTED_FROM:
            continue
        for model in PRICES:
            tokens = m.chars / m.documents / CHARS_PER_TOKEN[model]
            ingest = DOCUMENTS * tokens * PRICES[model] / 1e6
            asked = QUESTIONS * m.question_chars / CHARS_PER_TOKEN[model] * PRICES[model] / 1e6
            calls = DOCUMENTS * m.calls[model] / m.documents
            memory = DOCUMENTS * m.cards / m.documents * BEDROCK_MODELS[model].dimension * 4 / 2**20
            print(
                f"| {m.name} | {SHORT[model]} | {tokens:,.0f} | ${ingest:,.2f} | {calls:,.0f} "
                f"| ${asked:,.3f} | {memory:,.0f} MB |"
            )


if __name__ == "__main__":
    main()
