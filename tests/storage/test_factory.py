"""The factory builds either backend from settings; the infra table definition matches the code."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path

from groundwork.settings import Settings
from groundwork.storage.dynamodb_table import TTL_ATTRIBUTE, table_definition
from groundwork.storage.factory import get_storage, get_stores
from tests.conftest import REPO
from tests.storage.conftest import REGION


def test_given_dynamodb_settings_when_stores_are_built_then_they_create_and_use_the_table(
    moto_endpoint: str, tmp_path: Path
) -> None:
    settings = Settings(
        data_dir=tmp_path,
        storage="dynamodb",
        dynamodb_table=f"groundwork-{uuid.uuid4().hex[:12]}",
        dynamodb_endpoint_url=moto_endpoint,
        dynamodb_region=REGION,
        dynamodb_create_table=True,
    )

    stores = get_stores(settings)
    stores.accounts.create_user("u1", "Ada")

    assert stores.accounts.get_user("u1") is not None
    assert get_storage(settings).list_sources("docs") == []
    assert not settings.state_path.exists()


def test_given_sqlite_settings_when_built_then_sources_and_stores_share_the_state_file(
    tmp_path: Path,
) -> None:
    settings = Settings(data_dir=tmp_path)

    get_stores(settings).accounts.create_user("u1", "Ada")

    assert settings.state_path.is_file()
    assert get_storage(settings).list_sources("docs") == []
    with sqlite3.connect(settings.state_path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_given_the_storage_modules_when_imported_then_boto3_is_not() -> None:
    code = (
        "import sys, groundwork.storage.factory, groundwork.storage.dynamodb_table; "
        "sys.exit('boto3' in sys.modules)"
    )

    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_given_the_infra_definitions_then_they_match_what_the_code_creates() -> None:
    infra = REPO / "infra" / "dynamodb"

    assert json.loads((infra / "table.json").read_text()) == table_definition("groundwork")
    ttl = json.loads((infra / "ttl.json").read_text())
    assert ttl["TimeToLiveSpecification"] == {"AttributeName": TTL_ATTRIBUTE, "Enabled": True}
