"""checker/reports/html.py: one self-contained page (inline CSS, data and script, nothing fetched), a summary
first, warnings shown as warnings, checks grouped by file and by TTGIR operation with the module's source and its
diagnostics inline, figures only for the checks that fail or warn (one per distinct layouts and shape; all with
figures="all"), witnesses as tables, text escaped, each distinct text stored once. The rows, details and figures
are built by the page's script from its data block: what the script builds, in Chromium:
tests/reports/test_html_browser.py."""

import os
import re
from html.parser import HTMLParser

import checker
from checker.encodings import lower
from checker.reports import html, svg

from .html_cases import BLOCKED, COLLISION, KERNEL, ROOT, data_of, fragments, page_of, record, report, ttgir_report


class Tags(HTMLParser):
    """The start tags of a page as the browser's parser sees them (a script's text is not markup)."""

    def __init__(self, page):
        super().__init__()
        self.tags = []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def test_page_is_self_contained_and_draws_figures_only_for_failures(tmp_path):
    path = tmp_path / "report.html"
    path.write_text(html.render_html(report()))
    page = path.read_text()
    assert os.listdir(tmp_path) == ["report.html"]
    # figures="failed" (the default): the one failed check's layout; "all": every layout of every check
    assert len(data_of(page)["drawings"]) == 1
    assert len(data_of(html.render_html(report(), figures="all"))["drawings"]) == 4
    assert len(data_of(html.render_html(report(), figures="none"))["drawings"]) == 0
    tags = Tags(page).tags
    assert [t for t, _ in tags if t in ("link", "img", "iframe", "object")] == []
    assert [a for t, a in tags if t == "script"] == [{"type": "application/json", "id": "data"}, {}]
    shown = page + fragments(page)                                        # the page and what its script adds
    assert set(re.findall(r"https?://[^\s\"'\\]+", shown)) == {"http://www.w3.org/2000/svg"}
    assert all(h.startswith("#") for h in re.findall(r'href="([^"]*)"', shown))
    assert '<span class="badge fail">FAIL</span>' in page and data_of(page)["badges"][-1] == (
        '<span class="badge pass">pass</span>')
    assert "1. (3, 3): indices[0]: T5:3 (register=3, lane=5, warp=0, block=0)" in fragments(page)   # the legend
    assert ("down-sampled: every 8th row and every 8th column of 256 x 256"
            in fragments(html.render_html(report(), figures="all")))
    assert html.render_html(report()) == page                            # deterministic


def test_each_distinct_text_is_stored_once():
    rep = ttgir_report()
    rep["checks"] += [dict(c, id=c["id"] + " copy") for c in rep["checks"]]
    data = data_of(html.render_html(rep))
    assert len(data["html"]) == len(set(data["html"])) and len(data["text"]) == len(set(data["text"]))
    assert len(data["checks"]) == 10 and len(data["bodies"]) < 10      # a copy's details are its original's
    # a TTGIR id is stored after its file:line:op:property
    ids = [data["text"][-1 - c[1]] for c in data["checks"] if c[1] < 0]
    assert ids[:2] == ["[#linear]", "[#linear -> #shared1]"]


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
    assert len(data_of(page)["checks"]) == 5                      # check-3 and check-1 are rows the script builds
    assert "tmem layouts are not modelled" in summary                  # checks not made, with the reason


def test_warnings_are_warnings_everywhere(monkeypatch):
    rep = ttgir_report()
    rep["checks"] = [c for c in rep["checks"] if c["id"] != "no-duplicates"]
    rep["summary"].update(checks=4, failed=0)
    page = page_of(rep, monkeypatch)
    body = page[page.index("</style>"):] + fragments(page)
    assert "FAIL" not in body and "badge fail" not in body and "failure fail" not in body
    assert '<p class="verdict warn" id="verdict">No check failed; 2 of 4 checks warned (engine both)</p>' in page
    assert page.count('<span class="badge warn">warning</span>') == 2 + 1    # findings, filter (rows: the script)
    assert data_of(page)["badges"][:3] == [None, None, '<span class="badge warn">warning</span>']
    assert '<span class="diag warn">ttg.local_store (matmul.py:42:5): <b>warning</b>: 2-way bank conflict' in body


