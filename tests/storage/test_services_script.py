"""`scripts/services.sh` runs moto's server: `up` exports its endpoint, `status`, `down` follow."""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import boto3

from tests.conftest import REPO

SCRIPT = REPO / "scripts" / "services.sh"


def _services(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), *args],
        env={**os.environ, "GROUNDWORK_SERVICES_DIR": str(state)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_given_services_up_moto_then_dynamodb_answers_at_the_export_until_down(
    tmp_path: Path,
) -> None:
    up = _services(tmp_path, "up", "moto")
    try:
        assert up.returncode == 0, up.stderr
        exports = dict(
            line.removeprefix("export ").split("=", 1) for line in up.stdout.splitlines()
        )
        endpoint = exports["GROUNDWORK_DYNAMODB_ENDPOINT_URL"]
        assert exports["GROUNDWORK_MOTO_URL"] == endpoint
        client = boto3.client(
            "dynamodb",
            endpoint_url=endpoint,
            region_name=exports["GROUNDWORK_DYNAMODB_REGION"],
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )
        name = f"services-{uuid.uuid4().hex[:8]}"
        client.create_table(
            TableName=name,
            BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        )
        assert name in client.list_tables()["TableNames"]
        status = _services(tmp_path, "status", "moto")
        assert status.returncode == 0, status.stderr
        assert status.stdout == up.stdout
        # A second `up` finds it running and prints the same exports.
        assert _services(tmp_path, "up", "moto").stdout == up.stdout
    finally:
        down = _services(tmp_path, "down", "moto")

    assert down.returncode == 0, down.stderr
    after = _services(tmp_path, "status", "moto")
    assert after.returncode == 1
    assert "moto: down" in after.stderr
