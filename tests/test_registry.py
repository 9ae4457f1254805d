"""The property registry is the one list of properties: the schemas, the CLI and the API say the same."""

import json
from importlib.resources import files

import checker
from checker import cli, registry
from checker.registry import PROPERTIES, SPEC_PROPERTIES, STATIC_PROPERTIES


def _schema(name):
    return json.loads(files("checker").joinpath("schemas", name).read_text())


def test_spec_schema_lists_the_properties_a_spec_may_prove():
    enum = _schema("spec.schema.json")["$defs"]["check"]["properties"]["prove"]["enum"]
    assert enum == list(SPEC_PROPERTIES)


def test_report_schema_lists_every_property():
    enum = _schema("report.schema.json")["$defs"]["check"]["properties"]["property"]["enum"]
    assert enum == list(PROPERTIES)


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
