#!/usr/bin/env python3
"""Records real rollout-service answers for the adapters' unit tests (tests/recorded/*.json).

Starts, on free loopback ports (tests/support/stack.py): simulated inference servers (`rlf-sim
llm`, SIMULATED, not a model, with the real Qwen3 tokenizer), a tool gateway with the bundled search
tool, and `rlf rollout serve`; then sends one `POST /v1/rollout` per scenario and writes
`{"scenario", "request", "response"}` to tests/recorded/<scenario>.json:

  completed    vLLM protocol, search-then-answer policy: a tool call, an answer, a reward
  truncated    keep-searching policy with max_turns 2: never answers, cut by the turn limit
  length       ramble policy on a service with max_context_tokens 340: cut by the context budget
  failed       inference.urls pointing at a closed port: every trajectory fails
  sglang       SGLang protocol: each sampled turn carries the server's weight_version ("12")
  stale_flag   staleness max_staleness 0, on_stale flag, current version 5, request version 4
  stale_drop   the same with on_stale drop: the group comes back empty with dropped_stale
  aborted      a slow server, then Ctrl-C (SIGINT) to the service: in-flight trajectories end aborted

Run from anywhere (Node.js >= 22.18 on PATH or NODE=/path/to/node; the repository's npm packages
installed):

    python3 services/engines/scripts/record_responses.py

Standard library only. The adapters never need it at run time.
"""

from __future__ import annotations

import json
import shutil
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.stack import (
    ROOT,
    Child,
    find_node,
    free_port,
    hotpot_tasks,
    http_json,
    start_gateway,
    start_service,
    start_sim,
)

OUT = Path(__file__).resolve().parents[1] / "tests" / "recorded"
SAMPLING = {"temperature": 0.8, "max_tokens": 128}


def save(scenario: str, request: dict[str, Any], response: dict[str, Any]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{scenario}.json"
    path.write_text(json.dumps({"scenario": scenario, "request": request, "response": response}, indent=1) + "\n")
    statuses = sorted({t["status"] for g in response["groups"] for t in g["trajectories"]})
    print(f"  {path.relative_to(ROOT)}: {len(response['groups'])} groups, statuses {statuses}")


def expect_statuses(response: dict[str, Any], *wanted: str) -> None:
    got = {t["status"] for g in response["groups"] for t in g["trajectories"]}
    missing = set(wanted) - got
    if missing:
        raise RuntimeError(f"expected statuses {sorted(missing)} in the answer, got {sorted(got)}")


def record(service: str, scenario: str, request: dict[str, Any], *statuses: str) -> None:
    response = http_json("POST", f"{service}/v1/rollout", request)
    expect_statuses(response, *statuses)
    save(scenario, request, response)


def main() -> None:
    node, why = find_node()
    if node is None:
        sys.exit(f"record_responses: {why}")
    children: list[Child] = []
    workdir = Path(tempfile.mkdtemp(prefix="rlf-record-"))

    def started(pair):
        children.append(pair[0])
        return pair[1:] if len(pair) > 2 else pair[1]

    try:
        sim_url = started(start_sim(node, "search-then-answer", "--seed", "4"))
        searching_url = started(start_sim(node, "keep-searching", "--seed", "5"))
        ramble_url = started(start_sim(node, "ramble", "--seed", "6"))
        sglang_url = started(start_sim(node, "search-then-answer", "--seed", "7", "--weight-version", "12"))
        slow_url = started(start_sim(node, "search-then-answer", "--turn-ms", "30000-30000"))
        gateway, _admin = started(start_gateway(node, workdir))
        service = started(start_service(node, workdir, "main", sim_url, gateway))
        print(f"rollout service {service}, gateway {gateway}")

        def request(n: int, **extra: Any) -> dict[str, Any]:
            return {"tasks": hotpot_tasks(n), "group_size": 2, "sampling": SAMPLING, "max_turns": 3, **extra}

        record(
            service,
            "completed",
            request(2, policy_version=3, inference={"urls": [sim_url], "engine": "vllm"}),
            "completed",
        )
        record(
            service,
            "truncated",
            request(1, max_turns=2, policy_version=3, inference={"urls": [searching_url], "engine": "vllm"}),
            "truncated",
        )
        ctx = started(start_service(node, workdir, "ctx", ramble_url, gateway, context_tokens=340))
        record(ctx, "length", request(1, max_turns=2, policy_version=3), "truncated")
        dead = f"http://127.0.0.1:{free_port()}"
        record(service, "failed", request(1, policy_version=3, inference={"urls": [dead], "engine": "vllm"}), "failed")
        record(service, "sglang", request(1, inference={"urls": [sglang_url], "engine": "sglang"}), "completed")

        for on_stale in ("flag", "drop"):
            svc = started(
                start_service(
                    node,
                    workdir,
                    on_stale,
                    sim_url,
                    gateway,
                    staleness=f"staleness: {{ max_staleness: 0, on_stale: {on_stale} }}",
                )
            )
            http_json("PUT", f"{svc}/v1/policy_version", {"version": 5})
            record(svc, f"stale_{on_stale}", request(1, policy_version=4))

        # aborted: a request in flight on a slow server, then Ctrl-C to the service, which still answers it
        abort_proc, abort_url = start_service(node, workdir, "abort", slow_url, gateway)
        children.append(abort_proc)
        body = request(2, policy_version=3)
        answer: dict[str, Any] = {}
        caller = threading.Thread(target=lambda: answer.update(r=http_json("POST", f"{abort_url}/v1/rollout", body)))
        caller.start()
        time.sleep(2.0)
        abort_proc.proc.send_signal(signal.SIGINT)
        caller.join(timeout=60)
        if "r" not in answer:
            raise RuntimeError("the aborted rollout got no answer")
        expect_statuses(answer["r"], "aborted")
        save("aborted", body, answer["r"])
    finally:
        for child in reversed(children):
            child.stop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
