"""checker/reports/run.py: what `layoutcheck run` and `checker.triton` print: each finding at its Python line
with the TTGIR line beside it (or at the TTGIR line when there is no Python location), and the summary."""

import copy
import os
from types import SimpleNamespace

from checker.reports.run import diagnostics, python_path, summary_lines

from .conftest import verified

CONVERT = "tests/corpus/gl_convert_f32_64x64.cuda80.ttgir"     # two cta-level conversions with loc(...)


def test_findings_at_the_python_line_with_the_ttgir_line_beside():
    found = diagnostics(verified(CONVERT), "convert.ttgir")
    assert found[:2] == [
        f"tools/corpus_kernels/gl_layouts.py:{py}:9: note: cta-level conversion {a} -> {b}: data moves between "
        f"warps (through shared memory); Triton emits a round trip through shared memory "
        f"[convert.ttgir:{line}: ttg.convert_layout]"
        for py, a, b, line in ((17, "#blocked", "#blocked1", 29), (18, "#blocked1", "#linear", 30))]
    # the last store goes out through the conversion's destination layout, across the contiguous dim
    assert found[2].startswith("tools/corpus_kernels/gl_layouts.py:26:5: warning: narrow store vectors (st.global.b32, "
                               "4 B per lane)") and found[2].endswith("[convert.ttgir:52: tt.store]")
    assert len(found) == 3


def test_without_a_python_location_the_ttgir_line(converted_report):
    assert diagnostics(converted_report, "matmul.ttgir") == [
        "matmul.ttgir:172: ttg.convert_layout: note: cta-level conversion #mma -> #blocked: data moves between warps "
        "(through shared memory); Triton emits a round trip through shared memory"]


def test_warnings_before_notes_on_a_line_and_problems_last(warned_report):
    assert [d.split(": warning: ")[0] for d in diagnostics(warned_report, "m.ttgir")] == [
        "m.ttgir:84: ttg.local_store", "m.ttgir:105: ttg.local_store", "m.ttgir:131: ttg.local_store",
        "m.ttgir:171: tt.store"]
    rep = copy.deepcopy(warned_report)
    warn = next(c for c in rep["checks"] if not c["passed"])
    note = dict(copy.deepcopy(warn), passed=True, verdict="holds", property="conversion", severity="error",
                id="m:84:ttg.local_store:conversion[#a -> #b]", details={"level": "cross_cta"})
    register = dict(note, details={"level": "register"})         # a conversion in registers is no finding
    err = dict(copy.deepcopy(warn), severity="error")
    rep["checks"] = [note, register, warn, err]
    rep["summary"]["ttgir"][0]["problems"] = [{"line": 3, "message": "alias #x: bad"}]
    lines = diagnostics(rep, "m.ttgir")
    assert [line.split(": ")[2] for line in lines[:3]] == ["error", "warning", "note"]
    assert lines[2].startswith("m.ttgir:84: ttg.local_store: note: cross_cta-level conversion #a -> #b: data moves "
                               "between CTAs")
    assert lines[3:] == ["m.ttgir:3: error: alias #x: bad"]


def test_python_path_is_relative_inside_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert python_path(str(tmp_path / "sub" / "k.py")) == os.path.join("sub", "k.py")
    assert python_path("/elsewhere/k.py") == "/elsewhere/k.py"


def kernel(name, target, report, *, cache_hit=False, errors=0, warnings=0, problem=None, shared=None):
    return SimpleNamespace(name=name, target=target, report=report, cache_hit=cache_hit, errors=errors,
                           warnings=warnings, problem=problem, shared=shared)


def test_summary_one_headline_then_a_line_per_kernel(converted_report, warned_report):
    kernels = [kernel("matmul_kernel", "cuda:80", converted_report, shared=32768),
               kernel("mm", "hip:gfx942", warned_report, cache_hit=True, warnings=3),
               kernel("broken", "cuda:90", {}, problem="cannot verify kernel broken: bad")]
    merged = {"summary": {"checks": 165, "triton_version": "3.9", "triton_version_reason": "installed"}}
    assert summary_lines(kernels, merged) == [
        "layoutcheck run: 3 kernels verified (2 compiled, 1 from Triton's cache), 165 checks: 1 error, 3 warnings, "
        "Triton 3.9: installed",
        "  matmul_kernel  cuda:80        84 checks  ok, shared memory 32768 B (Triton: 32768 B)",
        "  mm             hip:gfx942     98 checks  3 warning(s), shared memory 32768 B",
        "  broken         cuda:90         0 checks  not verified"]
    assert summary_lines([kernel("k", "cuda:80", {}, errors=1, warnings=1)], None) == [
        "layoutcheck run: 1 kernel verified (1 compiled, 0 from Triton's cache), 0 checks: 1 error, 1 warning",
        "  k  cuda:80         0 checks  1 error(s), 1 warning(s)"]
    assert summary_lines([], None) == [
        "layoutcheck run: 0 kernels verified (0 compiled, 0 from Triton's cache), 0 checks: 0 errors, 0 warnings"]


def test_a_blackwell_kernels_line_gives_its_tensor_memory_beside_tritons():
    rep = {"summary": {"checks": 2}, "checks": [
        {"property": "fits", "parameters": {"tmem_columns": 160, "tmem_size": 256}},
        {"property": "fits", "parameters": {"kernel_bytes": 4}}]}
    k = kernel("mm", "cuda:100", rep, shared=4)
    k.tmem_size = 256
    assert summary_lines([k], None)[1] == ("  mm  cuda:100        2 checks  ok, shared memory 4 B (Triton: 4 B), "
                                           "tensor memory 256 columns (Triton: 256)")
