"""tmem_access with several CTAs across Triton versions (change tmem_block_in_dim, 3.8, PR #9557).

Up to Triton 3.7 a TMEM layout has no block in-dim: its CTASplitM/N are its last col bases. Triton 3.6/3.7's
computeTMemLdStEncodingInfo keeps the register layout's block bases in the cvt (no quotient), getReps only asks
them not to overlap the message's tile, and TensorMemoryToLLVM applies the cvt with block = 0 on each CTA's own
TMEM (tcgen05.alloc of the columns of one CTA). layoutcheck's 3.6/3.7 rule drops the block the same way and asks
what makes that drop right: the block bases move only the CTAs' columns, no other basis does.

The two fixtures are a 2-CTA matmul (its TMEM split along N, its register layout's block = [[0, 64]]) as Triton 3.6.0
and 3.7.0 compiled it; they were reported as "different CGA layouts" (the 3.8 quotient applied to a 3.7 layout).
CASES: modules Triton 3.6.0 and 3.7.0 both verify and lower (triton.compile of the .ttgir for cuda:100 on CPU); the
PTX column is what their tcgen05.alloc / tcgen05.st were. The three layoutcheck rejects write another CTA's data
into a CTA's own TMEM (block [[0, 64]] on an unsplit TMEM: CTA 1's columns 64..127 land on 0..63) or past its
allocation (x128 into 64 columns; a second message at column 128 of 128): real CGA mismatches that Triton 3.6/3.7
accept and 3.8 rejects ("The cga_layout of the register and memory layout must be the same").
"""

import pytest

import checker
from checker.properties.tmem_access import tmem_access
from checker.syntax.ttgir import read_ttgir
from checker.versions import using
from tests.verify.conftest import ROOT

FIXTURES = ROOT / "tests" / "verify" / "ttgir"
MATMULS = ["blackwell_2cta_matmul_triton36.ttgir", "blackwell_2cta_matmul_triton37.ttgir"]

_ROWS = "lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]"
_COLS6 = "register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]]"
_COLS7 = "register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]]"
ALIASES = f"""
#n = #ttg.linear<{{{_COLS6}, {_ROWS}, block = [[0, 64]]}}>
#bc = #ttg.linear<{{{_COLS7}, {_ROWS}, block = [[0, 0]]}}>
#m = #ttg.linear<{{{_COLS7}, {_ROWS}, block = [[128, 0]]}}>
#sn = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1, CTASplitN = 2>
#sm = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1, CTASplitM = 2>
#u = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
"""
A = read_ttgir(ALIASES + 'module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 2 : i32} {}\n')[0].aliases

# (register, TMEM, shape) -> (layoutcheck's 3.6/3.7 verdict, message or the reason's words,
#                             Triton 3.6.0 / 3.7.0's PTX for the tmem_store: tcgen05.alloc columns, tcgen05.st)
CASES = [
    (("n", "sn", [128, 128]), ("holds", "32x32b", 64), "alloc 64; st.32x32b.x64 [+0]"),
    (("bc", "u", [128, 128]), ("holds", "32x32b", 128), "alloc 128; st.32x32b.x128 [+0]"),
    (("m", "sm", [256, 128]), ("holds", "32x32b", 128), "alloc 128; st.32x32b.x128 [+0]"),
    (("n", "u", [128, 128]), ("fails", "a block basis of the register layout moves to TMEM row 0, col 64, not to "
                                       "another CTA's columns (col >= 128", None), "alloc 128; st.32x32b.x64 [+0]"),
    (("bc", "sn", [128, 128]), ("fails", "a register basis of the register layout moves to TMEM col 64, in another "
                                         "CTA's columns (col >= 64)", None), "alloc 64; st.32x32b.x128 [+0]"),
    (("m", "sn", [256, 128]), ("fails", "a block basis of the register layout moves to TMEM row 0, col 64", None),
     "alloc 128; st.32x32b.x64 [+0], [+128]"),
]


def _line(report, line):
    (c,) = [c for c in report["checks"] if c["property"] == "tmem_access" and c["source"]["line"] == line]
    return c


@pytest.mark.parametrize("name", MATMULS)
@pytest.mark.parametrize("version", [None, "3.6", "3.8"])
def test_the_2cta_matmul_moves_its_accumulator_as_triton_did(name, version):
    """tcgen05.st / tcgen05.ld .32x32b.x64 (Triton 3.6.0's and 3.7.0's PTX): 32x32b, 64 registers a message.
    The module's spelling picks 3.7; 3.6's rule and 3.8's (the block quotient) give the same message."""
    report = checker.verify(str(FIXTURES / name), engine="f2", triton_version=version)
    assert report["summary"]["triton_version"] == (version or "3.7")
    assert report["summary"]["failed"] == 0
    for line, op in ((59, "ttng.tmem_store"), (184, "ttng.tmem_load")):
        c = _line(report, line)
        assert (c["source"]["op"], c["verdict"], c["details"]["message"], c["details"]["registers_per_message"]) == (
            op, "holds", "32x32b", 64)


@pytest.mark.parametrize("case,want,ptx", CASES, ids=[f"{r}-{m}" for (r, m, _), _, _ in CASES])
@pytest.mark.parametrize("version", ["3.6", "3.7"])
def test_a_block_moves_only_the_ctas_columns(case, want, ptx, version):
    reg, mem, shape = case
    with using(version):
        r = tmem_access(A[reg], A[mem], shape, shape, 32)
    assert r.status == want[0], r.explanation
    if want[0] == "holds":
        assert (r.details["message"], r.details["registers_per_message"]) == want[1:]
    else:
        assert "the register and TMEM layouts have different CGA layouts" in r.explanation
        assert want[1] in r.explanation


@pytest.mark.parametrize("case", [c for c, w, _ in CASES if w[0] == "fails"])
def test_triton_38_rejects_the_same_mismatches(case):
    reg, mem, shape = case
    with using("3.8"):
        r = tmem_access(A[reg], A[mem], shape, shape, 32)
    assert r.status == "fails"
    assert r.explanation.endswith("the register and TMEM layouts have different CGA layouts")