def test_ttgir_checks_are_grouped_by_operation_with_the_source_inline(monkeypatch):
    page = page_of(ttgir_report(), monkeypatch)
    data = data_of(page)
    assert f"<h2>{KERNEL}</h2>" in page and data["text"][data["files"][1][0]] == KERNEL
    groups, (runs, diags, length) = data["files"][1][1:]
    assert [(g[0], data["text"][g[1]], data["html"][g[2]], g[3]) for g in groups] == [
        (8, "amdg.in_thread_transpose", "", [[2, 1]]), (9, "ttg.local_store", " (matmul.py:42:5)", [[3, 2]])]
    # the lines around line 9, the diagnostics' line
    lines = (ROOT / KERNEL).read_text().splitlines()
    first, last = 9 - html.SOURCE_CONTEXT, min(len(lines), 9 + html.SOURCE_CONTEXT)
    assert length == len(lines) and [(r[0], [data["html"][i] for i in r[1]]) for r in runs] == [
        (first, [html.escape(t) for t in lines[first - 1:last]])]
    assert list(diags) == ["9"] and [data["html"][d][:24] for d in diags["9"]] == ['<span class="diag warn">'] * 2
    assert all('<a href="#check-' in data["html"][d] for d in diags["9"])
    # a spec's checks: one group, no heading; no source listed
    assert data["files"][0][1:] == [[[0, -1, data["html"].index(""), [[0, 2]]]], None]


def test_one_figure_per_layouts_and_shape_with_the_witness_as_a_table(monkeypatch):
    page = page_of(ttgir_report(), monkeypatch)
    data, shown = data_of(page), fragments(page)
    # the failure's layout, and the two warnings' reg + shared drawn once
    assert len(data["drawings"]) == 1 + 2
    assert shown.count("Same layouts and shape as") == 1
    witness = next(h for h in data["html"] if h.startswith("<h3>Witness (bank_conflict)"))
    assert ("<tr><th>register</th><th>lane</th><th>warp</th><th>offset</th><th>byte_address</th><th>word</th></tr>"
            "<tr><td>0</td><td>0</td><td>0</td><td>0</td><td>0</td><td>0</td></tr>"
            "<tr><td>0</td><td>9</td><td>0</td><td>2304</td><td>4608</td><td>1152</td></tr>") in witness
    assert "<tr><th>lanes</th><td>[0-31]</td></tr>" in witness and '{"' not in witness
    # the conflicting lanes on the register layout, the conflicting cells and bank on the shared one
    reg, shared = (data["html"][d[1]] for d in data["drawings"][1:])
    assert "accesses[1]: lane 9, register 0, warp 0: byte 4608" in reg
    assert "accesses[1]: lane 9, register 0, warp 0: byte 4608, bank 0" in shared
    assert 'class="bank"' in shared and "dashed outline: cells in bank 0, the conflicting bank" in (
        data["html"][data["drawings"][2][0]])


