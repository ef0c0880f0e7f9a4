"""The reference for replayed FTRL environment tasks: runs a task's ground-truth actions by calling the
functions of an FTRL environment directory directly, as FTRL's own evaluation does (the database
``json.load``-ed from its files, each code executed in a fresh namespace, called with data=data and
the action's arguments ``json.loads``-ed), and prints ``{"outputs": [...], "data": ...}`` as JSON:
each call's result as FTRL shows it to the model (a dict or list ``json.dumps(value,
ensure_ascii=False)``, a string itself, anything else ``str(value)``), and the final database.

Usage: ftrl_replay.py ENV_DIR TASKS_FILE LINE [EXTRA_CALLS]
(LINE: the task's 0-based line in TASKS_FILE; EXTRA_CALLS: a JSON list of ``{name, arguments}`` run
after the task's actions, e.g. read-only tools that show the final database.)
A test fixture: it runs FTRL's format outside any sandbox, on fixture code only.
"""

import json
import os
import sys


def rendered(result):
    if isinstance(result, (dict, list)):
        return json.dumps(result, ensure_ascii=False)
    if isinstance(result, str):
        return result
    return str(result)


def main():
    env_dir, tasks_file, line = sys.argv[1], sys.argv[2], int(sys.argv[3])
    extra = json.loads(sys.argv[4]) if len(sys.argv) > 4 else []
    with open(os.path.join(env_dir, "codes.json"), encoding="utf-8") as f:
        codes = json.load(f)
    data = {}
    for entry in sorted(os.listdir(env_dir)):
        if entry.endswith(".json") and entry not in ("tools.json", "codes.json"):
            with open(os.path.join(env_dir, entry), encoding="utf-8") as f:
                data[entry[: -len(".json")]] = json.load(f)
    with open(tasks_file, encoding="utf-8") as f:
        task = json.loads(f.read().splitlines()[line])
    calls = [(a["function"]["name"], json.loads(a["function"]["arguments"])) for a in task["actions"]]
    calls += [(c["name"], c.get("arguments", {})) for c in extra]
    outputs = []
    for name, arguments in calls:
        namespace = {}
        exec(codes[name], namespace, namespace)  # noqa: S102 - FTRL's own way of running its tools
        outputs.append(rendered(namespace[name](**arguments, data=data)))
    json.dump({"outputs": outputs, "data": data}, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
