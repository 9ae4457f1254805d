"""Python source locations of TTGIR checks (report records and compiler-style diagnostics), and TTGIR of an
older Triton refused with exit 2."""

import json

from checker.registry import full_schema
from checker.reports.text import ir_diagnostics

FIXTURE = "tests/verify/ttgir/small_dot_locs.ttgir"     # Triton 3.9's asm["ttgir"], with its loc(...)
PY = "/tmp/locs/small_dot.py"


def test_checks_carry_the_python_location_of_their_operation(verify):
    rc, out, err, reports = verify(FIXTURE, "--engine", "f2")
    assert rc == 0
    report = json.loads((reports / "report.json").read_text())
    assert full_schema("report.schema.json").validate(report) == []
    by_id = {c["id"]: c for c in report["checks"]}
    convert = by_id[f"{FIXTURE}:67:ttg.convert_layout:conversion[#ttg.slice<{{dim=1,parent=#mma}}> -> #blocked1]"]
    assert convert["source"] == {"file": FIXTURE, "line": 67, "op": "ttg.convert_layout",
                                 "python": {"file": PY, "line": 21, "col": 5}}
    dot = by_id[f"{FIXTURE}:58:tt.dot:dot_operands"]
    assert dot["source"]["python"] == {"file": PY, "line": 18, "col": 9}
    loads = [c["source"] for c in report["checks"] if c["source"]["op"] == "ttg.local_load"]
    assert {(s["line"], s["python"]["line"]) for s in loads} == {(56, 16), (57, 17)}
    # arith.constant has loc(unknown): no python key
    const = [c["source"] for c in report["checks"] if c["source"]["op"] == "arith.constant"]
    assert const and all("python" not in s for s in const)
    assert f"{FIXTURE}:67 (small_dot.py:21:5): ttg.convert_layout: note: cta-level conversion" in out


def test_diagnostic_lines_name_the_python_location_when_known():
    def check(line, python=None):
        src = {"file": "k.ttgir", "line": line, "op": "ttg.local_load"}
        if python:
            src["python"] = python
        return {"id": "k.ttgir:1:ttg.local_load:bank_conflict_free[#s -> #r]", "property": "bank_conflict_free",
                "passed": False, "verdict": "fails", "severity": "warning", "source": src,
                "details": {"conflicts": 1, "mnemonic": "LDS.32", "wavefronts": 2, "min_wavefronts": 1},
                "counterexample": None}
    report = {"checks": [check(142, {"file": "/home/u/matmul.py", "line": 42, "col": 5}), check(150)]}
    assert ir_diagnostics(report) == [
        "k.ttgir:142 (matmul.py:42:5): ttg.local_load: warning: 2-way bank conflict (LDS.32); 2 wavefronts "
        "where 1 would do",
        "k.ttgir:150: ttg.local_load: warning: 2-way bank conflict (LDS.32); 2 wavefronts where 1 would do"]


OLD = """\
#blocked = #triton_gpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #triton_gpu.amd_mfma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [32, 32], \
isTransposed = true}>
#shared = #triton_gpu.shared<{vec = 4, perPhase = 1, maxPhase = 16, order = [1, 0], hasLeadingOffset = false}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, \
"triton_gpu.threads-per-warp" = 64 : i32} {
  tt.func public @k(%x: tensor<64x64xf16, #blocked>) {
    %0 = triton_gpu.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !tt.memdesc<64x64xf16, #shared, \
#triton_gpu.shared_memory>
    %1 = triton_gpu.local_load %0 : !tt.memdesc<64x64xf16, #shared, #triton_gpu.shared_memory> -> tensor<64x64xf16, \
#triton_gpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>>
    %2 = triton_gpu.convert_layout %x : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #mma>
    tt.return
  }
}
"""


def test_a_triton_3_1_module_is_refused_with_exit_2(verify, tmp_path):
    path = tmp_path / "old31.ttgir"
    path.write_text(OLD)
    rc, out, err, reports = verify(path)
    message = ("IR from an older Triton: '#triton_gpu.blocked' (the triton_gpu / triton_nvidia_gpu dialects are "
               "ttg / ttng since Triton 3.2); the module is not checked (compile it with a current Triton)")
    assert rc == 2
    assert out.splitlines()[0] == "layoutcheck verify: 0 checks, 0 passed, 0 failed (engine both, Triton 3.9: default)"
    assert f"{path}:1: error: {message}" in out.splitlines()
    from checker.errors import one_line  # the stderr line is at most 300 characters (issue 11)
    assert err.strip() == "layoutcheck: error: " + one_line(f"1 problem(s) in the TTGIR input; first: {path}:1: "
                                                            f"{message}")
