"""`layoutcheck verify` end to end on real specs: exit codes 0, 1, 2 and 3, and every report format."""

import importlib
import json
import xml.etree.ElementTree as ET

import pytest

from checker.errors import MAX_MESSAGE, one_line
from checker.properties.result import Counterexample, EngineVerdict
from checker.registry import SPEC_PROPERTIES, full_schema

from .conftest import ROOT, SPECS, files_under

surjective_module = importlib.import_module("checker.properties.surjective")


def load_report(folder):
    return json.loads((folder / "report.json").read_text())


def test_bundled_specs_pass_and_reports_validate(verify):
    rc, out, err, reports = verify("specs/", "--timings", jobs=2)
    assert rc == 0, out + err
    assert files_under(reports) == ["junit.xml", "report.json", "report.md", "report.txt", "timings.json"]
    report = load_report(reports)
    schema = full_schema("report.schema.json")
    assert schema.validate(report) == []
    assert schema.validate(json.loads((reports / "timings.json").read_text()), "#/$defs/timings") == []
    s = report["summary"]
    assert s["checks"] == len(report["checks"]) >= 100 and s["failed"] == 0
    # folder order: a folder's own files (sorted), then its sub-folders (the bundled kernels' TTGIR)
    assert s["files"][:7] == sorted(s["files"][:7]) and all(f.endswith(".yaml") for f in s["files"][:7])
    assert s["files"][7:] == sorted(f"specs/kernels/{p.name}" for p in (ROOT / "specs/kernels").iterdir())
    by_id = {c["id"]: c for c in report["checks"]}
    # the deliberate negatives fail, as expected, each with its witness
    neg = by_id["neg-blocked-from-smaller-tile-not-surjective"]
    assert (neg["verdict"], neg["passed"], neg["layout_shape"]) == ("fails", True, [64, 64])
    assert neg["counterexample"] == {"kind": "missing_coordinate", "coordinate": {"dim0": 64, "dim1": 0},
                                     "certificate": 64}
    assert by_id["neg-transposed-store-unswizzled"]["details"]["conflicts"] == 7
    assert by_id["neg-eight-warps-on-16-rows-duplicate"]["counterexample"]["kind"] == "collision"
    # a sweep id, operands printed as Triton prints them, and the source line
    acc = by_id["hopper-acc[shape=128x256,warps=8]"]
    assert acc["operands"] == {"layout": "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], "
                                         "instrShape = [16, 128, 16]}>"}
    assert acc["source"] == {"file": "specs/hopper_wgmma.yaml", "line": 55}
    assert acc["engines"] == {"f2": "holds", "z3": "holds"}
    junit = ET.parse(reports / "junit.xml").getroot()
    assert junit.get("tests") == str(s["checks"]) and junit.get("failures") == "0"
    assert len(junit.findall("testsuite/testcase")) == s["checks"]
    assert not junit.findall(".//failure")
    assert (reports / "report.md").read_text().startswith(
        f"### layoutcheck verify: no check failed, {s['warnings']} of {s['checks']} warned")
    assert out == (reports / "report.txt").read_text()
    # the 7 warnings: the gfx942 kernels' 2-way ds_write conflicts and MFMA stores' sectors (test_real_kernels)
    assert out.startswith(f"layoutcheck verify: {s['checks']} checks, {s['checks'] - 7} passed, 0 failed, 7 warnings "
                          f"(engine both, Triton 3.9: default)")


def test_failing_checks_exit_1_with_witnesses(verify):
    rc, out, err, reports = verify(SPECS / "failing.yaml")
    assert rc == 1
    report = load_report(reports)
    assert full_schema("report.schema.json").validate(report) == []
    assert [(c["id"], c["passed"], c["failure"]) for c in report["checks"]] == [
        ("ok-covers", True, None),
        ("bad-duplicates", False, "expected holds, got fails"),
        ("bad-conflicts", False, "expected holds, got fails"),
        ("bad-conflict-count", False, "expected 3 conflicts, got 7"),
        ("bad-level", False, "expected level register, got cta"),
        ("bad-expected-failure", False, "expected fails, got holds")]
    assert (reports / "report.md").read_text() == (ROOT / "tests/verify/golden/failing.md").read_text()
    junit = ET.parse(reports / "junit.xml").getroot()
    (suite,) = junit.findall("testsuite")
    assert (suite.get("name"), suite.get("tests"), suite.get("failures")) == (
        "tests/verify/specs/failing.yaml", "6", "5")
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert cases["ok-covers"].find("failure") is None
    assert cases["bad-duplicates"].get("classname") == "tests.verify.specs.failing"
    failure = cases["bad-duplicates"].find("failure")
    assert failure.get("message") == ("expected holds, got fails; witness: collision: indices=[(register=0, lane=0, "
                                      "warp=4, block=0), (register=0, lane=0, warp=0, block=0)] "
                                      "coordinate=(dim0=0, dim1=0)")
    assert failure.text == "warp=4 has a zero basis (a broadcast): indices warp=4 and 0 hold (dim0=0, dim1=0)"
    assert "witness: bank_conflict:" in cases["bad-conflicts"].find("failure").get("message")
    assert cases["bad-level"].find("failure").get("message") == "expected level register, got cta"
    assert "FAIL bad-level  tests/verify/specs/failing.yaml:32  expected level register, got cta" in out


