"""JSON Schema (draft 2020-12) validation by ``jsonschema``, its errors turned into layoutcheck's messages.

    violations = Schema.load("encoding.schema.json").validate(data)           # the whole document
    violations = Schema.load("encoding.schema.json").validate(decl, "#/$defs/declaration")

The schemas shipped in ``checker/schemas`` are held in one `referencing`
Registry under their file names, so ``$ref`` to ``#/json/pointer`` in the same
document or to ``other.schema.json#/pointer`` beside it resolves.

A violation is (path, message, keyword): the path runs from the instance's root
to the offending value, and for an unknown, missing or forbidden key it ends
with that key, so a caller can point at the key's line. The adapter keeps these
conventions on top of jsonschema's verdicts:

* ``type``: "must be a mapping, got 3" (integers and numbers exclude booleans,
  and an integer is an ``int``: ``2.0`` is not one); a value of the wrong type
  gets that message alone, as does a value outside an ``enum``/``const``
  ("must be one of 'a', 'b', got 'c'"; they compare like JSON: true is not 1);
  ``pattern``, ``minimum``/``maximum``, ``minItems``/``maxItems``: "must match
  the pattern P", "must be at least N", "must have at least N entries", each
  with ", got VALUE"; a ``false`` schema: "is not allowed".
* ``additionalProperties: false``: "unknown key (allowed: a, b)" at each extra
  key; ``required``: "required key is missing" at each missing key;
  ``propertyNames``: "the name " before the message, at the key;
  ``dependentRequired``: "is required when 'k' is given" at the missing key;
  ``dependentSchemas``: " when 'k' is given" after each message.
* ``anyOf``/``oneOf`` that no alternative passes: the alternatives failing on
  the value's own type are set aside and the remaining one with the fewest
  violations is reported (the first of equals); where all fail on the type,
  "must be A or B, got V". A ``oneOf`` that several pass: "matches N of the
  alternatives, but must match exactly one".

Violations come in the order of a walk of the schema: ``$ref``, type,
enum/const, pattern, minimum, maximum, minItems, maxItems, the items in order,
the object's keys in the instance's order (name, then value), required,
dependentRequired, dependentSchemas, allOf, then/else, anyOf, oneOf.
"""

from __future__ import annotations

import contextlib
import json
import pathlib
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from .errors import InternalError
from .limits import MAX_NESTING, did_you_mean

Path = tuple  # of str keys and int indices

_DIR = pathlib.Path(__file__).parent / "schemas"

_TYPE_NAMES = {"object": "a mapping", "array": "a list", "integer": "an integer", "number": "a number",
               "string": "a string", "boolean": "true or false", "null": "null"}


@dataclass(frozen=True)
class Violation:
    path: Path
    message: str
    keyword: str = ""    # the keyword that failed: "false" for a false schema, the outer propertyNames or
    #                      dependentSchemas where one wraps the message, anyOf/oneOf for "must be A or B"

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


# ---------------------------------------------------------------- the validator class
# Built on first use (`_validator_class`): jsonschema and referencing take ~45 ms to import, which a
# run over TTGIR alone never needs.

_STOCK: dict[str, Any] = {}     # jsonschema's own keyword functions, filled by `_validator_class`


def _fails(validator, word: str, instance: Any, schema: Mapping) -> bool:
    return word in schema and next(iter(_STOCK[word](validator, schema[word], instance, schema)), None) is not None


def _guarded(word: str, check):
    """A keyword that is skipped where the value already fails ``type`` (or, after it, ``enum``/``const``)."""
    def guarded(validator, value, instance, schema):
        if _fails(validator, "type", instance, schema):
            return
        if word not in ("enum", "const") and (_fails(validator, "enum", instance, schema)
                                              or _fails(validator, "const", instance, schema)):
            return
        yield from check(validator, value, instance, schema)
    return guarded


def _ref(validator, ref, instance, schema):
    """``$ref``, with the keyword kept in the errors' schema paths (jsonschema leaves it out)."""
    for error in _STOCK["$ref"](validator, ref, instance, schema):
        error.relative_schema_path.appendleft("$ref")
        yield error


