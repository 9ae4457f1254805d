"""`layoutcheck verify kernel.ttgir`: checks derived from TTGIR, their findings, exit codes and --explain."""

import io
import json

import pytest

from checker import cli
from checker.hardware import PRESETS, hardware_for_target
from checker.registry import full_schema
from checker.syntax.ttgir import read_ttgir
from checker.ttgir.kernel import kernel_checks
from tests.verify.conftest import ROOT, verify  # noqa: F401  (verify: the CLI fixture)

TILE = "tests/verify/ttgir/ampere_tile.ttgir"
BROKEN = "tests/verify/ttgir/broken.ttgir"
MISMATCHED = "tests/verify/ttgir/mismatched.ttgir"


def checks_of(path):
    text = (ROOT / path).read_text()
    return kernel_checks(read_ttgir(text, path), path)


def by_id(report):
    return {c["id"]: c for c in report["checks"]}


@pytest.mark.parametrize("target, preset", [
    ("cuda:80", "sm80"), ("cuda:86", "sm80"), ("cuda:89", "sm80"), ("cuda:90", "sm90"), ("cuda:90a", "sm90"),
    ("cuda:100", "sm100"), ("hip:gfx942", "gfx942"), ("hip:gfx950", "gfx950"), ("hip:gfx1100", "gfx11"),
    ("hip:gfx1201", "gfx12"), ("cuda:75", None), ("hip:gfx90a", None), (None, None)])
def test_target_picks_the_hardware_preset(target, preset):
    hw = hardware_for_target(target)
    assert (hw.name if hw else None) == preset


def test_obligations_of_a_hand_written_ampere_tile():
    k = checks_of(TILE)
    ids = [ob.id for ob in k.obligations]
    assert len(ids) == len(set(ids)) == 37           # 36, and the whole kernel's shared memory (fits[kernel])
    assert f"{TILE}:10:tt.func:fits[kernel]" in ids
    # every distinct tensor type once, at its first use
    assert [i for i in ids if ":surjective[" in i] == [
        f"{TILE}:11:arith.constant:surjective[#mma 64x64]",
        f"{TILE}:12:tt.splat:surjective[#blocked 64x64]",
        f"{TILE}:15:ttg.local_load:surjective[#ttg.dot_op<{{opIdx=0,parent=#mma,kWidth=2}}> 64x64]",
        f"{TILE}:16:ttg.local_load:surjective[#ttg.dot_op<{{opIdx=1,parent=#mma,kWidth=2}}> 64x64]",
        f"{TILE}:23:ttg.convert_layout:surjective[#blocked1 64x64]"]
    # shared memdescs: the multi-buffered allocation is checked on its trailing 64x64, the view at 64x64
    assert [i for i in ids if ":invertible[" in i] == [
        f"{TILE}:14:ttg.local_alloc:invertible[#shared 64x64]",
        f"{TILE}:17:ttg.local_alloc:invertible[#swizzled 64x64]"]
    fits = {ob.line: dict(ob.params) for ob in k.obligations if ob.property == "fits" and ob.operands}
    assert 14 not in fits     # only a dot nobody reads uses buffer 14: Triton erases it (skipped, its reason)
    assert [(x["line"], x["check"]) for x in k.skips] == [(14, "fits")]
    assert fits[17]["buffers"] == 2 and fits[17]["capacity_bytes"] == 163 * 1024 // 2
    banks = [(ob.line, ob.op, ob.param("direction"), ob.severity) for ob in k.obligations
             if ob.property == "bank_conflict_free"]
    assert banks == [(14, "ttg.local_alloc", "store", "warning"), (15, "ttg.local_load", "load", "warning"),
                     (16, "ttg.local_load", "load", "warning"), (20, "ttg.local_store", "store", "warning"),
                     (21, "ttg.local_load", "load", "warning")]
    aligned = [(ob.line, ob.param("direction"), ob.severity) for ob in k.obligations if ob.property == "aligned_access"]
    assert aligned == [(14, "store", "error"), (15, "load", "error"), (16, "load", "error"), (20, "store", "error"),
                       (21, "load", "error")]
    assert [(ob.line, ob.property) for ob in k.obligations if ob.property in ("conversion", "dot_operands")] == [
        (22, "dot_operands"), (23, "conversion"), (24, "conversion")]
    assert all(ob.hardware is PRESETS["sm80"] for ob in k.obligations)
    s = k.summary()
    assert s["checked_operations"] == 11 and s["problems"] == []    # memdesc_index: a view, checked as one
    assert s["skipped_operations"] == {"arith.constant": 2, "tt.func": 1, "tt.return": 1, "tt.splat": 1}
    load = next(ob for ob in k.obligations if ob.property == "coalesced")   # through a splat pointer: a broadcast
    assert (load.line, load.op, load.severity) == (13, "tt.load", "warning")
    assert s["modules"] == [{"line": 9, "target": "cuda:80", "num_warps": 4, "threads_per_warp": 32, "num_ctas": 1,
                             "hardware": "sm80", "triton_version": {"version": "3.9", "reason": "default",
                                                                   "detail": ""}}]


