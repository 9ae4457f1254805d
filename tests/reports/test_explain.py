"""checker/reports/explain.py: --explain's view of one TTGIR line: the reader's problems there, every check with
its verdict, explanation, witness and details, then each layout (its grid with --grids)."""

import pytest

from checker.encodings.blocked import BlockedEncoding
from checker.reports.explain import render_explain
from checker.run.verification import Explained, explain, load_inputs

from .conftest import ROOT

KERNEL = str(ROOT / "tests/reports/kernel.ttgir")
LINEAR = ("#ttg.linear<{register = [[1, 0], [0, 1], [0, 2], [0, 4]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], "
          "[2, 0], [4, 0]], warp = [[8, 0], [16, 0]], block = []}>")


@pytest.fixture(scope="module")
def kernels():
    return load_inputs([KERNEL]).kernels


def test_a_bank_conflict_with_its_witness_details_and_layouts(kernels):
    lines = render_explain(explain(kernels, "9")).splitlines()
    assert lines[0] == "== ttg.local_store bank_conflict_free: fails (warning)"
    assert lines[1].startswith("   ds_write2_b32 (st.shared, 4 B per lane at each of two addresses), 4 per warp, "
                               "4 phase(s) each: ")                     # LLVM pairs the lane's two words
    assert lines[2].startswith("   witness: (kind=bank_conflict, model=hardware, hardware=gfx942, ")
    assert lines[2].endswith("(register=0, lane=9, warp=0, offset=2304, byte_address=4608, word=1152)], bank=0)")
    assert lines[3].startswith("   details: (model=hardware, hardware=gfx942, direction=store, ")
    assert "conflicts=1, wavefronts=128, min_wavefronts=64," in lines[3] and "stride64=false" in lines[3]
    assert lines[4] == "== ttg.local_store aligned_access: holds"               # a pass: no (severity), no witness
    assert lines[6].startswith("   details: ")
    assert lines[7:] == [
        f"== reg: {LINEAR} at 32x128",
        "== shared: #ttg.amd_rotating_shared<{vec = 4, perPhase = 2, maxPhase = 8, order = [0, 1]}> at 32x128",
        "(--grids shows who holds each element of each layout)"]


def test_grids_show_who_holds_each_element(kernels):
    text = render_explain(explain(kernels, "kernel.ttgir:8"), grids=True)
    lines = text.splitlines()
    assert lines[:6] == [
        "== amdg.in_thread_transpose data_movement: holds",
        "   no data moves: every result element is in a register of the thread that holds it in the operand (with "
        "its registers reordered)",
        "   details: (kind=in_thread_transpose, operand_shape=[32, 128], result_shape=[32, 128], level=register)",
        "== amdg.in_thread_transpose well_formed: holds", "   valid linear layout at shape [32, 128]",
        "   details: (in_dims=(register=16, lane=64, warp=4, block=1))"]
    i = lines.index(f"== result: {LINEAR} at 32x128")
    assert lines[i + 1].startswith("[[   T0:0,    T0:2,    T0:4,") and lines[i + 2].startswith("[    T0:1,    T0:3,")
    assert len(lines) == i + 1 + 32 and "(--grids" not in text                  # 32 rows, no hint


def test_problems_first_and_a_layout_that_does_not_lower():
    enc = BlockedEncoding((1, 1), (8, 4), (4, 1), (1, 0))
    shown = Explained("k.ttgir", 7, ["alias #a: bad"], [], [("src", enc, (64, 64), "shape too small")])
    assert render_explain(shown).splitlines() == [
        "k.ttgir:7: error: alias #a: bad",
        "== src: #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
        "order = [1, 0]}> at 64x64",
        "(--grids shows who holds each element of each layout)"]
    assert render_explain(shown, grids=True).splitlines()[-1] == "(does not lower: shape too small)"
    assert render_explain(Explained("k.ttgir", 7, ["x"], [], [])) == "k.ttgir:7: error: x\n"
