"""The EmbeddingModel parameter of template.yaml: with a Bedrock model, exactly the functions that
embed (chat, API, ingest) may invoke exactly that model, every function is configured for it,
and the API must require keys; with the embedded model, no function may invoke one. The
LatentTerms parameter reaches every function as the setting. Checked on
the CloudFormation that SAM makes of the template, its conditions evaluated for each value."""

from __future__ import annotations

import re
import typing
from typing import Any

import pytest

from groundwork.settings import Settings
from tests.serverless.test_template import functions, load_template
from tests.serverless.test_template_operations import transformed_resources  # noqa: F401

REGION = "eu-west-1"
EMBEDDING_FUNCTIONS = {"ChatFunction", "ApiFunction", "IngestFunction"}
NO_VALUE = object()


def resolve(node: Any, parameters: dict[str, str], conditions: dict[str, bool]) -> Any:
    """``node`` with the intrinsic functions the policies and variables use evaluated; a
    resource's attribute stays a placeholder."""
    if isinstance(node, list):
        items = [resolve(item, parameters, conditions) for item in node]
        return [item for item in items if item is not NO_VALUE]
    if not isinstance(node, dict):
        return node
    if len(node) == 1:
        ((name, value),) = node.items()
        pseudo = {"AWS::Region": REGION, "AWS::Partition": "aws", "AWS::AccountId": "1"}
        match name:
            case "Ref":
                if value == "AWS::NoValue":
                    return NO_VALUE
                return pseudo.get(value) or parameters.get(value) or f"<{value}>"
            case "Fn::If":
                condition, then, otherwise = value
                return resolve(then if conditions[condition] else otherwise, parameters, conditions)
            case "Fn::Equals":
                left, right = (resolve(side, parameters, conditions) for side in value)
                return left == right
            case "Fn::Not":
                return not resolve(value[0], parameters, conditions)
            case "Fn::Sub":
                text, own = (value, {}) if isinstance(value, str) else value
                values = {**parameters, **pseudo, **resolve(own, parameters, conditions)}
                return re.sub(r"\$\{([^}]+)\}", lambda m: str(values.get(m[1], m[0])), text)
            case "Fn::GetAtt":
                return f"<{'.'.join(value)}>"
    resolved = {key: resolve(value, parameters, conditions) for key, value in node.items()}
    return {key: value for key, value in resolved.items() if value is not NO_VALUE}


def deployed(
    resources: dict[str, Any], embedding_model: str, latent_terms: str | None = None
) -> dict[str, Any]:
    template = load_template()
    parameters = {name: p.get("Default", "") for name, p in template["Parameters"].items()}
    parameters["EmbeddingModel"] = embedding_model
    if latent_terms is not None:
        parameters["LatentTerms"] = latent_terms
    conditions = {
        name: resolve(condition, parameters, {})
        for name, condition in template["Conditions"].items()
    }
    return {
        name: resolve(resource, parameters, conditions)
        for name, resource in resources.items()
        if "Condition" not in resource or conditions[resource["Condition"]]
    }


def invoked_models(resources: dict[str, Any], function: str) -> set[str]:
    """The Bedrock models ``function``'s role may call InvokeModel on: a foundation model of the
    region or an inference profile of the account, named; or any region's models through a
    profile named in the statement's condition."""
    models = set()
    for policy in resources[f"{function}Role"]["Properties"]["Policies"]:
        for statement in policy["PolicyDocument"]["Statement"]:
            actions = statement["Action"]
            if "bedrock:InvokeModel" not in ([actions] if isinstance(actions, str) else actions):
                continue
            arns = statement["Resource"]
            if "Condition" in statement:
                assert arns == "arn:aws:bedrock:*::foundation-model/*", statement
                (arns,) = statement["Condition"]["StringEquals"].values()
            for arn in [arns] if isinstance(arns, str) else arns:
                model = arn.split("/", 1)[1]
                assert arn in (
                    f"arn:aws:bedrock:{REGION}::foundation-model/{model}",
                    f"arn:aws:bedrock:{REGION}:1:inference-profile/{model}",
                ), statement
                models.add(model)
    return models


BEDROCK_MODELS = typing.get_args(Settings.model_fields["bedrock_embedding_model"].annotation)


def test_given_the_parameter_then_its_bedrock_values_are_the_settings_models() -> None:
    parameter = load_template()["Parameters"]["EmbeddingModel"]

    assert parameter["Default"] == "embedded"
    assert parameter["AllowedValues"] == ["embedded", *BEDROCK_MODELS]


@pytest.mark.parametrize("model", BEDROCK_MODELS)
def test_given_a_bedrock_embedding_model_then_the_functions_that_embed_may_invoke_it_alone(
    transformed_resources: dict[str, Any],  # noqa: F811
    model: str,
) -> None:
    resources = deployed(transformed_resources, model)
    generator = load_template()["Parameters"]["BedrockModelId"]["Default"]

    for name in functions(load_template()):
        allowed = {model} if name in EMBEDDING_FUNCTIONS else set()
        if name == "ChatFunction":
            allowed.add(generator)
        assert invoked_models(resources, name) == allowed, name
        variables = resources[name]["Properties"]["Environment"]["Variables"]
        configured = Settings(
            embeddings=variables["GROUNDWORK_EMBEDDINGS"],
            bedrock_embedding_model=variables["GROUNDWORK_BEDROCK_EMBEDDING_MODEL"],
        )
        assert (configured.embeddings, configured.bedrock_embedding_model) == ("bedrock", model)


def test_given_the_embedded_model_then_no_function_may_invoke_an_embedding_model(
    transformed_resources: dict[str, Any],  # noqa: F811
) -> None:
    resources = deployed(transformed_resources, "embedded")
    generator = load_template()["Parameters"]["BedrockModelId"]["Default"]

    for name in functions(load_template()):
        assert invoked_models(resources, name) == ({generator} if name == "ChatFunction" else set())
        variables = resources[name]["Properties"]["Environment"]["Variables"]
        assert "GROUNDWORK_EMBEDDINGS" not in variables  # the setting's default applies
        assert "GROUNDWORK_BEDROCK_EMBEDDING_MODEL" not in variables


def test_given_a_bedrock_embedding_model_then_the_api_must_require_keys() -> None:
    rule = load_template()["Rules"]["BedrockEmbeddingsNeedApiKeys"]

    assert rule["RuleCondition"] == {
        "Fn::Not": [{"Fn::Equals": [{"Ref": "EmbeddingModel"}, "embedded"]}]
    }
    assert rule["Assertions"][0]["Assert"] == {"Fn::Equals": [{"Ref": "RequireApiKey"}, "true"]}


@pytest.mark.parametrize("value", [None, "false", "true"])
def test_given_the_latent_terms_parameter_then_every_function_reads_it_as_the_setting(
    transformed_resources: dict[str, Any],  # noqa: F811
    value: str | None,
) -> None:
    """Every function that writes or searches the index agrees on whether cards carry terms;
    the parameter's default is the setting's."""
    resources = deployed(transformed_resources, "embedded", value)
    parameter = load_template()["Parameters"]["LatentTerms"]

    assert parameter["Default"] == str(Settings.model_fields["latent_terms"].default).lower()
    for name in functions(load_template()):
        variables = resources[name]["Properties"]["Environment"]["Variables"]
        written = Settings(latent_terms=variables["GROUNDWORK_LATENT_TERMS"]).latent_terms
        assert written is (value == "true"), name
