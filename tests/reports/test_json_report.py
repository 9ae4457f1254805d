"""checker/reports/json_report.py: report.json's summary counted from the records, timings.json apart from it,
and the JSON text (indented when small, one record per line when large)."""

import json
from types import SimpleNamespace

from checker.reports.json_report import PRETTY_MAX_CHECKS, build_report, build_timings, render_json
from checker.run.runner import Outcome

from .conftest import FAILING, record, report


def test_report_json_is_compact_when_large():
    small = {"schema_version": 1, "summary": {}, "checks": [{"id": "a", "v": [1, 2]}]}
    assert render_json(small) == json.dumps(small, indent=2) + "\n"
    big = {"schema_version": 1, "summary": {"n": 1}, "checks": [{"id": str(i)} for i in range(PRETTY_MAX_CHECKS + 1)]}
    text = render_json(big)
    assert json.loads(text) == big and text.count("\n") == PRETTY_MAX_CHECKS + 3 and "  " not in text
    assert render_json(big, pretty=True) == json.dumps(big, indent=2) + "\n"
    assert json.loads(render_json(small, pretty=False)) == small


def test_summary_counts_passes_failures_warnings_and_verdicts():
    warned = dict(record("w", prop="bank_conflict_free", passed=False), severity="warning")
    unknown = dict(record("u", prop="injective", passed=False), verdict="unknown")
    rep = report(record("b1", file="specs/b.yaml"), warned, unknown, record("a1"))
    s = rep["summary"]
    assert (s["checks"], s["passed"], s["failed"], s["warnings"]) == (4, 2, 1, 1)
    assert s["verdicts"] == {"holds": 2, "fails": 1, "unknown": 1}                  # no "error" key unless one
    assert list(s["properties"]) == ["bank_conflict_free", "injective", "surjective"]   # sorted
    assert s["properties"]["bank_conflict_free"] == {"checks": 1, "passed": 0, "failed": 0, "warnings": 1}
    assert s["files"] == ["specs/b.yaml", "specs/a.yaml"]                            # in first-seen order
    assert (s["engine"], s["timeout_ms"], "ttgir" in s) == ("both", 10, False)
    assert [c["id"] for c in rep["checks"]] == ["b1", "w", "u", "a1"]                 # run order
    errored = dict(record("e", passed=False), verdict="error")
    assert report(errored)["summary"]["verdicts"] == {"holds": 0, "fails": 0, "unknown": 0, "error": 1}
    ttgir = [{"file": "k.ttgir", "problems": []}]
    assert build_report([], engine="f2", timeout_ms=1, ttgir=ttgir)["summary"]["ttgir"] == ttgir


def test_a_real_report_round_trips(failing_report):
    assert failing_report["schema_version"] == 1
    assert {k: failing_report["summary"][k] for k in ("checks", "passed", "failed", "warnings", "verdicts", "files")} \
        == {"checks": 6, "passed": 1, "failed": 5, "warnings": 0, "verdicts": {"holds": 3, "fails": 3, "unknown": 0},
            "files": [FAILING]}
    text = render_json(failing_report)
    assert json.loads(text) == failing_report and text.startswith('{\n  "schema_version": 1,\n  "summary": {')
    compact = render_json(failing_report, pretty=False)
    assert json.loads(compact) == failing_report
    assert compact.count("\n") == 6 + 2 and compact.splitlines()[1].startswith('{"id":"ok-covers",')


def test_timings_round_to_microseconds_and_name_the_proof_reused():
    outcomes = [Outcome(record("a"), {"total": 0.12345678, "engines": {"f2": 0.1000004, "z3": 0.02}}),
                Outcome(record("b"), {"total": 0.0, "engines": {}, "same_as": "a"})]
    timings = build_timings(outcomes, jobs=2, wall_seconds=1.23456789)
    assert timings == {"schema_version": 1, "jobs": 2, "wall_seconds": 1.234568,
                       "checks": {"a": {"total": 0.123457, "engines": {"f2": 0.1, "z3": 0.02}},
                                  "b": {"total": 0.0, "engines": {}, "same_as": "a"}}}
    compact = render_json(timings, pretty=False)
    assert compact == ('{"schema_version":1,"jobs":2,"wall_seconds":1.234568,"checks":{\n'
                       '"a":{"total":0.123457,"engines":{"f2":0.1,"z3":0.02}},\n'
                       '"b":{"total":0.0,"engines":{},"same_as":"a"}\n}}\n')
    assert json.loads(compact) == timings


def test_records_come_from_any_outcome_and_text_stays_unicode():
    rep = build_report([SimpleNamespace(record=dict(record("ü"), explanation="√2 → ∞"))], engine="z3",
                       timeout_ms=5)
    assert rep["checks"][0]["id"] == "ü"
    assert '"explanation": "√2 → ∞"' in render_json(rep) and "\\u" not in render_json(rep)
    assert render_json({"schema_version": 1}, pretty=False) == '{"schema_version":1}\n'