def test_misaligned_access_witness_is_drawn(monkeypatch):
    """An aligned_access warning: the misaligned lane's vector outlined on both layouts."""
    reg = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
    smem = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"
    witness = {"kind": "misaligned_access", "instruction": "st.shared", "mnemonic": "ds_write_b128", "lane": 8,
               "register": 0, "warp": 0, "offset": 64, "physical_offset": 68, "byte_address": 136, "vector_bytes": 16,
               "vector": [[k, 8] for k in range(8)], "padding": [[64, 4]]}
    check = record(f"{KERNEL}:9:ttg.local_store:aligned_access[#blocked -> #shared]", prop="aligned_access",
                   passed=False, file=KERNEL, line=9, shape=[64, 64], severity="warning", hardware="gfx942",
                   element_bit_width=16, operands={"reg": reg, "shared": smem}, counterexample=witness,
                   source={"file": KERNEL, "line": 9, "op": "ttg.local_store"})
    data = data_of(page_of({"schema_version": 1, "summary": {}, "checks": [check]}, monkeypatch))
    reg_tail, smem_tail = (data["html"][d[1]] for d in data["drawings"])
    assert reg_tail.count("<rect x=") == 4 + 4           # 8 elements, every 2nd column drawn; 4 warp swatches
    assert "1. (1, 0): vector[0]: lane 8, register 0, warp 0: byte 136, 8 past a 16-byte boundary" in reg_tail
    assert "1. (1, 0): vector[0]: offset 64 (slot 68): byte 136, 8 past a 16-byte boundary" in smem_tail
    assert "8. (1, 7): vector[7]: offset 71" in smem_tail


def test_a_layout_that_cannot_be_rebuilt_gets_a_note(tmp_path):
    r = report()
    r["checks"][0]["layouts"] = {"layout": {"bases": {"register": [[3]]}, "out_dims": {"dim0": 2}}}
    page = html.render_html(r, figures="all")
    assert len(data_of(page)["drawings"]) == 3
    assert 'layout: no figure (basis 3 of in-dim &#x27;register&#x27;' in fragments(page)


def test_figures_come_from_the_records_layouts_never_from_attribute_text():
    text = ("#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 2], "
            "order = [1, 0]}>")
    check = {"id": "c", "property": "injective", "shape": [16, 16], "operands": {"layout": text},
             "verdict": "fails", "expect": "holds", "passed": False, "counterexample": COLLISION}
    assert data_of(html.render_html({"schema_version": 1, "summary": {}, "checks": [check]}))["drawings"] == []
    check["layouts"] = {"layout": lower(BLOCKED, [16, 16]).to_dict()}
    data = data_of(html.render_html({"schema_version": 1, "summary": {}, "checks": [check]}))
    expected = svg.drawing(lower(BLOCKED, [16, 16]), title="layout", witness=COLLISION, max_cells=html.FIGURE_CELLS)
    head, tail, top, grid = data["drawings"][0]
    g = expected.grid
    assert (data["html"][head], data["html"][tail], top) == (expected.head, expected.tail, g.top)
    assert data["grids"][grid][:7] == [g.left, g.cw, g.ch, g.rows, g.cols, *g.step]
    assert data["labels"][data["grids"][grid][7]][:3] == ["distributed", [["register", 2], ["lane", 5], ["warp", 1],
                                                                          ["block", 0]], 32]


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
    data = data_of(page)
    not_passed = sum(data["kinds"][c[0]][0] != html.STATUS_ORDER.index("pass") for c in data["checks"])
    assert len(data["drawings"]) <= 2 * not_passed


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
    data = data_of(page)
    assert len(data["checks"]) == 6
    # the failed checks' layouts: 1 + 2 + (the same two again: a link) + 2 + 1
    assert len(data["drawings"]) == 6 and fragments(page).count("Same layouts and shape as") == 1


def test_text_of_the_report_is_escaped():
    bad = record("<script>alert(1)</script>", passed=False, layouts={}, explanation='1 < 2 & "q"',
                 file="specs/<x>.yaml")
    page = html.render_html({"schema_version": 1, "summary": {"checks": 1, "passed": 0, "failed": 1},
                             "checks": [bad]})
    assert [a for t, a in Tags(page).tags if t == "script"] == [{"type": "application/json", "id": "data"}, {}]
    assert "<script>alert" not in page[:page.index('<script type="application/json"')]
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") == 1               # the finding (the row: the script)
    assert "<script>alert(1)</script>" in data_of(page)["text"]                  # raw: the script escapes it
    assert "<dd>1 &lt; 2 &amp; &quot;q&quot;</dd>" in fragments(page)
    assert "<h2>specs/&lt;x&gt;.yaml</h2>" in page and "<x>" not in page[:page.index('<script type="application/json"')]
