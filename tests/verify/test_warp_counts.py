"""The warp count a tensor's layout must span is the one Triton's maybeLookupNumWarps finds for its op."""

import json

FUNC_WARPS = """\
#blocked_8_warps = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
#blocked_4_warps = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @eight() attributes {"ttg.num-warps" = 8 : i32} {
    %0 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked_8_warps>
    tt.return
  }
  tt.func @four() {
    %0 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked_8_warps>
    %1 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked_4_warps>
    tt.return
  }
}
"""


def test_a_function_may_set_its_own_warp_count(verify, tmp_path):
    path = tmp_path / "warps.ttgir"
    path.write_text(FUNC_WARPS)
    rc, out, err, reports = verify(path, "--only", "*well_formed*", formats="json")
    assert rc == 1
    checks = json.loads((reports / "report.json").read_text())["checks"]
    assert [(c["source"]["line"], c["verdict"], c["parameters"]["warps"]) for c in checks] == [
        (5, "holds", [8]), (9, "fails", [4]), (10, "holds", [4])]
    assert checks[1]["explanation"] == "the layout spans 8 warps but the module has ttg.num-warps = 4"
