"""The property registry is the one list of properties: the schemas, the CLI and the API say the same."""

import dataclasses
import json
from importlib.resources import files

import pytest

import checker
from checker import cli, registry
from checker.registry import PROPERTIES, SPEC_PROPERTIES, STATIC_PROPERTIES


def _schema(name):
    return json.loads(files("checker").joinpath("schemas", name).read_text())


def test_the_schema_files_leave_the_property_lists_to_the_registry():
    """The shipped files name no property (they cannot drift); `full_schema` fills the registry in."""
    assert "enum" not in _schema("spec.schema.json")["$defs"]["check"]["properties"]["prove"]
    assert "enum" not in _schema("report.schema.json")["$defs"]["check"]["properties"]["property"]
    spec = registry.full_schema("spec.schema.json")
    assert spec.document["$defs"]["check"]["properties"]["prove"]["enum"] == list(SPEC_PROPERTIES)
    report = registry.full_schema("report.schema.json")
    assert report.document["$defs"]["check"]["properties"]["property"]["enum"] == list(PROPERTIES)
    (v,) = spec.validate({"version": 1, "checks": [{"id": "a", "prove": "surjectiv"}]})
    names = ", ".join(repr(n) for n in SPEC_PROPERTIES)
    assert (v.path, v.message) == (("checks", 0, "prove"), f"must be one of {names}, got 'surjectiv' "
                                                           "(did you mean 'surjective'?)")
    assert names.startswith("'surjective', 'injective', 'injective_up_to_broadcast', 'invertible', 'equivalent'")


def test_a_parameter_a_property_declares_is_in_the_spec_schema(monkeypatch):
    entry = dataclasses.replace(SPEC_PROPERTIES["fits"], name="fits_twice", param_schemas=(
        ("copies", {"type": "integer", "minimum": 2}),))
    monkeypatch.setitem(registry.SPEC_PROPERTIES, "fits_twice", entry)
    registry.full_schema.cache_clear()
    try:
        spec = registry.full_schema("spec.schema.json")
        assert spec.document["$defs"]["check"]["properties"]["copies"] == {"type": "integer", "minimum": 2}
        assert spec.document["$defs"]["sweep"]["properties"]["copies"]["items"] == {"type": "integer", "minimum": 2}
        (v,) = spec.validate({"version": 1, "checks": [{"id": "a", "prove": "fits_twice", "copies": 1}]})
        assert (v.path, v.message) == (("checks", 0, "copies"), "must be at least 2, got 1")
    finally:
        registry.full_schema.cache_clear()


def test_cli_prove_and_the_api_offer_exactly_the_spec_properties():
    prove_parser = next(a for a in cli.build_parser()._subparsers._group_actions[0].choices["prove"]._actions
                        if a.dest == "property")
    assert list(prove_parser.choices) == list(SPEC_PROPERTIES)
    assert all(callable(getattr(checker.prove, name)) for name in SPEC_PROPERTIES)


def test_every_entry_resolves_its_decide_function():
    for prop in PROPERTIES.values():
        assert callable(prop.run.__func__) and callable(registry._function(prop.decide)), prop.name
        if prop.smt:
            assert callable(prop.obligation())
    assert STATIC_PROPERTIES[:2] == ("well_formed", "dot_operands")
    assert [p for p in SPEC_PROPERTIES if PROPERTIES[p].layout_shape] == [
        "surjective", "injective", "injective_up_to_broadcast", "invertible", "equivalent"]


def test_a_spec_property_without_an_api_function_gets_its_modules_judge(monkeypatch):
    """`checker.prove` offers a new spec property at once: its module's ``judge`` with the API's keywords."""
    entry = dataclasses.replace(SPEC_PROPERTIES["injective"], name="injective_again")
    monkeypatch.setitem(registry.SPEC_PROPERTIES, "injective_again", entry)
    monkeypatch.delattr(checker.prove, "injective_again", raising=False)
    layout = checker.parse_encoding("#ttg.blocked<{sizePerThread=[1, 1], threadsPerWarp=[4, 8], warpsPerCTA=[2, 2], "
                                    "order=[1, 0]}>")
    r = checker.prove.injective_again(layout, [8, 16], engine="f2")
    assert (r.property, r.status, r.verdicts["f2"].status) == ("injective", "holds", "holds")
    r = checker.prove.injective_again(layout, [4, 8], engine="both")           # 4x8 repeats lanes: not injective
    assert r.fails and r.counterexample.kind == "collision"
    with pytest.raises(checker.CheckerError, match="timeout_ms"):
        checker.prove.injective_again(layout, [8, 16], timeout_ms=0)
    with pytest.raises(AttributeError, match="no attribute 'not_a_property'"):
        checker.prove.not_a_property  # noqa: B018
