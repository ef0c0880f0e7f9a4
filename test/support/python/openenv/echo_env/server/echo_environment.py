"""An echo environment: each action's message comes back with its length; reward 0.1 per character."""

from uuid import uuid4

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field


class EchoAction(Action):
    """Send a message to the environment, which echoes it back."""

    message: str = Field(description="the message to echo")


class EchoObservation(Observation):
    echoed_message: str = ""
    message_length: int = 0


class EchoEnvironment(Environment[EchoAction, EchoObservation, State]):
    """Echoes every message; the episode is done after max_steps messages."""

    def __init__(self, max_steps: int = 5):
        super().__init__()
        self.max_steps = max_steps
        self._state = State(episode_id=str(uuid4()), step_count=0)

    def reset(self, seed=None, episode_id=None, **kwargs):
        self._state = State(episode_id=episode_id or str(uuid4()), step_count=0)
        return EchoObservation(echoed_message="Echo environment ready!", done=False, reward=0.0)

    def step(self, action, timeout_s=None, **kwargs):
        self._state.step_count += 1
        return EchoObservation(
            echoed_message=action.message,
            message_length=len(action.message),
            done=self._state.step_count >= self.max_steps,
            reward=len(action.message) * 0.1,
        )

    @property
    def state(self):
        return self._state
