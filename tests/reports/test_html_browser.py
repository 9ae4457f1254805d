"""The HTML report: self-contained (inline CSS, SVG and script, nothing fetched), a summary first,
warnings shown as warnings, checks grouped by file and by TTGIR operation with the module's source
and its diagnostics inline, figures only for the checks that fail or warn (one per distinct
layouts and shape; all with figures="all"), witnesses as tables. In headless Chromium: the summary,
the status filter (a click hides rows), every figure drawn with a non-zero size, and the first
screen and one figure compared with golden screenshots by pixel statistics.

Chromium is Debian's ``chromium`` (``apt-get install -y chromium``); without
it the browser tests skip. Regenerate the golden PNGs with
``LAYOUTCHECK_REGEN_GOLDEN=1 python -m pytest tests/reports/test_html_browser.py``.
"""

import json
import os
import pathlib
import re
import shutil
import struct
import subprocess
import zlib
from html import unescape as html_unescape

import numpy as np
import pytest

from checker.encodings import lower
from checker.encodings.blocked import BlockedEncoding
from checker.encodings.swizzled_shared import SwizzledSharedEncoding
from checker.reports import html, svg

GOLDEN = pathlib.Path(__file__).parent / "golden"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                                    "(Debian: apt-get install -y chromium)")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--force-device-scale-factor=1"]

BLOCKED = BlockedEncoding((2, 2), (8, 4), (1, 2), (1, 0))
COLLISION = {"kind": "collision", "indices": [{"register": 3, "lane": 5, "warp": 0, "block": 0},
                                             {"register": 1, "lane": 5, "warp": 0, "block": 0}],
             "coordinate": {"dim0": 3, "dim1": 3}}


KERNEL = "tests/reports/kernel.ttgir"          # relative to the repository root, as verify writes paths
ROOT = pathlib.Path(__file__).resolve().parents[2]
LINEAR = ("#ttg.linear<{register = [[1, 0], [0, 1], [0, 2], [0, 4]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], "
          "[2, 0], [4, 0]], warp = [[8, 0], [16, 0]], block = []}>")
ROTATING = "#ttg.amd_rotating_shared<{vec = 4, perPhase = 2, maxPhase = 8, order = [0, 1]}>"
BANK_CONFLICT = {"kind": "bank_conflict", "model": "hardware", "hardware": "gfx942", "instruction": "st.shared",
                 "mnemonic": "ds_write_b32", "warp": 0, "instruction_registers": [0, 1],
                 "phase": {"lanes": list(range(32)), "registers": [0, 1]},
                 "accesses": [{"register": 0, "lane": 0, "warp": 0, "offset": 0, "byte_address": 0, "word": 0},
                              {"register": 0, "lane": 9, "warp": 0, "offset": 2304, "byte_address": 4608,
                               "word": 1152}],
                 "bank": 0}


def report():
    reg = lower(BlockedEncoding((1, 8), (8, 4), (4, 1), (1, 0)), [32, 64]).to_dict()
    smem = lower(SwizzledSharedEncoding(8, 1, 8, (1, 0)), [32, 64]).to_dict()
    big = lower(BlockedEncoding((4, 4), (4, 8), (4, 2), (1, 0)), [256, 256]).to_dict()
    return {"schema_version": 1, "summary": {"checks": 3, "passed": 2, "failed": 1},
            "checks": [
                {"id": "blocked-injective", "property": "injective", "shape": [16, 16], "verdict": "fails",
                 "expect": "holds", "passed": False, "counterexample": COLLISION,
                 "layouts": {"layout": lower(BLOCKED, [16, 16]).to_dict()}},
                {"id": "store-bank-conflicts", "property": "bank_conflicts", "shape": [32, 64],
                 "verdict": "2-way", "expect": "2-way", "passed": True,
                 "counterexample": {"lanes": [0, 8], "addresses": [0, 128], "bank": 0},
                 "layouts": {"registers": reg, "shared": smem}},
                {"id": "big-surjective", "property": "surjective", "shape": [256, 256], "verdict": "holds",
                 "expect": "holds", "passed": True, "counterexample": None, "layouts": {"layout": big}},
            ]}


def record(id, prop="surjective", passed=True, file="specs/a.yaml", line=3, **extra):
    rec = {"id": id, "property": prop, "operands": {}, "shape": [16, 16], "layout_shape": None, "dtype": None,
           "element_bit_width": None, "hardware": None, "parameters": {}, "expect": "holds",
           "expect_conflicts": None, "expect_level": None, "verdict": "holds" if passed else "fails",
           "passed": passed, "failure": None if passed else "expected holds, got fails",
           "engines": {"f2": "holds" if passed else "fails"}, "counterexample": None, "explanation": "why",
           "details": {}, "severity": "error", "source": {"file": file, "line": line}}
    rec.update(extra)
    if not passed and "layouts" not in rec:      # as the runner does for a failed check (shown_layouts)
        from checker.syntax.mlir_attr import parse_attribute
        rec["layouts"] = {role: lower(parse_attribute(text), rec["shape"]).to_dict()
                          for role, text in rec["operands"].items()}
    return rec


