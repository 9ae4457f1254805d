"""The JSON Schema adapter over jsonschema: each keyword's verdict and message, and the shipped schemas."""

import json
import pathlib
import re

import pytest
import yaml

from checker.errors import InternalError
from checker.registry import full_schema
from checker.schema import Schema, Violation, path_field, show

ROOT = pathlib.Path(__file__).parent.parent
DRAFT = "https://json-schema.org/draft/2020-12/schema"


def check(schema, value, pointer="#"):
    return [(v.path, v.message) for v in Schema(schema).validate(value, pointer)]


INTS = {"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 1, "maxItems": 3}


def test_types_exclude_booleans_from_integers():
    assert check({"type": "integer"}, 3) == []
    assert check({"type": "integer"}, True) == [((), "must be an integer, got true")]
    assert check({"type": "boolean"}, 1) == [((), "must be true or false, got 1")]
    assert check({"type": ["string", "null"]}, None) == []
    assert check({"type": "object"}, [1]) == [((), "must be a mapping, got [1]")]


def test_array_keywords_report_the_item_path():
    assert check(INTS, [1, 2]) == []
    assert check(INTS, []) == [((), "must have at least 1 entries, got []")]
    assert check(INTS, [1, 2, 3, 4]) == [((), "must have at most 3 entries, got [1, 2, 3, 4]")]
    assert check(INTS, [1, "x", 0]) == [((1,), "must be an integer, got 'x'"), ((2,), "must be at least 1, got 0")]


def test_enum_and_const_compare_like_json():
    assert check({"enum": ["a", "b"]}, "c") == [((), "must be one of 'a', 'b', got 'c'")]
    assert check({"const": 1}, True) == [((), "must be 1, got true")]
    assert check({"const": True}, 1) == [((), "must be true, got 1")]
    assert check({"const": 1}, 1) == []


def test_object_keywords_point_at_the_key():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
              "required": ["a"], "additionalProperties": False}
    assert check(schema, {"a": 1}) == []
    assert check(schema, {"b": "x", "c": 2}) == [(("c",), "unknown key (allowed: a, b)"),
                                                 (("a",), "required key is missing")]
    assert check({"type": "object", "additionalProperties": {"type": "integer"}}, {"x": "y"}) == \
        [(("x",), "must be an integer, got 'y'")]
    assert check({"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}}, {"A1": 1}) == \
        [(("A1",), "the name must match the pattern ^[a-z]+$, got 'A1'")]


def test_dependent_keywords():
    schema = {"dependentRequired": {"x": ["y"]}, "dependentSchemas": {"z": {"properties": {"x": False}}}}
    assert check(schema, {"x": 1, "y": 2}) == []
    assert check(schema, {"x": 1}) == [(("y",), "is required when 'x' is given")]
    assert check(schema, {"x": 1, "y": 2, "z": 3}) == [(("x",), "is not allowed when 'z' is given")]


def test_if_then_else_and_all_of():
    schema = {"if": {"required": ["k"], "properties": {"k": {"const": "n"}}},
              "then": {"properties": {"v": {"type": "integer"}}},
              "else": {"properties": {"v": {"type": "string"}}},
              "allOf": [{"required": ["v"]}]}
    assert check(schema, {"k": "n", "v": 1}) == []
    assert check(schema, {"k": "n", "v": "1"}) == [(("v",), "must be an integer, got '1'")]
    assert check(schema, {"v": 1}) == [(("v",), "must be a string, got 1")]
    assert check(schema, {"k": "n"}) == [(("v",), "required key is missing")]


def test_any_of_reports_the_alternative_of_the_right_type():
    schema = {"anyOf": [{"type": "string"}, {"type": "object", "required": ["kind"]}]}
    assert check(schema, "name") == []
    assert check(schema, {}) == [(("kind",), "required key is missing")]
    assert check(schema, 3) == [((), "must be a string or a mapping, got 3")]


def test_one_of_needs_exactly_one():
    schema = {"oneOf": [{"type": "integer"}, {"minimum": 0}]}
    assert check(schema, -1) == []
    assert check(schema, 1) == [((), "matches 2 of the alternatives, but must match exactly one")]


def test_refs_resolve_locally_and_across_shipped_schemas():
    local = {"$defs": {"n": {"type": "integer"}}, "items": {"$ref": "#/$defs/n"}}
    assert check(local, [1, "a"]) == [((1,), "must be an integer, got 'a'")]
    across = {"$ref": "encoding.schema.json#/$defs/counts"}
    assert check(across, [2, 0]) == [((1,), "must be at least 1, got 0")]
    assert check(local, 5, "#/$defs/n") == []


def test_false_schema_and_field_names():
    assert check(False, 1) == [((), "is not allowed")]
    assert path_field(("encodings", "a", "order", 1)) == "order[1]"
    assert path_field(("cga_layout", 0, 2)) == "cga_layout[0][2]"
    assert path_field(()) is None
    assert str(Violation(("a", "b"), "must be x")) == "field 'b': must be x"
    assert show({"a": [1, True, None, "s"]}) == "{a: [1, true, null, 's']}"


def test_shipped_schema_is_json_and_every_kind_has_a_definition():
    schema = Schema.load("encoding.schema.json")
    assert json.loads(json.dumps(schema.document)) == schema.document
    kinds = schema.document["$defs"]["declaration"]["else"]["properties"]["kind"]["enum"]
    for kind in kinds:
        assert schema.document["$defs"][kind]["properties"]["kind"] == {"const": kind}
    assert len(kinds) == 15


@pytest.mark.parametrize("decl, errors", [
    ({"kind": "blocked", "size_per_thread": [1], "threads_per_warp": [32], "warps_per_cta": [4], "order": [0]}, []),
    ({"attr": "#ttg.blocked<{}>"}, []),
    ({"attr": "#x", "kind": "blocked"}, [(("kind",), "unknown key (allowed: attr)")]),
    ({"kind": "slice", "dim": 0, "parent": {"kind": "linear"}},
     [(("parent", "register"), "required key is missing"), (("parent", "lane"), "required key is missing"),
      (("parent", "warp"), "required key is missing")]),
    ({"kind": "linear", "register": [[1, 0], [2]], "lane": [[-1]], "warp": []},
     [(("lane", 0, 0), "must be at least 0, got -1")]),
    ({"kind": "padded_shared", "intervals": [32], "paddings": [4]}, [(("offset_bases",), "required key is missing")]),
    ({"kind": "padded_shared", "intervals": [32], "paddings": [4], "order": [1, 0], "shape": [8, 8],
      "offset_bases": []}, [(("order",), "is not allowed when 'offset_bases' is given"),
                            (("shape",), "is not allowed when 'offset_bases' is given")]),
])
def test_declaration_schema(decl, errors):
    assert check(Schema.load("encoding.schema.json").document, decl, "#/$defs/declaration") == errors


def test_jsonschema_rules_the_adapter_keeps():
    # an integer is an int: 2.0 is not one (jsonschema's draft 2020-12 checker would take it)
    assert check({"type": "integer"}, 2.0) == [((), "must be an integer, got 2.0")]
    # a value of the wrong type gets that message alone, in a document naming its $schema too
    assert check({"$schema": DRAFT, "items": {"type": "object", "allOf": [{"const": 1}]}}, ["x"]) == \
        [((0,), "must be a mapping, got 'x'")]
    # a false subschema's violation is placed at its key (jsonschema's own error has no path there)
    assert check({"properties": {"x": {"allOf": [False]}}}, {"x": 1}) == [(("x",), "is not allowed")]
    assert check({"anyOf": [False, {"type": "string"}]}, 3) == [((), "is not allowed")]
    # both enum and const are checked where a schema has both
    assert check({"enum": [1, 2], "const": 1}, 2) == [((), "must be 1, got 2")]


def test_violations_name_the_failing_keyword():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a", "b"],
              "additionalProperties": False, "propertyNames": {"pattern": "^[a-z]$"}}
    got = Schema(schema).validate({"a": "1", "zz": 0})
    assert [(v.path, v.keyword) for v in got] == [(("a",), "type"), (("zz",), "propertyNames"),
                                                  (("zz",), "additionalProperties"), (("b",), "required")]
    assert check({"anyOf": [{"type": "string"}, {"type": "integer"}]}, None) == \
        [((), "must be a string or an integer, got null")]
    assert Schema({"anyOf": [{"type": "string"}, {"type": "integer"}]}).validate(None)[0].keyword == "anyOf"


def test_unresolvable_refs_are_internal_errors():
    with pytest.raises(InternalError, match="does not resolve"):
        Schema({"items": {"$ref": "#/$defs/none"}}).validate([1])
    with pytest.raises(InternalError, match="does not resolve"):
        Schema.load("spec.schema.json").validate({}, "#/$defs/none")


@pytest.mark.parametrize("path", sorted(str(p.relative_to(ROOT)) for p in
                                        [*ROOT.glob("specs/*.yaml"), *ROOT.glob("encodings/*.yaml"),
                                         *ROOT.glob("tests/verify/specs/*.yaml")]))
def test_shipped_files_are_valid(path):
    data = yaml.safe_load((ROOT / path).read_text())
    assert full_schema("spec.schema.json" if "checks" in data else "encoding.schema.json").validate(data) == []


# Mutations (hypothesis, seeded) of the shipped specs, encodings, bad specs and verify reports, with the
# violations that the hand-written validator this adapter replaced gave them (one or two documents per
# distinct first message). The lists of allowed keys and values are recorded as '...', so that a schema
# growing a key or value keeps them. After a deliberate change to a schema, `python -m tests.test_schema`
# records the current violations again; review the diff of schema_cases.json.
CASES_FILE = pathlib.Path(__file__).parent / "schema_cases.json"
CASES = json.loads(CASES_FILE.read_text())


def recorded(case) -> list:
    got = full_schema(case["schema"]).validate(case["instance"], case["pointer"])
    return [[list(v.path), re.sub(r"must be one of .*?, got ", "must be one of ..., got ",
                                  re.sub(r"\(allowed: [^)]*\)", "(allowed: ...)", v.message))] for v in got]


@pytest.mark.parametrize("case", CASES, ids=[f"{i}-{c['schema'].split('.')[0]}{c['pointer'][1:]}"
                                             for i, c in enumerate(CASES)])
def test_recorded_cases(case):
    assert recorded(case) == case["violations"]


if __name__ == "__main__":
    for case in CASES:
        case["violations"] = recorded(case)
    CASES_FILE.write_text("[\n" + ",\n".join(json.dumps(c, separators=(", ", ": ")) for c in CASES) + "\n]\n")
