"""The reference for replayed FTRL environment tasks: runs a task's ground-truth actions the way FTRL's
own evaluation runs them (its "direct execution": ``get_feedback`` / ``call_function`` in FTRL's
Code/utils/utils.py, called by Code/evaluation/evaluation_taubench.py), and prints the outputs and the
final database as JSON.

What FTRL does, reproduced here call by call:
  - the database is ``json.load``-ed afresh from the environment's files for each task (one table per
    file: ``{"orders": ..., "products": ..., "users": ...}``), and every call of the task mutates it;
  - each action's ``arguments`` text is ``json.loads``-ed;
  - the tool's code is ``exec``-ed in a fresh local namespace whose globals are FTRL's utils module
    (``exec(code)`` inside ``call_function``), the function called with the arguments and ``data=data``;
  - a dict or list result is ``json.dumps(value, ensure_ascii=False)``, a string is itself, anything
    else ``str(value)`` (FTRL tests ``type(x) == dict``, not isinstance);
  - an exception is the text ``an error occured when call NAME: MESSAGE`` (FTRL's spelling).
FTRL also wraps each call in a 10 s ``func_timeout``; no ground-truth action comes near it, so none is
applied here.

Usage:
  ftrl_replay.py ENV_DIR TASKS_FILE LINE [EXTRA_CALLS]
      one task (LINE: its 0-based line in TASKS_FILE); prints ``{"outputs": [...], "data": ...}``.
      EXTRA_CALLS: a JSON list of ``{name, arguments}`` run after the task's actions, e.g. read-only
      tools that show the final database.
  ftrl_replay.py ENV_DIR TASKS_FILE --data-source NAME
      every task row whose ``data_source`` is NAME, in file order; prints one JSON line per row:
      ``{"line": N, "outputs": [...], "data": ...}``.
A test fixture: it runs FTRL's code outside any sandbox, as FTRL does.
"""

import json
import os
import sys
import time
from copy import deepcopy
from hashlib import sha256

# The names FTRL's utils module has when its call_function execs a tool's code (its third-party
# imports, requests / transformers / func_timeout, left out: no tool code uses them).
FTRL_GLOBALS = {
    "__builtins__": __builtins__,
    "__name__": "utils.utils",
    "json": json,
    "deepcopy": deepcopy,
    "sha256": sha256,
    "sleep": time.sleep,
}


def call_function(name, arguments, code, **kwargs):
    """FTRL's call_function: the code exec-ed in a fresh local namespace, the function called, its
    result rendered as text."""
    namespace = {"name": name, "arguments": arguments, "code": code, "kwargs": kwargs}
    exec(code, dict(FTRL_GLOBALS), namespace)  # noqa: S102 - FTRL's own way of running its tools
    predict = namespace[name](**arguments, **kwargs)
    if type(predict) == dict or type(predict) == list:  # noqa: E721 - FTRL's exact test
        predict = json.dumps(predict, ensure_ascii=False)
    elif type(predict) != str:  # noqa: E721
        predict = str(predict)
    return predict


def feedback(name, arguments_text, codes, data):
    """FTRL's get_feedback for one call: the output, or FTRL's error text."""
    try:
        arguments = json.loads(arguments_text) if isinstance(arguments_text, str) else arguments_text
        return call_function(name, arguments, codes[name], data=data)
    except Exception as e:  # noqa: BLE001 - FTRL shows every exception to the model
        return f"an error occured when call {name}: {str(e)}"


def load_environment(env_dir):
    """FTRL's _get_info: the tool codes and a fresh database, each table ``json.load``-ed from its file."""
    with open(os.path.join(env_dir, "codes.json"), encoding="utf-8") as f:
        codes = json.load(f)
    data = {}
    for entry in sorted(os.listdir(env_dir)):
        if entry.endswith(".json") and entry not in ("tools.json", "codes.json"):
            with open(os.path.join(env_dir, entry), encoding="utf-8") as f:
                data[entry[: -len(".json")]] = json.load(f)
    return codes, data


def replay(env_dir, task, extra=()):
    codes, data = load_environment(env_dir)
    calls = [(a["function"]["name"], a["function"]["arguments"]) for a in task["actions"]]
    calls += [(c["name"], c.get("arguments", {})) for c in extra]
    outputs = [feedback(name, arguments, codes, data) for name, arguments in calls]
    return {"outputs": outputs, "data": data}


def main():
    env_dir, tasks_file = sys.argv[1], sys.argv[2]
    with open(tasks_file, encoding="utf-8") as f:
        lines = f.read().splitlines()
    if sys.argv[3] == "--data-source":
        source = sys.argv[4]
        for number, line in enumerate(lines):
            if not line.strip():
                continue
            task = json.loads(line)
            if task.get("data_source") != source:
                continue
            record = {"line": number, **replay(env_dir, task)}
            sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
            sys.stdout.flush()
        return
    extra = json.loads(sys.argv[4]) if len(sys.argv) > 4 else []
    task = json.loads(lines[int(sys.argv[3])])
    json.dump(replay(env_dir, task, extra), sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
