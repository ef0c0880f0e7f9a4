"""A Gymnasium environment as tools (`rlf env gym --id ID`): one ``gymnasium.make(ID, **kwargs)`` per
episode, served by env_worker.py. Only ``reset``, ``step`` and ``render`` are tools (``_rlf_methods``);
``step``'s ``action`` is typed from the action space (``_rlf_schemas``).

Each result is ``{"text": ..., "structured": {...}}`` (the command sends ``text`` as the tool result's
text and ``structured`` as its structured content): the observation rendered as text (the env's ANSI
render with colour codes taken out, the agent's highlighted cell in brackets, when it supports
``render_mode="ansi"``; then the observation as JSON, numpy values as numbers and lists) and
``{reward, step_reward, terminated, truncated, done, steps, observation}``, ``reward`` being the
episode's cumulative reward. The episode state (snapshot) is that structured part.
"""

import copy
import json
import math
import re

# What the actions of Discrete action spaces mean, for environments that document it (by class name).
ACTION_MEANINGS = {
    "FrozenLakeEnv": ["left", "down", "right", "up"],
    "CliffWalkingEnv": ["up", "right", "down", "left"],
    "TaxiEnv": ["south", "north", "east", "west", "pickup", "dropoff"],
    "BlackjackEnv": ["stick", "hit"],
    "CartPoleEnv": ["push the cart to the left", "push the cart to the right"],
    "MountainCarEnv": ["accelerate left", "do not accelerate", "accelerate right"],
    "AcrobotEnv": ["apply -1 torque", "apply 0 torque", "apply 1 torque"],
}

HIGHLIGHT = re.compile(r"\x1b\[[0-9;]*m(.*?)\x1b\[0m", re.DOTALL)
ESCAPE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def plain(value):
    """numpy values (arrays, scalars) and tuples/dicts of them as JSON values."""
    if type(value).__module__ == "numpy" and callable(getattr(value, "tolist", None)):
        return value.tolist()
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def ansi_text(frame):
    """An ANSI render as plain text: a highlighted span becomes [span], other escape codes go."""
    if isinstance(frame, list):
        frame = "".join(frame)
    if not isinstance(frame, str):
        return None
    return ESCAPE.sub("", HIGHLIGHT.sub(lambda m: f"[{m.group(1)}]", frame)).strip("\n")


def make(env_id, kwargs):
    """gymnasium.make with render_mode="ansi" when the environment supports it (its metadata says so)."""
    import gymnasium

    if "render_mode" not in kwargs:
        env = gymnasium.make(env_id, **kwargs)
        if "ansi" not in (env.metadata or {}).get("render_modes", []):
            return env
        env.close()
        return gymnasium.make(env_id, render_mode="ansi", **kwargs)
    return gymnasium.make(env_id, **kwargs)


def action_schema(space, meanings):
    """JSON Schema of an action of `space`, with its meaning when known."""
    from gymnasium import spaces

    if isinstance(space, spaces.Discrete):
        start, n = int(space.start), int(space.n)
        schema = {"type": "integer", "minimum": start, "maximum": start + n - 1}
        if meanings and len(meanings) == n:
            schema["description"] = ", ".join(f"{start + i}: {m}" for i, m in enumerate(meanings))
        else:
            schema["description"] = f"one of {start}..{start + n - 1}"
        return schema
    if isinstance(space, spaces.Box):
        size = int(space.low.size)
        low, high = space.low.flatten().tolist(), space.high.flatten().tolist()
        items = {"type": "integer" if space.dtype.kind in "iu" else "number"}
        if len(set(low)) == 1 and abs(low[0]) != float("inf"):
            items["minimum"] = low[0]
        if len(set(high)) == 1 and abs(high[0]) != float("inf"):
            items["maximum"] = high[0]
        bounds = ", ".join(f"[{lo}, {hi}]" for lo, hi in zip(low, high, strict=True))
        return {
            "type": "array",
            "items": items,
            "minItems": size,
            "maxItems": size,
            "description": f"{size} numbers (shape {list(space.shape)}), bounds {bounds}",
        }
    if isinstance(space, spaces.MultiDiscrete):
        nvec = space.nvec.flatten().tolist()
        return {
            "type": "array",
            "items": {"type": "integer", "minimum": 0},
            "minItems": len(nvec),
            "maxItems": len(nvec),
            "description": "one integer per position, position i in 0..nvec[i]-1; nvec " + json.dumps(nvec),
        }
    if isinstance(space, spaces.MultiBinary):
        n = int(space.n) if isinstance(space.n, int) else int(space.sample().size)
        return {
            "type": "array",
            "items": {"type": "integer", "minimum": 0, "maximum": 1},
            "minItems": n,
            "maxItems": n,
        }
    if isinstance(space, spaces.Text):
        return {"type": "string", "minLength": space.min_length, "maxLength": space.max_length}
    return {"description": f"an action of {space}"}


