"""The environment worker: one persistent process hosting many episodes of Python environment classes.

Protocol (see ../README.md): JSON lines. The host writes one request per line on stdin,
``{"id": N, "op": OP, ...}``; the worker answers each with one line on the protocol channel (the
original stdout; ``print`` in environment code goes to stderr), ``{"id": N, "ok": true, "result": ...}``
or ``{"id": N, "ok": false, "error": {"code": CODE, "message": TEXT}}``, in request order. The first
request is ``init``. The answers to the requests of one read leave together (one write), the batch
flushed early once it is older than a millisecond. Only the standard library is used here.
"""

import ast
import copy
import datetime
import decimal
import enum
import importlib
import importlib.util
import inspect
import json
import math
import numbers
import os
import re
import sys
import time
import types
import typing

# --- values as JSON -------------------------------------------------------------------------------


def to_json(value, stack=None):
    """A JSON value for any Python value: objects as their public attributes, sets as sorted lists,
    numbers other than int and float (Decimal, mpmath's mpf, ...) as their text, a reference back to
    an object being encoded (a parent pointer) as {"$cycle": ClassName}."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, enum.Enum):
        return to_json(value.value, stack)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if type(value).__module__ == "numpy" and callable(getattr(value, "tolist", None)):
        # numpy arrays and scalars as the numbers and lists they hold, never their repr
        return to_json(value.tolist(), stack)
    if isinstance(value, (decimal.Decimal, complex, numbers.Number)):
        # other number types (mpmath's mpf, Fraction) as their exact text, never as an empty object
        return str(value)
    if stack is None:
        stack = set()
    if id(value) in stack:
        return {"$cycle": type(value).__name__}
    stack.add(id(value))
    try:
        if isinstance(value, dict):
            return {k if isinstance(k, str) else str(k): to_json(v, stack) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [to_json(v, stack) for v in value]
        if isinstance(value, (set, frozenset)):
            items = [to_json(v, stack) for v in value]
            return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
        if hasattr(value, "__dict__") and not isinstance(value, (type, types.ModuleType)):
            return public_attributes(value, stack)
        return repr(value)
    finally:
        stack.discard(id(value))


def instance_state(obj):
    """An instance's state: what its ``_rlf_state()`` returns when it has one (already JSON-like, e.g.
    a bundle's database, encoded without walking it here), else its public attributes."""
    hook = getattr(obj, "_rlf_state", None)
    return hook() if callable(hook) else public_attributes(obj)


def public_attributes(obj, stack=None):
    """An instance's state: its attributes whose names do not start with an underscore."""
    if stack is None:
        stack = set()
    stack.add(id(obj))
    try:
        return {k: to_json(v, stack) for k, v in vars(obj).items() if not k.startswith("_")}
    finally:
        stack.discard(id(obj))


# --- schemas --------------------------------------------------------------------------------------

BFCL_TYPES = {"dict": "object", "float": "number", "tuple": "array", "int": "integer", "bool": "boolean"}


def bfcl_schema(schema):
    """JSON Schema from BFCL's function-doc parameter format ("dict" for object, "float", "tuple", "any")."""
    if isinstance(schema, list):
        return [bfcl_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, str):
            if value == "any":
                continue
            out[key] = BFCL_TYPES.get(value, value)
        elif key in ("properties",) and isinstance(value, dict):
            out[key] = {name: bfcl_schema(s) for name, s in value.items()}
        elif key in ("items", "additionalProperties", "anyOf", "oneOf"):
            out[key] = bfcl_schema(value)
        else:
            out[key] = value
    return out


def hint_schema(hint):
    """JSON Schema for a type hint ({} when nothing narrower can be said)."""
    if hint is inspect.Parameter.empty or hint is typing.Any:
        return {}
    if hint is type(None) or hint is None:
        return {"type": "null"}
    simple = {str: "string", bool: "boolean", int: "integer", float: "number"}
    if hint in simple:
        return {"type": simple[hint]}
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint in (list, tuple, set, frozenset) or origin in (list, tuple, set, frozenset):
        schema = {"type": "array"}
        if args and args[-1] is not Ellipsis:
            schema["items"] = hint_schema(args[0])
        return schema
    if hint is dict or origin is dict:
        schema = {"type": "object"}
        if len(args) == 2:
            schema["additionalProperties"] = hint_schema(args[1])
        return schema
    if origin is typing.Union or (hasattr(types, "UnionType") and origin is types.UnionType):
        members = [a for a in args if a is not type(None)]
        if len(members) == 1:
            return hint_schema(members[0])
        return {"anyOf": [hint_schema(a) for a in members]}
    if origin is typing.Literal:
        return {"enum": list(args)}
    return {}


