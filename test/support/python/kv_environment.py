"""The contract suite's reference key-value environment in Python (test/support/src/kv-environment.ts
is the TypeScript one), served by `rlf env python --module kv_environment.py --class KV`.

The keys are the instance's public attributes, so the episode state (`rlf env python` with one class:
the instance's public attributes) is the plain key-value object. Keys starting with "_" are not part
of the state; the suite uses none.
"""

import time


class KV:
    def __init__(self, initial: dict | None = None):
        for key, value in (initial or {}).items():
            setattr(self, key, value)

    def put(self, key: str, value: str) -> dict:
        """Sets key to value.

        Args:
            key: The key.
            value: Its new value.
        """
        setattr(self, key, value)
        return {"ok": True}

    def get(self, key: str) -> dict:
        """The value of key (null when unset).

        Args:
            key: The key.
        """
        return {"value": self.__dict__.get(key)}

    def append(self, key: str, value: str, delay_ms: int = 0) -> dict:
        """Appends value to key's value, after delay_ms of simulated work.

        Args:
            key: The key.
            value: What to append.
            delay_ms: Simulated work before the write, in milliseconds.
        """
        time.sleep(delay_ms / 1000)
        setattr(self, key, self.__dict__.get(key, "") + value)
        return {"value": self.__dict__[key]}