def test_verify_tile_findings_read_like_compiler_diagnostics(verify):
    rc, out, err, reports = verify(TILE)
    assert rc == 0, out + err                       # bank conflicts are warnings
    assert out.splitlines()[0] == ("layoutcheck verify: 37 checks, 35 passed, 0 failed, 2 warnings "
                                   "(engine both, Triton 3.9: default)")
    assert [line for line in out.splitlines() if ": warning: " in line or ": note: " in line] == [   # warnings, notes
        f"{TILE}:15: ttg.local_load: warning: 8-way bank conflict (LDSM.16.M88.4): lanes 0 and 4 hit bank 0 "
        f"(addresses 0x0, 0x80); 1024 wavefronts where 128 would do; suggested shared layout "
        f"#ttg.swizzled_shared<{{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}}> (store + load: 1088 -> 192 "
        f"wavefronts, proven minimal)",
        f"{TILE}:16: ttg.local_load: warning: 4-way bank conflict (LDSM.16.MT88.4): lanes 0 and 1 hit bank 0 "
        f"(addresses 0x0, 0x100); 512 wavefronts where 128 would do; suggested shared layout "
        f"#ttg.swizzled_shared<{{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}}> (store + load: 576 -> 192 "
        f"wavefronts, proven minimal)",
        f"{TILE}:23: ttg.convert_layout: note: cta-level conversion #mma -> #blocked1: data moves between warps "
        f"(through shared memory); Triton emits a round trip through shared memory",
        f"{TILE}:24: ttg.convert_layout: note: register-level conversion #blocked1 -> #blocked1: every thread "
        f"already holds what it needs (register moves only); Triton emits nothing (the layouts are the same)"]
    report = json.loads((reports / "report.json").read_text())
    assert full_schema("report.schema.json").validate(report) == []
    checks = by_id(report)
    swizzled_load = checks[f"{TILE}:21:ttg.local_load:bank_conflict_free[#swizzled -> "
                           f"#ttg.dot_op<{{opIdx=1,parent=#mma,kWidth=2}}>]"]
    assert (swizzled_load["verdict"], swizzled_load["details"]["conflicts"]) == ("holds", 0)
    assert swizzled_load["source"] == {"file": TILE, "line": 21, "op": "ttg.local_load"}
    conflict = checks[f"{TILE}:15:ttg.local_load:bank_conflict_free[#shared -> "
                      f"#ttg.dot_op<{{opIdx=0,parent=#mma,kWidth=2}}>]"]
    assert (conflict["severity"], conflict["passed"], conflict["details"]["conflicts"]) == ("warning", False, 7)
    assert conflict["counterexample"]["accesses"][1]["lane"] == 4
    convert = checks[f"{TILE}:23:ttg.convert_layout:conversion[#mma -> #blocked1]"]
    assert (convert["details"]["level"], convert["details"]["triton_class"]) == ("cta", "shared_memory")
    s = report["summary"]
    assert (s["failed"], s["warnings"], s["properties"]["bank_conflict_free"]) == (
        0, 2, {"checks": 5, "passed": 3, "failed": 0, "warnings": 2})
    assert s["ttgir"][0]["file"] == TILE and s["ttgir"][0]["checked_operations"] == 11
    junit = (reports / "junit.xml").read_text()
    assert 'failures="0"' in junit and "warning: 8-way bank conflict (LDSM.16.M88.4)" in junit