def _property_names(validator, names, instance, schema):
    """``propertyNames``, with the failing name at the end of the errors' paths."""
    for error in _STOCK["propertyNames"](validator, names, instance, schema):
        error.relative_path.appendleft(error.instance)    # every error below is about the name itself
        yield error


def _one_of(validator, one_of, instance, schema):
    """``oneOf``; where several alternatives pass, the message says how many."""
    for error in _STOCK["oneOf"](validator, one_of, instance, schema):
        if not error.context:
            passing = sum(validator.evolve(schema=sub).is_valid(instance) for sub in one_of)
            error.message = f"matches {passing} of the alternatives, but must match exactly one"
        yield error


@cache
def _validator_class():
    """Draft 2020-12 with the conventions of the module docstring: ``type`` that excludes booleans from
    numbers, keywords guarded by ``type``/``enum``/``const``, paths kept for ``$ref``, ``propertyNames``
    and false subschemas."""
    from jsonschema import Draft202012Validator, validators  # lazy: jsonschema loads only when a document is checked
    _STOCK.update(Draft202012Validator.VALIDATORS)
    types = Draft202012Validator.TYPE_CHECKER.redefine_many({
        "integer": lambda _, v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda _, v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "object": lambda _, v: isinstance(v, Mapping),
    })
    own = {"$ref": _ref, "propertyNames": _property_names, "oneOf": _one_of}
    cls = validators.extend(
        Draft202012Validator,
        validators={word: (check if word in ("$ref", "type") else _guarded(word, check))
                    for word, check in {**_STOCK, **own}.items()},
        type_checker=types,
    )
    stock_descend = cls.descend

    def descend(self, instance, schema, path=None, schema_path=None, resolver=None):
        """jsonschema's descend, with a false subschema's error given its path and schema path (4.x
        leaves them out)."""
        for error in stock_descend(self, instance, schema, path, schema_path, resolver):
            if schema is False:
                if path is not None:
                    error.relative_path.appendleft(path)
                if schema_path is not None:
                    error.relative_schema_path.appendleft(schema_path)
            yield error

    cls.descend = descend
    return cls


def _resource(document: Any):
    """A document as a draft 2020-12 resource.

    Its ``$schema`` is left out: jsonschema's ``evolve`` would pick the stock validator class by it.
    """
    from referencing.jsonschema import DRAFT202012  # lazy: with jsonschema, only when a document is checked
    if isinstance(document, Mapping) and "$schema" in document:
        document = {k: v for k, v in document.items() if k != "$schema"}
    return DRAFT202012.create_resource(document)


@cache
def _shipped() -> tuple[Any, dict[str, Any]]:
    """Every schema in ``checker/schemas`` under its file name (a `referencing.Registry`), and the
    documents as read."""
    import referencing  # lazy: with jsonschema, only when a document is checked
    documents = {path.name: json.loads(path.read_text(encoding="utf-8")) for path in sorted(_DIR.glob("*.json"))}
    registry = referencing.Registry().with_resources((name, _resource(doc)) for name, doc in documents.items())
    return registry, documents


# ---------------------------------------------------------------- schemas