def ttgir_report():
    """A spec file (one failure, one pass) and a TTGIR module (one bank-conflict warning with its
    Python source, a second one on the same layouts and shape, one pass), as verify writes them."""
    warn = dict(property="bank_conflict_free", passed=False, file=KERNEL, shape=[32, 128], severity="warning",
                operands={"reg": LINEAR, "shared": ROTATING}, element_bit_width=16, dtype="f16",
                hardware="gfx942", parameters={"direction": "store", "access": "auto", "model": "hardware"},
                counterexample=BANK_CONFLICT,
                details={"mnemonic": "ds_write_b32", "conflicts": 1, "wavefronts": 128, "min_wavefronts": 64})
    checks = [
        record("covers", passed=True),
        record("no-duplicates", prop="injective", passed=False, line=9, counterexample=COLLISION,
               operands={"layout": "#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [8, 4], "
                                   "warpsPerCTA = [1, 2], order = [1, 0]}>"}),
        record(f"{KERNEL}:8:amdg.in_thread_transpose:well_formed[#linear]", prop="well_formed", file=KERNEL,
               line=8, source={"file": KERNEL, "line": 8, "op": "amdg.in_thread_transpose"}),
        record(f"{KERNEL}:9:ttg.local_store:bank_conflict_free[#linear -> #shared1]", line=9,
               source={"file": KERNEL, "line": 9, "op": "ttg.local_store",
                       "python": {"file": "/home/u/matmul.py", "line": 42, "col": 5}}, **warn),
        record(f"{KERNEL}:9:ttg.local_store:bank_conflict_free[#linear -> #shared1, again]", line=9,
               source={"file": KERNEL, "line": 9, "op": "ttg.local_store"}, **warn),
    ]
    summary = {"checks": 5, "passed": 2, "failed": 1, "warnings": 2, "verdicts": {"holds": 2, "fails": 3, "unknown": 0},
               "properties": {}, "files": ["specs/a.yaml", KERNEL], "engine": "both", "timeout_ms": 10000,
               "ttgir": [{"file": KERNEL, "modules": [], "operations": 3, "checked_operations": 2,
                          "skipped_operations": {"tt.return": 1},
                          "skipped_checks": {"tmem layouts are not modelled": 1},
                          "skips": [{"line": 10, "op": "tt.return", "reason": "tmem layouts are not modelled"}],
                          "problems": []}]}
    return {"schema_version": 1, "summary": summary, "checks": checks}


def run_chromium(tmp_path, *args):
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *args],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def read_png(path):
    """An 8-bit RGB/RGBA non-interlaced PNG as an (h, w, 3) uint8 array."""
    data = pathlib.Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(h, w, bpp)[:, :, :3]




def red_pixels(img):
    r, g, b = (img[:, :, k].astype(int) for k in range(3))
    return int(((r >= 180) & (g <= 70) & (b <= 70)).sum())


def page_of(rep, monkeypatch, **kw):
    monkeypatch.chdir(ROOT)                # the records' source paths are relative to the repository root
    return html.render_html(rep, **kw)


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


PROBE = """<script>
(function () {
  function visible() { return [...document.querySelectorAll('details.check')].filter(d => !d.hidden).length; }
  const out = {verdict: document.getElementById('verdict').textContent,
               counts: document.getElementById('counts').innerText, before: visible()};
  out.figures = [...document.querySelectorAll('figure svg')].map(s => {
    const r = s.getBoundingClientRect(); return [r.width, r.height, s.querySelectorAll('.witness rect').length]; });
  out.verdictRight = Math.max(...[...document.querySelectorAll('details.check > summary > span:nth-child(5)')]
                                 .map(v => v.getBoundingClientRect().right));
  document.querySelector('#filters input[value=pass]').click();
  out.afterPass = visible();
  out.afterPassIds = [...document.querySelectorAll('details.check')].filter(d => !d.hidden).map(d => d.dataset.status);
  out.emptyGroupsHidden = [...document.querySelectorAll('.group')].filter(g => g.hidden).length;
  document.querySelector('#filters input[value=pass]').click();
  const sel = document.getElementById('f-property');
  sel.value = 'injective'; sel.dispatchEvent(new Event('change'));
  out.afterProperty = visible();
  out.shown = document.getElementById('f-shown').textContent;
  const pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script></body>"""


