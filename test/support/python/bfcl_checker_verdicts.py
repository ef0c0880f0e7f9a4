"""bfcl-eval's own verdicts on executed call lists (test fixture; run with the environments venv's
python, outside any sandbox).

Reads JSON lines on stdin, one per case:
    {"case": NAME, "entry": {"id", "involved_classes", "initial_config"},
     "ground_truth": [[call, ...], ...],            # BFCL's possible answer, one list per turn
     "model": [[[call, ...], ...], ...]}            # per turn, per step: the calls
where a model call is a python-call string, or {"text", "keyword" | "position", "value"}: that
string with one argument (by keyword, or positional index) replaced by a literal (edited with ast).
Prints one JSON line per case, {"case", "valid", "error_type", "results"}: the result of bfcl-eval's
multi_turn_checker on them (as bfcl-eval's evaluation runs it: decoded model results, the entry,
its category), and the model calls' result texts per turn as bfcl-eval's execute_multi_turn_func_call
gives them (what its response checker compares). Each case gets its own model names, since bfcl-eval
keeps instances across calls in module globals keyed by model name and entry id.
"""

import ast
import json
import re
import sys

from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import execute_multi_turn_func_call


def source(call):
    """A model call as Python source."""
    if isinstance(call, str):
        return call
    node = ast.parse(call["text"], mode="eval").body
    value = ast.Constant(call["value"])
    if "keyword" in call:
        for keyword in node.keywords:
            if keyword.arg == call["keyword"]:
                keyword.value = value
    else:
        node.args[call["position"]] = value
    return ast.unparse(node)


def main():
    # anything bfcl-eval or the environment classes print goes to stderr, never into the verdicts
    out, sys.stdout = sys.stdout, sys.stderr
    for line in sys.stdin:
        if not line.strip():
            continue
        case = json.loads(line)
        entry = case["entry"]
        category = entry["id"].rsplit("_", 1)[0]
        model_name = "parity_" + re.sub(r"[^A-Za-z0-9_]", "_", case["case"])
        model = [[[source(call) for call in step] for step in turn] for turn in case["model"]]
        verdict = multi_turn_checker(model, case["ground_truth"], entry, category, model_name)
        results = []
        for turn in model:
            texts, _ = execute_multi_turn_func_call(
                [call for step in turn for call in step],
                entry["initial_config"],
                entry["involved_classes"],
                "results_" + model_name,
                entry["id"],
                long_context="long_context" in category or "composite" in category,
                is_evaL_run=True,
            )
            results.append(texts)
        line = {
            "case": case["case"],
            "valid": verdict["valid"],
            "error_type": verdict.get("error_type"),
            "results": results,
        }
        out.write(json.dumps(line) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
