"""An API-Gateway-like front for the emulated functions: REST API proxy events, one stage.

- Routes are the template's ``Api`` events. A path is matched after the stage prefix
  (``/prod/...``; anything else is 403 ``Forbidden``, as API Gateway answers), literal segments
  before parameters and ``{proxy+}`` last; no route is 403 ``Missing Authentication Token``.
- A route becomes a REST proxy (v1) event posted to its function's emulator. A buffered
  route's response is the handler's ``statusCode``/``headers``/``body``; a handler error is 502
  ``Internal server error``.
- A ``RESPONSE_STREAM`` route's function answers with the Web Adapter's streaming format (a
  JSON prelude with status and headers, eight zero bytes, then the body). The emulator buffers
  it: it returns the whole stream once the function is done, so the router sends the body in
  one piece, with the prelude's status and headers. Chunks arrive together, not as produced.
- One execution environment per function, as Lambda gives one request to an environment at a
  time: concurrent requests to the same function wait their turn.
- ``POST /2015-03-31/functions/{name}/invocations`` invokes a function by logical id with any
  event, as ``sam local start-lambda`` does, for event sources (S3, SQS) played by the caller.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import time
import uuid
from typing import TYPE_CHECKING, Any

import httpx
from starlette.applications import Starlette
from starlette.responses import JSONResponse, Response
from starlette.routing import Route as StarletteRoute

from groundwork.local_lambda.emulator import INVOKE_PATH

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from starlette.requests import Request

    from groundwork.local_lambda.emulator import Environment
    from groundwork.local_lambda.functions import Route

#: Between the streaming response's JSON prelude and its body.
PRELUDE_END = b"\x00" * 8


def match(routes: list[Route], method: str, path: str) -> tuple[Route, dict[str, str]] | None:
    ordered = sorted(routes, key=lambda r: r.specificity, reverse=True)
    for route in ordered:
        found = route.pattern.match(path)
        if found and route.method in {method, "ANY"}:
            return route, found.groupdict()
    return None


def proxy_event(
    request: Request, body: bytes, route: Route, path: str, params: dict[str, str]
) -> dict[str, Any]:
    request_id = str(uuid.uuid4())
    multi_headers: dict[str, list[str]] = {}
    for name, value in request.headers.items():
        multi_headers.setdefault(name, []).append(value)
    multi_query: dict[str, list[str]] = {}
    for name, value in request.query_params.multi_items():
        multi_query.setdefault(name, []).append(value)
    try:
        text, encoded = body.decode("utf-8"), False
    except UnicodeDecodeError:
        text, encoded = base64.b64encode(body).decode("ascii"), True
    client = request.client.host if request.client else "127.0.0.1"
    return {
        "resource": route.path,
        "path": path,
        "httpMethod": request.method,
        "headers": {k: v[-1] for k, v in multi_headers.items()},
        "multiValueHeaders": multi_headers,
        "queryStringParameters": {k: v[-1] for k, v in multi_query.items()} or None,
        "multiValueQueryStringParameters": multi_query or None,
        "pathParameters": params or None,
        "stageVariables": None,
        "requestContext": {
            "resourceId": "local",
            "resourcePath": route.path,
            "httpMethod": request.method,
            "path": f"/{route.stage}{path}",
            "stage": route.stage,
            "requestId": request_id,
            "extendedRequestId": request_id,
            "requestTimeEpoch": int(time.time() * 1000),
            "accountId": "123456789012",
            "apiId": "local",
            "protocol": "HTTP/1.1",
            "domainName": request.headers.get("host", "127.0.0.1"),
            "identity": {"sourceIp": client, "userAgent": request.headers.get("user-agent")},
        },
        "body": text or None,
        "isBase64Encoded": encoded,
    }


def buffered_response(payload: bytes) -> Response:
    result = json.loads(payload)
    if not isinstance(result, dict) or "statusCode" not in result:
        return JSONResponse({"message": "Internal server error"}, status_code=502)
    headers = dict(result.get("headers") or {})
    for name, values in (result.get("multiValueHeaders") or {}).items():
        headers[name] = ", ".join(values)
    body = result.get("body") or ""
    content = base64.b64decode(body) if result.get("isBase64Encoded") else body.encode("utf-8")
    headers.pop("content-length", None)
    return Response(content, status_code=int(result["statusCode"]), headers=headers)


def streamed_response(payload: bytes) -> Response:
    prelude, separator, body = payload.partition(PRELUDE_END)
    if not separator:  # not the adapter's format: the function failed before answering
        return JSONResponse({"message": "Internal server error"}, status_code=502)
    head = json.loads(prelude)
    headers = dict(head.get("headers") or {})
    headers.pop("content-length", None)
    headers.pop("transfer-encoding", None)
    response = Response(body, status_code=int(head.get("statusCode", 200)), headers=headers)
    for cookie in head.get("cookies") or []:
        response.headers.append("set-cookie", cookie)
    return response


class Gateway:
    def __init__(self, environments: dict[str, Environment]) -> None:
        self.environments = environments
        self.routes = [r for env in environments.values() for r in env.function.routes]
        self.locks = {name: asyncio.Lock() for name in environments}
        self.client = httpx.AsyncClient(timeout=None)

    async def invoke(self, name: str, event: bytes) -> httpx.Response:
        environment = self.environments[name]
        async with self.locks[name]:
            return await self.client.post(
                environment.url + INVOKE_PATH,
                content=event,
                timeout=environment.function.timeout + 10,
            )

    async def api(self, request: Request) -> Response:
        stage_path = request.url.path
        stage = self.routes[0].stage if self.routes else "prod"
        if stage_path != f"/{stage}" and not stage_path.startswith(f"/{stage}/"):
            return JSONResponse({"message": "Forbidden"}, status_code=403)
        path = stage_path[len(stage) + 1 :] or "/"
        found = match(self.routes, request.method, path)
        if found is None:
            return JSONResponse({"message": "Missing Authentication Token"}, status_code=403)
        route, params = found
        event = proxy_event(request, await request.body(), route, path, params)
        answer = await self.invoke(route.function, json.dumps(event).encode())
        if answer.headers.get("x-amz-function-error") or answer.status_code != 200:
            return JSONResponse({"message": "Internal server error"}, status_code=502)
        return (
            streamed_response(answer.content) if route.stream else buffered_response(answer.content)
        )

    async def lambda_invoke(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in self.environments:
            return JSONResponse(
                {"Type": "User", "message": f"Function not found: {name}"}, status_code=404
            )
        answer = await self.invoke(name, await request.body())
        headers = {}
        if error := answer.headers.get("x-amz-function-error"):
            headers["X-Amz-Function-Error"] = error
        return Response(answer.content, status_code=answer.status_code, headers=headers)

    def app(self) -> Starlette:
        methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
        return Starlette(
            routes=[
                StarletteRoute(
                    "/2015-03-31/functions/{name}/invocations", self.lambda_invoke, methods=["POST"]
                ),
                StarletteRoute("/{path:path}", self.api, methods=methods),
            ],
            lifespan=self._lifespan,
        )

    @contextlib.asynccontextmanager
    async def _lifespan(self, _app: Starlette) -> AsyncIterator[None]:
        yield
        await self.client.aclose()
