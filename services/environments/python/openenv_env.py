"""OpenEnv environments served by the environment worker (env_worker.py): ``rlf env openenv``.

The host loads ``OpenEnvEpisode`` with a setup ``{"env": "module:Class", "fork": "replay"|"refuse"}``;
``OpenEnvEpisode._rlf_setup`` returns the class served, one instance per episode:

- episode create: the environment class built, then ``reset(**config)`` (``seed``, ``episode_id``, and
  any other reset keyword the environment takes);
- tools: an ``MCPEnvironment``'s own MCP tools (listed with ``ListToolsAction``, called with
  ``CallToolAction``; the text is the tool's text result), else one per Action class of the
  environment (the ``Environment[ActT, ...]`` type argument, or a union of several), named after the
  class (``EchoAction`` -> ``echo``), its input schema the action
  model's JSON Schema without OpenEnv's ``metadata`` field. A call validates the arguments as that
  action and calls ``step``; the result is ``{text, reward, done, observation}`` (the observation's
  fields as text, one ``name: value`` line each, or the field itself when it is the only one);
- snapshot: ``{state, observation, reward, done, steps, actions}`` with ``state`` the environment's
  ``state`` and ``reward`` the sum of the step rewards so far;
- fork: never a copy of the environment object (OpenEnv environments hold objects that cannot be
  copied or pickled): a fresh instance reset with the episode's config, then the episode's actions
  replayed in order; refused (FORK_REFUSED) when a replayed step observes something else than the
  original did, or when the server was started with fork "refuse".
"""

import importlib
import json
import re
import sys
import typing

# The environments of OpenEnv's repository by their names (their packages as they install them).
KNOWN = {
    "echo_env": "echo_env.server.echo_environment:EchoEnvironment",
    "coding_env": "coding_env.server.python_codeact_env:PythonCodeActEnv",
}

# The fields every OpenEnv observation has: not part of its text.
OBSERVATION_BASE = ("done", "reward", "metadata")


def failure(code, message):
    """The worker's typed failure (env_worker.Failure, the worker being __main__), else a RuntimeError."""
    cls = getattr(sys.modules.get("__main__"), "Failure", None)
    return cls(code, message) if cls is not None else RuntimeError(f"{code}: {message}")


def load_env_class(ref):
    target = KNOWN.get(ref, ref)
    module_name, sep, class_name = target.partition(":")
    if not sep or not module_name or not class_name:
        raise failure("BAD_MODULE", f"--env {ref!r}: give MODULE:CLASS or one of {sorted(KNOWN)}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise failure("BAD_MODULE", f"--env {ref}: cannot import {module_name}: {err}") from err
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type):
        raise failure("BAD_MODULE", f"--env {ref}: {module_name} has no class {class_name}")
    return cls


def action_classes(env_cls):
    """The Action classes the environment steps with: its ``Environment[ActT, ObsT, StateT]`` argument
    (a union gives several), else the annotation of ``step``'s action parameter."""
    from openenv.core.env_server.interfaces import Environment
    from openenv.core.env_server.types import Action

    found = None
    for klass in env_cls.__mro__:
        for base in getattr(klass, "__orig_bases__", ()):
            origin = typing.get_origin(base)
            if isinstance(origin, type) and issubclass(origin, Environment) and typing.get_args(base):
                found = typing.get_args(base)[0]
                break
        if found is not None:
            break
    if found is None or isinstance(found, typing.TypeVar):
        try:
            hints = typing.get_type_hints(env_cls.step)
        except Exception:
            hints = {}
        found = hints.get("action")
    members = typing.get_args(found) if typing.get_origin(found) is typing.Union else (found,)
    classes = [m for m in members if isinstance(m, type) and issubclass(m, Action)]
    if not classes:
        raise failure("BAD_MODULE", f"{env_cls.__name__}: cannot tell its Action class (Environment[ActT, ...])")
    return classes


def tool_name(action_cls):
    """``EchoAction`` -> ``echo``, ``CallToolAction`` -> ``call_tool``."""
    base = action_cls.__name__
    if base.endswith("Action") and base != "Action":
        base = base[: -len("Action")]
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", base).lower()


def action_schema(action_cls):
    schema = action_cls.model_json_schema()
    properties = dict(schema.get("properties") or {})
    properties.pop("metadata", None)
    out = {"type": "object", "properties": properties}
    required = [r for r in schema.get("required") or [] if r != "metadata"]
    if required:
        out["required"] = required
    if schema.get("$defs"):
        out["$defs"] = schema["$defs"]
    out["additionalProperties"] = False
    return out


def jsonable(model):
    return json.loads(model.model_dump_json()) if hasattr(model, "model_dump_json") else model


def observation_text(fields):
    """An observation's own fields as text: the only field as itself when it is a string, else one
    ``name: value`` line per field (strings as they are, anything else as JSON)."""
    if len(fields) == 1:
        (value,) = fields.values()
        if isinstance(value, str):
            return value
    lines = []
    for key, value in fields.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        lines.append(f"{key}: {text}")
    return "\n".join(lines)


