"""``groundwork reindex``: embed every card again with the configured model, with a progress bar.

Switching ``GROUNDWORK_EMBEDDINGS`` leaves an index whose vectors another model built: it is
refused (``index.embedder_mismatch``) until this re-embeds it. A run killed midway goes on
where it stopped when started again (docs/retrieval.md, Switching embedders).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse


def register(commands: argparse._SubParsersAction[Any]) -> None:
    parser = commands.add_parser(
        "reindex", help="re-embed every card with the configured embedding model (resumable)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from groundwork.embeddings.factory import embedding_model
    from groundwork.retrieval.factory import get_retriever
    from groundwork.settings import get_settings

    settings = get_settings()
    model = embedding_model(settings)
    retriever = get_retriever(settings)
    with tqdm(unit="passage", desc=f"re-embedding with {model.name}") as bar:

        def advance(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        cards = retriever.reindex(progress=advance)
    if not cards and settings.retrieval == "keyword":
        print("nothing to re-embed: the keyword index holds no vectors")
        return 0
    print(f"{cards} passages re-embedded with {model.name} ({model.dimension} dimensions)")
    return 0
