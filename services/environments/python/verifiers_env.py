"""verifiers environments served by the environment worker (env_worker.py): ``rlf env verifiers``.

The host loads ``VerifiersEpisode`` with a setup ``{"taskset": "module:Class" | None, "toolset":
"module:Class" | None, "config": {...}, "fork": "copy" | "refuse"}``; ``VerifiersEpisode._rlf_setup``
returns the class served, one instance per episode (a verifiers rollout):

- a taskset (``verifiers.v1.Taskset``) is built from ``config`` (its ``TasksetConfig``) and iterated;
  its tools are those of the taskset's ``toolsets(config)`` and of its task class's
  ``toolsets(config.task)``; a lone toolset (``verifiers.v1.Toolset``) is built from ``config`` (its
  ``ToolsetConfig``);
- tools: each toolset's ``@vf.tool`` methods, named as verifiers advertises them (``<prefix>_<name>``,
  the prefix its ``TOOL_PREFIX`` or its snake-cased class name; bare when ``TOOL_PREFIX`` is None),
  their input schema from the method's signature (pydantic), validated before the call;
- episode create: ``{"task": idx or id}`` picks the task (default the first); the episode gets a fresh
  rollout state (the task's ``State`` type) and fresh toolset instances (``setup()`` then
  ``setup_task(task)``); each tool call sees that state as ``self.state``, as verifiers' state channel
  gives it to a per-rollout tool server;
- snapshot: ``{task, state, rewards, metrics, reward}``: the task's rubric (its ``@vf.reward`` and
  ``@vf.metric`` methods, ``Task.score``) run on a trace holding the episode's state, ``reward`` the
  weighted sum (verifiers' ``Trace.reward``). The trace carries the state and the task, not the
  conversation (a reward that reads ``trace.messages`` sees none);
- fork: fresh toolset instances for the same task and a deep copy of the state (verifiers keeps a
  rollout's mutable state in its ``State``); refused (FORK_REFUSED) with fork "refuse".
"""

import asyncio
import importlib
import inspect
import json
import sys
import typing

_LOOP = None


def run(value):
    """A tool's or hook's value, awaited when it is a coroutine (on the worker's one event loop)."""
    global _LOOP
    if not inspect.isawaitable(value):
        return value
    if _LOOP is None:
        _LOOP = asyncio.new_event_loop()
    return _LOOP.run_until_complete(value)


def failure(code, message):
    """The worker's typed failure (env_worker.Failure, the worker being __main__), else a RuntimeError."""
    cls = getattr(sys.modules.get("__main__"), "Failure", None)
    return cls(code, message) if cls is not None else RuntimeError(f"{code}: {message}")


def load_ref(ref, flag):
    module_name, sep, name = (ref or "").partition(":")
    if not sep or not module_name or not name:
        raise failure("BAD_MODULE", f"{flag} {ref!r}: give MODULE:CLASS")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise failure("BAD_MODULE", f"{flag} {ref}: cannot import {module_name}: {err}") from err
    obj = getattr(module, name, None)
    if not isinstance(obj, type):
        raise failure("BAD_MODULE", f"{flag} {ref}: {module_name} has no class {name}")
    return obj


def tool_schema(fn):
    """A tool's input schema from its signature, and the pydantic model that validates its arguments."""
    import pydantic

    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # an annotation that does not resolve: the signature's own annotations
        hints = {}
    fields = {}
    for name, param in inspect.signature(fn).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = hints.get(name, param.annotation)
        if annotation is inspect.Parameter.empty:
            annotation = object
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[name] = (annotation, default)
    model = pydantic.create_model(f"{fn.__name__}_arguments", __config__=pydantic.ConfigDict(extra="forbid"), **fields)
    schema = model.model_json_schema()
    schema.pop("title", None)
    for prop in (schema.get("properties") or {}).values():
        prop.pop("title", None)
    schema.setdefault("properties", {})
    return schema, model


def advertised_name(toolset, fn):
    name = getattr(fn, "tool_name", None) or fn.__name__
    prefix = toolset.server_name
    return f"{prefix}_{name}" if prefix else name


def make_tool(slot, method_name, name, fn):
    schema, model = tool_schema(fn)

    def tool(self, **arguments):
        validated = model.model_validate(arguments)  # pydantic's ValidationError: a tool error
        return self._call(slot, method_name, {k: getattr(validated, k) for k in model.model_fields})

    tool.__name__ = tool.__qualname__ = name
    tool._rlf_tool = {
        "name": name,
        "description": " ".join((fn.__doc__ or "").split()) or name,
        "inputSchema": schema,
    }
    return tool


