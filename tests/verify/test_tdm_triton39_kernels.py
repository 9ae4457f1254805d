"""TDM stores, gathers and scatters Triton 3.9 compiled for gfx1250 (tests/verify/ttgir, tests/corpus): every one
is checked (tdm_copy, checker/properties/tdm.py), none skipped, all hold, with the padding and the index figures
of the lowering."""

import checker
from tests.verify.conftest import ROOT

TTGIR = ROOT / "tests" / "verify" / "ttgir"


def tdm(path):
    report = checker.verify(str(path), engine="both")
    got = [(c["source"]["line"], c["source"]["op"], c["verdict"], c["details"]) for c in report["checks"]
           if c["property"] == "tdm_copy"]
    skips = [s for k in report["summary"]["ttgir"] for s in k["skips"] if s["check"] == "tdm_copy"]
    return got, skips, report["summary"]


def test_a_gluon_gather_and_scatter():
    """32 i32 row indices a thread holds whole (sizePerThread [32, 1], the lanes and warps along the sliced-away
    dim): each warp issues them in 4 instructions of 8."""
    got, skips, summary = tdm(TTGIR / "amd_tdm_gather_scatter_triton39.ttgir")
    figures = {"block": [32, 128], "indices": 32, "index_registers": 32, "indices_per_instruction": 8,
               "instructions_per_warp": 4}
    assert got == [(25, "amdg.async_tdm_gather", "holds", figures), (30, "amdg.async_tdm_scatter", "holds", figures)]
    assert skips == [] and summary["triton_version"] == "3.9" and summary["failed"] == 0


def test_a_descriptor_scatter_through_a_one_row_block():
    """tl's desc.scatter: a 1x64 descriptor block over a 32x64 buffer, both padded [64:+8] (the shapes differ,
    the padding is the same: consistent), the interval the block's innermost dim; a warp holds 8 of the 32
    indices, consecutive in its registers: one instruction."""
    got, skips, summary = tdm(TTGIR / "amd_tdm_desc_scatter_triton39.ttgir")
    assert got == [(35, "amdg.async_tdm_scatter", "holds", {
        "block": [1, 64], "indices": 32, "pad_interval_dwords": 32, "pad_amount_dwords": 4, "index_registers": 8,
        "indices_per_instruction": 8, "instructions_per_warp": 1})]
    assert skips == [] and summary["failed"] == 0


def test_the_stores_of_a_device_tma_kernel():
    got, skips, summary = tdm(ROOT / "tests" / "corpus" / "tl_device_tma.gfx1250.ttgir")
    load = "amdg.async_tdm_copy_global_to_local"
    assert got == [(40, load, "holds", {"block": [64, 64], "pad_interval_dwords": 64, "pad_amount_dwords": 4}),
                   (44, load, "holds", {"block": [64, 64], "pad_interval_dwords": 64, "pad_amount_dwords": 8}),
                   (54, load, "holds", {"block": [64, 64], "pad_interval_dwords": 64, "pad_amount_dwords": 4}),
                   (58, load, "holds", {"block": [64, 64], "pad_interval_dwords": 64, "pad_amount_dwords": 8}),
                   (81, "amdg.async_tdm_copy_local_to_global", "holds",
                    {"block": [64, 64], "pad_interval_dwords": 32, "pad_amount_dwords": 4})]
    assert skips == []


def test_stores_that_arrive_on_an_lds_barrier_are_checked():
    """Triton's Gluon persistent TDM GEMM (gfx1250): its epilogue's four TDM stores name an LDS barrier after the
    buffer (``from %buf, barrier = %bar : !ttg.memdesc<64x64xf32, ...>, !ttg.memdesc<1xi64, ...>``); the barrier
    is no second buffer (they were skipped: "without a typed descriptor and buffer")."""
    got, skips, summary = tdm(TTGIR / "amd_gluon_tdm_ws_persistent_gfx1250_triton39.ttgir")
    stores = [(line, verdict) for line, op, verdict, _ in got if op == "amdg.async_tdm_copy_local_to_global"]
    assert [v for _, v in stores] == ["holds"] * 4 and len({line for line, _ in stores}) == 4
    assert skips == [] and summary["failed"] == 0