class Schema:
    """One schema document, validated with the shipped schemas beside it for ``$ref``s."""

    def __init__(self, document: Any, name: str = "<schema>"):
        self.document = document
        self.name = name
        shipped, documents = _shipped()
        if documents.get(name) is document:
            self._registry = shipped
        else:
            self._registry = shipped.with_resource(name, _resource(document))
        self._validators: dict[str, Any] = {}

    @staticmethod
    @cache
    def load(name: str) -> Schema:
        """A schema shipped in ``checker/schemas``."""
        documents = _shipped()[1]
        if name not in documents:
            raise InternalError(f"no schema '{name}' in {_DIR}")
        return Schema(documents[name], name)

    def resolve(self, pointer: str) -> tuple[Schema, Any]:
        """``#/a/b`` in this document or ``file.json#/a/b`` beside it -> (document, subschema)."""
        target = pointer.partition("#")[0]
        doc = Schema.load(target) if target and target != self.name else self
        import referencing.exceptions  # lazy: with jsonschema, only when a document is checked
        try:
            return doc, self._registry.resolver(base_uri=self.name).lookup(pointer).contents
        except referencing.exceptions.Unresolvable:
            raise InternalError(f"{self.name}: $ref '{pointer}' does not resolve") from None

    def validate(self, instance: Any, pointer: str = "#") -> list[Violation]:
        """Every violation of the subschema at `pointer`, in schema-walk order."""
        validator = self._validators.get(pointer)
        if validator is None:
            self.resolve(pointer)                      # an InternalError where it does not resolve
            validator = _validator_class()({"$ref": self.name + pointer}, registry=self._registry)
            self._validators[pointer] = validator
        import referencing.exceptions  # lazy: with jsonschema, only when a document is checked
        try:
            with _frames_for_nesting():
                return [v for _, v, _ in _ordered(validator.iter_errors(instance), instance, 0)]
        except referencing.exceptions.Unresolvable as e:
            raise InternalError(f"{self.name}: a $ref does not resolve ({e})") from None


@contextlib.contextmanager
def _frames_for_nesting():
    """Room for jsonschema to walk a document nested as deep as the limits allow (MAX_NESTING levels): its
    validators recurse through $ref, anyOf and properties, some 40 Python frames per level of the document,
    past Python's default of 1000 at about 25 levels."""
    need = 64 * MAX_NESTING + 1000
    old = sys.getrecursionlimit()
    if old < need:
        sys.setrecursionlimit(need)
    try:
        yield
    finally:
        if old < need:
            sys.setrecursionlimit(old)


# ---------------------------------------------------------------- the adapter

# The rank of each keyword in a schema's walk; a node's object keys share one rank, in the instance's key order.
_RANK = {"$ref": 0, "type": 1, "enum": 2, "const": 2, "pattern": 3, "minimum": 4, "maximum": 5,
         "minItems": 6, "maxItems": 7, "items": 8, "propertyNames": 9, "properties": 9,
         "additionalProperties": 9, "required": 10, "dependentRequired": 11, "dependentSchemas": 12,
         "allOf": 13, "then": 14, "else": 14, "anyOf": 15, "oneOf": 16}

_Item = tuple  # (order key, Violation, is a plain type failure)


def _ordered(errors: Iterable[Any], instance: Any, skip: int) -> list[_Item]:
    """Violations of jsonschema errors, relative to `instance`, sorted in walk order.

    `skip` leading schema-path entries are dropped first (1: the alternative's index in a context).
    """
    items: list[_Item] = []
    done: set = set()       # (schema path, instance path) of keywords already turned into all their violations
    firsts: dict = {}       # first-seen ordinals of dependentSchemas keys
    for error in errors:
        items.extend(_violations(error, instance, skip, done, firsts))
    items.sort(key=lambda item: item[0])
    return items


