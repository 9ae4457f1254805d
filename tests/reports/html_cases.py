"""Reports the HTML tests render (tests/reports/test_html.py, and in Chromium tests/reports/test_html_browser.py):
`report` (three spec checks, one failing, with their lowered layouts) and `ttgir_report` (a spec file and a TTGIR
module with bank-conflict warnings, as verify writes them)."""

import json
import pathlib

from checker.encodings import lower
from checker.encodings.blocked import BlockedEncoding
from checker.encodings.swizzled_shared import SwizzledSharedEncoding
from checker.reports import html

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


def page_of(rep, monkeypatch, **kw):
    monkeypatch.chdir(ROOT)                # the records' source paths are relative to the repository root
    return html.render_html(rep, **kw)


def data_of(page):
    """The page's data block (checker.reports.html's module docstring), decoded."""
    start = page.index('<script type="application/json" id="data">') + len('<script type="application/json" id="data">')
    return json.loads(page[start:page.index("</script>", start)])


def fragments(page):
    """The html fragments of the page's data block, joined: what the script puts in the page."""
    return "\n".join(data_of(page)["html"])
