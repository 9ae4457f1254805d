"""The HTML report (checker/reports/html.py) in headless Chromium: the summary, the status filter (a click
hides rows), every figure drawn with a non-zero size, and the first screen and one figure compared with
golden screenshots by pixel statistics. The page's content without a browser: tests/reports/test_html.py.

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
from checker.reports import html, svg

from .html_cases import BLOCKED, COLLISION, page_of, report, ttgir_report

GOLDEN = pathlib.Path(__file__).parent / "golden"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                                    "(Debian: apt-get install -y chromium)")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--force-device-scale-factor=1"]


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
