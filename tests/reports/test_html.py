"""checker/reports/html.py: one self-contained page (inline CSS, SVG and script, nothing fetched), a summary
first, warnings shown as warnings, checks grouped by file and by TTGIR operation with the module's source and its
diagnostics inline, figures only for the checks that fail or warn (one per distinct layouts and shape; all with
figures="all"), witnesses as tables, text escaped. In Chromium: tests/reports/test_html_browser.py."""

import os
import re

import checker
from checker.encodings import lower
from checker.reports import html, svg

from .html_cases import BLOCKED, COLLISION, KERNEL, ROOT, page_of, record, report, ttgir_report


def test_page_is_self_contained_and_draws_figures_only_for_failures(tmp_path):
    path = tmp_path / "report.html"
    html.write_html(report(), str(path))
    page = path.read_text()
    assert os.listdir(tmp_path) == ["report.html"]
    # figures="failed" (the default): the one failed check's layout; "all": every layout of every check
    assert page.count("<svg ") == 1 and page.count("<figure>") == 1
    assert html.render_html(report(), figures="all").count("<svg ") == 4
    assert html.render_html(report(), figures="none").count("<svg ") == 0
    assert "<link" not in page and " src=" not in page and page.count("<script>") == 1
    assert set(re.findall(r"https?://[^\s\"']+", page)) == {"http://www.w3.org/2000/svg"}
    assert all(h.startswith("#") for h in re.findall(r'href="([^"]*)"', page))
    assert '<span class="badge fail">FAIL</span>' in page and page.count('<span class="badge pass">pass</span>') == 3
    assert "1. (3, 3): indices[0]: T5:3 (register=3, lane=5, warp=0, block=0)" in page   # the witness legend
    assert ("down-sampled: every 8th row and every 8th column of 256 x 256"
            in html.render_html(report(), figures="all"))
    assert html.render_html(report()) == page                            # deterministic


def test_summary_first_then_failures_and_warnings_linking_to_their_details(monkeypatch):
    page = page_of(ttgir_report(), monkeypatch)
    summary = page[page.index('<header id="summary">'):page.index("</header>")]
    assert page.index("</header>") < page.index('<nav id="filters">') < page.index('<section class="file')
    assert '<p class="verdict fail" id="verdict">1 of 5 checks failed, 2 warned (engine both)</p>' in summary
    assert re.findall(r"<li class=\"[a-z]*\"><b>(\d+)</b>([a-z ]+)</li>", summary) == [
        ("5", "checks"), ("2", "passed"), ("1", "failed"), ("2", "warnings"), ("1", "not checked"), ("2", "files")]
    assert '<h3>Failures (1)</h3>' in summary and '<h3>Warnings (2)</h3>' in summary
    assert ('<a href="#check-3">tests/reports/kernel.ttgir:9 ttg.local_store</a> <span class="where">'
            '(matmul.py:42:5)</span>: 2-way bank conflict (ds_write_b32): lanes 0 and 9 hit bank 0') in summary
    assert 'id="check-3"' in page and 'id="check-1"' in page
    assert "tmem layouts are not modelled" in summary                  # checks not made, with the reason


def test_warnings_are_warnings_everywhere(monkeypatch):
    rep = ttgir_report()
    rep["checks"] = [c for c in rep["checks"] if c["id"] != "no-duplicates"]
    rep["summary"].update(checks=4, failed=0)
    page = page_of(rep, monkeypatch)
    body = page[page.index("</style>"):]
    assert "FAIL" not in body and "badge fail" not in body and "st-fail" not in body
    assert '<p class="verdict warn" id="verdict">No check failed; 2 of 4 checks warned (engine both)</p>' in page
    assert page.count('<span class="badge warn">warning</span>') == 2 + 2 + 1    # findings, rows, filter
    assert '<span class="diag warn">ttg.local_store (matmul.py:42:5): <b>warning</b>: 2-way bank conflict' in page


def test_ttgir_checks_are_grouped_by_operation_with_the_source_inline(monkeypatch):
    page = page_of(ttgir_report(), monkeypatch)
    section = page[page.index(f"<h2>{KERNEL}</h2>"):]
    ops = re.findall(r'<div class="op group"><h4><a href="#([^"]+)">line (\d+)</a> <code>([^<]+)</code>'
                     r'<span class="where">([^<]*)</span>', section)
    assert [o[1:] for o in ops] == [("8", "amdg.in_thread_transpose", ""),
                                    ("9", "ttg.local_store", " (matmul.py:42:5)")]
    assert f'<span class="ln" id="{ops[1][0]}">9</span>' in section           # the op's link goes to its line
    listing = section[section.index('<pre class="src">'):section.index("</pre>")]
    assert listing.count('<span class="ln"') == len((ROOT / KERNEL).read_text().splitlines())
    assert listing.count('<span class="diag warn">') == 2 and "details</a>" in listing
    after_line_9 = listing[listing.index('id="' + ops[1][0] + '"'):]
    assert after_line_9.index('class="diag warn"') < after_line_9.index('<span class="ln"')   # right under it


