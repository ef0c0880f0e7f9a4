"""HTTP client of the rlfactory tool gateway's call surface (standard library only).

The gateway (`rlf gateway`, docs/gateway.md) serves gRPC `rlfactory.v1.ToolGateway` and, on its admin
HTTP port (default 127.0.0.1:8080), the same calls as JSON through the same policy stack (deadline,
cache, retry, breaker, bulkhead):

    GET  /v1/tools[?server=NAME]      -> {"tools": [{name, description, input_schema_json, ...}]}
    POST /v1/tools/{name}:call        {"arguments", "deadline_ms", "trajectory_id", "call_id", "cache"}
                                      -> {name, content: [MCP blocks], is_error, error_code, error_message,
                                          latency_ms, cache_hit, attempts, truncated, structured_content,
                                          usage?: {prompt_tokens, completion_tokens, cost_usd?, model}}

Two outcomes are kept apart, as in the gateway: a tool's own failure (`is_error`, the model should see
the message) and a failure of the call (`error_code` other than OK: timeout, unavailable, ...; HTTP
4xx/5xx with the same JSON). Both come back as a `ToolCallResult`; only a request the gateway refuses
as a whole (no or wrong API key, malformed body) or an unreachable gateway raises `GatewayError`.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any

DEFAULT_ADMIN_URL = "http://127.0.0.1:8080"


class GatewayError(RuntimeError):
    """The gateway refused the request as a whole, or could not be reached (status None)."""

    def __init__(self, message: str, status: int | None = None, code: str | None = None):
        super().__init__(message)
        self.status = status
        self.code = code


@dataclass(frozen=True)
class ToolCallResult:
    name: str
    #: MCP content blocks as the tool returned them (`{"type": "text", "text": ...}`, ...).
    content: list[dict[str, Any]]
    #: The tool reported a failure (MCP isError): a normal outcome the model should see.
    is_error: bool
    #: OK, or why the call itself failed (TIMEOUT, UNAVAILABLE, CIRCUIT_OPEN, UNKNOWN_TOOL, ...).
    error_code: str
    error_message: str
    latency_ms: float
    truncated: bool = False
    cache_hit: bool = False
    structured_content: Any = None
    #: What the call spent on a model (a model tool): prompt_tokens, completion_tokens, model, cost_usd
    #: with a configured price. None for other tools and for a cache hit.
    usage: dict[str, Any] | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def call_failed(self) -> bool:
        return self.error_code != "OK"

    @property
    def text(self) -> str:
        """The text the model sees: the text blocks joined; for a failed call, a short error line."""
        if self.call_failed:
            return f"Error: tool call failed ({self.error_code}): {self.error_message}".rstrip(": ")
        parts = []
        for block in self.content:
            if block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif block.get("type") == "resource" and isinstance(block.get("resource"), dict):
                parts.append(str(block["resource"].get("text") or ""))
        return "\n".join(p for p in parts if p)

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> ToolCallResult:
        return cls(
            name=str(raw.get("name", "")),
            content=list(raw.get("content") or []),
            is_error=bool(raw.get("is_error", False)),
            error_code=str(raw.get("error_code") or "OK"),
            error_message=str(raw.get("error_message") or ""),
            latency_ms=float(raw.get("latency_ms") or 0.0),
            truncated=bool(raw.get("truncated", False)),
            cache_hit=bool(raw.get("cache_hit", False)),
            structured_content=raw.get("structured_content"),
            usage=raw.get("usage"),
            raw=raw,
        )


class GatewayClient:
    """`GatewayClient("http://127.0.0.1:8080", api_key_env="RLF_API_KEY").call("search__search", {...})`."""

    def __init__(
        self,
        admin_url: str = DEFAULT_ADMIN_URL,
        *,
        api_key: str | None = None,
        api_key_env: str | None = None,
        timeout_s: float = 120.0,
    ):
        self.admin_url = admin_url.rstrip("/")
        self._api_key = api_key or (os.environ.get(api_key_env) if api_key_env else None)
        self.timeout_s = timeout_s

    def list_tools(self, server: str | None = None) -> list[dict[str, Any]]:
        query = f"?{urllib.parse.urlencode({'server': server})}" if server else ""
        answer = self._request("GET", f"/v1/tools{query}")
        return list(answer.get("tools", []))

    def call(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        deadline_ms: int | None = None,
        trajectory_id: str | None = None,
        call_id: str | None = None,
        bypass_cache: bool = False,
    ) -> ToolCallResult:
        body: dict[str, Any] = {"arguments": arguments or {}}
        if deadline_ms:
            body["deadline_ms"] = int(deadline_ms)
        if trajectory_id:
            body["trajectory_id"] = trajectory_id
        if call_id:
            body["call_id"] = call_id
        if bypass_cache:
            body["cache"] = "bypass"
        path = f"/v1/tools/{urllib.parse.quote(name, safe='')}:call"
        return ToolCallResult.from_json(self._request("POST", path, body))

    def _request(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        data = None if body is None else json.dumps(body).encode()
        headers = {"accept": "application/json"}
        if data is not None:
            headers["content-type"] = "application/json"
        if self._api_key:
            headers["authorization"] = f"Bearer {self._api_key}"
        request = urllib.request.Request(self.admin_url + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as e:
            text = e.read().decode(errors="replace")
            try:
                answer = json.loads(text)
            except ValueError:
                answer = None
            if isinstance(answer, dict) and "error_code" in answer:
                return answer  # a call that failed (timeout, unavailable, ...): a result, not an exception
            error = answer.get("error") if isinstance(answer, dict) else None
            if isinstance(error, dict):
                raise GatewayError(
                    f"gateway {request.full_url} answered {e.code} {error.get('code')}: {error.get('message')}",
                    e.code,
                    error.get("code"),
                ) from None
            raise GatewayError(f"gateway {request.full_url} answered {e.code}: {text[:300]}", e.code) from None
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise GatewayError(f"cannot reach the gateway at {self.admin_url}: {reason}") from None
