"""The report renderers on hand-made reports: grouping, one-line witnesses, truncation, atomic writes."""

import io
import os
import xml.etree.ElementTree as ET

from checker.reports import markdown, writer
from checker.reports.json_report import build_report
from checker.reports.junit import render_junit
from checker.reports.text import render_text, show, witness_line
from checker.runner import Outcome, Progress


def record(id, file="specs/a.yaml", prop="surjective", passed=True, witness=None):
    return {"id": id, "property": prop, "verdict": "holds" if passed else "fails", "expect": "holds",
            "passed": passed, "failure": None if passed else "expected holds, got fails",
            "counterexample": witness, "explanation": "why", "severity": "error", "source": {"file": file, "line": 3}}


def report(*records):
    return build_report([Outcome(r, {"total": 0.0, "engines": {}}) for r in records], engine="both",
                        timeout_ms=10)


def test_text_table_groups_by_file_then_property():
    rep = report(record("a1"), record("a2", prop="injective", passed=False,
                                      witness={"kind": "collision", "lanes": [0, 1, 2, 3, 8]}),
                 record("b1", file="specs/b.yaml"), record("a3"))
    assert render_text(rep) == (
        "layoutcheck verify: 4 checks, 3 passed, 1 failed (engine both)\n"
        "\n"
        "file          property    checks  passed  failed\n"
        "specs/a.yaml  injective        1       0       1\n"
        "              surjective       2       2       0\n"
        "specs/b.yaml  surjective       1       1       0\n"
        "total                          4       3       1\n"
        "\n"
        "FAIL a2  specs/a.yaml:3  expected holds, got fails\n"
        "     witness: collision: lanes=[0-3, 8]\n")
    assert rep["summary"]["properties"] == {"injective": {"checks": 1, "passed": 0, "failed": 1, "warnings": 0},
                                            "surjective": {"checks": 3, "passed": 3, "failed": 0, "warnings": 0}}
    assert rep["summary"]["files"] == ["specs/a.yaml", "specs/b.yaml"]


def test_witness_line_is_one_line_and_bounded():
    assert show({"dim0": 4, "dim1": [0, 1]}) == "(dim0=4, dim1=[0, 1])"
    long = record("x", passed=False, witness={"kind": "k", "values": list(range(0, 400, 2))})
    line = witness_line(long)
    assert len(line) == 320 and line.endswith("...") and "\n" not in line
    assert witness_line(record("y")) == ""


def test_markdown_lists_at_most_max_rows_failures():
    rep = report(*[record(f"c{i}", passed=False) for i in range(markdown.MAX_ROWS + 3)])
    md = markdown.render_markdown(rep)
    assert md.startswith(f"### layoutcheck verify: {markdown.MAX_ROWS + 3} of {markdown.MAX_ROWS + 3} checks failed")
    assert md.count("| `c") == markdown.MAX_ROWS
    assert md.endswith("... and 3 more failed checks (see report.json).\n")


def test_junit_has_one_suite_per_file():
    root = ET.fromstring(render_junit(report(record("a1"), record("b1", file="specs/sub/b.yaml", passed=False))))
    assert [(s.get("name"), s.get("tests"), s.get("failures")) for s in root] == [
        ("specs/a.yaml", "1", "0"), ("specs/sub/b.yaml", "1", "1")]
    assert root[1][0].get("classname") == "specs.sub.b"
    assert root[1][0].find("failure").get("message") == "expected holds, got fails"


def test_junit_warnings_are_skipped_testcases_with_their_message():
    warned = dict(record("w1", passed=False), severity="warning")
    root = ET.fromstring(render_junit(report(record("a1"), warned)))
    assert (root.get("failures"), root.get("skipped"), root[0].get("skipped")) == ("0", "1", "1")
    case = root[0][1]
    assert case.find("failure") is None
    assert case.find("skipped").get("message") == "warning: expected holds, got fails"
    assert case.find("skipped").get("type") == "warning"


def test_reports_are_written_atomically_with_normal_permissions(tmp_path):
    rep = report(record("a1"))
    paths = writer.write_reports(rep, {"schema_version": 1, "jobs": 1, "wall_seconds": 0.0, "checks": {}},
                                 ["md", "json"], str(tmp_path / "out"))
    assert [os.path.basename(p) for p in paths] == ["report.md", "report.json", "timings.json"]
    assert sorted(os.listdir(tmp_path / "out")) == ["report.json", "report.md", "timings.json"]
    # timings.json only when timings are given (verify --timings)
    assert [os.path.basename(p) for p in writer.write_reports(rep, None, ["json"], str(tmp_path / "t"))] == [
        "report.json"]
    umask = os.umask(0)
    os.umask(umask)
    assert all(os.stat(p).st_mode & 0o777 == 0o666 & ~umask for p in paths)


def test_progress_is_a_bar_on_a_terminal_and_a_line_every_10_percent_elsewhere():
    outcomes = [Outcome(record("a1"), {}), Outcome(record("a2", passed=False), {})]
    plain, bar = io.StringIO(), io.StringIO()
    clock = iter(range(100)).__next__
    for stream, tty in ((plain, False), (bar, True)):
        progress = Progress(2, stream, tty=tty, clock=clock)
        for o in outcomes:
            progress(o)
        progress.close()
    assert plain.getvalue() == ("verify: 1/2 checks (50%), 0 failed, 1.0 checks/s, about 1s left\n"
                                "verify: 2/2 checks (100%), 1 failed, 1.0 checks/s, 2s in all\n")
    assert bar.getvalue().startswith("\rverify:   0%|")                   # drawn before the first check ends
    assert bar.getvalue().rstrip("\n").rsplit("\r", 1)[-1].startswith("verify: 100%|")
    assert " 2/2 checks [" in bar.getvalue() and "check/s], 1 failed" in bar.getvalue()
