"""A CodeAct environment: each action is Python source run in the episode's namespace (variables stay
from one step to the next); the observation is its stdout, stderr and exit code; reward 1 when it ran,
-1 when it raised."""

import contextlib
import io
import traceback
from uuid import uuid4

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field


class CodeAction(Action):
    """Run Python code; variables defined by earlier code are still there."""

    code: str = Field(description="Python source to run")


class CodeObservation(Observation):
    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0


class CodeState(State):
    last_exit_code: int = 0


class PythonCodeActEnv(Environment[CodeAction, CodeObservation, CodeState]):
    def __init__(self):
        super().__init__()
        self._namespace = {}
        self._state = CodeState(episode_id=str(uuid4()), step_count=0)

    def reset(self, seed=None, episode_id=None, **kwargs):
        self._namespace = {}
        self._state = CodeState(episode_id=episode_id or str(uuid4()), step_count=0)
        return CodeObservation()

    def step(self, action, timeout_s=None, **kwargs):
        out, err = io.StringIO(), io.StringIO()
        exit_code = 0
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                exec(action.code, self._namespace)
            except Exception:
                traceback.print_exc(limit=0)
                exit_code = 1
        self._state.step_count += 1
        self._state.last_exit_code = exit_code
        return CodeObservation(
            stdout=out.getvalue(),
            stderr=err.getvalue(),
            exit_code=exit_code,
            reward=1.0 if exit_code == 0 else -1.0,
        )

    @property
    def state(self):
        return self._state
