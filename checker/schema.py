"""A JSON Schema validator for the part of draft 2020-12 that layoutcheck's schemas use.

    violations = Schema.load("encoding.schema.json").validate(data)           # the whole document
    violations = Schema.load("encoding.schema.json").validate(decl, "#/$defs/declaration")

Keywords: ``type``, ``properties``, ``required``, ``additionalProperties``,
``propertyNames``, ``pattern``, ``enum``, ``const``, ``items``, ``minItems``,
``maxItems``, ``minimum``, ``maximum``, ``allOf``, ``anyOf``, ``oneOf``,
``if``/``then``/``else``, ``dependentRequired``, ``dependentSchemas``, boolean
schemas, and ``$ref`` to ``#/json/pointer`` in the same document or to
``other.schema.json#/pointer`` shipped beside it in ``checker/schemas``.
Annotations (``title``, ``description``, ``default``, ``$comment``, ...) are
ignored here; `yaml_decl` reads ``default`` to fill in optional fields.

A violation is (path, message): the path runs from the instance's root to the
offending value, and for an unknown, missing or forbidden key it ends with
that key, so a caller can point at the key's line. Integers exclude booleans,
as in JSON. Of the alternatives of an ``anyOf``/``oneOf`` that all fail, the
ones failing on the value's type are set aside and the remaining one with the
fewest violations is reported.
"""

from __future__ import annotations

import json
import pathlib
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterator, Mapping

from .errors import InternalError

Path = tuple  # of str keys and int indices

_TYPE_NAMES = {"object": "a mapping", "array": "a list", "integer": "an integer", "number": "a number",
               "string": "a string", "boolean": "true or false", "null": "null"}


@dataclass(frozen=True)
class Violation:
    path: Path
    message: str
    keyword: str = ""    # the schema keyword that failed

    @property
    def field(self) -> str | None:
        return path_field(self.path)

    def __str__(self) -> str:
        return f"field '{self.field}': {self.message}" if self.field else self.message


def path_field(path: Path) -> str | None:
    """The last key of a path with the indices after it: ``order[1]``, ``cga_layout[0][2]``."""
    for i in range(len(path) - 1, -1, -1):
        if isinstance(path[i], str):
            return path[i] + "".join(f"[{k}]" for k in path[i + 1:])
    return None


