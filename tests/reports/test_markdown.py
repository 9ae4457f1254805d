"""checker/reports/markdown.py: a pull-request comment's worth: the title, one row of totals, the problems of
the TTGIR input, the failed spec checks (at most MAX_ROWS) with their witness in one line, the TTGIR findings
(errors first) in the text report's words, and the checks skipped; table cells escaped."""

from checker.reports import markdown
from checker.reports.text import ir_diagnostics

from .conftest import BAD_ALIAS, ROOT, SKIPPED, WARNED, record, report, verified
from .test_text import COALESCED_171, ir_record

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


def test_ttgir_warnings_are_listed_in_the_text_reports_words(warned_report):
    rows = markdown.render_markdown(warned_report).splitlines()
    assert rows[0] == "### layoutcheck verify: no check failed, 4 of 98 warned"
    assert rows[4] == "| 98 | 94 | 0 | 94 | 4 | 0 | both |"
    assert rows[7:10] == ["", "| severity | where | operation | finding |", "| --- | --- | --- | --- |"]
    sentence = ("2-way bank conflict (ds_write2_b32): lanes 0 and 9 hit bank 0 (addresses 0x0, 0x1200); 128 wavefronts "
                "where 64 would do; suggested shared layout #ttg.shared_linear<{offset = [[1, 0], [2, 0], [0, 64], "
                "[0, 1], [0, 2], [0, 16], [0, 4], [4, 0], [8, 0], [16, 0], [0, 9], [0, 34]]}, alignment = 16> "
                "(store + load: 256 -> 192 wavefronts, proven minimal)")
    assert rows[10:] == [f"| warning | `{WARNED}:{n}` | `ttg.local_store` | {sentence} |" for n in (84, 105, 131)] \
        + [f"| warning | `{WARNED}:171` | `tt.store` | {COALESCED_171} |"]
    assert [line.split(": warning: ")[1] for line in ir_diagnostics(warned_report)] == [sentence] * 3 + [
        COALESCED_171]                                                                     # the same words
    assert "witness" not in "\n".join(rows) and "word=" not in "\n".join(rows)          # no raw witness


def test_ttgir_errors_come_before_the_warnings_that_fill_the_table():
    warnings = [ir_record("a.ttgir", n, "warning") for n in range(1, markdown.MAX_ROWS + 6)]
    rep = report(*warnings, dict(ir_record("z.ttgir", 2),
                                 source={"file": "z.ttgir", "line": 2, "op": "ttg.local_load",
                                         "python": {"file": "/src/k.py", "line": 7, "col": 3}}))
    rows = markdown.render_markdown(rep).splitlines()
    conflict = "`ttg.local_load` | 2-way bank conflict (LDS.32); 2 wavefronts where 1 would do |"
    assert rows[0] == f"### layoutcheck verify: 1 of {len(warnings) + 1} checks failed"
    assert rows[5:9] == ["", "| severity | where | operation | finding |", "| --- | --- | --- | --- |",
                         f"| error | `z.ttgir:2` (k.py:7:3) | {conflict}"]
    assert rows[9] == f"| warning | `a.ttgir:1` | {conflict}"
    assert sum(r.startswith("| warning |") for r in rows) == markdown.MAX_ROWS - 1
    assert rows[-1] == f"... and {len(warnings) - markdown.MAX_ROWS + 1} more findings (see report.txt or report.json)."


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


def test_problems_of_the_ttgir_input_are_in_the_title_and_a_table_first():
    md = markdown.render_markdown(verified(BAD_ALIAS))
    assert md.startswith("### layoutcheck verify: all 4 checks passed; 2 problem(s) in the TTGIR input\n")
    assert md.endswith(
        "**2 problem(s) in the TTGIR input** (the rest was checked):\n\n"
        "| file | line | problem |\n| --- | ---: | --- |\n"
        "| `<text>` | 1 | alias #blocked: blocked: every entry must be a power of two, got [3, 1] |\n"
        "| `<text>` | 4 | tt.func: alias '#blocked' cannot be used: its definition on line 1 was rejected |\n")
