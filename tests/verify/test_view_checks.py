"""TTGIR memdesc views get a view_consistent check (checker.ttgir.ops_memory.view)."""


def test_ttgir_memdesc_trans_gets_a_view_check(verify, tmp_path):
    text = """
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#shared1 = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @f(%a: !ttg.memdesc<64x16xf16, #shared, #smem>) {
    %0 = ttg.memdesc_trans %a {order = array<i32: 1, 0>} : !ttg.memdesc<64x16xf16, #shared, \
#smem> -> !ttg.memdesc<16x64xf16, #shared1, #smem>
    %1 = ttg.memdesc_trans %a {order = array<i32: 1, 0>} : !ttg.memdesc<64x16xf16, #shared, \
#smem> -> !ttg.memdesc<16x64xf16, #shared, #smem>
    tt.return
  }
}
"""
    path = tmp_path / "views.ttgir"
    path.write_text(text)
    rc, out, err, reports = verify(path, "--only", "*view_consistent*", formats="json")
    assert rc == 1
    assert f"{path}:8: ttg.memdesc_trans: error: view_consistent fails #shared -> #shared; witness: mismatch: " \
           f"index=(offset=1, block=0) images=[(dim0=0, dim1=1), (dim0=1, dim1=0)]" in out
    assert "7: ttg.memdesc_trans" not in out


def test_conversion_note_says_plainly_when_triton_does_more_than_needed():
    """A slice of an MMA v2 accumulator into a linear layout whose lanes only repeat data: Triton's
    minimal conversion keeps register and lane (it emits warp shuffles), the proof finds that every
    thread already holds what it needs."""
    from checker import parse_encoding, prove
    from checker.reports.text import conversion_note
    src = parse_encoding("#ttg.slice<{dim = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, "
                         "warpsPerCTA = [8, 1], instrShape = [16, 8]}>}>")
    dst = parse_encoding("#ttg.linear<{register = [[0], [8]], lane = [[2], [4], [0], [1], [0]], "
                         "warp = [[0], [0], [0]], block = []}>")
    r = prove.conversion(src, dst, [16], triton=True)
    assert (r.status, r.details["level"], r.details["triton_class"], r.details["triton_lowering"]) == (
        "holds", "register", "warp_shuffle", "warp_shuffle")
    note = conversion_note({"id": "k.ttgir:3:ttg.convert_layout:conversion[#a -> #b]", "details": r.details})
    assert note == ("register-level conversion #a -> #b: every thread already holds what it needs (register "
                    "moves only); Triton emits warp shuffles, more than needed: the proof shows register level "
                    "suffices")
