"""What ``groundwork serve --lambda`` needs of a template ``sam build`` wrote, as JSON on stdout.

Run by ``scripts/lambda_local.sh build`` with aws-sam-cli's interpreter, whose YAML loader reads
CloudFormation's short-form intrinsics (``!Ref``, ``!Sub``); the groundwork package then needs
no YAML parser. For each function: its built code folder, its layers (the template's Globals
first, as SAM merges them; built folders, or the ARN of a layer from elsewhere), handler,
timeout, memory, literal environment variables (those given by an intrinsic are named apart,
for the caller to supply) and events (Api path, method and transfer mode; S3; SQS).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from samcli.yamlhelper import yaml_parse


def literal(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    return None  # an intrinsic function: known only once deployed


def parameter_default(template: dict[str, Any], value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"Ref"}:
        return template.get("Parameters", {}).get(value["Ref"], {}).get("Default", value)
    return value


def describe(path: Path) -> dict[str, Any]:
    template = yaml_parse(path.read_text())
    root = path.parent
    resources = template["Resources"]
    defaults = template.get("Globals", {}).get("Function", {})
    stages = {
        name: parameter_default(template, res["Properties"].get("StageName"))
        for name, res in resources.items()
        if res["Type"] == "AWS::Serverless::Api"
    }
    functions = {}
    for name, res in resources.items():
        if res["Type"] != "AWS::Serverless::Function":
            continue
        props = {**defaults, **res["Properties"]}
        layers, external = [], []
        for layer in [*defaults.get("Layers", []), *res["Properties"].get("Layers", [])]:
            if isinstance(layer, dict) and "Ref" in layer:
                content = resources[layer["Ref"]]["Properties"]["ContentUri"]
                layers.append(str((root / content).resolve()))
            else:
                external.append(layer if isinstance(layer, str) else json.dumps(layer))
        variables = {
            **defaults.get("Environment", {}).get("Variables", {}),
            **res["Properties"].get("Environment", {}).get("Variables", {}),
        }
        events = []
        for event in props.get("Events", {}).values():
            kind, spec = event["Type"], event.get("Properties", {})
            if kind == "Api":
                api = spec.get("RestApiId", {}).get("Ref")
                events.append(
                    {
                        "type": "Api",
                        "path": spec["Path"],
                        "method": spec["Method"].upper(),
                        "stream": spec.get("ResponseTransferMode") == "RESPONSE_STREAM",
                        "stage": stages.get(api),
                    }
                )
            else:
                events.append({"type": kind})
        functions[name] = {
            "code": str((root / props["CodeUri"]).resolve()),
            "handler": props["Handler"],
            "runtime": props["Runtime"],
            "timeout": int(props.get("Timeout", 3)),
            "memory": int(props.get("MemorySize", 128)),
            "layers": layers,
            "external_layers": external,
            "environment": {k: literal(v) for k, v in variables.items() if literal(v) is not None},
            "unresolved_environment": sorted(k for k, v in variables.items() if literal(v) is None),
            "events": events,
        }
    return {"functions": functions}


if __name__ == "__main__":
    json.dump(describe(Path(sys.argv[1])), sys.stdout, indent=2, sort_keys=True)