BAD_SPECS = {
    "bad_yaml": "bad_yaml.yaml:11: invalid YAML: expected ',' or ']', but got '<stream end>' "
                "(while parsing a flow sequence started at line 10)",
    "unknown_property": "unknown_property.yaml:8: field 'prove': must be one of "       # the registry's spec properties
                        f"{', '.join(map(repr, SPEC_PROPERTIES))}, got 'surjectivity' (did you mean 'surjective'?)",
    "undefined_encoding": "undefined_encoding.yaml:9: field 'layout': no encoding named 'row' (declared: rows, smem)",
    "wrong_type": "wrong_type.yaml:10: field 'shape[1]': must be an integer, got 'sixty-four'",
    "wrong_type_count": "wrong_type_count.yaml:13: field 'expect_conflicts': must be an integer, got 'many'",
    "wrong_rank": "wrong_rank.yaml:10: field 'shape': shape [64, 64, 2] has rank 3 but operand 'layout' "
                  "(blocked) has rank 2",
    "missing_operand": "missing_operand.yaml:7: field 'shared': check 'c1': prove: bank_conflict_free needs "
                       "operand 'shared'",
    "missing_dtype": "missing_dtype.yaml:7: field 'dtype': check 'c1': prove: bank_conflict_free needs a dtype "
                     "(f16, bf16, f32, i8, ... or a number of bits)",
    "wrong_operand_kind": "wrong_operand_kind.yaml:10: field 'dst': operand 'dst' must be a distributed encoding, "
                          "got swizzled_shared",
    "key_not_for_property": "key_not_for_property.yaml:11: field 'direction': does not apply to prove: surjective",
    "bad_sweep_value": "bad_sweep_value.yaml:12: field 'warps_per_cta': check 'c1[warps_per_cta=3x1]': blocked: "
                       "every entry must be a power of two, got [3, 1]",
    "unknown_sweep_field": "unknown_sweep_field.yaml:12: field 'vec': no operand of this check has a field 'vec' "
                           "(sweep keys: shape, dtype, num_warps, a parameter, or an encoding field such as "
                           "warps_per_cta)",
    "duplicate_id": "duplicate_id.yaml:11: field 'id': check id 'c1' is already used at "
                    "tests/verify/specs/bad/duplicate_id.yaml:7",
    "missing_include": "missing_include.yaml:2: field 'include[0]': cannot read the included file "
                       "tests/verify/specs/bad/no_such_file.yaml",
}


@pytest.mark.parametrize("name", sorted(BAD_SPECS))
def test_malformed_spec_is_one_line_exit_2_and_writes_nothing(verify, name):
    rc, out, err, reports = verify(SPECS / "bad" / f"{name}.yaml")
    assert rc == 2
    # one line of at most MAX_MESSAGE characters (the list of properties grows with the registry: cut in the middle)
    assert err == f"layoutcheck: error: {one_line('tests/verify/specs/bad/' + BAD_SPECS[name])}\n"
    assert len(err) <= len("layoutcheck: error: \n") + MAX_MESSAGE
    assert out == "" and not reports.exists()


def test_bad_spec_among_good_ones_verifies_nothing(verify):
    rc, out, err, reports = verify(SPECS / "failing.yaml", SPECS / "bad" / "wrong_rank.yaml")
    assert rc == 2 and out == "" and not reports.exists()
    assert err.count("\n") == 1 and "Traceback" not in err


def test_engine_disagreement_exit_3(verify, monkeypatch):
    monkeypatch.setattr(surjective_module, "z3_verdict", lambda *args, **kw: EngineVerdict("z3", "holds"))
    rc, out, err, reports = verify("specs/negatives.yaml", "--only", "neg-blocked-*")
    assert rc == 3 and out == "" and not reports.exists()
    assert err.startswith("layoutcheck: internal error: specs/negatives.yaml:46: check "
                          "'neg-blocked-from-smaller-tile-not-surjective': surjective: engines disagree: f2: fails")
    assert err.count("\n") == 1