def to_action(space, action):
    """The JSON action as a value of `space`; ValueError when it is not one."""
    import numpy
    from gymnasium import spaces

    if isinstance(space, spaces.Discrete):
        if isinstance(action, bool) or not isinstance(action, int):
            raise TypeError(f"the action must be an integer, not {json.dumps(action)}")
        value = numpy.int64(action)
    elif isinstance(space, (spaces.Box, spaces.MultiDiscrete, spaces.MultiBinary)):
        value = numpy.asarray(action, dtype=space.dtype).reshape(space.shape)
    else:
        value = action
    if not space.contains(value):
        raise ValueError(f"{json.dumps(action)} is not an action of {space}")
    return int(value) if isinstance(space, spaces.Discrete) else value


class GymEnvironment:
    _rlf_methods = ("reset", "step", "render")
    _id = None
    _kwargs = None

    @classmethod
    def _rlf_setup(cls, setup):
        env_id, kwargs = setup["id"], dict(setup.get("kwargs") or {})
        probe = make(env_id, kwargs)
        try:
            space = probe.action_space
            meanings = ACTION_MEANINGS.get(type(probe.unwrapped).__name__)
            getter = getattr(probe.unwrapped, "get_action_meanings", None)
            if meanings is None and callable(getter):
                meanings = list(getter())
            lines = [line.strip() for line in (probe.unwrapped.__doc__ or "").splitlines()]
            doc = next((line for line in lines if line and not line.startswith("#")), "")
        finally:
            probe.close()
        action = action_schema(space, meanings)
        seed = {"type": "integer", "description": "the episode's seed (default: the one it started with)"}
        result = "The observation as text, the step's reward, the episode's total reward, whether it is over."
        schemas = {
            "reset": {
                "description": f"Starts {env_id} over. {result}",
                "inputSchema": {"type": "object", "properties": {"seed": seed}},
            },
            "step": {
                "description": f"Takes one action in {env_id}{': ' + doc if doc else ''}. {result}",
                "inputSchema": {"type": "object", "properties": {"action": action}, "required": ["action"]},
            },
            "render": {
                "description": f"The current state of {env_id} as text (its ANSI render, or its observation).",
                "inputSchema": {"type": "object", "properties": {}},
            },
        }
        namespace = {"_id": env_id, "_kwargs": kwargs, "_rlf_schemas": schemas}
        return type(cls.__name__, (cls,), namespace)

    def __init__(self, seed=None):
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise ValueError("seed must be an integer")
        self._env = make(self._id, copy.deepcopy(self._kwargs or {}))
        self._seed = seed
        self._start(seed)

    def _start(self, seed):
        observation, _info = self._env.reset(seed=seed)
        self._observation = observation
        self._reward = 0.0
        self._step_reward = 0.0
        self._steps = 0
        self._terminated = False
        self._truncated = False

    def _text(self):
        frame = None
        if getattr(self._env, "render_mode", None) == "ansi":
            frame = ansi_text(self._env.render())
        observation = "observation: " + json.dumps(plain(self._observation))
        return observation if not frame else f"{frame}\n{observation}"

    def _rlf_state(self):
        return {
            "reward": self._reward,
            "step_reward": self._step_reward,
            "terminated": self._terminated,
            "truncated": self._truncated,
            "done": self._terminated or self._truncated,
            "steps": self._steps,
            "observation": plain(self._observation),
        }

    def _result(self):
        state = self._rlf_state()
        text = self._text()
        text += f"\nreward {state['step_reward']:g}, episode reward {state['reward']:g}"
        if state["done"]:
            text += ", episode over" + (" (terminated)" if self._terminated else " (truncated)")
        return {"text": text, "structured": state}

    def reset(self, seed=None):
        self._start(self._seed if seed is None else seed)
        return self._result()

    def step(self, action):
        if self._terminated or self._truncated:
            raise ValueError("the episode is over: reset starts it again")
        observation, reward, terminated, truncated, _info = self._env.step(to_action(self._env.action_space, action))
        self._observation = observation
        self._step_reward = float(reward)
        self._reward += float(reward)
        self._steps += 1
        self._terminated = bool(terminated)
        self._truncated = bool(truncated)
        return self._result()

    def render(self):
        return self._text()
