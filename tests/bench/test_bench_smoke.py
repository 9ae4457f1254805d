"""The benchmark's smallest configuration runs and produces every section (no timing is asserted)."""

import json

import pytest

from bench import run


def test_quick_benchmark_writes_every_section(tmp_path):
    pytest.importorskip("matplotlib")
    assert run.main(["--quick", "--out", str(tmp_path), "--skip", "end_to_end", "scale_out"]) == 0
    result = json.loads((tmp_path / "latest.json").read_text())
    assert set(result) >= {"machine", "lowering", "proofs", "scaling", "targets"}
    families = result["lowering"]["families"]
    assert {"blocked", "nvmma_shared", "swizzled_shared", "nvidia_mma", "amd_mfma"} <= set(families)
    assert all(row["layoutcheck_cold"]["n"] == row["cases"] > 0 for row in families.values())
    for prop in ("surjective", "injective", "equivalent", "conversion", "bank_conflict_free"):
        assert result["proofs"][prop]["f2"]["n"] > 0 and result["proofs"][prop]["z3"]["n"] > 0
    rows = result["scaling"]["rows"]
    assert [r["log2_elements"] for r in rows[::5]] == [10, 12, 14]
    assert all(r["enumeration_agrees"] for r in rows)           # brute force reaches the engines' verdicts
    assert (tmp_path / "latest.md").read_text().startswith("# layoutcheck benchmark (quick run")
    assert (tmp_path / "scaling.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_end_to_end_sweep_spec_has_the_announced_size(tmp_path):
    from bench.sections import sweep_spec
    from checker.spec import load_spec
    path, n = sweep_spec(str(tmp_path), quick=False)
    assert n == 10080 and len(load_spec(path)) == 10080