def test_werror_turns_bank_conflicts_into_failures(verify):
    rc, out, err, _ = verify(TILE, "--werror")
    assert rc == 1
    assert out.splitlines()[0] == ("layoutcheck verify: 37 checks, 35 passed, 2 failed "
                                   "(engine both, Triton 3.9: default)")
    assert f"{TILE}:15: ttg.local_load: error: 8-way bank conflict" in out


def test_mismatched_dot_and_warp_count_are_errors(verify):
    rc, out, err, reports = verify(MISMATCHED)
    assert rc == 1
    errors = [
        f"{MISMATCHED}:11: tt.dot: error: dot_operands: B's parent is not the accumulator's encoding; kWidth "
        f"differs between A (2) and B (4)",
        f"{MISMATCHED}:12: arith.constant: error: well_formed #blocked8 64x64: the layout spans 8 warps but the "
        f"module has ttg.num-warps = 4"]
    assert out.splitlines()[2:4] == out.splitlines()[-3:-1] == errors          # first, and again in the recap
    checks = by_id(json.loads((reports / "report.json").read_text()))
    dot = checks[f"{MISMATCHED}:11:tt.dot:dot_operands"]
    assert dot["operands"]["b"].startswith("#ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 2")
    assert dot["parameters"] == {"a_shape": [64, 32], "b_shape": [32, 64]}


def test_bad_ttgir_reports_each_problem_with_its_line_and_checks_the_rest(verify):
    rc, out, err, reports = verify(BROKEN)
    assert rc == 2
    problems = [
        f"{BROKEN}:3: error: alias #bad: mismatched brackets",
        f"{BROKEN}:8: error: tt.load: unknown alias '#nowhere' (at column 1)",
        f"{BROKEN}:11: error: ttg.convert_layout: unbalanced brackets in type starting 'tensor<32x32xf32, "
        f"#ttg.blocked<{{sizePerT'"]
    assert out.splitlines()[2:6] == ["3 problem(s) in the TTGIR input (the rest was checked):"] + problems
    assert out.splitlines()[-4:-1] == problems                                  # again in the recap
    assert err.strip() == (f"layoutcheck: error: 3 problem(s) in the TTGIR input; first: {BROKEN}:3: "
                           f"alias #bad: mismatched brackets")
    report = json.loads((reports / "report.json").read_text())
    assert [c["source"]["line"] for c in report["checks"]] == [7, 7, 7, 9, 9, 9, 10, 10, 6]   # 6: fits[kernel]
    assert report["summary"]["ttgir"][0]["problems"][1] == {"line": 8, "message": "tt.load: unknown alias "
                                                                                  "'#nowhere' (at column 1)"}


def test_stdin_is_read_with_a_dash(verify, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO((ROOT / MISMATCHED).read_text()))
    rc, out, err, reports = verify("-")
    assert rc == 1
    assert "<stdin>:11: tt.dot: error: dot_operands:" in out


def test_hardware_option_overrides_the_target(verify):
    rc, out, err, reports = verify(TILE, "--hardware", "sm90")
    report = json.loads((reports / "report.json").read_text())
    assert {c["hardware"] for c in report["checks"]} == {"sm90"}
    assert by_id(report)[f"{TILE}:17:ttg.local_alloc:fits[#swizzled 2x64x64]"]["parameters"]["capacity_bytes"] == \
        227 * 1024 // 2                                     # double-buffered: each buffer gets half


