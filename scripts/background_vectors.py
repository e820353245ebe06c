"""Write the vectors of the background sentences the hub discount compares cards with
(``groundwork.retrieval.hubness``), as the embedded default model embeds them.

    .venv/bin/python scripts/background_vectors.py

Run it again when the model's weights change: ``tests/retrieval/test_hubness.py`` compares the
shipped vectors with the model's.
"""

from __future__ import annotations

import numpy as np

from groundwork.embeddings.factory import bare_embedder
from groundwork.retrieval import hubness


def main() -> None:
    embedder = bare_embedder("e5")
    vectors = embedder.embed(hubness.sentences(), role="query")
    file = hubness.vectors_file(embedder.model)
    np.save(file, vectors.astype(np.float16))
    print(f"{file}: {vectors.shape[0]} sentences, {file.stat().st_size} bytes")


if __name__ == "__main__":
    main()
