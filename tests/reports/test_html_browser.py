"""The HTML report: self-contained, one figure per layout of each check, every
figure rendered with a non-zero size in headless Chromium, and one figure
compared with a golden screenshot by pixel statistics.

Chromium is Debian's ``chromium`` (``apt-get install -y chromium``); without
it the browser tests skip. Regenerate the golden PNG with
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


def test_page_is_self_contained_with_one_figure_per_layout(tmp_path):
    path = tmp_path / "report.html"
    html.write_html(report(), str(path))
    page = path.read_text()
    assert os.listdir(tmp_path) == ["report.html"]
    assert page.count("<svg ") == 4 and page.count("<figure>") == 4
    assert "<script" not in page and "<link" not in page and " src=" not in page
    assert set(re.findall(r"https?://[^\s\"']+", page)) == {"http://www.w3.org/2000/svg"}
    assert set(re.findall(r'href="([^"]*)"', page)) == {"#check-0", "#check-1", "#check-2"}
    assert '<span class="fail">FAIL</span>' in page and page.count('<span class="pass">pass</span>') == 4
    assert "1. (3, 3): indices[0]: T5:3 (register=3, lane=5, warp=0, block=0)" in page   # the witness legend
    assert "down-sampled: every 8th row and every 8th column of 256 x 256" in page
    assert html.render_html(report()) == page                            # deterministic


def test_a_layout_that_cannot_be_rebuilt_gets_a_note(tmp_path):
    r = report()
    r["checks"][0]["layouts"] = {"layout": {"bases": {"register": [[3]]}, "out_dims": {"dim0": 2}}}
    page = html.render_html(r)
    assert page.count("<svg ") == 3
    assert 'layout: no figure (basis 3 of in-dim &#x27;register&#x27;' in page


def test_operands_are_lowered_from_attribute_text():
    pytest.importorskip("checker.syntax.mlir_attr")
    text = ("#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 2], "
            "order = [1, 0]}>")
    page = html.render_html({"schema_version": 1, "summary": {}, "checks": [
        {"id": "c", "property": "injective", "shape": [16, 16], "operands": {"layout": text},
         "verdict": "fails", "expect": "holds", "passed": False, "counterexample": COLLISION}]})
    expected = svg.layout_figure(lower(BLOCKED, [16, 16]), title="layout", witness=COLLISION,
                                 max_cells=html.FIGURE_CELLS)
    assert expected in page


@needs_chromium
def test_every_figure_renders_in_chromium(tmp_path):
    path = tmp_path / "report.html"
    html.write_html(report(), str(path))
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
    for bbox_w, bbox_h, rect_w, rect_h, n_rects in sizes:
        assert bbox_w > 100 and bbox_h > 100 and rect_w > 100 and rect_h > 100
    # rects: cells + witness outlines + warp swatches
    assert [s[4] for s in sizes] == [256 + 2 + 2, 32 * 32 + 0 + 4, 32 * 32 + 2 + 0, 32 * 32 + 0 + 8]


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