SECTIONS = (
    "args:",
    "arguments:",
    "parameters:",
    "returns:",
    "return:",
    "raises:",
    "yields:",
    "example:",
    "examples:",
    "response:",
)


def parse_docstring(doc):
    """(description, {parameter: description}) from a Google-style docstring."""
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    description, params, section, current, params_indent = [], {}, None, None, 0
    for line in lines:
        stripped = line.strip()
        if stripped.lower() in SECTIONS:
            section = stripped.lower().rstrip(":")
            current = None
            continue
        if section is None:
            description.append(stripped)
        elif section in ("args", "arguments", "parameters") and stripped:
            indented = line.startswith((" ", "\t"))
            head, sep, rest = stripped.partition(":")
            name = head.split("(")[0].strip()
            if (
                sep
                and name.isidentifier()
                and (current is None or not indented or len(line) - len(line.lstrip()) <= params_indent)
            ):
                current = name
                params_indent = len(line) - len(line.lstrip())
                params[current] = rest.strip()
            elif current is not None:
                params[current] = (params[current] + " " + stripped).strip()
    text = " ".join(part for part in " ".join(description).split())
    return text, params


def method_schema(name, method):
    signature = inspect.signature(method)
    try:
        hints = typing.get_type_hints(method)
    except Exception:
        hints = {}
    description, param_docs = parse_docstring(inspect.getdoc(method))
    properties, required = {}, []
    parameters = list(signature.parameters.values())
    if parameters and parameters[0].name in ("self", "cls"):
        parameters = parameters[1:]
    for param in parameters:
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        schema = dict(hint_schema(hints.get(param.name, param.annotation)))
        if param_docs.get(param.name):
            schema["description"] = param_docs[param.name]
        if param.default is not param.empty:
            try:
                json.dumps(param.default)
                schema["default"] = param.default
            except (TypeError, ValueError):
                pass
        else:
            required.append(param.name)
        properties[param.name] = schema
    input_schema = {"type": "object", "properties": properties}
    if required:
        input_schema["required"] = required
    return {"name": name, "description": description, "inputSchema": input_schema}


# --- the environment classes ----------------------------------------------------------------------


