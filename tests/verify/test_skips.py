"""A TTGIR check the models do not cover is skipped with its reason, listed in every report format,
and the rest of the module is checked (issue: never abort on a check)."""

import json

PARTITIONED = """\
#inner_padded = #ttg.padded_shared<[32:+4] {order = [1, 0], shape = [4, 16]}>
#partitioned = #ttg.partitioned_shared<{numPartitions = 2, numGroups = 2, partitionDim = 0, \
partitionLayout = #inner_padded}>
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, \
ttg.target = "hip:gfx1250"} {
  tt.func @f(%x: tensor<32x16xf16, #blocked>) {
    %0 = ttg.local_alloc : () -> !ttg.memdesc<16x16xf16, #partitioned, #smem, mutable> loc(#loc1)
    tt.return
  }
}
#loc1 = loc("kernel.py":12:5)
"""

WRONG_LANES = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, \
ttg.target = "hip:gfx942"} {
  tt.func @f(%x: tensor<32x16xf16, #blocked>) {
    %0 = ttg.local_alloc %x : (tensor<32x16xf16, #blocked>) -> !ttg.memdesc<32x16xf16, #shared, #smem, mutable>
    tt.return
  }
}
"""


def test_partitioned_over_padded_is_skipped_not_failed(verify, tmp_path):
    path = tmp_path / "partitioned.ttgir"
    path.write_text(PARTITIONED)
    rc, out, err, reports = verify(path)
    assert rc == 0 and err == ""
    reason = ("partitionLayout: partitioned_shared: Triton has no LinearLayout for a partitioned layout wrapping a "
              "padded layout (toLinearLayout aborts); not modelled")
    assert f"  skipped 1x  {path}:7: {reason}" in out
    kernel = json.loads((reports / "report.json").read_text())["summary"]["ttgir"][0]
    erased = ("Triton erases this allocation before allocating shared memory (nothing that stays uses it): it takes "
              "no space")                                  # nothing reads the buffer: its own fits is not checked
    assert kernel["skipped_checks"] == {reason: 1, erased: 1}
    assert [s for s in kernel["skips"] if s["reason"] == reason] == [
        {"line": 7, "op": "ttg.local_alloc", "check": "well_formed", "reason": reason,
         "python": {"file": "kernel.py", "line": 12, "col": 5}}]
    md = (reports / "report.md").read_text()
    assert f"| `{path}` | 1 | {reason} |" in md


def test_a_warp_of_the_wrong_size_skips_the_bank_check_and_checks_the_rest(verify, tmp_path):
    """The module says 32 threads per warp but targets wave64 gfx942 (as Triton's loop-pipeline-hip.mlir
    does): the bank-conflict and alignment checks cannot be scored and is skipped with the reason; the rest runs."""
    path = tmp_path / "lanes.ttgir"
    path.write_text(WRONG_LANES)
    rc, out, err, reports = verify(path)
    assert rc == 0
    rep = json.loads((reports / "report.json").read_text())
    kernel = rep["summary"]["ttgir"][0]
    erased = ("Triton erases this allocation before allocating shared memory (nothing that stays uses it): it takes "
              "no space")
    assert kernel["skipped_checks"] == {"R: R has 32 lanes; gfx942 has warps of 64": 2, erased: 1}
    assert sorted((s["line"], s["check"]) for s in kernel["skips"]) == [(6, "aligned_access"),
                                                                         (6, "bank_conflict_free"), (6, "fits")]
    assert {c["property"] for c in rep["checks"]} >= {"well_formed", "fits", "invertible", "surjective"}
    assert f"  skipped 2x  {path}:6: R: R has 32 lanes; gfx942 has warps of 64" in out


def test_an_nvmma_buffer_triton_builds_no_layout_for_is_skipped(verify, tmp_path):
    """A one-row NVMMA buffer (a TMA box) passes Triton's memdesc verifier, but its toLinearLayout aborts on it:
    skipped. (A box narrower than the swizzle is rejected by that verifier: well_formed fails it.)"""
    path = tmp_path / "tma_row.ttgir"
    path.write_text("""\
#nvmma = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 8}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, \
ttg.target = "cuda:90"} {
  tt.func @f() {
    %0 = ttg.local_alloc : () -> !ttg.memdesc<1x64xi8, #nvmma, #ttg.shared_memory, mutable>
    tt.return
  }
}
""")
    rc, out, err, reports = verify(path)
    assert rc == 0
    assert (f"  skipped 1x  {path}:4: shape: nvmma_shared: Illegal shared layout: the TMA block collapsed to 2-D "
            f"is [1, 64], smaller than one core matrix [8, 64] (Triton builds no LinearLayout for it)") in out
