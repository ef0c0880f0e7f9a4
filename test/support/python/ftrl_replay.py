"""The reference for replayed FTRL environment tasks: runs a task's ground-truth actions by calling the
functions of an FTRL environment directory directly, as FTRL's own evaluation does (each code executed
in a fresh namespace, called with data=data), and prints the final data as JSON.

Usage: ftrl_replay.py ENV_DIR TASKS_FILE LINE (LINE: the task's 0-based line in TASKS_FILE).
A test fixture: it runs FTRL's format outside any sandbox, on fixture code only.
"""

import json
import os
import sys


def main():
    env_dir, tasks_file, line = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(os.path.join(env_dir, "codes.json"), encoding="utf-8") as f:
        codes = json.load(f)
    data = {}
    for entry in sorted(os.listdir(env_dir)):
        if entry.endswith(".json") and entry not in ("tools.json", "codes.json"):
            with open(os.path.join(env_dir, entry), encoding="utf-8") as f:
                data[entry[: -len(".json")]] = json.load(f)
    with open(tasks_file, encoding="utf-8") as f:
        task = json.loads(f.read().splitlines()[line])
    for action in task["actions"]:
        name = action["function"]["name"]
        namespace = {}
        exec(codes[name], namespace, namespace)  # noqa: S102 - FTRL's own way of running its tools
        namespace[name](**json.loads(action["function"]["arguments"]), data=data)
    json.dump(data, sys.stdout)


if __name__ == "__main__":
    main()
