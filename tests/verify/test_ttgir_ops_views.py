"""Op checks of tt.dot_scaled, ttg.local_gather / local_scatter, ttng.tmem_subslice / tmem_copy and
amdg.async_tdm_copy_global_to_local (checker/ttgir_ops_common.py, ttgir_ops_nvidia.py, ttgir_ops_amd.py)
on kernels compiled by Triton 3.9 (CPU): tests/verify/ttgir/mxfp4_dot_scaled_gfx950.ttgir and
mxfp4_dot_scaled_gfx1250.ttgir (tl.dot_scaled, e2m1 x e2m1, 128x128x128, 4 warps: MFMA / WMMA v3 with
linear scale layouts), gluon_smem_gather_sm90.ttgir (Gluon smem.gather axis 0 and smem.scatter axis 1 of a
64x64 f16 swizzled buffer, cuda:90); and small modules that break one rule each."""

from collections import Counter

from checker.runner import evaluate
from checker.syntax.ttgir import read_ttgir
from checker.ttgir_checks import kernel_checks

from .conftest import ROOT

FIXTURES = ROOT / "tests" / "verify" / "ttgir"
OPS = ("scaled_dot", "local_gather", "tmem_subslice", "tmem_copy", "tdm_copy")


def results(kc):
    return [(ob, evaluate(ob)) for ob in kc.obligations if ob.property in OPS]


def run_text(text, name="m.ttgir"):
    return kernel_checks(read_ttgir(text, name), name)


def run_file(name):
    path = FIXTURES / name
    return kernel_checks(read_ttgir(path.read_text(), str(path)), str(path))


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


HEAD = ('module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "%s", '
        '"ttg.threads-per-warp" = 32 : i32} {\n')

TMEM = """
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
#scales = #ttng.tensor_memory_scales_encoding<>
#s0 = #ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = false, elementBitWidth = 8}>
#s128 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 8}>
#smem = #ttg.shared_memory
""" + HEAD % "cuda:100" + """  tt.func @k(%a: !ttg.memdesc<128x4xi8, #s0, #smem>, %b: !ttg.memdesc<128x4xi8, #s128, #smem>) {
    %t = ttng.tmem_alloc : () -> !ttg.memdesc<128x256xf32, #tmem, #ttng.tensor_memory, mutable>
    %ok = ttng.tmem_subslice %t {N = 128 : i32} : !ttg.memdesc<128x256xf32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x64xf32, #tmem, #ttng.tensor_memory, mutable, 128x256>
    %bad = ttng.tmem_subslice %t {N = 96 : i32} : !ttg.memdesc<128x256xf32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x64xf32, #tmem, #ttng.tensor_memory, mutable, 128x256>
    %sc = ttng.tmem_alloc : () -> !ttg.memdesc<128x4xi8, #scales, #ttng.tensor_memory, mutable>
    ttng.tmem_copy %a, %sc : !ttg.memdesc<128x4xi8, #s0, #smem>, !ttg.memdesc<128x4xi8, #scales, #ttng.tensor_memory, mutable>
    ttng.tmem_copy %b, %sc : !ttg.memdesc<128x4xi8, #s128, #smem>, !ttg.memdesc<128x4xi8, #scales, #ttng.tensor_memory, mutable>
    tt.return
  }
}
"""


def test_tmem_views_module():
    rs = results(run_text(TMEM))
    got = [(ob.line, ob.property, r.status) for ob, r in rs]
    assert got == [(10, "tmem_subslice", "holds"), (11, "tmem_subslice", "fails"), (13, "tmem_copy", "holds"),
                   (14, "tmem_copy", "fails")], got
    assert "N = 96 is not a multiple of the result's width 64" in rs[1][1].explanation
    assert rs[0][1].details["tmem_col"] == 128
    assert "needs an unswizzled source" in rs[3][1].explanation


TDM = """
#pad = #ttg.padded_shared<[32:+4] {order = [1, 0], shape = [64, 64]}>
#sw = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
""" + HEAD % "hip:gfx1250" + """  tt.func @k(%d: !tt.tensordesc<64x64xf16, #pad>, %e: !tt.tensordesc<64x64xf16>) {
    %c0 = arith.constant 0 : i32
    %p = arith.constant 1 : i32
    %a = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #pad, #smem, mutable>
    %1 = amdg.async_tdm_copy_global_to_local %d[%c0, %c0] into %a, pred = %p : !tt.tensordesc<64x64xf16, #pad> -> !ttg.memdesc<64x64xf16, #pad, #smem, mutable>
    %b = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #sw, #smem, mutable>
    %2 = amdg.async_tdm_copy_global_to_local %e[%c0, %c0] into %b, pred = %p : !tt.tensordesc<64x64xf16> -> !ttg.memdesc<64x64xf16, #sw, #smem, mutable>
    tt.return
  }
}
"""


def test_tdm_module():
    rs = results(run_text(TDM))
    assert [(ob.op, r.status) for ob, r in rs] == [("amdg.async_tdm_copy_global_to_local", "holds"),
                                                   ("amdg.async_tdm_copy_global_to_local", "fails")]
    assert rs[0][1].details["pad_interval_dwords"] == 16 and rs[0][1].details["pad_amount_dwords"] == 2
    assert "TDM does not support swizzling (maxPhase 8)" in rs[1][1].explanation


def test_cli_reports_validate_and_name_the_rule(tmp_path):
    import json
    import subprocess
    import sys

    from checker.schema import Schema
    files = []
    for name, text in (("tmem.ttgir", TMEM), ("tdm.ttgir", TDM)):
        files.append(tmp_path / name)
        files[-1].write_text(text)
    files += [FIXTURES / "mxfp4_dot_scaled_gfx950.ttgir", FIXTURES / "gluon_smem_gather_sm90.ttgir"]
    for fmt in ("json", "text"):
        out = subprocess.run([sys.executable, "-m", "checker", "verify", *map(str, files), "--jobs", "1", "--format",
                              fmt, "--report-dir", str(tmp_path / fmt)], capture_output=True, text=True, cwd=ROOT)
        assert out.returncode == 1, out.stderr[-2000:]
    report = json.loads((tmp_path / "json" / "report.json").read_text())
    assert Schema.load("report.schema.json").validate(report) == []
    assert {c["property"] for c in report["checks"]} >= set(OPS)
    text = (tmp_path / "text" / "report.txt").read_text()
    assert "tmem_subslice" in text and "not a multiple of the result's width 64" in text
    assert "TDM does not support swizzling" in text
