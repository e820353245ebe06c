"""uvicorn's access log without query strings: a key or a token that a client put in a URL
(``?api_key=…``) is never written to a log. The path stays, so each line still says which
route answered what."""

from __future__ import annotations

import copy
import logging
from typing import Any


class WithoutQuery(logging.Filter):
    """Cuts the query string off the path of uvicorn's access records, whose arguments are
    ``(client, method, path with query, HTTP version, status)``."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) == 5 and isinstance(args[2], str):
            record.args = (args[0], args[1], args[2].partition("?")[0], args[3], args[4])
        return True


def log_config() -> dict[str, Any]:
    """uvicorn's own logging configuration, its access handler filtered."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["without_query"] = {"()": WithoutQuery}
    config["handlers"]["access"]["filters"] = ["without_query"]
    return config