def test_one_figure_per_layouts_and_shape_with_the_witness_as_a_table(monkeypatch):
    page = page_of(ttgir_report(), monkeypatch)
    # the failure's layout, and the two warnings' reg + shared drawn once
    assert page.count("<svg ") == 1 + 2
    assert page.count("Same layouts and shape as") == 1
    witness = page[page.index('id="check-3"'):]
    witness = witness[witness.index('<table class="witness">'):]
    assert ("<tr><th>register</th><th>lane</th><th>warp</th><th>offset</th><th>byte_address</th><th>word</th></tr>"
            "<tr><td>0</td><td>0</td><td>0</td><td>0</td><td>0</td><td>0</td></tr>"
            "<tr><td>0</td><td>9</td><td>0</td><td>2304</td><td>4608</td><td>1152</td></tr>") in witness
    assert "<tr><th>lanes</th><td>[0-31]</td></tr>" in witness and '{"' not in witness[:witness.index("<svg")]
    # the conflicting lanes on the register layout, the conflicting cells and bank on the shared one
    reg, shared = re.findall(r"<svg .*?</svg>", witness, re.S)[:2]
    assert "accesses[1]: lane 9, register 0, warp 0: byte 4608" in reg
    assert "accesses[1]: lane 9, register 0, warp 0: byte 4608, bank 0" in shared
    assert 'class="bank"' in shared and "dashed outline: cells in bank 0, the conflicting bank" in shared


def test_a_layout_that_cannot_be_rebuilt_gets_a_note(tmp_path):
    r = report()
    r["checks"][0]["layouts"] = {"layout": {"bases": {"register": [[3]]}, "out_dims": {"dim0": 2}}}
    page = html.render_html(r, figures="all")
    assert page.count("<svg ") == 3
    assert 'layout: no figure (basis 3 of in-dim &#x27;register&#x27;' in page


def test_figures_come_from_the_records_layouts_never_from_attribute_text():
    text = ("#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 2], "
            "order = [1, 0]}>")
    check = {"id": "c", "property": "injective", "shape": [16, 16], "operands": {"layout": text},
             "verdict": "fails", "expect": "holds", "passed": False, "counterexample": COLLISION}
    assert "<svg " not in html.render_html({"schema_version": 1, "summary": {}, "checks": [check]})
    check["layouts"] = {"layout": lower(BLOCKED, [16, 16]).to_dict()}
    page = html.render_html({"schema_version": 1, "summary": {}, "checks": [check]})
    expected = svg.layout_figure(lower(BLOCKED, [16, 16]), title="layout", witness=COLLISION,
                                 max_cells=html.FIGURE_CELLS)
    assert expected in page


def test_bundled_specs_page_is_small(tmp_path, monkeypatch, capsys):
    """`layoutcheck verify specs/ --format html` writes well under 2 MB (it was 55 MB with a figure of
    every layout of every check)."""
    from checker import cli
    monkeypatch.chdir(ROOT)
    rc = cli.main(["verify", "specs/", "--format", "html", "--report-dir", str(tmp_path), "--quiet", "--jobs", "2"])
    capsys.readouterr()
    assert rc == 0
    page = (tmp_path / "report.html").read_text()
    assert len(page.encode()) < 2_000_000
    assert page.count("<svg ") <= 2 * page.count("badge warn") + 2 * page.count("badge fail")


def test_a_real_failing_spec(monkeypatch):
    monkeypatch.chdir(ROOT)
    page = html.render_html(checker.verify("tests/verify/specs/failing.yaml"))
    summary = page[page.index('<header id="summary">'):page.index("</header>")]
    assert '<p class="verdict fail" id="verdict">5 of 6 checks failed (engine both, Triton 3.9: default)</p>' in summary
    assert re.findall(r"<li class=\"[a-z]*\"><b>(\d+)</b>([a-z ]+)</li>", summary) == [
        ("6", "checks"), ("1", "passed"), ("5", "failed"), ("0", "warnings"), ("1", "files")]
    assert re.findall(r'<a href="#check-(\d)">([a-z-]+)</a> <span class="where">tests/verify/specs/failing.yaml:'
                      r'(\d+)</span>: ([^<]+)</li>', summary) == [
        ("1", "bad-duplicates", "15", "expected holds, got fails"),
        ("2", "bad-conflicts", "19", "expected holds, got fails"),
        ("3", "bad-conflict-count", "25", "expected 3 conflicts, got 7"),
        ("4", "bad-level", "32", "expected level register, got cta"),
        ("5", "bad-expected-failure", "38", "expected fails, got holds")]
    assert page.count('<details class="check') == 6
    # the failed checks' layouts: 1 + 2 + (the same two again: a link) + 2 + 1
    assert page.count("<svg ") == 6 and page.count("Same layouts and shape as") == 1


def test_text_of_the_report_is_escaped():
    bad = record("<script>alert(1)</script>", passed=False, layouts={}, explanation='1 < 2 & "q"',
                 file="specs/<x>.yaml")
    page = html.render_html({"schema_version": 1, "summary": {"checks": 1, "passed": 0, "failed": 1},
                             "checks": [bad]})
    assert "<script>alert" not in page and page.count("<script>") == 1           # the page's own script only
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") == 2               # the finding and the row
    assert "<dd>1 &lt; 2 &amp; &quot;q&quot;</dd>" in page
    assert "<h2>specs/&lt;x&gt;.yaml</h2>" in page and "<x>" not in page
