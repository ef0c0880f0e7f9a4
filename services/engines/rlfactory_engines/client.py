"""HTTP client of the rlfactory rollout service (`rlf rollout serve`, default http://127.0.0.1:8091).

    client = RolloutServiceClient("http://127.0.0.1:8091")
    client.set_policy_version(step)                       # after each weight sync
    groups = client.rollout(
        [make_task("q1", "Who wrote Dune?", ground_truth={"target": ["Frank Herbert"]})],
        group_size=8,
        policy_version=step,
        inference_urls=["http://gpu-0:8000"],             # the engine's own vLLM/SGLang servers
        inference_engine="vllm",
    )

Standard library only (http.client, urllib), so it installs next to any engine. `arollout` runs the same request
on a worker thread for asyncio engines (slime, verl, SkyRL). Every failure of the request as a whole
raises `RolloutServiceError` with the service's message; one trajectory's failure is never an
exception (it comes back with status `failed`).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import socket
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Sequence
from typing import Any

from .records import PolicyVersion, TrajectoryGroup

DEFAULT_URL = "http://127.0.0.1:8091"


class RolloutServiceError(RuntimeError):
    """The rollout service refused a request (HTTP status set) or could not be reached (status None)."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


#: Every field of the service's task (proto/schema/task.schema.json); adapters pass all of them through.
TASK_FIELDS = (
    "id",
    "data_source",
    "prompt",
    "ground_truth",
    "extra_info",
    "tools",
    "turns",
    "user_simulator",
    "environment",
    "tool_aliases",
)