class Failure(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def load_class(ref):
    if ref.get("file"):
        path = ref["file"]
        directory = os.path.dirname(os.path.abspath(path))
        if directory not in sys.path:
            sys.path.insert(0, directory)
        module_name = os.path.splitext(os.path.basename(path))[0]
        module = sys.modules.get(module_name)
        if module is None:
            spec = importlib.util.spec_from_file_location(module_name, path)
            if spec is None or spec.loader is None:
                raise Failure("BAD_MODULE", f"cannot load {path}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[module_name] = module
            spec.loader.exec_module(module)
    else:
        module = importlib.import_module(ref["module"])
    cls = getattr(module, ref["className"], None)
    if not inspect.isclass(cls):
        raise Failure("BAD_MODULE", f"{ref.get('file') or ref.get('module')} has no class {ref['className']}")
    return cls


def setup_class(cls, name, setup):
    """The class served when the host gives a ``setup``: what ``cls._rlf_setup(setup)`` returns (a class
    whose tools depend on data, e.g. an environment bundle's)."""
    hook = getattr(cls, "_rlf_setup", None)
    if hook is None:
        raise Failure("BAD_MODULE", f"{name} has no _rlf_setup classmethod, but the host gives a setup")
    try:
        served = hook(setup)
    except Failure:
        raise
    except Exception as err:
        raise Failure("BAD_MODULE", f"{name}._rlf_setup: {type(err).__name__}: {err}") from err
    if not inspect.isclass(served):
        raise Failure("BAD_MODULE", f"{name}._rlf_setup must return a class")
    return served


# An attribute setter is never a tool: set_wrapper_attr (gymnasium), setattr, set_attr, set_attributes...
SETTER = re.compile(r"^(__)?set_?(\w+_)?attr(ibute)?s?(__)?$")


def is_method(member):
    return inspect.isfunction(member) or inspect.ismethod(member)


def public_methods(cls, listed=None):
    """The methods served as tools: the ones listed (``--methods``, or the class's ``_rlf_methods``), else
    those without a leading underscore that the class declares itself (not inherited ones, such as a
    framework base class's); never an attribute setter."""
    listed = listed if listed is not None else getattr(cls, "_rlf_methods", None)
    if listed is not None:
        names = []
        for name in listed:
            if name.startswith("_") or SETTER.match(name):
                raise Failure("BAD_MODULE", f"{name} cannot be a tool (a private method or an attribute setter)")
            if not is_method(getattr(cls, name, None)):
                raise Failure("BAD_MODULE", f"{cls.__name__} has no method {name}")
            names.append(name)
        return names
    return sorted(
        name
        for name, member in vars(cls).items()
        if not name.startswith("_")
        and not SETTER.match(name)
        and (inspect.isfunction(member) or isinstance(member, (staticmethod, classmethod)))
    )


SIGNATURES = {}


def signature_of(method):
    """inspect.signature(method), computed once per function (and boundness): it reads annotations and
    defaults afresh on every call, a quarter of a call's cost in the worker."""
    key = (getattr(method, "__func__", method), inspect.ismethod(method))
    signature = SIGNATURES.get(key)
    if signature is None:
        signature = SIGNATURES[key] = inspect.signature(method)
    return signature


class Worker:
    def __init__(self):
        self.classes = {}  # class name -> class
        self.tools = {}  # tool name -> (class name, method name)
        self.construct = "kwargs"
        self.episodes = {}  # id -> {class name: instance}
        self.next_episode = 1

    def init(self, req):
        LIMITS["answer_bytes"] = req.get("maxAnswerBytes")
        docs = {}
        for doc in req.get("functionDocs") or []:
            docs[doc["name"]] = doc
        self.construct = req.get("construct", "kwargs")
        for directory in reversed(req.get("searchPath") or []):
            if directory not in sys.path:
                sys.path.insert(0, directory)
        descriptors = []
        setup = req.get("setup")
        listed = req.get("methods")
        for ref in req["classes"]:
            cls = load_class(ref)
            name = ref["className"]
            if setup is not None:
                cls = setup_class(cls, name, setup)
            self.classes[name] = cls
            schemas = getattr(cls, "_rlf_schemas", None) or {}
            for method_name in public_methods(cls, listed):
                if method_name in self.tools:
                    other = self.tools[method_name][0]
                    raise Failure("BAD_MODULE", f"tool {method_name} is a method of both {other} and {name}")
                self.tools[method_name] = (name, method_name)
                doc = docs.get(method_name)
                if doc is not None:
                    descriptor = {
                        "name": method_name,
                        "description": doc.get("description", ""),
                        "inputSchema": bfcl_schema(doc.get("parameters") or {"type": "dict", "properties": {}}),
                    }
                elif method_name in schemas:
                    # a class that knows its tools' schemas better than its signatures say (gym_env.py)
                    descriptor = {"name": method_name, **schemas[method_name]}
                else:
                    method = getattr(cls, method_name)
                    # a method that carries its own descriptor (openenv_env.py's action tools) keeps it
                    declared = getattr(method, "_rlf_tool", None)
                    descriptor = dict(declared) if isinstance(declared, dict) else method_schema(method_name, method)
                descriptor["className"] = name
                descriptors.append(descriptor)
        return {"tools": descriptors, "python": sys.version.split()[0]}

    def build(self, name, config, long_context=False):
        cls = self.classes[name]
        if self.construct == "load_scenario":
            instance = cls()
            load = getattr(instance, "_load_scenario", None)
            if load is not None:
                if "long_context" in signature_of(load).parameters:
                    load(copy.deepcopy(config or {}), long_context=long_context)
                else:
                    load(copy.deepcopy(config or {}))
            return instance
        if config is None:
            return cls()
        if not isinstance(config, dict):
            raise Failure("BAD_CONFIG", f"the config of {name} must be an object (its constructor's keyword arguments)")
        return cls(**copy.deepcopy(config))

    def create(self, req):
        config = req.get("config") or {}
        if not isinstance(config, dict):
            raise Failure("BAD_CONFIG", "an episode's config must be a JSON object")
        long_context = config.get("long_context", False) if "involved_classes" in config else False
        if not isinstance(long_context, bool):
            raise Failure("BAD_CONFIG", "long_context must be true or false")
        if "involved_classes" in config:
            involved = config["involved_classes"]
            initial = config.get("initial_config") or {}
            if not isinstance(involved, list) or not involved:
                raise Failure("BAD_CONFIG", "involved_classes must be a non-empty list of class names")
            unknown = [c for c in involved if c not in self.classes]
            if unknown:
                raise Failure("BAD_CONFIG", f"unknown classes {unknown}; this environment has {sorted(self.classes)}")
            if not isinstance(initial, dict):
                raise Failure("BAD_CONFIG", "initial_config must be an object keyed by class name")
            configs = {c: initial.get(c) for c in involved}
        elif len(self.classes) == 1:
            configs = {next(iter(self.classes)): config}
        else:
            raise Failure(
                "BAD_CONFIG",
                f"this environment has several classes {sorted(self.classes)}: the config names involved_classes",
            )
        try:
            instances = {name: self.build(name, cfg, long_context) for name, cfg in configs.items()}
        except Failure:
            raise
        except Exception as err:
            raise Failure("BAD_CONFIG", f"{type(err).__name__}: {err}") from err
        episode = self.next_episode
        self.next_episode += 1
        self.episodes[episode] = instances
        return {"episode": episode}

    def episode(self, req):
        instances = self.episodes.get(req.get("episode"))
        if instances is None:
            raise Failure("UNKNOWN_EPISODE", f"no episode {req.get('episode')} in this worker")
        return instances

    def call(self, req):
        instances = self.episode(req)
        tool = req.get("tool")
        if tool not in self.tools:
            raise Failure("UNKNOWN_TOOL", f"unknown tool {tool!r}")
        class_name, method_name = self.tools[tool]
        instance = instances.get(class_name)
        if instance is None:
            raise Failure("UNKNOWN_TOOL", f"tool {tool!r} belongs to {class_name}, which is not part of this episode")
        arguments = req.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise Failure("BAD_ARGUMENTS", f"the arguments of {tool} must be a JSON object")
        method = getattr(instance, method_name)
        try:
            signature_of(method).bind(**arguments)
        except TypeError as err:
            raise Failure("BAD_ARGUMENTS", f"{tool}: {err}") from err
        try:
            result = method(**arguments)
        except Exception as err:
            raise Failure("TOOL_ERROR", f"{type(err).__name__}: {err}") from err
        return {"value": to_json(result)}

    def parse(self, req):
        """A call written as Python source (`cd(folder='document')`) as {tool, arguments}: parsed with
        ast, arguments read with ast.literal_eval, never evaluated."""
        text = req.get("text")
        try:
            node = ast.parse(text, mode="eval").body
        except (SyntaxError, TypeError, ValueError) as err:
            raise Failure("BAD_CALL", f"not a call: {err}") from err
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            raise Failure("BAD_CALL", "not a call of a tool by name")
        tool = node.func.id
        if tool not in self.tools:
            raise Failure("UNKNOWN_TOOL", f"unknown tool {tool!r}")
        class_name, method_name = self.tools[tool]
        try:
            positional = [ast.literal_eval(a) for a in node.args]
            keywords = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg is not None}
        except ValueError as err:
            raise Failure("BAD_CALL", f"arguments must be literals: {err}") from err
        if any(k.arg is None for k in node.keywords):
            raise Failure("BAD_CALL", "** arguments are not allowed")
        parameters = [
            p.name
            for p in inspect.signature(getattr(self.classes[class_name], method_name)).parameters.values()
            if p.name != "self" and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        if len(positional) > len(parameters):
            raise Failure("BAD_ARGUMENTS", f"{tool} takes {len(parameters)} positional arguments")
        arguments = dict(zip(parameters, positional, strict=False))
        for key in keywords:
            if key in arguments:
                raise Failure("BAD_ARGUMENTS", f"{tool}: {key} given twice")
        arguments.update(keywords)
        return {"tool": tool, "arguments": to_json(arguments)}

    def fork(self, req):
        instances = self.episode(req)
        count = req.get("count", 1)
        if not isinstance(count, int) or count < 1:
            raise Failure("BAD_CONFIG", "count must be a positive integer")
        episodes = []
        for _ in range(count):
            episode = self.next_episode
            self.next_episode += 1
            self.episodes[episode] = copy.deepcopy(instances)
            episodes.append(episode)
        return {"episodes": episodes}

    def snapshot(self, req):
        return {"state": {name: instance_state(obj) for name, obj in self.episode(req).items()}}

    def close(self, req):
        state = self.snapshot(req)
        del self.episodes[req["episode"]]
        return state


def main():
    # The protocol channel is the original stdout; anything the environment prints goes to stderr.
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    worker = Worker()
    ops = {
        "init": worker.init,
        "create": worker.create,
        "call": worker.call,
        "parse": worker.parse,
        "fork": worker.fork,
        "snapshot": worker.snapshot,
        "close": worker.close,
    }
    # Requests are read as they arrive, many lines at a time when the host has several in flight; the
    # answers to one read leave in one write (flushed early when one read's work runs past FLUSH_AFTER_S,
    # and before a request on an episode whose earlier request's answer is still held: the host sends
    # a batch's calls together, and times each call from the answer before it).
    answers = []
    answered = set()
    started = 0.0
    for line in request_lines(sys.stdin.fileno()):
        episode = None if line is None else request_episode(line)
        if answers and (time.monotonic() - started > FLUSH_AFTER_S or (episode is not None and episode in answered)):
            write_answers(channel, answers)
            answered.clear()
        if line is None:
            write_answers(channel, answers)
            answered.clear()
            continue
        if not answers:
            started = time.monotonic()
        answers.append(answer(ops, line))
        answered.add(episode)
    write_answers(channel, answers)


FLUSH_AFTER_S = 0.001
# Set by init: the longest answer line the host reads (longer ones are answered ANSWER_TOO_LARGE).
LIMITS = {"answer_bytes": None}


def request_lines(fd):
    """The request lines read from `fd`, each read's lines followed by None (the moment to flush)."""
    head = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        parts = chunk.split(b"\n")
        if len(parts) == 1:
            head.append(chunk)
            continue
        head.append(parts[0])
        yield b"".join(head)
        yield from parts[1:-1]
        head = [parts[-1]]
        yield None
    if b"".join(head).strip():
        yield b"".join(head)
    yield None


def answer(ops, line):
    """The answer line to one request line."""
    if not line.strip():
        return None
    rid = None
    try:
        try:
            req = json.loads(line)
        except (ValueError, RecursionError) as err:
            # The request cannot be read (nested past Python's recursion limit, not JSON): it is still
            # answered, by the id the host writes first on every line, so only it fails.
            rid = request_id(line)
            raise Failure("BAD_REQUEST", f"the request could not be read: {type(err).__name__}: {err}") from None
        rid = req.get("id")
        op = ops.get(req.get("op"))
        if op is None:
            raise Failure("BAD_REQUEST", f"unknown op {req.get('op')!r}")
        response = {"id": rid, "ok": True, "result": op(req)}
    except Failure as err:
        response = {"id": rid, "ok": False, "error": {"code": err.code, "message": str(err)}}
    except Exception as err:
        response = {
            "id": rid,
            "ok": False,
            "error": {"code": "WORKER_ERROR", "message": f"{type(err).__name__}: {err}"},
        }
    try:
        try:
            text = json.dumps(response, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError, RecursionError):
            # a value JSON cannot hold as is (a set, an object, NaN): encoded as to_json does
            text = json.dumps(to_json(response), separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError) as err:
        return json.dumps(
            {"id": rid, "ok": False, "error": {"code": "WORKER_ERROR", "message": f"unencodable result: {err}"}}
        )
    # The host ends a worker whose line passes its limit: an answer that large fails alone instead
    # (json.dumps writes ASCII, so characters are bytes).
    limit = LIMITS["answer_bytes"]
    if limit and len(text) > limit:
        message = f"the answer is {len(text)} bytes; the limit is {limit} (maxLineBytes)"
        return json.dumps({"id": rid, "ok": False, "error": {"code": "ANSWER_TOO_LARGE", "message": message}})
    return text


REQUEST_ID = re.compile(rb'^\s*\{\s*"id"\s*:\s*(\d+)\s*,')


def request_id(line):
    """The id at the start of a request line the worker could not parse (the host writes it first)."""
    match = REQUEST_ID.match(line if isinstance(line, bytes) else line.encode())
    return int(match.group(1)) if match else None


REQUEST_EPISODE = re.compile(rb'^\{"id":\d+,"op":"\w+","episode":(\d+)')


def request_episode(line):
    """The episode a request line is on (the host writes it third), or None."""
    match = REQUEST_EPISODE.match(line if isinstance(line, bytes) else line.encode())
    return int(match.group(1)) if match else None


def write_answers(channel, answers):
    text = "".join(a + "\n" for a in answers if a is not None)
    answers.clear()
    if text:
        channel.write(text)
        channel.flush()


if __name__ == "__main__":
    main()