def show(value: Any, limit: int = 60) -> str:
    """A value as the user wrote it in YAML/JSON flow style (true, 'text', [1, 2], {a: 1})."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif value is None:
        text = "null"
    elif isinstance(value, str):
        text = repr(value)
    elif isinstance(value, (list, tuple)):
        text = "[" + ", ".join(show(v, limit) for v in value) + "]"
    elif isinstance(value, Mapping):
        text = "{" + ", ".join(f"{k}: {show(v, limit)}" for k, v in value.items()) + "}"
    else:
        text = str(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _is_type(value: Any, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, {"object": Mapping, "array": list, "string": str, "boolean": bool,
                              "null": type(None)}[name])


class Schema:
    """One schema document; `$ref`s into sibling documents load those on demand."""

    def __init__(self, document: Mapping, name: str = "<schema>"):
        self.document = document
        self.name = name

    @staticmethod
    @lru_cache(maxsize=None)
    def load(name: str) -> "Schema":
        """A schema shipped in ``checker/schemas``."""
        text = (pathlib.Path(__file__).parent / "schemas" / name).read_text(encoding="utf-8")
        return Schema(json.loads(text), name)

    def resolve(self, pointer: str) -> tuple["Schema", Any]:
        """``#/a/b`` in this document or ``file.json#/a/b`` beside it -> (document, subschema)."""
        target, _, fragment = pointer.partition("#")
        doc = Schema.load(target) if target and target != self.name else self
        node: Any = doc.document
        for part in filter(None, fragment.split("/")):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, Mapping) or part not in node:
                raise InternalError(f"{self.name}: $ref '{pointer}' does not resolve")
            node = node[part]
        return doc, node

    def validate(self, instance: Any, pointer: str = "#") -> list[Violation]:
        """Every violation of the subschema at `pointer`, in schema-traversal order."""
        doc, schema = self.resolve(pointer)
        return list(doc._check(instance, schema, ()))

    # ---------------------------------------------------------------- keywords

    def _check(self, value: Any, schema: Any, path: Path) -> Iterator[Violation]:
        if schema is True:
            return
        if schema is False:
            yield Violation(path, "is not allowed", "false")
            return
        if "$ref" in schema:
            doc, target = self.resolve(schema["$ref"])
            yield from doc._check(value, target, path)
        if "type" in schema:
            types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            if not any(_is_type(value, t) for t in types):
                want = " or ".join(_TYPE_NAMES[t] for t in types)
                yield Violation(path, f"must be {want}, got {show(value)}", "type")
                return
        if _outside_enum(value, schema):
            allowed = schema.get("enum", [schema.get("const")])
            what = show(allowed[0]) if len(allowed) == 1 else "one of " + ", ".join(show(v) for v in allowed)
            yield Violation(path, f"must be {what}, got {show(value)}")
            return
        if isinstance(value, str) and "pattern" in schema and not re.search(schema["pattern"], value):
            yield Violation(path, f"must match the pattern {schema['pattern']}, got {show(value)}")
        if _is_type(value, "number"):
            yield from self._number(value, schema, path)
        if isinstance(value, list):
            yield from self._array(value, schema, path)
        if isinstance(value, Mapping):
            yield from self._object(value, schema, path)
        yield from self._combinators(value, schema, path)

    def _number(self, value, schema, path) -> Iterator[Violation]:
        if "minimum" in schema and value < schema["minimum"]:
            yield Violation(path, f"must be at least {schema['minimum']}, got {show(value)}")
        if "maximum" in schema and value > schema["maximum"]:
            yield Violation(path, f"must be at most {schema['maximum']}, got {show(value)}")

    def _array(self, value, schema, path) -> Iterator[Violation]:
        if "minItems" in schema and len(value) < schema["minItems"]:
            yield Violation(path, f"must have at least {schema['minItems']} entries, got {show(value)}")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            yield Violation(path, f"must have at most {schema['maxItems']} entries, got {show(value)}")
        if "items" in schema:
            for i, item in enumerate(value):
                yield from self._check(item, schema["items"], path + (i,))

    def _object(self, value, schema, path) -> Iterator[Violation]:
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if "propertyNames" in schema:
                for v in self._check(key, schema["propertyNames"], path + (key,)):
                    yield Violation(v.path, f"the name {v.message}")
            if key in props:
                yield from self._check(item, props[key], path + (key,))
            elif extra is False:
                allowed = ", ".join(sorted(props))
                yield Violation(path + (key,), f"unknown key (allowed: {allowed})" if allowed else "unknown key")
            else:
                yield from self._check(item, extra, path + (key,))
        for key in schema.get("required", ()):
            if key not in value:
                yield Violation(path + (key,), "required key is missing")
        for key, needed in schema.get("dependentRequired", {}).items():
            if key in value:
                for other in needed:
                    if other not in value:
                        yield Violation(path + (other,), f"is required when '{key}' is given")
        for key, sub in schema.get("dependentSchemas", {}).items():
            if key in value:
                for v in self._check(value, sub, path):
                    yield Violation(v.path, f"{v.message} when '{key}' is given")

    def _combinators(self, value, schema, path) -> Iterator[Violation]:
        for sub in schema.get("allOf", ()):
            yield from self._check(value, sub, path)
        if "if" in schema:
            branch = "then" if not any(True for _ in self._check(value, schema["if"], path)) else "else"
            if branch in schema:
                yield from self._check(value, schema[branch], path)
        for word in ("anyOf", "oneOf"):
            if word not in schema:
                continue
            results = [list(self._check(value, sub, path)) for sub in schema[word]]
            passing = sum(1 for r in results if not r)
            if word == "oneOf" and passing > 1:
                yield Violation(path, f"matches {passing} of the alternatives, but must match exactly one")
            if passing:
                continue
            typed = [r for r in results if not _type_failure(r, path)]
            if typed:
                yield from min(typed, key=len)
            else:
                wants = " or ".join(r[0].message.split(", got ")[0].removeprefix("must be ") for r in results)
                yield Violation(path, f"must be {wants}, got {show(value)}")


def _outside_enum(value: Any, schema: Mapping) -> bool:
    """`enum`/`const` fail; they compare like JSON: true is not 1 and 1 is not true."""
    allowed = schema.get("enum", [schema["const"]] if "const" in schema else None)
    if allowed is None:
        return False
    return not any(value == a and isinstance(value, bool) == isinstance(a, bool) for a in allowed)


def _type_failure(violations: list[Violation], path: Path) -> bool:
    """The alternative failed on the value's own type (so its other messages say nothing useful)."""
    return len(violations) == 1 and violations[0].path == path and violations[0].keyword == "type"
