"""`python trajectory_roundtrip.py IN.jsonl OUT.jsonl`: reads trajectory records as the Python adapters do
(`Trajectory.from_json`, invariants checked) and writes them back (`to_json`), one JSON line each. The
cross-language round-trip test (trajectory-roundtrip.test.ts) runs it between two TypeScript halves."""

from __future__ import annotations

import json
import sys

from rlfactory_engines.records import Trajectory


def main(src: str, dst: str) -> None:
    with open(src, encoding="utf-8") as f:
        records = [Trajectory.from_json(json.loads(line)) for line in f if line.strip()]
    with open(dst, "w", encoding="utf-8") as f:
        for t in records:
            f.write(json.dumps(t.to_json()) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
