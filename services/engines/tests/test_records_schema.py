"""The Python records checked against the contract's JSON Schema (proto/schema, generated from
@rlfactory/contracts by `npm run gen`): every schema property is a dataclass field and every field a
property (or listed below with the reason it is not), with compatible types, nullability and
requiredness; `to_json` writes a record back exactly; the adapters' task fields are the schema's."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from rlfactory_engines.client import TASK_FIELDS
from rlfactory_engines.records import LOGPROBS_KINDS, OPTIONAL_FIELDS, SCHEMA_VERSION, STATUSES, Trajectory
from support import recorded

SCHEMA_DIR = Path(__file__).resolve().parents[3] / "proto" / "schema"
TRAJECTORY_SCHEMA = json.loads((SCHEMA_DIR / "trajectory.schema.json").read_text())
TASK_SCHEMA = json.loads((SCHEMA_DIR / "task.schema.json").read_text())

#: Schema properties the dataclass deliberately does not carry as a field, and why.
NOT_CARRIED = {
    "schema_version": "a constant: from_json refuses any other version, to_json writes SCHEMA_VERSION",
}
#: Dataclass fields that are not properties of the record, and why.
PYTHON_ONLY = {
    "json_keys": "which optional keys the parsed JSON had, so to_json writes the record back exactly",
}

ANY = frozenset({"null", "boolean", "integer", "number", "string", "array", "object"})


def schema_types(prop: dict[str, Any]) -> frozenset[str]:
    """The JSON types a schema accepts (integer included in number)."""
    if "anyOf" in prop:
        return frozenset().union(*(schema_types(p) for p in prop["anyOf"]))
    if "const" in prop or "enum" in prop:  # the values' own types (zod writes `number` for the literal 0)
        values = [prop["const"]] if "const" in prop else prop["enum"]
        found = frozenset(json_type(v) for v in values)
    elif "type" in prop:
        t = prop["type"]
        found = frozenset(t if isinstance(t, list) else [t])
    else:
        return ANY
    return found | {"integer"} if "number" in found else found


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return {int: "integer", float: "number", str: "string", list: "array", dict: "object"}[type(value)]


def python_types(hint: Any) -> frozenset[str]:
    """The JSON types a dataclass annotation holds (float takes integers, as JSON numbers)."""
    if hint is Any:
        return ANY
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return frozenset().union(*(python_types(a) for a in typing.get_args(hint)))
    base = origin or hint
    if base is type(None):
        return frozenset({"null"})
    return {
        bool: frozenset({"boolean"}),
        int: frozenset({"integer"}),
        float: frozenset({"number", "integer"}),
        str: frozenset({"string"}),
        list: frozenset({"array"}),
        dict: frozenset({"object"}),
    }[base]


def check_compatible(name: str, prop: dict[str, Any], hint: Any, required: bool) -> None:
    """The field holds exactly what the property does; None only where the schema has null or the
    property may be absent (None standing for absent). Lists and dicts: their items likewise."""
    want, have = schema_types(prop), python_types(hint)
    if have == ANY:  # kept as the JSON had it (a dict of a turn, a tool call's arguments)
        return
    assert want - {"null"} == have - {"null"}, f"{name}: schema {sorted(want)}, Python {hint}"
    if "null" in want:
        assert "null" in have, f"{name}: the schema allows null, {hint} does not"
    elif "null" in have:
        assert not required, f"{name}: {hint} allows None but the schema requires a value that is never null"
    core = hint
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        present = [a for a in typing.get_args(hint) if a is not type(None)]
        core = present[0] if len(present) == 1 else hint
    inner = typing.get_args(core) if typing.get_origin(core) in (list, dict) else ()
    item_schemas = [p for p in prop.get("anyOf", [prop]) if p.get("type") in ("array", "object")]
    for item_schema in item_schemas:
        if item_schema["type"] == "array" and inner and "items" in item_schema:
            check_compatible(f"{name}[]", item_schema["items"], inner[0], True)
        if item_schema["type"] == "object" and len(inner) == 2:
            for key, value_schema in item_schema.get("properties", {}).items():
                check_compatible(f"{name}.{key}", value_schema, inner[1], key in item_schema.get("required", ()))
            if isinstance(item_schema.get("additionalProperties"), dict):
                check_compatible(f"{name}{{}}", item_schema["additionalProperties"], inner[1], True)


def test_every_schema_property_is_a_field_and_every_field_a_property():
    fields = {f.name for f in dataclasses.fields(Trajectory)}
    props = set(TRAJECTORY_SCHEMA["properties"])
    assert props - set(NOT_CARRIED) == fields - set(PYTHON_ONLY), (
        f"in the schema only: {sorted(props - set(NOT_CARRIED) - fields)}; "
        f"in records.py only: {sorted(fields - set(PYTHON_ONLY) - props)}"
    )
    assert set(NOT_CARRIED) <= props and set(PYTHON_ONLY) <= fields


def test_field_types_nullability_and_defaults_match_the_schema():
    hints = typing.get_type_hints(Trajectory)
    required = set(TRAJECTORY_SCHEMA["required"])
    fields = {f.name: f for f in dataclasses.fields(Trajectory)}
    for name, prop in TRAJECTORY_SCHEMA["properties"].items():
        if name in NOT_CARRIED or name not in fields:  # a missing field: see the test above
            continue
        check_compatible(name, prop, hints[name], name in required)
        f = fields[name]
        has_default = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        if name not in required:
            # a record without it still builds, and to_json leaves it out as it found it
            assert has_default, f"{name} may be absent from a record: its field needs a default"
            assert name in OPTIONAL_FIELDS, f"{name} is optional: list it in records.OPTIONAL_FIELDS"
    assert set(OPTIONAL_FIELDS) == set(TRAJECTORY_SCHEMA["properties"]) - required
    props = TRAJECTORY_SCHEMA["properties"]
    assert props["schema_version"]["const"] == SCHEMA_VERSION
    assert tuple(props["status"]["enum"]) == STATUSES
    assert tuple(props["logprobs_kind"]["enum"]) == LOGPROBS_KINDS


@pytest.mark.parametrize(("scenario", "trajectory", "raw"), recorded.all_pairs(), ids=lambda x: "")
def test_to_json_writes_every_recorded_trajectory_back_exactly(scenario, trajectory, raw):
    out = trajectory.to_json()
    assert out == raw, scenario
    assert json.loads(json.dumps(out)) == raw
    Draft202012Validator(TRAJECTORY_SCHEMA).validate(out)


def test_to_json_keeps_a_null_or_absent_optional_key_as_it_was():
    _, trajectory, raw = recorded.all_pairs()[0]
    bare = {k: v for k, v in raw.items() if k not in OPTIONAL_FIELDS}
    assert Trajectory.from_json(bare).to_json() == bare
    nulls = {**bare, "advantage": None, "reward_error": None, "stale": False, "metadata": {}}
    assert Trajectory.from_json(nulls).to_json() == nulls
    # a value set in Python is written even when the JSON it came from lacked the key
    changed = dataclasses.replace(Trajectory.from_json(bare), advantage=0.5)
    assert changed.to_json()["advantage"] == 0.5


def test_task_fields_are_the_task_schema_properties():
    assert tuple(TASK_SCHEMA["properties"]) == TASK_FIELDS
    assert set(TASK_SCHEMA["required"]) <= set(TASK_FIELDS)
