"""What a first ``sam deploy`` of template.yaml would otherwise hit, each pinned on the template or
its SAM translation: accounts that cannot reserve concurrency, alarms that cannot notify, a
stray stage, Bedrock's inference profiles, OpenSearch Serverless's reader and writer rules, an
ingest function that takes the account's concurrency, a collection name too long for its
policies, streams that fail after their 200, lines waiting in the batch queue."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.serverless.test_template import functions, load_template
from tests.serverless.test_template_operations import (
    API_FUNCTIONS,
    of_type,
    statements,
    transformed_resources,
)

__all__ = ["transformed_resources"]  # the fixture, shared with test_template_operations


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return load_template()


def test_given_the_defaults_then_no_function_reserves_concurrency(template: dict[str, Any]) -> None:
    parameters, conditions = template["Parameters"], template["Conditions"]

    for name in API_FUNCTIONS:
        reserved = functions(template)[name]["ReservedConcurrentExecutions"]["Fn::If"]
        condition, value, otherwise = reserved
        parameter = value["Ref"]
        # Its own parameter, 0 by default, and 0 leaves the property out.
        assert parameter == name.replace("Function", "ReservedConcurrency")
        assert parameters[parameter]["Default"] == 0
        assert conditions[condition] == {"Fn::Not": [{"Fn::Equals": [{"Ref": parameter}, 0]}]}
        assert otherwise == {"Ref": "AWS::NoValue"}
    for name, function in functions(template).items():
        if name not in API_FUNCTIONS:
            assert "ReservedConcurrentExecutions" not in function, name


def test_given_the_alarm_topic_then_its_key_lets_cloudwatch_publish(
    template: dict[str, Any],
) -> None:
    resources = template["Resources"]
    key = resources["AlarmTopic"]["Properties"]["KmsMasterKeyId"]

    assert key == {"Ref": "AlarmTopicKey"}  # not alias/aws/sns, whose policy CloudWatch lacks
    policy = resources["AlarmTopicKey"]["Properties"]["KeyPolicy"]["Statement"]
    (cloudwatch,) = [s for s in policy if s["Principal"] == {"Service": "cloudwatch.amazonaws.com"}]
    assert set(cloudwatch["Action"]) == {"kms:Decrypt", "kms:GenerateDataKey*"}
    assert cloudwatch["Condition"]["StringEquals"] == {
        "aws:SourceAccount": {"Ref": "AWS::AccountId"}
    }
    assert ":alarm:" in cloudwatch["Condition"]["ArnLike"]["aws:SourceArn"]["Fn::Sub"]
    assert resources["AlarmTopicKey"]["Properties"]["EnableKeyRotation"] is True


def test_given_the_api_when_transformed_then_it_has_one_stage_and_still_streams(
    transformed_resources: dict[str, Any],
) -> None:
    stages = of_type(transformed_resources, "AWS::ApiGateway::Stage")
    (deployment,) = of_type(transformed_resources, "AWS::ApiGateway::Deployment").values()
    (api,) = of_type(transformed_resources, "AWS::ApiGateway::RestApi").values()
    chat = api["Properties"]["Body"]["paths"]["/v1/chat"]["post"]

    assert [s["Properties"]["StageName"] for s in stages.values()] == [{"Ref": "Stage"}]
    # A deployment with a StageName creates that stage: SAM's "Stage", unthrottled, without
    # access logs and unwatched by the 5xx alarm, beside the configured one.
    assert "StageName" not in deployment["Properties"]
    assert chat["x-amazon-apigateway-integration"]["responseTransferMode"] == "STREAM"


def test_given_an_inference_profile_id_then_the_chat_role_may_invoke_it_and_its_models(
    transformed_resources: dict[str, Any], template: dict[str, Any]
) -> None:
    pattern = template["Parameters"]["BedrockModelId"]["AllowedPattern"]
    document = transformed_resources["ChatFunctionRole"]["Properties"]["Policies"][0]
    granted = {s.get("Sid"): s for s in document["PolicyDocument"]["Statement"]}
    profile = "arn:${AWS::Partition}:bedrock:${AWS::Region}:${AWS::AccountId}:inference-profile/"

    for model in (
        "amazon.nova-micro-v1:0",
        "us.amazon.nova-micro-v1:0",
        "eu.meta.llama3-2-1b-v1:0",
    ):
        assert re.fullmatch(pattern, model), model
    assert not re.fullmatch(pattern, "nova micro")
    resources = [r["Fn::Sub"] for r in granted["GenerateAnswers"]["Resource"]]
    assert f"{profile}${{BedrockModelId}}" in resources
    assert any("::foundation-model/${BedrockModelId}" in r for r in resources)
    routed = granted["GenerateThroughTheProfile"]
    # The profile's model in every region it routes to, through that profile only.
    assert routed["Resource"] == {"Fn::Sub": "arn:${AWS::Partition}:bedrock:*::foundation-model/*"}
    assert routed["Condition"] == {
        "StringEquals": {
            "bedrock:InferenceProfileArn": {"Fn::Sub": f"{profile}${{BedrockModelId}}"}
        }
    }


def _access_rules(template: dict[str, Any]) -> list[dict[str, Any]]:
    policy = template["Resources"]["CollectionAccessPolicy"]["Properties"]["Policy"]["Fn::Sub"]
    rules: list[dict[str, Any]] = json.loads(policy.replace("${CollectionName}", "groundwork"))
    return rules


def test_given_the_collection_then_writers_may_create_the_pipeline_and_readers_only_read(
    template: dict[str, Any],
) -> None:
    rules = {
        frozenset(p.split("${")[1].split(".")[0] for p in rule["Principal"]): {
            r["ResourceType"]: set(r["Permission"]) for r in rule["Rules"]
        }
        for rule in _access_rules(template)
    }
    writers = frozenset({"ApiFunctionRole", "IngestFunctionRole"})
    readers = frozenset({"ChatFunctionRole", "ScopeFunctionRole"})

    assert set(rules) == {writers, readers}
    # The search pipeline, created before the index, is an item of the collection.
    assert {"aoss:CreateCollectionItems", "aoss:UpdateCollectionItems"} <= rules[writers][
        "collection"
    ]
    assert {"aoss:CreateIndex", "aoss:WriteDocument"} <= rules[writers]["index"]
    assert rules[readers] == {
        "index": {"aoss:DescribeIndex", "aoss:ReadDocument"},
        "collection": {"aoss:DescribeCollectionItems"},
    }
    # Every role with access to the collection is in one rule, and the IAM side agrees.
    with_access = {
        f"{name}Role"
        for name, function in functions(template).items()
        if any(s.get("Action") == "aoss:APIAccessAll" for s in statements(function))
    }
    assert with_access == writers | readers
    domain_readers = {
        name: s["Action"]
        for name, function in functions(template).items()
        for s in statements(function)
        if s.get("Sid") == "SearchDomain"
    }
    assert set(domain_readers) == {"ChatFunction", "ScopeFunction"}
    assert all("es:ESHttpPut" not in actions for actions in domain_readers.values())


def test_given_the_collection_name_then_its_policies_names_fit_32_characters(
    template: dict[str, Any],
) -> None:
    pattern = template["Parameters"]["CollectionName"]["AllowedPattern"]
    suffixes = [
        r["Properties"]["Name"]["Fn::Sub"].removeprefix("${CollectionName}")
        for r in template["Resources"].values()
        if r["Type"].startswith("AWS::OpenSearchServerless::")
        and "Name" in r["Properties"]
        and "Fn::Sub" in r["Properties"]["Name"]
    ]

    assert len(suffixes) == 3  # encryption, network, access
    longest = max((n for n in range(1, 40) if re.fullmatch(pattern, "a" * n)), default=0)
    assert longest == 21
    assert all(longest + len(suffix) <= 32 for suffix in suffixes)


def test_given_documents_copied_to_the_bucket_then_ingestion_waits_in_a_capped_queue(
    template: dict[str, Any], transformed_resources: dict[str, Any]
) -> None:
    resources = template["Resources"]
    ingest = functions(template)["IngestFunction"]
    (trigger,) = ingest["Events"].values()
    notifications = resources["DocumentsBucket"]["Properties"]["NotificationConfiguration"]
    (allowed,) = resources["IngestQueuePolicy"]["Properties"]["PolicyDocument"]["Statement"]
    mappings = {
        m["Properties"]["FunctionName"]["Ref"]: m["Properties"]
        for m in of_type(transformed_resources, "AWS::Lambda::EventSourceMapping").values()
    }

    assert trigger["Type"] == "SQS"
    assert trigger["Properties"]["Queue"] == {"Fn::GetAtt": ["IngestQueue", "Arn"]}
    assert mappings["IngestFunction"]["ScalingConfig"] == {
        "MaximumConcurrency": {"Ref": "IngestMaxConcurrency"}
    }
    assert mappings["IngestFunction"]["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert template["Parameters"]["IngestMaxConcurrency"]["MinValue"] == 2  # SQS's minimum
    assert {c["Event"] for c in notifications["QueueConfigurations"]} == {
        "s3:ObjectCreated:*",
        "s3:ObjectRemoved:*",
    }
    assert "EventInvokeConfig" not in ingest  # S3 no longer invokes it
    assert allowed["Principal"] == {"Service": "s3.amazonaws.com"}
    assert "-documents-" in allowed["Condition"]["ArnEquals"]["aws:SourceArn"]["Fn::Sub"]
    assert resources["DocumentsBucket"]["DependsOn"] == "IngestQueuePolicy"
    redrive = resources["IngestQueue"]["Properties"]["RedrivePolicy"]
    assert redrive["deadLetterTargetArn"] == {"Fn::GetAtt": ["IngestFailureQueue", "Arn"]}
    visibility = resources["IngestQueue"]["Properties"]["VisibilityTimeout"]
    assert visibility >= 6 * ingest["Timeout"]


def test_given_the_batch_queue_then_old_lines_raise_an_alarm_and_lines_get_five_receives(
    template: dict[str, Any],
) -> None:
    resources = template["Resources"]
    age = [
        a["Properties"]
        for a in of_type(resources, "AWS::CloudWatch::Alarm").values()
        if a["Properties"]["MetricName"] == "ApproximateAgeOfOldestMessage"
    ]
    receives = template["Parameters"]["BatchMaxReceiveCount"]

    assert {a["Dimensions"][0]["Value"]["Fn::GetAtt"][0] for a in age} >= {"BatchQueue"}
    assert all(a["Threshold"] == {"Ref": "BatchQueueAgeAlarmSeconds"} for a in age)
    assert receives["Default"] >= 5
    assert receives["MinValue"] >= 5


def test_given_the_throttling_parameters_then_they_say_they_apply_to_each_method(
    template: dict[str, Any],
) -> None:
    for name in ("ThrottlingRateLimit", "ThrottlingBurstLimit"):
        description = template["Parameters"][name]["Description"]
        assert "each method" in description
        assert "together" not in description
