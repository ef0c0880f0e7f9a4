"""One generated tool, run for validation inside an environment worker's sandbox.

Served by the environment host like any class (``rlf env build`` starts a host over it): an episode's
config is ``{"code": SOURCE, "name": TOOL, "timeout_ms": N}``; ``run(arguments)`` calls the tool
once and never raises. The source is executed on the first ``run`` (in the worker, under bubblewrap),
in a namespace that lives as long as the episode, so two runs see the same module state.

While a tool runs, an audit hook denies and counts every attempt at the network (sockets, name
lookups), at files (``open`` of anything but the interpreter's own modules) and at processes
(subprocess, exec, fork, system): the sandbox would deny most of them too; here each is also counted.
"""

import json
import math
import os
import signal
import sys

NETWORK_EVENTS = (
    "socket.connect",
    "socket.bind",
    "socket.getaddrinfo",
    "socket.gethostbyname",
    "socket.gethostbyaddr",
    "socket.sendto",
    "socket.sendmsg",
    "urllib.Request",
)
PROCESS_EVENTS = ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.fork", "os.spawn", "os.startfile")
FILE_EVENTS = ("open", "os.listdir", "os.scandir", "os.remove", "os.rename", "os.mkdir", "os.rmdir", "shutil.rmtree")

_state = {"active": False, "denials": None}


def _module_roots():
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    roots.update(p for p in sys.path if p)
    return tuple(sorted({os.path.realpath(r) + os.sep for r in roots if r}))


_ROOTS = _module_roots()


def _is_module_read(args):
    """An ``open`` the import system makes: reading a file under the interpreter's own folders."""
    if not args or not isinstance(args[0], str):
        return False
    mode = args[1] if len(args) > 1 and isinstance(args[1], str) else "r"
    if any(flag in mode for flag in "wax+"):
        return False
    return os.path.realpath(args[0]).startswith(_ROOTS)


def _audit(event, args):
    if not _state["active"]:
        return
    if event in NETWORK_EVENTS:
        kind = "network"
    elif event in PROCESS_EVENTS:
        kind = "process"
    elif event in FILE_EVENTS and not (event == "open" and _is_module_read(args)):
        kind = "file"
    else:
        return
    _state["denials"][kind] += 1
    raise PermissionError(f"{kind} access is denied to a generated tool ({event})")


sys.addaudithook(_audit)


class _Timeout(BaseException):
    """Raised in the tool by the timer; a BaseException, so `except Exception` in the tool lets it pass."""


def _on_alarm(signum, frame):
    raise _Timeout()


def _jsonable(value):
    """The value as JSON (what the tool would hand back); an unencodable value is an error."""
    text = json.dumps(value, sort_keys=True, allow_nan=False, default=lambda o: repr(o))
    return json.loads(text)


class ToolCheck:
    def __init__(self, code, name, timeout_ms=2000):
        self._code = code
        self._name = name
        self._timeout = max(0.001, timeout_ms / 1000)
        self._namespace = None

    def _run_guarded(self, action):
        """(status, value-or-message, denials): action() under the audit hook and the timer."""
        denials = {"network": 0, "file": 0, "process": 0}
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        _state["denials"] = denials
        _state["active"] = True
        signal.setitimer(signal.ITIMER_REAL, self._timeout)
        try:
            try:
                return "ok", action(), denials
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                _state["active"] = False
                signal.signal(signal.SIGALRM, previous)
        except _Timeout:
            return "timeout", f"no answer within {math.ceil(self._timeout * 1000)} ms", denials
        except MemoryError:
            return "memory", "MemoryError: the tool ran out of its memory limit", denials
        except RecursionError as err:
            return "exception", f"RecursionError: {err}", denials
        except Exception as err:
            return "exception", f"{type(err).__name__}: {err}", denials

    def run(self, arguments: dict) -> dict:
        """Calls the tool once with these keyword arguments.

        Args:
            arguments: the tool's keyword arguments.
        """
        if self._namespace is None:
            namespace = {"__name__": "generated_tool"}
            try:
                compiled = compile(self._code, f"<{self._name}>", "exec")
            except (SyntaxError, ValueError) as err:
                message = f"loading the code: {type(err).__name__}: {err}"
                return {"status": "exception", "message": message, "denials": {"network": 0, "file": 0, "process": 0}}

            def load():
                exec(compiled, namespace)

            status, message, denials = self._run_guarded(load)
            if status != "ok":
                return {"status": status, "message": f"loading the code: {message}", "denials": denials}
            if not callable(namespace.get(self._name)):
                message = f"the code defines no function {self._name}"
                return {"status": "missing", "message": message, "denials": denials}
            self._namespace = namespace
        function = self._namespace[self._name]
        status, value, denials = self._run_guarded(lambda: _jsonable(function(**(arguments or {}))))
        if status != "ok":
            return {"status": status, "message": value, "denials": denials}
        return {"status": "ok", "value": value, "denials": denials}
