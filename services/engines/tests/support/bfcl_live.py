"""BFCL tasks through the engines' own dataset files and a live rollout service, for the adapter tests.

`bfcl_tasks()` runs `rlf data bfcl` over the shared BFCL multi_turn_base file (200 tasks) and keeps the
first two; `export(engine)` runs `rlf data export --engine ENGINE` on them, as a user does.
`bfcl_stack()` starts, once per session: `rlf-sim llm --policy replay` (plays each user turn's
ground-truth calls, vLLM and SGLang protocols, real Qwen3 tokenizer), `rlf gateway` with `rlf env bfcl
--stdio` as server `bfcl` (the eight BFCL API classes, one instance per episode), and `rlf rollout
serve` scoring `bfcl_state` with process rewards per turn (`tool_success` 0.1), so every trajectory
carries `turn_rewards`. Missing pieces skip the tests with the reason (and fail them under CI).
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .stack import RLF, ROOT, Child, find_node, json_line_with, start_sim, wait_ok

SHARED = Path(os.environ.get("RLF_SHARED_DATA") or ROOT.parent / "shared" / "data")
QUESTIONS = SHARED / "bfcl" / "BFCL_v4_multi_turn_base.json"
ANSWERS = SHARED / "bfcl" / "possible_answer" / "BFCL_v4_multi_turn_base.json"
BFCL_VENV = ROOT / "services" / "environments" / ".venv"
TASKS = 2
#: The process reward of a successful tool call: every sampled turn with calls gets it in turn_rewards.
TOOL_SUCCESS = 0.1


@dataclass(frozen=True)
class BfclStack:
    sim_url: str
    service_url: str
    gateway_admin_url: str


_lock = threading.Lock()
_state: dict[str, Any] = {}
_children: list[Child] = []


def _unavailable(why: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(why)
    pytest.skip(why)


def _node() -> str:
    node, why = find_node()
    if node is None:
        _unavailable(why)
    return node


def _workdir() -> Path:
    if "workdir" not in _state:
        _state["workdir"] = Path(tempfile.mkdtemp(prefix="rlf-bfcl-engines-"))
        atexit.register(_stop)
    return _state["workdir"]


def _rlf(*args: str) -> None:
    done = subprocess.run([_node(), str(RLF), *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"rlf {' '.join(args)} failed ({done.returncode}): {done.stderr[-2000:]}")


def bfcl_tasks_file() -> Path:
    """The first TASKS tasks `rlf data bfcl` makes of multi_turn_base, as a JSONL task file."""
    with _lock:
        if "tasks" not in _state:
            if not (QUESTIONS.is_file() and ANSWERS.is_file()):
                _unavailable(f"BFCL shared data missing at {QUESTIONS} (set RLF_SHARED_DATA)")
            everything = _workdir() / "bfcl-all.jsonl"
            _rlf("data", "bfcl", "--in", str(QUESTIONS), "--answers", str(ANSWERS), "--out", str(everything))
            lines = [line for line in everything.read_text().splitlines() if line.strip()][:TASKS]
            path = _workdir() / "bfcl.jsonl"
            path.write_text("".join(f"{line}\n" for line in lines))
            _state["tasks"] = path
        return _state["tasks"]


def bfcl_tasks() -> list[dict[str, Any]]:
    return [json.loads(line) for line in bfcl_tasks_file().read_text().splitlines() if line.strip()]


def export(engine: str) -> Path:
    """`rlf data export --engine ENGINE` of the BFCL task file."""
    tasks = bfcl_tasks_file()
    out = _workdir() / f"bfcl-{engine}.{'parquet' if engine in ('verl', 'skyrl') else 'jsonl'}"
    with _lock:
        if not out.exists():
            _rlf("data", "export", "--engine", engine, "--in", str(tasks), "--out", str(out))
    return out


def bfcl_stack() -> BfclStack:
    tasks = bfcl_tasks_file()
    with _lock:
        if "stack" not in _state and "error" not in _state:
            try:
                _state["stack"] = _start(tasks)
            except RuntimeError as e:
                _state["error"] = str(e)
        if "stack" not in _state:
            _unavailable(f"live BFCL stack unavailable: {_state['error']}")
        return _state["stack"]


def _start(tasks: Path) -> BfclStack:
    if not any(BFCL_VENV.glob("lib/*/site-packages/bfcl_eval/eval_checker")):
        raise RuntimeError(f"bfcl-eval is not installed in {BFCL_VENV} (npm run setup:environments)")
    node = _node()
    workdir = _workdir()
    sim, sim_url = start_sim(node, "replay", "--tasks", str(tasks), "--seed", "3")
    _children.append(sim)
    gateway_config = workdir / "gateway.json"
    gateway_config.write_text(
        json.dumps(
            {
                "grpc": {"host": "127.0.0.1", "port": 0},
                "admin": {"host": "127.0.0.1", "port": 0},
                "servers": {"bfcl": {"command": node, "args": [str(RLF), "env", "bfcl", "--stdio"]}},
            }
        )
    )
    gateway = Child("gateway bfcl", [node, str(RLF), "gateway", "--config", str(gateway_config)])
    _children.append(gateway)
    listening = gateway.wait_for(json_line_with("gateway listening"), timeout_s=120)
    admin = listening["admin"].rstrip("/")
    wait_ok(f"{admin}/readyz", timeout_s=120)
    service_config = workdir / "rollout-bfcl.json"
    service_config.write_text(
        json.dumps(
            {
                "inference": {"engine": "vllm", "urls": [sim_url], "timeout_ms": 120000, "retries": 0},
                # no `tools`: each BFCL task offers its own (tool_aliases cd -> bfcl__cd, ...)
                "gateway": {"address": listening["grpc"], "deadline_ms": 30000},
                "tokenizer": {"path": "qwen3"},
                "format": "hermes",
                "rollout": {
                    "group_size": 1,
                    "max_turns": 32,
                    "max_concurrency": 4,
                    "max_context_tokens": 32768,
                    "max_tool_response_tokens": 4096,
                    "sampling": {"temperature": 0, "top_p": 1, "max_tokens": 2048},
                },
                "reward": {
                    "components": [{"type": "bfcl_state", "weight": 1}],
                    "process": {"tool_success": TOOL_SUCCESS},
                },
                "staleness": {"on_stale": "flag"},
                "seed": 1,
            }
        )
    )
    service = Child(
        "rollout serve bfcl",
        [node, str(RLF), "rollout", "serve", "--config", str(service_config), "--grpc-port", "0", "--http-port", "0"],
    )
    _children.append(service)
    url = service.wait_for(json_line_with("rollout service listening"), timeout_s=120)["http"].rstrip("/")
    return BfclStack(sim_url, url, admin)


def _stop() -> None:
    for child in reversed(_children):
        child.stop()
    workdir = _state.get("workdir")
    if workdir is not None:
        shutil.rmtree(workdir, ignore_errors=True)