def make_task(
    task_id: str,
    prompt: str | Sequence[dict[str, Any]],
    *,
    ground_truth: Any = None,
    data_source: str | None = None,
    extra_info: dict[str, Any] | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """A task in the service's JSON form; a string prompt becomes one user message. `fields` are the
    task's other fields (`environment`, `tools`, `tool_aliases`, `turns`, `user_simulator`); None is left out,
    a name that is not a task field is refused."""
    unknown = sorted(set(fields) - set(TASK_FIELDS))
    if unknown:
        raise ValueError(f"not task fields: {', '.join(unknown)} (a task has {', '.join(TASK_FIELDS)})")
    messages = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else [dict(m) for m in prompt]
    task: dict[str, Any] = {"id": str(task_id), "prompt": messages}
    if ground_truth is not None:
        task["ground_truth"] = ground_truth
    if data_source:
        task["data_source"] = data_source
    if extra_info:
        task["extra_info"] = extra_info
    for name in TASK_FIELDS:
        if fields.get(name) is not None:
            task[name] = fields[name]
    return task


class RolloutServiceClient:
    def __init__(self, base_url: str = DEFAULT_URL, *, timeout_s: float = 3600.0):
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s

    # --- rollouts ---------------------------------------------------------------------------------

    def rollout(self, tasks: Sequence[dict[str, Any]], **options: Any) -> list[TrajectoryGroup]:
        """Runs every task `group_size` times; returns the groups in order of completion."""
        return self._groups(self._call("POST", "/v1/rollout", self._request_body(tasks, **options)))

    def iter_rollout(self, tasks: Sequence[dict[str, Any]], **options: Any) -> Iterator[TrajectoryGroup]:
        """The same rollout, streamed: yields each group as soon as the service finishes it (NDJSON)."""
        body = self._request_body(tasks, **options)
        with self._open(self._ndjson_request(body)) as response:
            for line in response:
                if not line.strip():
                    continue
                item = json.loads(line)
                if "error" in item and "trajectories" not in item:
                    raise RolloutServiceError(f"rollout failed midway: {item['error']}", 500)
                yield TrajectoryGroup.from_json(item)

    async def arollout(self, tasks: Sequence[dict[str, Any]], **options: Any) -> list[TrajectoryGroup]:
        """`rollout` for asyncio callers: the request runs on a worker thread (the event loop stays
        free). Cancelling the coroutine closes the connection, which aborts the request at the service
        (its in-flight trajectories end `aborted`) instead of leaving it running."""
        body = self._request_body(tasks, **options)
        connection = self._connection()
        work = asyncio.ensure_future(asyncio.to_thread(self._exchange, connection, "POST", "/v1/rollout", body))
        # after a cancel the worker ends with the hang-up's error: nobody awaits it, so retrieve it here
        work.add_done_callback(lambda f: f.cancelled() or f.exception())
        try:
            answer = await asyncio.shield(work)
        except asyncio.CancelledError:
            _hang_up(connection)
            raise
        return self._groups(answer)

    # --- policy version ---------------------------------------------------------------------------

    def set_policy_version(self, version: PolicyVersion) -> dict[str, Any]:
        """Tells the service the trainer's current weight version (call after each weight sync)."""
        if version is None or version == "":
            raise ValueError("version must be an integer step or a non-empty string")
        return self._call("PUT", "/v1/policy_version", {"version": version})

    def get_policy_version(self) -> dict[str, Any]:
        return self._call("GET", "/v1/policy_version")

    def health(self) -> bool:
        try:
            return self._call("GET", "/healthz").get("status") == "ok"
        except RolloutServiceError:
            return False

    # --- plumbing ---------------------------------------------------------------------------------

    @staticmethod
    def _request_body(
        tasks: Sequence[dict[str, Any]],
        *,
        group_size: int | None = None,
        sampling: dict[str, Any] | None = None,
        max_turns: int | None = None,
        policy_version: PolicyVersion = None,
        inference_urls: Sequence[str] | None = None,
        inference_engine: str | None = None,
        model: str | None = None,
        inference_logprobs_mode: str | None = None,
    ) -> dict[str, Any]:
        if not tasks:
            raise ValueError("a rollout needs at least one task")
        body: dict[str, Any] = {"tasks": list(tasks)}
        if group_size is not None:
            body["group_size"] = int(group_size)
        if sampling:
            body["sampling"] = {k: v for k, v in sampling.items() if v is not None}
        if max_turns is not None:
            body["max_turns"] = int(max_turns)
        if policy_version is not None:
            body["policy_version"] = policy_version
        if inference_urls:
            inference: dict[str, Any] = {"urls": list(inference_urls)}
            if inference_engine:
                inference["engine"] = inference_engine
            if model:
                inference["model"] = model
            if inference_logprobs_mode:
                # raw | processed: what these servers' logprobs are (docs/training.md "Which logprobs")
                inference["logprobs_mode"] = inference_logprobs_mode
            body["inference"] = inference
        return body

    def _groups(self, answer: Any) -> list[TrajectoryGroup]:
        if not isinstance(answer, dict) or not isinstance(answer.get("groups"), list):
            raise RolloutServiceError(f"unexpected answer from {self.base_url}/v1/rollout: {str(answer)[:200]}")
        return [TrajectoryGroup.from_json(g) for g in answer["groups"]]

    def _connection(self) -> http.client.HTTPConnection:
        url = urllib.parse.urlsplit(self.base_url)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ValueError(f"rollout service URL must be http(s)://host:port, not {self.base_url!r}")
        cls = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
        return cls(url.hostname, url.port, timeout=self.timeout_s)

    def _exchange(self, connection: http.client.HTTPConnection, method: str, path: str, body: Any = None) -> Any:
        """One request on its own connection: the JSON answer, or RolloutServiceError."""
        prefix = urllib.parse.urlsplit(self.base_url).path.rstrip("/")
        data = None if body is None else json.dumps(body).encode()
        headers = {"accept": "application/json"}
        if data is not None:
            headers["content-type"] = "application/json"
        try:
            connection.request(method, prefix + path, body=data, headers=headers)
            response = connection.getresponse()
            text = response.read()
        except (OSError, http.client.HTTPException) as e:
            raise RolloutServiceError(f"cannot reach the rollout service at {self.base_url}: {e}") from None
        finally:
            connection.close()
        if response.status >= 400:
            raise _refusal(f"{self.base_url}{path}", response.status, text)
        try:
            return json.loads(text)
        except ValueError:
            raise RolloutServiceError(
                f"rollout service {self.base_url}{path} answered non-JSON: {text[:200]!r}"
            ) from None

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        return self._exchange(self._connection(), method, path, body)

    def _ndjson_request(self, body: Any) -> urllib.request.Request:
        return urllib.request.Request(
            self.base_url + "/v1/rollout",
            data=json.dumps(body).encode(),
            headers={"accept": "application/x-ndjson", "content-type": "application/json"},
            method="POST",
        )

    def _open(self, request: urllib.request.Request):
        try:
            return urllib.request.urlopen(request, timeout=self.timeout_s)
        except urllib.error.HTTPError as e:
            raise _refusal(request.full_url, e.code, e.read()) from None
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise RolloutServiceError(f"cannot reach the rollout service at {self.base_url}: {reason}") from None


def _refusal(url: str, status: int, body: bytes) -> RolloutServiceError:
    """The service's `{"error": ...}` message (or its text) as an error carrying the HTTP status."""
    message = body.decode(errors="replace")
    with contextlib.suppress(ValueError, AttributeError):
        message = json.loads(message).get("error", message)
    return RolloutServiceError(f"rollout service {url} answered {status}: {message}", status)


def _hang_up(connection: http.client.HTTPConnection) -> None:
    """Closes a connection another thread is blocked on (its read fails at once; the server sees EOF)."""
    sock = connection.sock
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
