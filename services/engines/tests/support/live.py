"""One live rlfactory stack shared by the end-to-end tests of a pytest session.

Started on first use, stopped at interpreter exit: `rlf-sim llm` (search-then-answer policy;
SGLang weight_version "9"), `rlf gateway` with the search tool, `rlf rollout serve` and `rlf judge`.
Tests call `live_stack()` through a fixture and are skipped, with the reason, where Node.js >= 22.18
or the repository's npm packages are missing.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

from .stack import (
    Child,
    find_node,
    free_port,
    start_gateway,
    start_judge,
    start_service,
    start_sim,
)

SIM_WEIGHT_VERSION = "9"


@dataclass(frozen=True)
class LiveStack:
    #: The simulated inference server (vLLM /v1/completions and SGLang /generate).
    sim_url: str
    #: `rlf rollout serve` HTTP.
    service_url: str
    #: The gateway's admin HTTP (tool calls) and gRPC address.
    gateway_admin_url: str
    gateway_grpc: str
    #: `rlf judge` HTTP base URL (no model backend: rule graders only).
    judge_url: str
    #: A closed port: an inference server that is down.
    dead_url: str


_lock = threading.Lock()
_stack: LiveStack | None = None
_error: str | None = None
_children: list[Child] = []


def live_stack() -> LiveStack:
    global _stack, _error
    with _lock:
        if _stack is None and _error is None:
            try:
                _stack = _start()
            except RuntimeError as e:
                _error = str(e)
        if _stack is None:
            if os.environ.get("CI") == "true":  # CI has every piece: a missing one is a failure there
                pytest.fail(f"live rlfactory stack unavailable: {_error}")
            pytest.skip(f"live rlfactory stack unavailable: {_error}")
        return _stack


def _start() -> LiveStack:
    node, why = find_node()
    if node is None:
        raise RuntimeError(why)
    workdir = Path(tempfile.mkdtemp(prefix="rlf-engines-test-"))
    atexit.register(_stop, workdir)
    results: dict[str, tuple] = {}
    errors: list[str] = []

    def run(name: str, start) -> None:
        try:
            results[name] = start()
            _children.append(results[name][0])
        except Exception as e:
            errors.append(f"{name}: {e}")

    starters = {
        "sim": lambda: start_sim(node, "search-then-answer", "--seed", "11", "--weight-version", SIM_WEIGHT_VERSION),
        "gateway": lambda: start_gateway(node, workdir),
        "judge": lambda: start_judge(node),
    }
    threads = [threading.Thread(target=run, args=item) for item in starters.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise RuntimeError("; ".join(errors))
    _, sim_url = results["sim"]
    _, grpc, admin = results["gateway"]
    _, judge_url = results["judge"]
    service, service_url = start_service(node, workdir, "engines", sim_url, grpc)
    _children.append(service)
    return LiveStack(sim_url, service_url, admin, grpc, judge_url, f"http://127.0.0.1:{free_port()}")


def _stop(workdir: Path) -> None:
    for child in reversed(_children):
        child.stop()
    shutil.rmtree(workdir, ignore_errors=True)
