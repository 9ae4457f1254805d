"""Op checks of ttng.tmem_subslice / tmem_copy (checker/ttgir/ops_nvidia.py) on a small module that breaks one
rule each; and the reports of `layoutcheck verify` on the op checks of tt.dot_scaled, ttg.local_gather /
local_scatter, ttng.tmem_subslice / tmem_copy and amdg.async_tdm_copy_global_to_local (checker/ttgir/ops_common.py,
ttgir/ops_nvidia.py, ttgir/ops_amd.py; their own tests: tests/test_ttgir_ops_*.py)."""

from tests.ttgir.ops_cases import FIXTURES, OPS, TDM, TMEM, results, run_text

from .conftest import ROOT


def test_tmem_views_module():
    rs = results(run_text(TMEM))
    got = [(ob.line, ob.property, r.status) for ob, r in rs]
    assert got == [(10, "tmem_subslice", "holds"), (11, "tmem_subslice", "fails"), (13, "tmem_copy", "holds"),
                   (14, "tmem_copy", "fails")], got
    assert "N = 96 is not a multiple of the result's width 64" in rs[1][1].explanation
    assert rs[0][1].details["tmem_col"] == 128
    assert "needs an unswizzled source" in rs[3][1].explanation


def test_cli_reports_validate_and_name_the_rule(tmp_path):
    import json
    import subprocess
    import sys

    from checker.registry import full_schema
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
    assert full_schema("report.schema.json").validate(report) == []
    assert {c["property"] for c in report["checks"]} >= set(OPS)
    text = (tmp_path / "text" / "report.txt").read_text()
    assert "tmem_subslice" in text and "not a multiple of the result's width 64" in text
    assert "TDM does not support swizzling" in text
