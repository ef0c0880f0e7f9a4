"""An environment bundle served by the environment worker (services/environments/README.md,
"Environment bundles"): one tool per ``code/<tool>.py`` of the bundle, each run in this sandboxed
worker process, never in the host's.

The host starts the workers with the setup ``{"bundle": DIR, "form": "sample" | "environment",
"tools": [name, ...], "tasks": {id: [tool name, ...]}, "callTimeoutS": N, "files": {path: digest}}``;
``_rlf_setup`` checks each code and data file against its manifest digest as it reads it, runs each
code file (the bytes checked) as a module and returns the class served, with one method per tool.

An episode's config is ``{"task": id}`` (optional; the task's tools are then the only ones it may
call) and, form "environment" only, ``{"data": {...}}`` replacing the bundle's initial database.
Form "environment": ``def tool(data, **arguments)`` gets the episode's ``data`` (a deep copy of the
database, ``{table: content}``) and mutates it in place; the state is ``{"task", "data"}``. Form
"sample": ``def tool(**arguments)``, pure; the state is ``{"task"}``.

A tool's result is what the model reads, as FTRL gives it: a dict or list as ``json.dumps(value,
ensure_ascii=False)``, a string as itself, anything else as ``str(value)``; a dict is also the
structured result.
"""

import copy
import hashlib
import importlib.util
import inspect
import json
import os
import signal


class BundleEnvironment:
    # set by _rlf_setup on the class it returns
    _form = "sample"
    _initial = "{}"
    _tasks = None
    _timeout_s = 10.0

    @classmethod
    def _rlf_setup(cls, setup):
        root = setup["bundle"]
        form = setup["form"]
        if form not in ("sample", "environment"):
            raise ValueError(f"unknown bundle form {form!r}")
        files = setup.get("files")
        namespace = {
            "_form": form,
            "_initial": json.dumps(load_data(root, files) if form == "environment" else {}),
            "_tasks": {task: frozenset(tools) for task, tools in (setup.get("tasks") or {}).items()},
            "_timeout_s": float(setup.get("callTimeoutS") or 10),
        }
        for name in setup["tools"]:
            if name in ("task", "data"):
                raise ValueError(f"a bundle tool cannot be named {name} (the episode's state attributes)")
            namespace[name] = tool_method(name, load_function(root, name, files), form)
        return type(cls.__name__, (cls,), namespace)

    def __init__(self, task=None, data=None):
        if task is not None and (not isinstance(task, str) or task not in self._tasks):
            raise ValueError(f"unknown task {task!r}: not a task of this bundle")
        self.task = task
        if self._form == "environment":
            if data is not None and not isinstance(data, dict):
                raise ValueError("data must be an object: {table: content}")
            # the database is kept as JSON text: parsing it is the fastest fresh copy
            self.data = json.loads(self._initial) if data is None else copy.deepcopy(data)
        elif data is not None:
            raise ValueError('a bundle of form "sample" has no data')

    def _rlf_state(self):
        """The episode's state, JSON as is (the worker encodes it without walking it first)."""
        if self._form == "environment":
            return {"task": self.task, "data": self.data}
        return {"task": self.task}


def verified_bytes(root, relative, files):
    """The bytes of the bundle file ``relative``, checked against its manifest digest (``files``,
    ``{path: "sha256:<hex>"}``) as they are read: the code and data a worker runs are the ones the host
    verified, whenever the worker starts (a respawn included), or the worker refuses to start."""
    with open(os.path.join(root, relative), "rb") as f:
        content = f.read()
    if files is None:
        return content
    expected = files.get(relative)
    if expected is None:
        raise ValueError(f"{relative}: not listed in manifest.json; the bundle was modified after it was served")
    digest = "sha256:" + hashlib.sha256(content).hexdigest()
    if digest != expected:
        raise ValueError(
            f"{relative}: digest mismatch (manifest.json says {expected}, the file is {digest}); "
            "the bundle was modified after it was served"
        )
    return content


def load_data(root, files=None):
    """The initial database: {file name without .json: parsed content} over the files of data/."""
    folder = os.path.join(root, "data")
    if not os.path.isdir(folder):
        return {}
    data = {}
    for entry in sorted(os.listdir(folder)):
        if entry.endswith(".json"):
            data[entry[: -len(".json")]] = json.loads(verified_bytes(root, f"data/{entry}", files).decode("utf-8"))
    return data


def load_function(root, name, files=None):
    """The function ``name`` of ``code/<name>.py``, the file (as verified) run as a module of its own."""
    relative = f"code/{name}.py"
    path = os.path.join(root, relative)
    source = verified_bytes(root, relative, files)
    spec = importlib.util.spec_from_loader(f"rlf_bundle_tool_{name}", loader=None, origin=path)
    module = importlib.util.module_from_spec(spec)
    module.__file__ = path
    try:
        exec(compile(source, path, "exec"), module.__dict__)
    except Exception as err:
        raise ValueError(f"code/{name}.py: {type(err).__name__}: {err}") from err
    function = getattr(module, name, None)
    if not callable(function):
        raise TypeError(f"code/{name}.py defines no function {name}")
    return function


class CallTimeout(Exception):
    pass


def on_alarm(_signum, _frame):
    raise CallTimeout("the call timed out")


def tool_method(name, function, form):
    """A method running ``function`` on the episode (its data in form "environment"), with the
    function's own signature (less ``data``) so that the worker checks the arguments."""
    signature = inspect.signature(function)
    parameters = list(signature.parameters.values())
    if form == "environment":
        if "data" not in signature.parameters:
            raise ValueError(f"code/{name}.py: def {name} must take data (form environment: def {name}(data, ...))")
        parameters = [p for p in parameters if p.name != "data"]

    def method(self, **arguments):
        if self.task is not None and name not in self._tasks[self.task]:
            raise PermissionError(f"task {self.task!r} does not offer the tool {name}")
        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, self._timeout_s)
        try:
            environment = self._form == "environment"
            result = function(data=self.data, **arguments) if environment else function(**arguments)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        return feedback(result)

    receiver = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    method.__signature__ = signature.replace(
        parameters=[receiver, *parameters], return_annotation=inspect.Signature.empty
    )
    method.__name__ = name
    method.__qualname__ = f"BundleEnvironment.{name}"
    method.__doc__ = function.__doc__
    return method


def feedback(result):
    """The result as the model reads it (FTRL's rendering), and the structured value when it is a dict."""
    if isinstance(result, (dict, list)):
        text = json.dumps(result, ensure_ascii=False)
    elif isinstance(result, str):
        text = result
    else:
        text = str(result)
    return {"text": text, "structured": result if isinstance(result, dict) else None}
