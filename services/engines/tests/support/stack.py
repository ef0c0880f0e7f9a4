"""Real rlfactory processes on free loopback ports, for the recording script and the end-to-end tests.

`rlf-sim llm` (a TEST FIXTURE inference server: vLLM / SGLang protocols, real Qwen3 tokenizer,
scripted policies), `rlf gateway` with the bundled search tool, `rlf rollout serve`, `rlf judge`.
Each is a child process of `node services/cli/bin/rlf.js`, started the way a user starts it, and
considered up once it prints its start-up line. Standard library only.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

ENGINES = Path(__file__).resolve().parents[2]
ROOT = ENGINES.parents[1]
RLF = ROOT / "services" / "cli" / "bin" / "rlf.js"
RLF_SIM = ROOT / "simulators" / "bin" / "rlf-sim.js"


def find_node() -> tuple[str | None, str]:
    """(node binary, "") for the first Node.js >= 22.18 among NODE, `node` on PATH and the node running
    npm (`npm_node_execpath`, set under `npm run`), else (None, why not)."""
    if not (ROOT / "node_modules").is_dir():
        return None, f"the repository's npm packages are not installed ({ROOT}/node_modules missing)"
    npm_node = os.environ.get("npm_node_execpath")  # noqa: SIM112 - npm sets it in lower case
    candidates = [os.environ.get("NODE"), shutil.which("node"), npm_node]
    seen: list[str] = []
    for node in dict.fromkeys(c for c in candidates if c):
        try:
            version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True, timeout=10)
        except (OSError, subprocess.SubprocessError) as e:
            seen.append(f"{node}: {e}")
            continue
        text = version.stdout.strip()
        major, minor = (int(x) for x in text.lstrip("v").split(".")[:2])
        if (major, minor) >= (22, 18):
            return node, ""
        seen.append(f"{node} is {text}")
    found = "; ".join(seen) if seen else "no node on PATH"
    return None, f"rlf needs Node.js >= 22.18 (set NODE=/path/to/node): {found}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Child:
    """A child process whose stdout+stderr lines are kept, to wait for its start-up line."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str] | None = None):
        self.name = name
        self.lines: list[str] = []
        self.proc = subprocess.Popen(
            argv,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
            env={**os.environ, **(env or {})},
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, predicate: Callable[[str], Any], timeout_s: float = 60.0) -> Any:
        deadline = time.monotonic() + timeout_s
        seen = 0
        while time.monotonic() < deadline:
            while seen < len(self.lines):
                found = predicate(self.lines[seen])
                seen += 1
                if found:
                    return found
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        tail = "\n".join(self.lines[-20:])
        raise RuntimeError(f"{self.name} did not start (exit {self.proc.poll()}):\n{tail}")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def json_line_with(msg: str) -> Callable[[str], Any]:
    def predicate(line: str) -> Any:
        try:
            record = json.loads(line)
        except ValueError:
            return None
        return record if isinstance(record, dict) and record.get("msg") == msg else None

    return predicate


def start_sim(node: str, policy: str, *extra: str) -> tuple[Child, str]:
    """`rlf-sim llm`; returns the process and its base URL."""
    port = free_port()
    child = Child(f"rlf-sim llm {policy}", [node, str(RLF_SIM), "llm", "--port", str(port), "--policy", policy, *extra])
    child.wait_for(lambda line: "SIMULATED LLM" in line and " listening on " in line)
    return child, f"http://127.0.0.1:{port}"


def start_gateway(node: str, workdir: Path, tools: tuple[str, ...] = ("search",)) -> tuple[Child, str, str]:
    """`rlf gateway` with bundled tools (`rlf tool NAME --stdio`, default the search tool); returns the
    process, gRPC address, admin URL."""
    config = workdir / "gateway.json"
    servers = {name: {"command": node, "args": [str(RLF), "tool", name, "--stdio"]} for name in tools}
    config.write_text(
        json.dumps(
            {
                "grpc": {"host": "127.0.0.1", "port": 0},
                "admin": {"host": "127.0.0.1", "port": 0},
                "servers": servers,
            }
        )
    )
    child = Child("gateway", [node, str(RLF), "gateway", "--config", str(config)])
    listening = child.wait_for(json_line_with("gateway listening"))
    wait_ok(f"{listening['admin']}/readyz")
    return child, listening["grpc"], listening["admin"].rstrip("/")


def start_service(
    node: str,
    workdir: Path,
    name: str,
    sim_url: str,
    gateway: str,
    *,
    staleness: str = "",
    context_tokens: int = 8192,
) -> tuple[Child, str]:
    """`rlf rollout serve` with a small Hermes/HotpotQA config; returns the process and its HTTP URL."""
    config = workdir / f"{name}.yaml"
    config.write_text(
        "\n".join(
            [
                f"inference: {{ engine: vllm, urls: [{sim_url}], timeout_ms: 60000, retries: 0 }}",
                f'gateway: {{ address: "{gateway}", tools: [search__search], deadline_ms: 10000 }}',
                "tokenizer: { path: qwen3 }",
                "format: hermes",
                f"rollout: {{ group_size: 2, max_turns: 3, max_context_tokens: {context_tokens}, "
                "sampling: { temperature: 0.8, max_tokens: 128 } }",
                "reward: { components: [{ type: exact_match, weight: 1 }, { type: format, weight: 0.1 }] }",
                "seed: 3",
                staleness,
            ]
        )
        + "\n"
    )
    child = Child(
        f"rollout serve {name}",
        [node, str(RLF), "rollout", "serve", "--config", str(config), "--grpc-port", "0", "--http-port", "0"],
    )
    listening = child.wait_for(json_line_with("rollout service listening"))
    return child, listening["http"].rstrip("/")


def start_judge(node: str) -> tuple[Child, str]:
    """`rlf judge` with no model backend (rule graders work; model modes answer BACKEND_UNAVAILABLE)."""
    child = Child(
        "judge",
        [node, str(RLF), "judge", "--http-port", "0", "--grpc-port", "0"],
        env={"JUDGE_BASE_URL": "", "JUDGE_MODEL": ""},
    )
    line = child.wait_for(lambda line: line if line.startswith("rlf judge: HTTP ") else None)
    url = line.split("HTTP ", 1)[1].split(",", 1)[0].strip()
    return child, url.removesuffix("/v1/judge")


def wait_ok(url: str, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{url} never answered 200")


def http_json(method: str, url: str, body: Any = None, timeout_s: float = 120.0) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method=method, headers={"content-type": "application/json", "accept": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=timeout_s) as r:
        return json.loads(r.read())


HOTPOT_SYSTEM = (
    'You answer questions using the search tool. Call it with <tool_call>{"name": "search__search", '
    '"arguments": {"query": ...}}</tool_call>, then give the final answer inside <answer></answer>.'
)

#: Two HotpotQA dev questions of services/rollout/data/hotpotqa-sample.jsonl.
QUESTIONS = [
    ("hotpot_dev_0", "Were Scott Derrickson and Ed Wood of the same nationality?", ["yes"]),
    (
        "hotpot_dev_1",
        "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?",
        ["Chief of Protocol"],
    ),
]


def hotpot_tasks(n: int = 2) -> list[dict[str, Any]]:
    return [
        {
            "id": qid,
            "data_source": "hotpotqa",
            "prompt": [{"role": "system", "content": HOTPOT_SYSTEM}, {"role": "user", "content": question}],
            "ground_truth": {"target": answers},
            "extra_info": {"index": i, "split": "dev"},
        }
        for i, (qid, question, answers) in enumerate(QUESTIONS[:n])
    ]
