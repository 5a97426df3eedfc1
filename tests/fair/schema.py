"""The event schema as events/table.py defines it, in the verifiers' own notation: what
`service/verify.py`'s `EVENT_SCHEMA` and fair.js's `EVENT_SCHEMA` must equal.

Each event type maps its fields (the `type` tag aside) to `[kind, required]`: `required` is
false when the field has a default (it may be left out of the JSON). A kind is "int", "str",
"bool" or "float"; ["list", kind] (any length); ["tuple", kind, ...] (that many items);
["dict", key kind, value kind] (JSON object; "int" keys are written as decimal text);
["nullable", kind] (the kind or null); ["one_of", value, ...] (a Literal); or
["struct", {field: [kind, required]}] (a nested object).
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import inspect

from events.table import EVENT_TYPES

Kind = str | list[Any]


def kind_of(t: inspect.Type) -> Kind:
    if isinstance(t, inspect.IntType):
        return "int"
    if isinstance(t, inspect.StrType):
        return "str"
    if isinstance(t, inspect.BoolType):
        return "bool"
    if isinstance(t, inspect.FloatType):
        return "float"
    if isinstance(t, inspect.LiteralType):
        return ["one_of", *t.values]
    if isinstance(t, inspect.VarTupleType | inspect.ListType):
        return ["list", kind_of(t.item_type)]
    if isinstance(t, inspect.TupleType):
        return ["tuple", *(kind_of(x) for x in t.item_types)]
    if isinstance(t, inspect.DictType):
        return ["dict", kind_of(t.key_type), kind_of(t.value_type)]
    if isinstance(t, inspect.UnionType):
        rest = [x for x in t.types if not isinstance(x, inspect.NoneType)]
        assert len(rest) == 1 and len(t.types) == 2, f"no notation for the union {t}"
        return ["nullable", kind_of(rest[0])]
    if isinstance(t, inspect.StructType):
        return ["struct", fields_of(t)]
    raise AssertionError(f"no notation for {t}")


def fields_of(t: inspect.StructType) -> dict[str, list[Any]]:
    return {f.encode_name: [kind_of(f.type), f.required] for f in t.fields}


def event_schema() -> dict[str, dict[str, list[Any]]]:
    """Every event type (by its tag) -> its fields."""
    out: dict[str, dict[str, list[Any]]] = {}
    for cls in EVENT_TYPES:
        info = inspect.type_info(cls)
        assert isinstance(info, inspect.StructType)
        out[str(info.tag)] = fields_of(info)
    return out


def normal(schema: Any) -> Any:
    """A schema as plain JSON values (tuples become lists), for comparing."""
    out: Any = msgspec.json.decode(msgspec.json.encode(schema))
    return out