@needs_chromium
def test_summary_filter_and_figures_in_chromium(tmp_path, monkeypatch):
    page = page_of(ttgir_report(), monkeypatch)
    probed = tmp_path / "probed.html"
    probed.write_text(page.replace("</body>", PROBE))
    dom = run_chromium(tmp_path, "--window-size=1400,900", "--dump-dom", probed.as_uri())
    got = json.loads(html_unescape(re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S).group(1)))
    assert got["verdict"] == "1 of 5 checks failed, 2 warned (engine both)"
    assert got["counts"].split() == ["5", "checks", "2", "passed", "1", "failed", "2", "warnings", "1", "not",
                                     "checked", "2", "files"]
    assert got["before"] == 5
    assert got["afterPass"] == 3 and set(got["afterPassIds"]) == {"fail", "warn"}     # the click hid the passes
    assert got["emptyGroupsHidden"] == 1                                          # line 8's op group
    assert got["afterProperty"] == 1 and got["shown"] == "1 shown"
    assert len(got["figures"]) == 3
    assert all(w > 100 and h > 100 for w, h, _ in got["figures"]), got["figures"]
    assert [f[2] for f in got["figures"]] == [2, 2, 2]                          # witness outlines drawn
    assert 0 < got["verdictRight"] <= 1400                                       # the verdict column is on screen


@needs_chromium
def test_every_figure_renders_in_chromium(tmp_path):
    path = tmp_path / "report.html"
    html.write_html(report(), str(path), figures="all")
    probe = ("<script>const sizes = [...document.querySelectorAll('svg')].map(s => {"
             "const b = s.getBBox(), r = s.getBoundingClientRect();"
             "return [b.width, b.height, r.width, r.height, s.querySelectorAll('rect').length]; });"
             "const pre = document.createElement('pre'); pre.id = 'figure-sizes';"
             "pre.textContent = JSON.stringify(sizes); document.body.appendChild(pre);</script></body>")
    probed = tmp_path / "probed.html"
    probed.write_text(path.read_text().replace("</body>", probe))
    dom = run_chromium(tmp_path, "--dump-dom", probed.as_uri())
    sizes = json.loads(re.search(r'<pre id="figure-sizes">(.*?)</pre>', dom).group(1))
    assert len(sizes) == 4
    # a passing check's figures are in its closed <details>: laid out (getBBox) but not displayed
    assert all(bbox_w > 100 and bbox_h > 100 for bbox_w, bbox_h, _, _, _ in sizes)
    assert sizes[0][2] > 100 and sizes[0][3] > 100
    # rects: cells + witness outlines + warp swatches (+ on the shared layout the 32 cells of bank 0, dashed)
    assert [s[4] for s in sizes] == [256 + 2 + 2, 32 * 32 + 0 + 4, 32 * 32 + 2 + 32, 32 * 32 + 0 + 8]


def compare_with_golden(shot, name, tolerance=3.0):
    golden = GOLDEN / name
    if os.environ.get("LAYOUTCHECK_REGEN_GOLDEN"):
        shutil.copyfile(shot, golden)
    now, then = read_png(shot), read_png(golden)
    assert now.shape == then.shape
    diff = np.abs(now.astype(int) - then.astype(int)).reshape(-1, 3).mean(axis=0)
    assert (diff < tolerance).all(), f"per-channel mean difference {diff} against {golden}"
    return now, then


@needs_chromium
def test_first_screen_matches_the_golden(tmp_path, monkeypatch):
    """The first 1400 x 900 px: the verdict, the counts, the failure and warnings, the filters."""
    path = tmp_path / "report.html"
    path.write_text(page_of(ttgir_report(), monkeypatch))
    shot = tmp_path / "first.png"
    run_chromium(tmp_path, f"--screenshot={shot}", "--window-size=1400,900", path.as_uri())
    now, _ = compare_with_golden(shot, "first_screen.png")
    assert now.shape == (900, 1400, 3)


@needs_chromium
def test_screenshot_of_a_known_figure_matches_the_golden(tmp_path):
    text = svg.layout_figure(lower(BLOCKED, [16, 16]), title="blocked 16x16", witness=COLLISION)
    width, height = re.search(r'width="(\d+)" height="(\d+)"', text).groups()
    figure = tmp_path / "figure.svg"
    figure.write_text(text)
    shot = tmp_path / "figure.png"
    run_chromium(tmp_path, f"--screenshot={shot}", f"--window-size={width},{height}", figure.as_uri())
    golden = GOLDEN / "blocked_16x16_collision.png"
    if os.environ.get("LAYOUTCHECK_REGEN_GOLDEN"):
        shutil.copyfile(shot, golden)
    now, then = read_png(shot), read_png(golden)
    assert now.shape == then.shape == (int(height), int(width), 3)
    diff = np.abs(now.astype(int) - then.astype(int)).reshape(-1, 3).mean(axis=0)
    assert (diff < 3.0).all(), f"per-channel mean difference {diff}"
    # two outlined cells, 3 px red strokes: the count moves only with anti-aliasing
    expected = red_pixels(then)
    assert expected > 300
    assert abs(red_pixels(now) - expected) <= 0.1 * expected