def test_unknown_meets_no_expectation(verify, monkeypatch):
    monkeypatch.setattr(surjective_module, "z3_verdict",
                        lambda *args, **kw: EngineVerdict("z3", "unknown", explanation="timeout"))
    rc, out, err, reports = verify("specs/negatives.yaml", SPECS / "failing.yaml", "--only", "*-covers",
                                   "--only", "neg-blocked-*", formats="json")
    assert rc == 1
    checks = load_report(reports)["checks"]
    assert [(c["id"], c["expect"], c["verdict"], c["engines"], c["failure"]) for c in checks] == [
        ("neg-blocked-from-smaller-tile-not-surjective", "fails", "unknown", {"f2": "fails", "z3": "unknown"},
         "expected fails, got unknown"),
        ("ok-covers", "holds", "unknown", {"f2": "holds", "z3": "unknown"}, "expected holds, got unknown")]
    assert load_report(reports)["summary"]["verdicts"] == {"holds": 0, "fails": 0, "unknown": 2}


def test_witness_that_does_not_replay_exit_3(verify, monkeypatch):
    monkeypatch.setattr(Counterexample, "replay", lambda self: False)
    rc, out, err, reports = verify(SPECS / "failing.yaml", "--only", "bad-duplicates")
    assert rc == 3 and not reports.exists()
    assert "does not replay on the concrete layout" in err


def test_only_and_skip_select_by_id(verify):
    rc, out, err, reports = verify(SPECS / "failing.yaml", "--only", "bad-*", "--skip", "*-level",
                                   "--skip", "bad-conflict*", formats="json")
    assert rc == 1
    assert [c["id"] for c in load_report(reports)["checks"]] == ["bad-duplicates", "bad-expected-failure"]
    rc, out, err, reports = verify(SPECS / "failing.yaml", "--only", "ok-*", formats="json")
    assert rc == 0


@pytest.mark.parametrize("options, message", [
    ({"args": ["--only", "nothing-*"]}, "no check is selected (see --only / --skip)"),
    ({"formats": "json,pdf"}, "field '--format': unknown report format 'pdf' (formats: text, json, md, junit, html)"),
    ({"jobs": 0}, "field '--jobs': must be at least 1, got 0"),
    ({"args": ["--timeout", "0"]}, "field '--timeout': must be a positive number of milliseconds, got 0"),
])
def test_bad_options_exit_2(verify, options, message):
    rc, out, err, reports = verify(SPECS / "failing.yaml", *options.pop("args", []), **options)
    assert (rc, err) == (2, f"layoutcheck: error: {message}\n")
    assert not reports.exists()


def test_missing_path_exit_2(verify):
    rc, out, err, reports = verify("specs/no_such_spec.yaml")
    assert (rc, err) == (2, "layoutcheck: error: specs/no_such_spec.yaml: no such file or folder\n")


def test_html_report_is_written_or_refused(verify, monkeypatch):
    rc, out, err, reports = verify(SPECS / "failing.yaml", "--only", "bad-dup*", formats="json,html")
    assert rc == 1 and (reports / "report.html").read_text().startswith("<!DOCTYPE html>")
    from checker.reports import writer
    monkeypatch.setattr(writer.importlib.util, "find_spec", lambda name: None)
    rc, out, err, reports = verify(SPECS / "failing.yaml", formats="json,html")
    assert (rc, err) == (2, "layoutcheck: error: field '--format': the html report is unavailable "
                            "(checker.reports.html is not installed)\n")


BAD_PARAMETERS = """version: 1
hardware: sm90
encodings:
  rows: {attr: "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"}
  buf: {attr: "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"}
checks:
  - id: strides-of-another-rank
    prove: coalesced
    layout: rows
    shape: [64, 32]
    dtype: f32
    sweep:
      strides: [[32, 1], [1]]
  - id: odd-alignment
    prove: fits
    layout: buf
    shape: [64, 32]
    dtype: f16
    alignment_bytes: 3
"""


@pytest.mark.parametrize("drop, line, message", [
    ("", 13, "check 'strides-of-another-rank[strides=1]': field 'strides': needs 2 strides, got [1]"),
    ("strides", 19, "check 'odd-alignment': field 'alignment_bytes': alignment must be a power of two, got 3")])
def test_a_parameter_the_property_refuses_is_reported_at_its_key(verify, tmp_path, drop, line, message):
    """A parameter the schema allows but the property refuses while deciding (a stride list of another rank, an
    alignment that is no power of two): one line at that key's line, exit 2, nothing written."""
    text = BAD_PARAMETERS
    if drop:                                   # keep the second check only (the first would fail first)
        head, _, rest = text.partition("  - id: strides-of-another-rank")
        text = head + "  - id: odd-alignment" + rest.partition("  - id: odd-alignment")[2]
        line -= 7
    spec = tmp_path / "params.yaml"
    spec.write_text(text)
    rc, out, err, reports = verify(spec)
    assert (rc, out) == (2, "") and not reports.exists()
    assert err == f"layoutcheck: error: {spec}:{line}: {message}\n"
