"""template.yaml passes cfn-lint and the SAM transform, streams the chat routes only, and agrees
with the code: handlers, settings, the storage table and the dependency layer."""

from __future__ import annotations

import copy
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from cfnlint.decode import cfn_yaml

from groundwork.cli.invoke import FUNCTIONS
from groundwork.settings import Settings
from groundwork.storage.dynamodb_table import table_definition
from tests.conftest import REPO

TEMPLATE = REPO / "template.yaml"
STREAMED = {("/v1/chat", "post"), ("/v1/chat/completions", "post")}


def load_template() -> dict[str, Any]:
    template: dict[str, Any] = cfn_yaml.loads(TEMPLATE.read_text())
    return template


def functions(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        name: resource["Properties"]
        for name, resource in template["Resources"].items()
        if resource["Type"] == "AWS::Serverless::Function"
    }


@pytest.fixture(scope="module")
def transformed(monkeypatch_module: pytest.MonkeyPatch) -> dict[str, Any]:
    """The template as CloudFormation, after the code is uploaded (as ``sam build`` and
    ``sam package`` would: local paths become S3 URIs)."""
    from samtranslator.translator.transform import transform

    monkeypatch_module.setenv("AWS_DEFAULT_REGION", "us-east-1")
    template = copy.deepcopy(load_template())
    for resource in template["Resources"].values():
        properties = resource.get("Properties", {})
        for uri in ("CodeUri", "ContentUri"):
            if isinstance(properties.get(uri), str):
                properties[uri] = f"s3://groundwork-artifacts/{properties[uri].strip('/')}.zip"

    class OfflinePolicies:
        """No managed policy is named in the template, so IAM is never asked for one."""

        def load(self) -> dict[str, str]:
            return {}

    result: dict[str, Any] = transform(template, {}, OfflinePolicies())  # type: ignore[arg-type]
    return result


@pytest.fixture(scope="module")
def monkeypatch_module() -> Any:
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def test_given_the_template_when_cfn_lint_runs_then_it_reports_nothing() -> None:
    from cfnlint.api import lint_file

    matches = lint_file(TEMPLATE)

    assert [str(match) for match in matches] == []


def test_given_the_template_when_sam_transforms_it_then_every_function_becomes_lambda(
    transformed: dict[str, Any],
) -> None:
    types = {resource["Type"] for resource in transformed["Resources"].values()}

    assert "AWS::Serverless::Function" not in types
    assert {"AWS::Lambda::Function", "AWS::ApiGateway::RestApi", "AWS::SQS::Queue"} <= types
    assert set(functions(load_template())) <= set(transformed["Resources"])


def test_given_the_rest_api_when_transformed_then_only_the_chat_routes_stream(
    transformed: dict[str, Any],
) -> None:
    (api,) = (
        r["Properties"]["Body"]
        for r in transformed["Resources"].values()
        if r["Type"] == "AWS::ApiGateway::RestApi"
    )
    modes = {}
    for path, methods in api["paths"].items():
        for method, operation in methods.items():
            integration = operation["x-amazon-apigateway-integration"]
            uri = str(integration["uri"])
            modes[(path, method.replace("x-amazon-apigateway-any-method", "any"))] = (
                integration.get("responseTransferMode"),
                "response-streaming-invocations" in uri,
            )

    assert {route for route, mode in modes.items() if mode == ("STREAM", True)} == STREAMED
    assert all(mode == (None, False) for route, mode in modes.items() if route not in STREAMED)
    assert ("/{proxy+}", "any") in modes
    assert ("/", "get") in modes


def test_given_the_streaming_function_then_it_runs_under_lambda_web_adapter() -> None:
    chat = functions(load_template())["ChatFunction"]
    variables = chat["Environment"]["Variables"]

    assert chat["Handler"] == "run.sh"
    assert variables["AWS_LAMBDA_EXEC_WRAPPER"] == "/opt/bootstrap"
    assert variables["AWS_LWA_INVOKE_MODE"] == "response_stream"
    assert any("LambdaAdapterLayer" in str(layer) for layer in chat["Layers"])
    assert (REPO / chat["CodeUri"] / "run.sh").stat().st_mode & 0o111


def test_given_the_worker_when_transformed_then_it_reports_partial_batch_failures(
    transformed: dict[str, Any],
) -> None:
    mappings = [
        r["Properties"]
        for r in transformed["Resources"].values()
        if r["Type"] == "AWS::Lambda::EventSourceMapping"
    ]
    queue = load_template()["Resources"]["BatchQueue"]["Properties"]

    assert mappings
    assert all(m["FunctionResponseTypes"] == ["ReportBatchItemFailures"] for m in mappings)
    assert queue["RedrivePolicy"]["deadLetterTargetArn"] == {
        "Fn::GetAtt": ["BatchDeadLetterQueue", "Arn"]
    }
    assert queue["VisibilityTimeout"] >= 6 * functions(load_template())["BatchWorkerFunction"].get(
        "Timeout", 30
    )


def test_given_every_python_function_then_its_handler_file_and_invoke_name_exist() -> None:
    declared = {
        name: (props["CodeUri"].rstrip("/"), props["Handler"])
        for name, props in functions(load_template()).items()
        if props["Handler"] != "run.sh"
    }
    known = {f.logical_id: (f.code_dir, f"{f.module}.{f.attribute}") for f in FUNCTIONS.values()}

    assert declared == known
    for code_dir, handler in declared.values():
        assert (REPO / code_dir / f"{handler.split('.')[0]}.py").is_file()


def test_given_the_groundwork_variables_then_each_is_a_setting() -> None:
    text = TEMPLATE.read_text()
    names = {m.lower() for m in re.findall(r"\bGROUNDWORK_([A-Z0-9_]+):", text)}

    assert names - set(Settings.model_fields) == set()


def test_given_the_state_table_then_it_matches_the_storage_definition_with_ttl() -> None:
    resources = load_template()["Resources"]
    table = resources["StateTable"]["Properties"]
    expected = table_definition("unused")

    for key in ("AttributeDefinitions", "KeySchema", "GlobalSecondaryIndexes", "BillingMode"):
        assert table[key] == expected[key], key
    for name in ("StateTable", "BatchTable"):
        ttl = resources[name]["Properties"]["TimeToLiveSpecification"]
        assert ttl == {"AttributeName": "expiration", "Enabled": True}


def test_given_the_dependency_layer_then_it_lists_what_the_functions_import() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    layer = Path(REPO / "layers/dependencies/requirements.txt").read_text().splitlines()
    wanted = [line for line in layer if line and not line.startswith("#")]

    def without_extras(requirement: str) -> str:
        return re.sub(r"\[.*?\]", "", requirement).lower()

    # The functions search OpenSearch; boto3 is part of Lambda's Python runtime.
    extra = [r for r in project["optional-dependencies"]["opensearch"] if "boto3" not in r]
    assert sorted(map(without_extras, wanted)) == sorted(
        map(without_extras, project["dependencies"] + extra)
    )


def test_given_a_layer_built_by_make_then_its_makefile_has_the_target_sam_runs() -> None:
    layers = {
        name: resource
        for name, resource in load_template()["Resources"].items()
        if resource["Type"] == "AWS::Serverless::LayerVersion"
        and resource.get("Metadata", {}).get("BuildMethod") == "makefile"
    }

    assert layers
    for name, layer in layers.items():
        makefile = REPO / layer["Properties"]["ContentUri"] / "Makefile"
        assert f"\nbuild-{name}:\n" in makefile.read_text()
