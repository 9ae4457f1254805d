"""checker/reports/markdown.py: a pull-request comment's worth: the title, one row of totals, the failed
checks (at most MAX_ROWS) with their witness in one line, and the checks skipped; table cells escaped."""

from checker.reports import markdown

from .conftest import BAD_ALIAS, ROOT, SKIPPED, WARNED, record, report, verified

HEAD = ["| checks | passed | failed | holds | fails | unknown | engine |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | --- |"]


def test_markdown_lists_at_most_max_rows_failures():
    rep = report(*[record(f"c{i}", passed=False) for i in range(markdown.MAX_ROWS + 3)])
    md = markdown.render_markdown(rep)
    assert md.startswith(f"### layoutcheck verify: {markdown.MAX_ROWS + 3} of {markdown.MAX_ROWS + 3} checks failed")
    assert md.count("| `c") == markdown.MAX_ROWS
    assert md.endswith("... and 3 more failed checks (see report.json).\n")


def test_a_real_failing_spec_is_the_golden_comment(failing_report):
    md = markdown.render_markdown(failing_report)
    assert md == (ROOT / "tests/verify/golden/failing.md").read_text()
    rows = md.splitlines()
    assert rows[2:5] == HEAD + ["| 6 | 1 | 5 | 3 | 3 | 0 | both |"]
    # a reason other than the verdict goes beside what was got
    assert ("| `bad-level` | `tests/verify/specs/failing.yaml:32` | holds | holds (expected level register, got cta) "
            "| - |") in rows


def test_all_passed():
    md = markdown.render_markdown(verified("specs/reductions.yaml"))
    assert md.splitlines() == ["### layoutcheck verify: all 14 checks passed", ""] + HEAD + [
        "| 14 | 14 | 0 | 13 | 1 | 0 | both |", "", "Triton semantics: 3.9 (default)."]


def test_warnings_are_listed_as_warnings(warned_report):
    rows = markdown.render_markdown(warned_report).splitlines()
    assert rows[0] == "### layoutcheck verify: no check failed, 3 of 91 warned"
    assert rows[4] == "| 91 | 88 | 0 | 88 | 3 | 0 | both |"
    failed = [r for r in rows if r.startswith("| `specs/")]
    assert [r.split(" | ")[:4] for r in failed] == [
        [f"| `{WARNED}:{n}:ttg.local_store:bank_conflict_free[#linear -> #shared1]`", f"`{WARNED}:{n}`", "holds",
         "fails (warning)"] for n in (84, 105, 131)]
    assert all(r.endswith("word=1152)] bank=0` |") for r in failed)


def test_skipped_checks_get_a_table(skipped_report):
    assert markdown.render_markdown(skipped_report).splitlines()[5:] == [
        "",
        "Triton semantics: 3.9 (default).",
        "",
        "**1 check(s) skipped** (not covered by the models):",
        "",
        "| file | skipped | reason |",
        "| --- | ---: | --- |",
        f"| `{SKIPPED}` | 1 | conversion_cost: a conversion between CTAs (distributed shared memory) is not "
        "modelled |"]


def test_pipes_and_line_breaks_do_not_break_the_table():
    bad = dict(record("a|b", passed=False, witness={"kind": "k", "text": "x|y"}),
               failure="expected 3 conflicts,\ngot 7 | 8", source={"file": "specs/p|q.yaml", "line": 4})
    rows = markdown.render_markdown(report(bad)).splitlines()
    assert rows[-1] == ("| `a\\|b` | `specs/p\\|q.yaml:4` | holds | fails (expected 3 conflicts, got 7 \\| 8) | "
                        "`k: text=x\\|y` |")
    assert rows[-1].replace("\\|", "").count("|") == 6                       # five cells


def test_problems_of_the_ttgir_input_are_in_the_title_and_a_table():
    md = markdown.render_markdown(verified(BAD_ALIAS))
    assert md.startswith("### layoutcheck verify: all 4 checks passed; 2 problem(s) in the TTGIR input\n")
    assert md.endswith(
        "**2 problem(s) in the TTGIR input** (the rest was checked):\n\n"
        "| file | line | problem |\n| --- | ---: | --- |\n"
        "| `<text>` | 1 | alias #blocked: blocked: every entry must be a power of two, got [3, 1] |\n"
        "| `<text>` | 4 | tt.func: alias '#blocked' cannot be used: its definition on line 1 was rejected |\n")
