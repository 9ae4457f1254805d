"""checker/reports/junit.py: one testsuite per spec file, one testcase per check; a failure carries in its message
the text report's sentence (a spec check's reason and witness, a TTGIR check's finding) and the explanation in its
text; a warning is a skipped testcase."""

import xml.etree.ElementTree as ET

from checker.reports.junit import _classname, render_junit

from .conftest import BAD_ALIAS, FAILING, WARNED, record, report, verified
from .test_text import ir_record


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


def test_a_real_failing_spec(failing_report):
    text = render_junit(failing_report)
    assert text.startswith('<?xml version="1.0" encoding="utf-8"?>\n<testsuites name="layoutcheck" tests="6" '
                           'failures="5" errors="0" skipped="0">\n  <testsuite name="tests/verify/specs/failing.yaml"')
    root = ET.fromstring(text)
    (suite,) = root
    assert dict(suite.attrib) == {"name": FAILING, "tests": "6", "failures": "5", "errors": "0", "skipped": "0"}
    cases = list(suite)
    assert [(c.get("name"), c.get("line"), c.get("file"), c.get("classname")) for c in cases] == [
        (name, line, FAILING, "tests.verify.specs.failing") for name, line in (
            ("ok-covers", "11"), ("bad-duplicates", "15"), ("bad-conflicts", "19"), ("bad-conflict-count", "25"),
            ("bad-level", "32"), ("bad-expected-failure", "38"))]
    assert [list(c) for c in cases][0] == []                            # a pass has no child
    failures = [c.find("failure") for c in cases[1:]]
    assert [f.get("type") for f in failures] == ["fails", "fails", "fails", "holds", "holds"]   # the verdict
    assert failures[2].get("message").startswith("expected 3 conflicts, got 7; witness: bank_conflict: ")
    assert failures[4].get("message") == "expected fails, got holds"
    by_id = {c["id"]: c for c in failing_report["checks"]}
    assert [f.text for f in failures] == [by_id[c.get("name")]["explanation"] for c in cases[1:]]


def test_real_ttgir_warnings_are_skipped_with_their_findings(warned_report):
    root = ET.fromstring(render_junit(warned_report))
    assert (root.get("tests"), root.get("failures"), root.get("skipped")) == ("98", "0", "4")
    skipped = [c for c in root.iter("testcase") if c.find("skipped") is not None]
    assert [c.get("line") for c in skipped] == ["84", "105", "131", "171"]   # 171: an uncoalesced store
    assert {c.get("classname") for c in skipped} == {"specs.kernels.matmul.gfx942"}
    note = skipped[0].find("skipped")
    assert note.get("message") == (                     # the words of the text report, not the witness's fields
        "warning: 2-way bank conflict (ds_write2_b32): lanes 0 and 9 hit bank 0 (addresses 0x0, 0x1200); 128 "
        "wavefronts where 64 would do; suggested shared layout #ttg.shared_linear<{offset = [[1, 0], [2, 0], [0, 64], "
        "[0, 1], [0, 2], [0, 16], [0, 4], [4, 0], [8, 0], [16, 0], [0, 9], [0, 34]]}, alignment = 16> (store + load: "
        "256 -> 192 wavefronts, proven minimal)")
    assert skipped[0].find("system-out").text == note.get("message")
    assert note.text.startswith("ds_write2_b32 (st.shared, 4 B per lane at each of two addresses)")
    assert not list(root.iter("failure"))
    assert WARNED == root[0].get("name")


def test_a_ttgir_error_is_a_failure_with_its_finding():
    root = ET.fromstring(render_junit(report(ir_record("k.ttgir", 3))))
    failure = root[0][0].find("failure")
    assert (failure.get("message"), failure.get("type")) == (
        "2-way bank conflict (LDS.32); 2 wavefronts where 1 would do", "fails")


def test_special_characters_are_escaped():
    bad = dict(record('a<b>&"c"', passed=False, witness={"kind": "k", "text": "<&>"}),
               explanation="1 < 2 & 3 > 2", source={"file": "specs/x&y.yaml", "line": 7})
    text = render_junit(report(bad))
    assert 'name="a&lt;b&gt;&amp;&quot;c&quot;"' in text and "1 &lt; 2 &amp; 3 &gt; 2" in text
    case = ET.fromstring(text)[0][0]
    assert case.get("name") == 'a<b>&"c"' and case.get("file") == "specs/x&y.yaml"
    assert case.find("failure").get("message") == "expected holds, got fails; witness: k: text=<&>"
    assert case.find("failure").text == "1 < 2 & 3 > 2"


def test_classname_is_the_path_without_suffix():
    assert _classname("specs/ampere_matmul.yaml") == "specs.ampere_matmul"
    assert _classname("./specs/kernels/matmul.cuda80.ttgir") == "specs.kernels.matmul.cuda80"
    assert _classname("<text>") == "<text>"


def test_problems_of_the_ttgir_input_are_errors():
    root = ET.fromstring(render_junit(verified(BAD_ALIAS)))
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("6", "0", "2")
    suite = root.find("testsuite")
    assert (suite.get("name"), suite.get("tests"), suite.get("errors")) == ("<text>", "6", "2")
    errors = [(case.get("name"), case.get("line"), case.find("error").get("type"), case.find("error").get("message"))
              for case in suite.findall("testcase") if case.find("error") is not None]
    assert errors == [
        ("input:1", "1", "input", "alias #blocked: blocked: every entry must be a power of two, got [3, 1]"),
        ("input:4", "4", "input", "tt.func: alias '#blocked' cannot be used: its definition on line 1 was rejected")]
