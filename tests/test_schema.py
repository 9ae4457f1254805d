"""The JSON Schema subset validator: each keyword's verdict and message, and the shipped schema."""

import json

import pytest

from checker.schema import Schema, Violation, path_field, show


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
