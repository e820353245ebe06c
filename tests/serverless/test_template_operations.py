"""What template.yaml needs to be safe to leave running: a Regional API whose streams may last
15 minutes, keys and throttling by default, bounded concurrency, logs kept for a while, alarms,
retained data, TLS-only buckets and policies no broader than the code's calls."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from groundwork.batch.results import Layout
from tests.serverless.test_template import STREAMED, functions, load_template

API_FUNCTIONS = {"ChatFunction", "ApiFunction", "GroundingFunction", "ScopeFunction"}


@pytest.fixture(scope="module")
def resources() -> dict[str, Any]:
    found: dict[str, Any] = load_template()["Resources"]
    return found


@pytest.fixture(scope="module")
def transformed_resources() -> dict[str, Any]:
    """The resources SAM makes of the template, code uploaded as ``sam package`` would."""
    from samtranslator.translator.transform import transform

    template = copy.deepcopy(load_template())
    for resource in template["Resources"].values():
        properties = resource.get("Properties", {})
        for uri in ("CodeUri", "ContentUri"):
            if isinstance(properties.get(uri), str):
                properties[uri] = f"s3://groundwork-artifacts/{properties[uri].strip('/')}.zip"

    class NoManagedPolicies:
        def load(self) -> dict[str, str]:
            return {}

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AWS_DEFAULT_REGION", "us-east-1")
        result: dict[str, Any] = transform(template, {}, NoManagedPolicies())  # type: ignore[arg-type]
    found: dict[str, Any] = result["Resources"]
    return found


def of_type(resources: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {name: r for name, r in resources.items() if r["Type"] == kind}


def statements(function: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for policy in function.get("Policies", []):
        for statement in policy.get("Statement", []) if "Statement" in policy else []:
            if "Fn::If" in statement:
                found.extend(branch for branch in statement["Fn::If"][1:] if "Effect" in branch)
            else:
                found.append(statement)
    return found


def test_given_the_api_when_transformed_then_it_is_regional_and_streams_may_last_15_minutes(
    transformed_resources: dict[str, Any],
) -> None:
    (api,) = of_type(transformed_resources, "AWS::ApiGateway::RestApi").values()
    timeouts = {
        (path, method): operation["x-amazon-apigateway-integration"].get("timeoutInMillis")
        for path, methods in api["Properties"]["Body"]["paths"].items()
        for method, operation in methods.items()
    }

    assert api["Properties"]["EndpointConfiguration"] == {"Types": ["REGIONAL"]}
    assert {route: timeouts[route] for route in STREAMED} == dict.fromkeys(STREAMED, 900_000)
    assert functions(load_template())["ChatFunction"]["Timeout"] * 1000 >= 900_000


def test_given_the_template_text_then_it_never_calls_the_rest_api_an_http_api() -> None:
    from tests.serverless.test_template import TEMPLATE

    assert "HTTP API" not in TEMPLATE.read_text()


def test_given_the_defaults_then_keys_are_required_and_bedrock_never_runs_open() -> None:
    template = load_template()
    parameters = template["Parameters"]
    rule = template["Rules"]["BedrockNeedsApiKeys"]

    assert parameters["RequireApiKey"]["Default"] == "true"
    assert rule["RuleCondition"] == {"Fn::Equals": [{"Ref": "Generation"}, "bedrock"]}
    assert rule["Assertions"][0]["Assert"] == {"Fn::Equals": [{"Ref": "RequireApiKey"}, "true"]}


def test_given_the_stage_when_transformed_then_it_is_throttled_and_logs_every_request(
    transformed_resources: dict[str, Any], resources: dict[str, Any]
) -> None:
    (stage,) = of_type(transformed_resources, "AWS::ApiGateway::Stage").values()
    (setting,) = stage["Properties"]["MethodSettings"]
    destination = stage["Properties"]["AccessLogSetting"]["DestinationArn"]["Fn::GetAtt"][0]

    assert (setting["ResourcePath"], setting["HttpMethod"]) == ("/*", "*")
    assert setting["ThrottlingRateLimit"] == {"Ref": "ThrottlingRateLimit"}
    assert setting["ThrottlingBurstLimit"] == {"Ref": "ThrottlingBurstLimit"}
    assert resources[destination]["Type"] == "AWS::Logs::LogGroup"
    assert resources[destination]["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionDays"}
    assert "$context.requestId" in stage["Properties"]["AccessLogSetting"]["Format"]


def test_given_the_functions_behind_the_api_then_their_concurrency_may_be_reserved() -> None:
    reservable = {
        name
        for name, function in functions(load_template()).items()
        if "ReservedConcurrentExecutions" in function
    }

    assert reservable == API_FUNCTIONS  # each by its own parameter (test_template_deploy.py)


def test_given_the_batch_worker_then_its_queue_trigger_has_a_maximum_concurrency() -> None:
    trigger = functions(load_template())["BatchWorkerFunction"]["Events"]["Lines"]["Properties"]

    assert trigger["ScalingConfig"] == {"MaximumConcurrency": {"Ref": "BatchMaxConcurrency"}}


def test_given_every_function_then_it_logs_to_a_group_with_retention_and_has_alarms(
    resources: dict[str, Any],
) -> None:
    alarms = of_type(resources, "AWS::CloudWatch::Alarm").values()
    watched = {
        (a["Properties"]["MetricName"], a["Properties"]["Dimensions"][0]["Value"]["Ref"])
        for a in alarms
        if a["Properties"]["Namespace"] == "AWS/Lambda"
    }

    for name, function in functions(load_template()).items():
        group = function["LoggingConfig"]["LogGroup"]["Ref"]
        assert resources[group]["Type"] == "AWS::Logs::LogGroup"
        assert resources[group]["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionDays"}
        assert {("Errors", name), ("Throttles", name)} <= watched
    for alarm in alarms:
        assert alarm["Properties"]["AlarmActions"] == [{"Ref": "AlarmTopic"}]


def test_given_every_queue_of_failures_then_its_depth_has_an_alarm(
    resources: dict[str, Any],
) -> None:
    queues = of_type(resources, "AWS::SQS::Queue")
    failure_queues = {
        q["Properties"]["RedrivePolicy"]["deadLetterTargetArn"]["Fn::GetAtt"][0]
        for q in queues.values()
        if "RedrivePolicy" in q["Properties"]
    }
    for function in functions(load_template()).values():
        on_failure = function.get("EventInvokeConfig", {}).get("DestinationConfig", {})
        if on_failure:
            failure_queues.add(on_failure["OnFailure"]["Destination"]["Fn::GetAtt"][0])
    depth_alarmed = {
        a["Properties"]["Dimensions"][0]["Value"]["Fn::GetAtt"][0]
        for a in of_type(resources, "AWS::CloudWatch::Alarm").values()
        if a["Properties"]["MetricName"] == "ApproximateNumberOfMessagesVisible"
    }

    assert len(failure_queues) == 3
    assert failure_queues <= depth_alarmed


def test_given_the_api_then_a_share_of_5xx_answers_raises_an_alarm(
    resources: dict[str, Any],
) -> None:
    alarm = resources["Api5xxAlarm"]["Properties"]
    dimensions = {d["Name"]: d["Value"] for d in alarm["Dimensions"]}

    assert (alarm["Namespace"], alarm["MetricName"]) == ("AWS/ApiGateway", "5XXError")
    assert dimensions["ApiName"] == resources["Api"]["Properties"]["Name"]
    assert dimensions["Stage"] == {"Ref": "Stage"}


def test_given_the_enqueue_function_then_its_failed_events_have_their_own_destination(
    resources: dict[str, Any],
) -> None:
    enqueue = functions(load_template())["BatchEnqueueFunction"]
    destination = enqueue["EventInvokeConfig"]["DestinationConfig"]["OnFailure"]
    line_dead_letter = resources["BatchQueue"]["Properties"]["RedrivePolicy"]["deadLetterTargetArn"]

    assert "DeadLetterQueue" not in enqueue
    assert destination["Type"] == "SQS"
    assert destination["Destination"] != line_dead_letter
    assert resources[destination["Destination"]["Fn::GetAtt"][0]]["Type"] == "AWS::SQS::Queue"


def test_given_the_stored_data_then_deleting_or_replacing_the_stack_keeps_it(
    resources: dict[str, Any],
) -> None:
    kept = ["StateTable", *of_type(resources, "AWS::S3::Bucket")]

    for name in kept:
        assert resources[name].get("DeletionPolicy") == "Retain", name
        assert resources[name].get("UpdateReplacePolicy") == "Retain", name


def test_given_every_bucket_then_its_policy_refuses_requests_without_tls(
    resources: dict[str, Any],
) -> None:
    policies = {
        p["Properties"]["Bucket"]["Ref"]: p["Properties"]["PolicyDocument"]["Statement"]
        for p in of_type(resources, "AWS::S3::BucketPolicy").values()
    }

    for bucket in of_type(resources, "AWS::S3::Bucket"):
        (deny,) = [s for s in policies[bucket] if s["Effect"] == "Deny"]
        assert deny["Principal"] == "*"
        assert deny["Action"] == "s3:*"
        assert deny["Condition"] == {"Bool": {"aws:SecureTransport": False}}
        assert {"Fn::Sub": f"${{{bucket}.Arn}}/*"} in deny["Resource"]


def test_given_the_batch_parts_then_a_lifecycle_rule_expires_them_and_only_them(
    resources: dict[str, Any],
) -> None:
    rules = resources["BatchOutputBucket"]["Properties"]["LifecycleConfiguration"]["Rules"]
    (rule,) = [r for r in rules if "ExpirationInDays" in r]
    (stalled,) = [r for r in rules if "AbortIncompleteMultipartUpload" in r]
    layout = Layout("out", "results/", "batches/in.jsonl", "b1")

    assert rule["Status"] == "Enabled"
    assert layout.part_key(1).startswith(rule["Prefix"])
    assert not layout.results_key.startswith(rule["Prefix"])
    assert not layout.summary_key.startswith(rule["Prefix"])
    assert rule["ExpirationInDays"] > 14  # the dead-letter queue keeps a line 14 days
    # An assembly's upload abandoned in the dead-letter queue is not kept for ever either.
    assert stalled["AbortIncompleteMultipartUpload"]["DaysAfterInitiation"] > 14


def test_given_the_functions_policies_then_they_name_actions_not_broad_templates() -> None:
    broad = {
        "DynamoDBCrudPolicy",
        "DynamoDBReadPolicy",
        "S3WritePolicy",
        "S3ReadPolicy",
        "S3CrudPolicy",
    }
    for name, function in functions(load_template()).items():
        templates = {key for policy in function.get("Policies", []) for key in policy}
        assert not templates & broad, name
        for statement in statements(function):
            actions = statement["Action"]
            for action in [actions] if isinstance(actions, str) else actions:
                assert "*" not in action or action == "sqs:SendMessage*", (name, action)
                assert action not in {"dynamodb:Scan", "dynamodb:BatchWriteItem"}, (name, action)


def test_given_a_function_that_searches_opensearch_then_it_signs_for_the_stack_region() -> None:
    searching = {
        name: function["Environment"]["Variables"]
        for name, function in functions(load_template()).items()
        if "GROUNDWORK_OPENSEARCH_URL" in function.get("Environment", {}).get("Variables", {})
    }

    assert {"ChatFunction", "ApiFunction", "ScopeFunction"} <= set(searching)
    for variables in searching.values():
        assert variables["GROUNDWORK_OPENSEARCH_REGION"] == {"Ref": "AWS::Region"}


def test_given_the_collection_then_its_standby_replicas_are_a_parameter(
    resources: dict[str, Any],
) -> None:
    parameter = load_template()["Parameters"]["CollectionStandbyReplicas"]

    assert resources["Collection"]["Properties"]["StandbyReplicas"] == {
        "Ref": "CollectionStandbyReplicas"
    }
    assert parameter["AllowedValues"] == ["ENABLED", "DISABLED"]
