"""The chat app over an already seeded data directory, served by uvicorn in this process.

Run by the reliability tests as a subprocess (so that it can be killed with SIGKILL):
``python -m tests.chat.server DATA_DIR PORT --delay S --lease S``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import uvicorn

from groundwork.api.app import create_app
from groundwork.settings import Settings
from tests.chat.fixtures import SlowGenerator, answer_with


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("port", type=int)
    parser.add_argument("--delay", type=float, default=0.0, help="Seconds between words.")
    parser.add_argument("--lease", type=int, default=30, help="chat_lease_seconds")
    args = parser.parse_args()
    settings = Settings(
        data_dir=args.data_dir,
        bootstrap_docs=False,
        retrieval="keyword",
        chat_lease_seconds=args.lease,
        chat_wait_seconds=30,
    )
    app = create_app(settings)
    answer_with(app, settings, SlowGenerator(args.delay))
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
