"""Op checks of NVIDIA ops (checker/ttgir/ops_nvidia.py) on kernels compiled by Triton 3.9 (CPU):
tests/verify/ttgir/blackwell_tma_matmul.ttgir (cuda:100: tcgen05.mma, TMEM, TMA) and
hopper_tma_matmul.ttgir (cuda:90: TMA), a tensor-descriptor matmul (tl.make_tensor_descriptor,
128x128x64 f16 tiles, 4 warps, 3 stages); and small modules that break one rule each."""

from collections import Counter

from checker.run.runner import evaluate
from checker.syntax.ttgir import read_ttgir
from checker.ttgir.kernel import kernel_checks
from tests.verify.conftest import ROOT

FIXTURES = ROOT / "tests" / "verify" / "ttgir"
OPS = ("tmem_access", "mma_operands", "tma_copy")


def results(kc):
    return [(ob, evaluate(ob)) for ob in kc.obligations if ob.property in OPS + ("surjective",)]


def run_file(name):
    path = FIXTURES / name
    return kernel_checks(read_ttgir(path.read_text(), str(path)), str(path))


def test_blackwell_kernel():
    kc = run_file("blackwell_tma_matmul.ttgir")
    rs = results(kc)
    assert all(r.status == "holds" for _, r in rs), [(ob.id, r.explanation) for ob, r in rs if r.status != "holds"]
    by = Counter((ob.property, ob.op) for ob, _ in rs if ob.property in OPS)
    assert by[("mma_operands", "ttng.tc_gen5_mma")] == 2
    assert by[("tmem_access", "ttng.tmem_load")] >= 1 and by[("tmem_access", "ttng.tmem_store")] >= 1
    assert by[("tma_copy", "ttng.async_tma_copy_global_to_local")] >= 2
    assert by[("tma_copy", "ttng.async_tma_copy_local_to_global")] == 1
    msgs = {r.details["message"] for ob, r in rs if ob.property == "tmem_access"}
    assert msgs == {"32x32b"}


def test_hopper_kernel():
    rs = results(run_file("hopper_tma_matmul.ttgir"))
    tma = [(ob, r) for ob, r in rs if ob.property == "tma_copy"]
    assert tma and all(r.status == "holds" for _, r in tma)
    assert {r.details["inner_box_bytes"] for _, r in tma} == {128}


BROKEN = """
#wcol = #ttg.blocked<{sizePerThread = [1, 32], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
#a = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#b = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16}>
#sw = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", \
"ttg.threads-per-warp" = 32 : i32} {
  tt.func @k(%d: !tt.tensordesc<128x64xf16, #a>, %x: !ttg.memdesc<128x64xf16, #a, #smem>, %y: !ttg.memdesc<64x128xf16, \
#b, #smem>, %bar: !ttg.memdesc<1xi64, #bar, #smem, mutable>) {
    %true = arith.constant true
    %c0 = arith.constant 0 : i32
    %acc = ttng.tmem_alloc : () -> !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>
    %v = ttng.tmem_load %acc : !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> -> tensor<128x128xf32, \
#wcol>
    ttng.tc_gen5_mma %x, %y, %acc, %true, %true : !ttg.memdesc<128x64xf16, #a, #smem>, !ttg.memdesc<64x128xf16, #b, \
#smem>, !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>
    %s = ttg.local_alloc : () -> !ttg.memdesc<128x64xf16, #sw, #smem, mutable>
    ttng.async_tma_copy_global_to_local %d[%c0, %c0] %s, %bar, %true : !tt.tensordesc<128x64xf16, #a>, \
!ttg.memdesc<1xi64, #bar, #smem, mutable> -> !ttg.memdesc<128x64xf16, #sw, #smem, mutable>
    tt.return
  }
}
"""


def test_broken_module():
    kc = kernel_checks(read_ttgir(BROKEN, "broken.ttgir"), "broken.ttgir")
    got = {ob.property: r for ob, r in results(kc) if ob.property in OPS}
    assert got["tmem_access"].status == "fails"
    assert "warps 1, 2 must hold TMEM rows 32, 64" in got["tmem_access"].explanation
    assert got["mma_operands"].status == "holds", got["mma_operands"].explanation
    assert got["tma_copy"].status == "fails"
    assert "nvmma_shared layout, got swizzled_shared" in got["tma_copy"].explanation


def test_cli_text_report_names_the_rule(tmp_path):
    import subprocess
    import sys
    f = tmp_path / "broken.ttgir"
    f.write_text(BROKEN)
    out = subprocess.run([sys.executable, "-m", "checker", "verify", str(f), "--jobs", "1", "--format", "text",
                          "--report-dir", str(tmp_path)], capture_output=True, text=True, cwd=ROOT)
    text = out.stdout + out.stderr
    assert out.returncode != 0
    assert "tmem_access" in text and "tma_copy" in text