def test_explain_prints_the_layouts_and_the_proof(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    rc = cli.main(["verify", TILE, "--explain", "15"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "== reg: #ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2" in out
    assert "== shared: #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}> at 64x64" in out
    assert "== ttg.local_load bank_conflict_free: fails (warning)" in out
    assert "   witness: (kind=bank_conflict, model=hardware, hardware=sm80, instruction=ldmatrix" in out
    assert "== ttg.local_load surjective: holds" in out


def test_explain_on_a_line_without_checks_is_bad_input(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    assert cli.main(["verify", TILE, "--explain", "1"]) == 2
    assert capsys.readouterr().err.strip() == (f"layoutcheck: error: {TILE}:1: field '--explain': no check is "
                                                f"derived from line 1")


PADDED = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#padded = #ttg.padded_shared<[64:+8] {order = [1, 0], shape = [64, 64]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "hip:gfx942", "ttg.threads-per-warp" = 64 : i32} {
  tt.func @k(%v: tensor<64x64xf16, #blocked>) {
    %0 = ttg.local_alloc %v : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #padded, #smem>
    tt.return
  }
}
"""


def test_padded_shared_gets_layout_fits_bank_and_alignment_checks():
    k = kernel_checks(read_ttgir(PADDED, "p.ttgir"), "p.ttgir")
    assert [(ob.line, ob.property, ob.severity) for ob in k.obligations if ob.property not in
            ("well_formed", "surjective", "injective_up_to_broadcast")] == [
        (6, "invertible", "error"), (6, "bank_conflict_free", "warning"), (6, "aligned_access", "warning"),
        (5, "fits", "error")]     # AMD's LDS serves a misaligned vector (split), NVIDIA faults; the last: the
    # whole kernel's shared memory, at its tt.func. Nothing reads the buffer, so Triton erases it: its own fits
    # is skipped with the reason (tests/allocation/lit: Triton allocates 0 bytes for such a module)
    assert k.summary()["skipped_checks"] == {"Triton erases this allocation before allocating shared memory "
                                             "(nothing that stays uses it): it takes no space": 1}
    assert all(ob.hardware is PRESETS["gfx942"] for ob in k.obligations)


def test_padded_shared_accesses_use_the_padded_addresses(verify, tmp_path):
    from checker import parse_encoding, prove
    R = parse_encoding("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], "
                       "order = [1, 0]}>")
    S = parse_encoding("#ttg.padded_shared<[64:+8] {order = [1, 0], shape = [64, 64]}>")
    r = prove.bank_conflict_free(R, S, [64, 64], 16, hardware="gfx942")
    assert r.holds and (r.details["mnemonic"], r.details["wavefronts"], r.details["min_wavefronts"]) == (
        "ds_write_b128", 64, 64)
    assert prove.aligned_access(R, S, [64, 64], "f16", hardware="gfx942").holds
    # 4 elements (8 bytes) of padding per 64-element row: row 1's 16-byte vector starts at byte 136
    (path := tmp_path / "p4.ttgir").write_text(PADDED.replace("[64:+8]", "[64:+4]"))
    rc, out, err, _ = verify(str(path))
    assert rc == 0                                        # gfx942: a warning (the LDS splits it)
    assert out.splitlines()[2] == (
        f"{path}:6: ttg.local_alloc: warning: misaligned 16-byte access (ds_write_b128): lane 8 register 0 of warp 0 "
        f"at offset 64 (slot 68) is byte 136, 8 past a 16-byte boundary (LDS serves it in the unaligned access "
        f"mode, split into smaller accesses)")
    nvidia = PADDED.replace("[64:+8]", "[64:+4]").replace('ttg.target = "hip:gfx942", "ttg.threads-per-warp" = 64',
                                                           'ttg.target = "cuda:90", "ttg.threads-per-warp" = 32')
    (path := tmp_path / "p4_sm90.ttgir").write_text(nvidia.replace("threadsPerWarp = [8, 8]",
                                                                   "threadsPerWarp = [4, 8]"))
    rc, out, err, _ = verify(str(path))
    assert rc == 1                                        # sm90: the same access faults
    assert out.splitlines()[2] == out.splitlines()[-2] == (                  # an error: first, and in the recap
        f"{path}:6: ttg.local_alloc: error: misaligned 16-byte access (STS.128): lane 8 register 0 of warp 0 "
        f"at offset 64 (slot 68) is byte 136, 8 past a 16-byte boundary (it faults: cudaErrorMisalignedAddress)")


def test_a_buffer_triton_erases_gets_no_fits_check():
    """tritongpu_to_llvm.mlir L549: a 128x16x32 buffer nothing live uses; Triton erases it before allocating
    (the kernel needs 0 bytes), so its per-allocation fits is skipped on its line with the reason, and the
    kernel's fits holds."""
    path = "tests/allocation/lit/Conversion_tritongpu_to_llvm_L549.ttgir"
    k = checks_of(path)
    assert [(ob.line, ob.property) for ob in k.obligations if ob.property == "fits"] == [(5, "fits")]
    assert [(s["line"], s["check"]) for s in k.skips] == [(8, "fits")]
    assert "Triton erases this allocation" in k.skips[0]["reason"]
