"""Op checks of tt.dot_scaled and ttg.local_gather / local_scatter (checker/ttgir/ops_common.py) on kernels
compiled by Triton 3.9 (CPU): tests/verify/ttgir/mxfp4_dot_scaled_gfx950.ttgir and mxfp4_dot_scaled_gfx1250.ttgir
(tl.dot_scaled, e2m1 x e2m1, 128x128x128, 4 warps: MFMA / WMMA v3 with linear scale layouts),
gluon_smem_gather_sm90.ttgir (Gluon smem.gather axis 0 and smem.scatter axis 1 of a 64x64 f16 swizzled buffer,
cuda:90)."""

from collections import Counter

from checker.run.runner import evaluate
from tests.ttgir.ops_cases import results, run_file


def test_mxfp4_kernels():
    for name, acc in (("mxfp4_dot_scaled_gfx950.ttgir", "amd_mfma"), ("mxfp4_dot_scaled_gfx1250.ttgir", "amd_wmma")):
        kc = run_file(name)
        rs = results(kc)
        assert [ob.op for ob, _ in rs] == ["tt.dot_scaled"], name
        (_, r), = rs
        assert r.status == "holds", r.explanation
        assert r.details["scale_factor"] == 32 and r.details["result_layout"] == acc
        errors = [ob.id for ob in kc.obligations if ob.severity == "error" and evaluate(ob).status != "holds"]
        assert not errors, errors


def test_gluon_gather_kernel():
    rs = results(run_file("gluon_smem_gather_sm90.ttgir"))
    assert Counter(ob.op for ob, _ in rs) == {"ttg.local_gather": 1, "ttg.local_scatter": 1}
    assert all(r.status == "holds" for _, r in rs), [r.explanation for _, r in rs]
    assert sorted(r.details["axis"] for _, r in rs) == [0, 1]


def test_global_loads_and_stores_get_a_coalesced_warning_check():
    """tt.load / tt.store: `coalesced` (a warning) with Triton's instruction and the sector figures."""
    from pathlib import Path

    from checker.ttgir.kernel import read_ir_file
    path = Path(__file__).resolve().parents[1] / "corpus" / "tl_softmax_rows.cuda80.ttgir"
    kc = read_ir_file(str(path))
    obs = [ob for ob in kc.obligations if ob.property == "coalesced"]
    assert [(ob.op, ob.line, ob.severity) for ob in obs] == [("tt.load", 26, "warning"), ("tt.store", 50, "warning")]
    for ob in obs:
        r = evaluate(ob)
        assert r.holds, r.explanation
        assert r.details["vector_bytes"] == 16 and r.details["sectors"] == r.details["min_sectors"] == 512
    assert {r.details["instruction"] for r in map(evaluate, obs)} == {"ld.global.v4.b32", "st.global.v4.b32"}


MASK_OF_ANOTHER_RANK = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @k(%p: tensor<64x128x!tt.ptr<f32>, #blocked>, %m: tensor<128xi1, #blocked1>) {
    %x = tt.load %p, %m : tensor<64x128x!tt.ptr<f32>, #blocked>
    tt.return
  }
}
"""


def test_a_mask_of_another_rank_is_a_skip_not_an_internal_error():
    """Fuzz (ttgir #1845): a mutated module's load names a rank-1 mask for a rank-2 pointer; its coalesced check
    indexed the mask's constancy past its end (exit 3). Triton's verifier refuses such a load: skipped, why."""
    from checker.syntax.ttgir import read_ttgir
    from checker.ttgir.kernel import kernel_checks
    kc = kernel_checks(read_ttgir(MASK_OF_ANOTHER_RANK, "m.ttgir"), "m.ttgir")
    assert not [ob for ob in kc.obligations if ob.property == "coalesced"]
    assert kc.skips == [{"line": 5, "op": "tt.load", "check": "coalesced",
                         "reason": "its mask has rank 1, its pointer 2"}]