def _violations(error: Any, instance: Any, skip: int, done: set, firsts: dict) -> list[_Item]:
    steps = list(error.relative_schema_path)[skip:]
    word = error.validator
    if word is not None:  # the failing keyword ends the schema path; False schemas have none
        steps.pop()
    order, wrap = _walk(steps, list(error.relative_path), instance, firsts)
    path = tuple(error.absolute_path)
    value = error.instance

    def one(rank: tuple, at: Path, message: str, keyword: str) -> _Item:
        plain = keyword == "type" and not wrap
        for kind, text, outer in reversed(wrap):
            message, keyword = (text + message if kind == "prefix" else message + text), outer
        return (order + (rank,), Violation(at, message, keyword), plain)

    if word is None:
        return [one((-1,), path, "is not allowed", "false")]
    want = error.validator_value
    if word == "type":
        names = " or ".join(_TYPE_NAMES[t] for t in ([want] if isinstance(want, str) else want))
        return [one((1,), path, f"must be {names}, got {show(value)}", word)]
    if word in ("enum", "const"):
        allowed = want if word == "enum" else [want]
        what = show(allowed[0]) if len(allowed) == 1 else "one of " + ", ".join(show(v) for v in allowed)
        return [one((2,), path, f"must be {what}, got {show(value)}{did_you_mean(value, allowed)}", word)]
    if word == "pattern":
        return [one((3,), path, f"must match the pattern {want}, got {show(value)}", word)]
    if word in ("minimum", "maximum"):
        side = "at least" if word == "minimum" else "at most"
        return [one((_RANK[word],), path, f"must be {side} {want}, got {show(value)}", word)]
    if word in ("minItems", "maxItems"):
        side = "at least" if word == "minItems" else "at most"
        return [one((_RANK[word],), path, f"must have {side} {want} entries, got {show(value)}", word)]
    if word == "items":                                # items: false
        return [one((8, i), path + (i,), "is not allowed", "false") for i in range(len(value))]
    if word in ("additionalProperties", "required", "dependentRequired"):
        key = (tuple(error.absolute_schema_path), path)
        if key in done:                                # jsonschema gives one error per key; this made them all
            return []
        done.add(key)
        keys = list(value)
        if word == "additionalProperties":
            props = error.schema.get("properties", {})
            allowed = ", ".join(sorted(props))
            return [one((9, keys.index(k), 1), path + (k,),
                        f"unknown key{did_you_mean(k, props)}" + (f" (allowed: {allowed})" if allowed else ""), word)
                    for k in keys if k not in props]
        if word == "required":
            return [one((10, i), path + (k,), "required key is missing", word)
                    for i, k in enumerate(want) if k not in value]
        return [one((11, i, j), path + (other,), f"is required when '{k}' is given", word)
                for i, (k, needed) in enumerate(want.items()) if k in value
                for j, other in enumerate(needed) if other not in value]
    if word in ("anyOf", "oneOf"):
        if not error.context:                          # a oneOf that several alternatives pass
            return [one((16,), path, error.message, word)]
        alternatives: dict[int, list] = {}
        for sub in error.context:
            alternatives.setdefault(sub.relative_schema_path[0], []).append(sub)
        results = [_ordered(subs, value, 1) for subs in alternatives.values()]
        typed = [r for r in results if not (len(r) == 1 and r[0][2] and r[0][1].path == path)]
        if typed:
            return [one((_RANK[word],) + sub_order, v.path, v.message, v.keyword)
                    for sub_order, v, _ in min(typed, key=len)]
        wants = " or ".join(r[0][1].message.split(", got ")[0].removeprefix("must be ") for r in results)
        return [one((_RANK[word],), path, f"must be {wants}, got {show(value)}", word)]
    raise InternalError(f"schema keyword '{word}' has no message here")


def _walk(steps: list, ipath: list, node: Any, firsts: dict) -> tuple[tuple, list]:
    """The walk order of a schema path (and the instance path along it) down to its last keyword's node.

    Also the messages' wrappers on the way (propertyNames, dependentSchemas).
    """
    order: list = []
    wrap: list = []
    s = j = 0
    while s < len(steps):
        word = steps[s]
        s += 1
        if word in ("properties", "additionalProperties", "propertyNames"):
            if word == "properties":
                s += 1                                 # the property's name
            key = ipath[j]
            j += 1
            order.append((9, list(node).index(key), 0 if word == "propertyNames" else 1))
            if word == "propertyNames":
                wrap.append(("prefix", "the name ", word))
                node = key
            else:
                node = node[key]
        elif word == "items":
            order.append((8, ipath[j]))
            node = node[ipath[j]]
            j += 1
        elif word == "allOf":
            order.append((13, steps[s]))
            s += 1
        elif word == "dependentSchemas":
            key = steps[s]
            s += 1
            ordinal = firsts.setdefault((tuple(order), key), len(firsts))
            order.append((12, ordinal))
            wrap.append(("suffix", f" when '{key}' is given", word))
        elif word in _RANK:                            # $ref, then, else
            order.append((_RANK[word],))
        else:
            raise InternalError(f"schema keyword '{word}' is not walked here")
    return tuple(order), wrap
