"""The kernel's shared memory (checker.ttgir.allocation) against Triton 3.9's own allocation of the modules of
Triton's lit tests (tests/allocation/lit, written by ``tools/allocation_oracle.py --lit``): every module that
reaches allocation (test/Analysis test-allocation*, test-alias, test-membar*; the NVIDIA and AMD conversion
tests that run ``allocate-shared-memory``; Proton's, TritonNvidiaGPU's membar tests), its total and every
placed buffer's offset, in every function Triton allocates. A module Triton 3.9 rejects is listed in
rejected.json with Triton's reason."""

import json
import pathlib

import pytest

from checker.syntax.ttgir import read_ttgir
from checker.ttgir.allocation import budget, function_budgets

LIT = pathlib.Path(__file__).resolve().parents[1] / "allocation" / "lit"
EXPECTED = json.loads((LIT / "expected.json").read_text())
REJECTED = json.loads((LIT / "rejected.json").read_text())

# Modules the model once flagged as estimates, now exact: calls Triton inlines before allocating, functions
# already in unstructured control flow (cf.br / cf.cond_br), a cuda:120 target (the sm120 preset).
ONCE_ESTIMATES = ("Analysis_test_alias_L13.ttgir", "Analysis_test_membar_L851.ttgir",
                  "Analysis_test_membar_L1245.ttgir", "Conversion_cvt_to_llvm_L9.ttgir",
                  "Conversion_scan_to_llvm_L7.ttgir", "Conversion_tritongpu_to_llvm_sm120_L7.ttgir")


def _ours(name: str):
    [m] = read_ttgir((LIT / name).read_text(), name)
    functions = function_budgets(m)
    placed = sorted([x.line, x.offset] for b in functions.values() for x in b.buffers)
    uncertain = [u for b in functions.values() for u in b.uncertain]
    return m, budget(m), placed, uncertain


def test_the_lit_modules_are_all_accounted_for():
    assert (len(EXPECTED), len(REJECTED)) == (411, 46)
    assert set(ONCE_ESTIMATES) <= set(EXPECTED)
    assert all(r["reason"] for r in REJECTED.values())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_lit_buffer_where_triton_places_it(name):
    want = EXPECTED[name]
    m, b, placed, uncertain = _ours(name)
    assert m.target == want["target"]
    assert b.total == want["shared"]
    assert placed == want["ops"]
    assert uncertain == []


def test_inlined_callees_buffers_sit_at_the_callees_lines():
    """test-membar.mlir L1245: the callee's conversion (line 11) is a scratch buffer of the caller, placed
    beside the caller's own (line 23), above the 64 KiB buffer (Triton 3.9: 67584)."""
    m, b, placed, _ = _ours("Analysis_test_membar_L1245.ttgir")
    assert (b.total, placed) == (67584, [[11, 65536], [17, 0], [23, 65536]])


def test_a_scan_whose_axis_data_one_warp_holds_needs_no_scratch():
    """scan_to_llvm.mlir L7: 8 elements over 16 lanes x 2 warps, the second warp a broadcast: no scratch
    (ScanLoweringHelper counts warps with unique data); the 16x1 scan over 2 warps needs 8 bytes."""
    _, b, placed, _ = _ours("Conversion_scan_to_llvm_L7.ttgir")
    assert (b.total, placed) == (8, [[26, 0]])


def test_dead_code_goes_before_allocation():
    """A dot nobody reads, and the loads and buffers only it used, are erased by the canonicalization the
    inliner runs (tritongpu_to_llvm.mlir, convert_dot_ldmatrix): Triton allocates nothing."""
    name = next(n for n, w in EXPECTED.items() if w["source"] == "test/Conversion/tritongpu_to_llvm.mlir"
                and w["line"] == 923)
    _, b, placed, _ = _ours(name)
    assert (b.total, placed, EXPECTED[name]["shared"]) == (0, [], 0)


def test_an_empty_warp_specialize_is_erased_with_its_partition_warps():
    name = "Conversion_amd_allocate_shared_memory_L33.ttgir"
    _, b, placed, uncertain = _ours(name)
    assert (b.total, placed, uncertain) == (0, [], [])


def test_partitioned_padded_pieces_follow_the_padded_layouts_shape():
    name = "Analysis_test_allocation_partitioned_L27.ttgir"
    _, b, placed, _ = _ours(name)
    assert b.total == EXPECTED[name]["shared"] == 4216