def make_tool(action_cls, name):
    def tool(self, **arguments):
        return self._act(action_cls, arguments)

    tool.__name__ = tool.__qualname__ = name
    description = (action_cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
    tool._rlf_tool = {
        "name": name,
        "description": " ".join(description.split()) or f"step the environment with a {action_cls.__name__}",
        "inputSchema": action_schema(action_cls),
    }
    return tool


def is_mcp_environment(env_cls):
    try:
        from openenv.core.env_server.mcp_environment import MCPEnvironment
    except ImportError:
        return False
    return issubclass(env_cls, MCPEnvironment)


def mcp_tools(env_cls):
    """An MCPEnvironment's tools, as a fresh instance lists them (``ListToolsAction``)."""
    from openenv.core.env_server.mcp_types import ListToolsAction

    probe = env_cls()
    probe.reset()
    return probe.step(ListToolsAction()).tools


def make_mcp_tool(tool):
    from openenv.core.env_server.mcp_types import CallToolAction

    def call(self, **arguments):
        return self._act(CallToolAction, {"tool_name": tool.name, "arguments": arguments})

    call.__name__ = call.__qualname__ = tool.name
    call._rlf_tool = {
        "name": tool.name,
        "description": " ".join((tool.description or "").split()),
        "inputSchema": tool.input_schema or {"type": "object", "properties": {}},
    }
    return call


def mcp_text(fields):
    """A CallToolObservation's text: its error, else the text blocks of the tool's result."""
    error = fields.get("error")
    if error:
        return f"error: {error.get('message', error) if isinstance(error, dict) else error}"
    result = fields.get("result")
    if isinstance(result, dict) and isinstance(result.get("content"), list):
        texts = [b.get("text", "") for b in result["content"] if isinstance(b, dict) and b.get("type") == "text"]
        return "\n".join(texts)
    return observation_text(fields)


class OpenEnvEpisode:
    """One episode of an OpenEnv environment (see the module's doc)."""

    _env_cls = None
    _fork = "replay"

    @classmethod
    def _rlf_setup(cls, setup):
        env_cls = load_env_class(setup.get("env") or "")
        fork = setup.get("fork", "replay")
        if fork not in ("replay", "refuse"):
            raise failure("BAD_CONFIG", f"fork must be replay or refuse, not {fork!r}")
        members = {"_env_cls": env_cls, "_fork": fork, "__doc__": env_cls.__doc__}
        if is_mcp_environment(env_cls):
            for tool in mcp_tools(env_cls):
                members[tool.name] = make_mcp_tool(tool)
        else:
            for action_cls in action_classes(env_cls):
                members[tool_name(action_cls)] = make_tool(action_cls, tool_name(action_cls))
        return type(env_cls.__name__, (cls,), members)

    def __init__(self, **config):
        self._config = config
        self._env = self._env_cls()
        try:
            observation = self._env.reset(**config)
        except TypeError as err:
            raise failure("BAD_CONFIG", f"reset: {err}") from err
        self._observation = self._observe(observation)
        self._actions = []  # (action class, action fields)
        self._observations = []
        self._reward = 0.0

    def _observe(self, observation):
        data = jsonable(observation)
        fields = {k: v for k, v in data.items() if k not in OBSERVATION_BASE}
        reward = data.get("reward")
        mcp = "tool_name" in fields and "result" in fields
        return {
            "text": mcp_text(fields) if mcp else observation_text(fields),
            "reward": reward if isinstance(reward, (int, float)) and not isinstance(reward, bool) else None,
            "done": bool(data.get("done")),
            "observation": fields,
        }

    def _act(self, action_cls, arguments):
        if self._observation["done"]:
            raise RuntimeError("the episode is done: the environment takes no more actions")
        action = action_cls.model_validate(arguments)  # pydantic's ValidationError: a tool error
        result = self._observe(self._env.step(action))
        self._actions.append((action_cls, arguments))
        self._observations.append(result)
        self._observation = result
        if result["reward"] is not None:
            self._reward += result["reward"]
        return result

    def _rlf_state(self):
        return {
            "state": jsonable(self._env.state),
            "observation": self._observation["observation"],
            "reward": self._reward,
            "done": self._observation["done"],
            "steps": len(self._actions),
            "actions": [{"action": cls.__name__, "arguments": args} for cls, args in self._actions],
        }

    def __deepcopy__(self, memo):
        """A fork: a fresh environment reset with the same config, the episode's actions replayed."""
        if self._fork == "refuse":
            raise failure("FORK_REFUSED", f"{type(self).__name__} is served with fork refuse")
        copy = type(self)(**self._config)
        for index, ((action_cls, arguments), original) in enumerate(
            zip(self._actions, self._observations, strict=True)
        ):
            try:
                replayed = copy._act(action_cls, arguments)
            except Exception as err:
                raise failure("FORK_REFUSED", f"replaying step {index + 1} failed: {err}") from err
            if replayed != original:
                raise failure(
                    "FORK_REFUSED",
                    f"replaying step {index + 1} observed something else than the episode did "
                    "(the environment is not deterministic under replay; give a seed in the config)",
                )
        return copy
