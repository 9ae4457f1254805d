"""TTGIR memdesc views get a view_consistent check (checker.ttgir_checks.view)."""


def test_ttgir_memdesc_trans_gets_a_view_check(verify, tmp_path):
    text = """
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#shared1 = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @f(%a: !ttg.memdesc<64x16xf16, #shared, #smem>) {
    %0 = ttg.memdesc_trans %a {order = array<i32: 1, 0>} : !ttg.memdesc<64x16xf16, #shared, #smem> -> !ttg.memdesc<16x64xf16, #shared1, #smem>
    %1 = ttg.memdesc_trans %a {order = array<i32: 1, 0>} : !ttg.memdesc<64x16xf16, #shared, #smem> -> !ttg.memdesc<16x64xf16, #shared, #smem>
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
