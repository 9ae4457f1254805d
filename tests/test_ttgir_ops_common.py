"""Op checks of tt.dot_scaled and ttg.local_gather / local_scatter (checker/ttgir_ops_common.py) on kernels
compiled by Triton 3.9 (CPU): tests/verify/ttgir/mxfp4_dot_scaled_gfx950.ttgir and mxfp4_dot_scaled_gfx1250.ttgir
(tl.dot_scaled, e2m1 x e2m1, 128x128x128, 4 warps: MFMA / WMMA v3 with linear scale layouts),
gluon_smem_gather_sm90.ttgir (Gluon smem.gather axis 0 and smem.scatter axis 1 of a 64x64 f16 swizzled buffer,
cuda:90)."""

from collections import Counter

from checker.runner import evaluate

from .ttgir_ops_cases import results, run_file


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
