"""A TextArena game as tools (`rlf env textarena --id ID`): one ``textarena.make(ID, **kwargs)`` per
episode, served by env_worker.py. Only ``reset`` and ``step`` are tools (``_rlf_methods``); ``step``
takes the move as text (TextArena's own action format, e.g. ``[4]``).

The model plays every seat: a single-player game (GuessTheNumber-v0, ...) is the model against the
game; in a game for several players (TicTacToe-v0, ...) each step is the move of the player whose turn
it is, and the observation says which one that is (self-play). Each result is ``{"text": ...,
"structured": {...}}``: the current player's observation as plain text, and ``{reward, rewards, done,
player, steps}`` (``reward``: player 0's reward once the game is over, else 0). The episode state
(snapshot) is that structured part.
"""

import json


class TextArenaEnvironment:
    _rlf_methods = ("reset", "step")
    _id = None
    _kwargs = None

    @classmethod
    def _rlf_setup(cls, setup):
        import textarena

        env_id, kwargs = setup["id"], dict(setup.get("kwargs") or {})
        textarena.make(env_id, **kwargs)  # an unknown id fails here, when the server starts
        players = {"type": "integer", "minimum": 1, "description": "players (default: the fewest the game allows)"}
        seed = {"type": "integer", "description": "the game's seed"}
        result = "The observation of the player whose turn it is, as text; the rewards once the game is over."
        schemas = {
            "reset": {
                "description": f"Starts a new game of {env_id}. {result}",
                "inputSchema": {"type": "object", "properties": {"seed": seed, "num_players": players}},
            },
            "step": {
                "description": f"Plays one move in {env_id} for the player whose turn it is. {result}",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "action": {"type": "string", "description": "the move, as the game asks for it (e.g. [4])"}
                    },
                    "required": ["action"],
                },
            },
        }
        return type(cls.__name__, (cls,), {"_id": env_id, "_kwargs": kwargs, "_rlf_schemas": schemas})

    def __init__(self, seed=None, num_players=None):
        self._start(seed, num_players)

    def _start(self, seed, num_players):
        import textarena

        self._env = textarena.make(self._id, **(self._kwargs or {}))
        counts = [num_players] if num_players is not None else [1, 2, 3, 4]
        for i, count in enumerate(counts):
            try:
                self._env.reset(num_players=count, seed=seed)
                break
            except Exception:
                if i == len(counts) - 1:
                    raise
        self._players = count
        self._rewards = None
        self._done = False
        self._steps = 0
        self._player, self._observation = self._env.get_observation()

    def _rlf_state(self):
        rewards = {str(k): float(v) for k, v in (self._rewards or {}).items()}
        return {
            "reward": rewards.get("0", 0.0),
            "rewards": rewards,
            "done": self._done,
            "player": self._player,
            "players": self._players,
            "steps": self._steps,
        }

    def _result(self):
        text = str(self._observation).strip("\n")
        if self._done:
            text += "\n[GAME OVER] rewards: " + json.dumps(self._rlf_state()["rewards"])
        return {"text": text, "structured": self._rlf_state()}

    def reset(self, seed=None, num_players=None):
        self._start(seed, num_players if num_players is not None else self._players)
        return self._result()

    def step(self, action: str):
        if self._done:
            raise ValueError("the game is over: reset starts a new one")
        if not isinstance(action, str):
            raise TypeError("the action must be text")
        done, _info = self._env.step(action)
        self._steps += 1
        if done:
            self._done = True
            rewards, _game_info = self._env.close()
            self._rewards = rewards
            # the game's own word on how it ended (the same for every player in a one-winner game)
            infos = getattr(getattr(self._env, "state", None), "game_info", None) or {}
            reasons = {str(i.get("reason")) for i in infos.values() if isinstance(i, dict) and i.get("reason")}
            self._observation = "[GAME] " + " ".join(sorted(reasons)) if reasons else "[GAME] The game is over."
        else:
            self._player, self._observation = self._env.get_observation()
        return self._result()