class VerifiersEpisode:
    """One rollout of a verifiers environment (see the module's doc)."""

    _taskset = None
    _tasks = ()
    _task_config = None
    _toolset_cls = None
    _toolset_config = None
    _fork = "copy"

    @classmethod
    def _rlf_setup(cls, setup):
        from verifiers.v1.utils.decorators import discover_decorated

        config = setup.get("config") or {}
        fork = setup.get("fork", "copy")
        if fork not in ("copy", "refuse"):
            raise failure("BAD_CONFIG", f"fork must be copy or refuse, not {fork!r}")
        members = {"_fork": fork}
        if setup.get("taskset"):
            taskset_cls = load_ref(setup["taskset"], "--taskset")
            config_cls = concrete_config(taskset_cls)
            try:
                taskset = taskset_cls(config_cls.model_validate(config))
                tasks = list(taskset)
            except Exception as err:
                raise failure("BAD_CONFIG", f"{taskset_cls.__name__}: {type(err).__name__}: {err}") from err
            if not tasks:
                raise failure("BAD_CONFIG", f"{taskset_cls.__name__} loads no task")
            members.update(_taskset=taskset, _tasks=tasks, __doc__=taskset_cls.__doc__)
            toolsets = list(taskset_cls.toolsets(taskset.config)) + list(type(tasks[0]).toolsets(tasks[0].config))
        elif setup.get("toolset"):
            toolset_cls = load_ref(setup["toolset"], "--toolset")
            config_cls = toolset_cls._config_cls()
            try:
                toolsets = [toolset_cls(config_cls.model_validate(config))]
            except Exception as err:
                raise failure("BAD_CONFIG", f"{toolset_cls.__name__}: {type(err).__name__}: {err}") from err
            members["__doc__"] = toolset_cls.__doc__
        else:
            raise failure("BAD_CONFIG", "give a taskset or a toolset")
        # the toolsets built here are the templates each episode copies (fresh instances per rollout)
        members["_templates"] = toolsets
        for slot, toolset in enumerate(toolsets):
            for fn in discover_decorated(toolset, "tool"):
                name = advertised_name(toolset, fn)
                if name in members:
                    raise failure("BAD_MODULE", f"two tools are named {name}")
                members[name] = make_tool(slot, fn.__name__, name, fn)
        return type("Verifiers", (cls,), members)

    def __init__(self, task=None):
        from verifiers.v1.state import State, state_cls

        self._task_ref = task
        self._task = self._pick(task)
        if self._task is not None:
            self._state_cls = state_cls(type(self._task))
        else:
            self._state_cls = state_cls(type(self._templates[0])) if self._templates else State
        self._state = self._state_cls()
        self._toolsets = []
        for template in self._templates:
            toolset = type(template)(template.config)
            run(toolset.setup())
            if self._task is not None:
                run(toolset.setup_task(self._task))
            self._toolsets.append(toolset)

    def _pick(self, ref):
        if not self._tasks:
            if ref is not None:
                raise failure("BAD_CONFIG", "this server serves a toolset: an episode names no task")
            return None
        if ref is None:
            return self._tasks[0]
        for task in self._tasks:
            if (isinstance(ref, int) and not isinstance(ref, bool) and task.data.idx == ref) or task.data.id == ref:
                return task
        raise failure("BAD_CONFIG", f"no task {ref!r} in the taskset ({len(self._tasks)} tasks; give its idx or id)")

    def _call(self, slot, method_name, arguments):
        from verifiers.v1.mcp.server import _call_state

        token = _call_state.set(self._state)
        try:
            return run(getattr(self._toolsets[slot], method_name)(**arguments))
        finally:
            _call_state.reset(token)

    def _score(self):
        import verifiers.v1 as vf
        from verifiers.v1.configs.agent import AgentConfig

        if self._task is None:
            return None
        trace = vf.Trace(
            task=vf.TraceTask(type=type(self._task).__name__, data=self._task.data),
            agent=vf.AgentInfo(config=AgentConfig()),
            state=self._state.model_copy(deep=True),
        )
        run(self._task.score(trace))
        return trace

    def _rlf_state(self):
        state = json.loads(self._state.model_dump_json(exclude={"artifacts"} if not self._state.artifacts else None))
        snapshot = {"state": state}
        trace = self._score()
        if trace is not None:
            snapshot["task"] = {"idx": self._task.data.idx, "id": self._task.data.id}
            snapshot["rewards"] = {k: None if r is None else r.score for k, r in trace.rewards.items()}
            snapshot["metrics"] = dict(trace.metrics)
            snapshot["reward"] = trace.reward
        return snapshot

    def __deepcopy__(self, memo):
        """A fork: fresh toolsets for the same task, and a deep copy of the rollout's state."""
        if self._fork == "refuse":
            raise failure("FORK_REFUSED", "this verifiers environment is served with --fork refuse")
        clone = type(self)(self._task_ref)
        clone._state = self._state.model_copy(deep=True)
        return clone


def concrete_config(taskset_cls):
    from verifiers.v1.configs.taskset import TasksetConfig
    from verifiers.v1.utils.generic import concrete_type

    return concrete_type(taskset_cls, TasksetConfig) or TasksetConfig


def tasks_main(argv):
    """``python verifiers_env.py tasks MODULE:CLASS CONFIG_JSON``: the taskset's tasks, one JSON line each
    ({idx, id, name, prompt, system_prompt, data}), for ``rlf data verifiers``."""
    taskset_cls = load_ref(argv[0], "--taskset")
    taskset = taskset_cls(concrete_config(taskset_cls).model_validate(json.loads(argv[1])))
    for task in taskset:
        data = json.loads(task.data.model_dump_json(exclude_none=True))
        prompt = task.data.prompt
        prompt = (
            prompt if isinstance(prompt, str) or prompt is None else [json.loads(m.model_dump_json()) for m in prompt]
        )
        line = {
            "idx": task.data.idx,
            "id": task.data.id,
            "name": task.data.name,
            "prompt": prompt,
            "system_prompt": task.data.system_prompt,
            "data": data,
        }
        print(json.dumps(line, ensure_ascii=False))


if __name__ == "__main__":
    if sys.argv[1:2] != ["tasks"] or len(sys.argv) != 4:
        sys.exit("usage: verifiers_env.py tasks MODULE:CLASS CONFIG_JSON")
    tasks_main(sys.argv[2:])
