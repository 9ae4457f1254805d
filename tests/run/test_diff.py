"""layoutcheck diff / checker.diff: two compiles of the same kernels compared, each change classed.

Fixtures: tests/versions/probes/<X.Y>/ (tools/probe_ttgir.py --public: the 86 sm90 probe kernels of
tests/versions/sm90_triton39_public.jsonl that its kernels can build, and the 8 whose shared-memory side is a
transposed matrix instruction, the held-back f16 row8 -> dot operand 1 case among them, as Triton 3.6 and 3.9
compile them), tests/versions/configs/ (a Triton
matmul with num_stages 3 and 4, tools/config_pair.py, with Triton's metadata.shared), the corpora.
"""

import json
import subprocess
import sys

import pytest

import checker
from checker.errors import CheckerError
from checker.run.diff import classify, exit_status
from tests.properties.smem.test_plan import _ptx_wavefronts
from tests.verify.conftest import ROOT
from tests.versions.conftest import load_version_jsonl

PROBES = ROOT / "tests" / "versions" / "probes"
CONFIGS = ROOT / "tests" / "versions" / "configs"


@pytest.fixture(scope="module")
def probes():
    return checker.diff(str(PROBES / "3.6"), str(PROBES / "3.9"), old_triton_version="3.6", new_triton_version="3.9",
                        engine="f2")


def _ptx(version, vid, side):
    rec = next(r for r in load_version_jsonl("ldst_matrix_rows", version) if r["id"] == vid)
    from checker.hardware import PRESETS
    hw = PRESETS["sm90"]
    return _ptx_wavefronts(rec[side]["addresses"], 16, True, None, hw.banks, hw.bank_bytes)


def test_probes_across_versions_report_exactly_the_accesses_whose_code_changed(probes):
    """The one side whose emitted addresses differ between Triton 3.6 and 3.9 (tests/versions/ldst_matrix_rows:
    every lane's address read off each version's PTX), with the figures of those addresses, and nothing else: on
    the public kernels the GPU measured the same wavefronts for both versions' code (test_silicon.py)."""
    s = probes["summary"]
    assert s["modules"] == {"matched": 94, "removed": [], "added": []}
    assert s["triton_versions"] == {"old": "3.6", "new": "3.9"}
    assert s["counts"] == {"regression": 0, "improvement": 1, "neutral": 0}
    (c,) = probes["changes"]
    vid = "gpu_bank_f16_64x64_row8_to_dot1_unswz_90"
    assert (c["op"], c["what"], c["old"], c["new"], c["class"]) == ("ttg.local_load", "wavefronts", 2048, 1024,
                                                                     "improvement")
    assert (c["old"], c["new"]) == (_ptx("3.6", vid, "load"), _ptx("3.9", vid, "load"))
    assert c["python"] == {"file": "tools/ldmatrix_rows.py", "line": 178, "col": 18}
    assert (c["ttgir_old"].endswith(f"probes/3.6/{vid}.ttgir:25")
            and c["ttgir_new"].endswith(f"probes/3.9/{vid}.ttgir:25"))
    changed = set()
    for r in load_version_jsonl("ldst_matrix_rows", "3.9"):
        if r["id"].startswith("gpu_") and "S" in (r.get("triton_ll") or {}):
            changed |= {(r["id"], side) for side in ("store", "load")
                        if _ptx("3.6", r["id"], side) != _ptx("3.9", r["id"], side)}
    assert changed == {(vid, "load")}


def test_a_diff_of_a_compile_with_itself_is_empty():
    for folder in (ROOT / "tests" / "versions" / "corpus" / "3.8", ROOT / "specs" / "kernels"):
        d = checker.diff(str(folder), str(folder), engine="f2")
        assert d["changes"] == [] and d["summary"]["modules"]["removed"] == [] == d["summary"]["modules"]["added"]
        assert d["summary"]["modules"]["matched"] >= 15 and exit_status(d, "change") == 0


def test_two_configs_give_each_sides_triton_shared_memory():
    d = checker.diff(str(CONFIGS / "matmul.s3"), str(CONFIGS / "matmul.s4"), engine="f2")
    shared = json.loads((CONFIGS / "shared.json").read_text())
    kernel = {c["target"]: (c["old"], c["new"]) for c in d["changes"] if c["what"] == "kernel_shared_bytes"}
    assert kernel == {t: (shared[f"matmul.s3/{n}.ttgir"], shared[f"matmul.s4/{n}.ttgir"])
                      for t, n in (("cuda:80", "cuda80"), ("cuda:90", "cuda90"))}
    assert all(c["class"] == "regression" for c in d["changes"] if c["what"] == "kernel_shared_bytes")
    added = [c for c in d["changes"] if c["what"] == "operation"]
    assert {(c["op"], c["new"]) for c in added} == {("ttg.async_copy_global_to_local", "added")}   # one more stage
    assert exit_status(d) == 1 and exit_status(d, "never") == 0


def test_classes():
    assert classify("wavefronts", 1024, 2048) == "regression" and classify("wavefronts", 2048, 1024) == "improvement"
    assert classify("level", "warp", "cta") == "regression" and classify("level", "cta", "register") == "improvement"
    assert classify("lowering", "shuffle", "shared") == "regression"
    assert (classify("warning", "holds", "fails") == "regression"
            and classify("error", "fails", "holds") == "improvement")
    assert classify("instruction", "ld.shared.b32", "ld.shared.b64") == "neutral"


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "checker", "diff", *args], capture_output=True, text=True, cwd=ROOT)


def test_cli_exit_codes_reports_and_bad_input(tmp_path):
    name = "gpu_bank_f16_64x64_row8_to_dot1_unswz_90.ttgir"
    old, new = f"tests/versions/probes/3.6/{name}", f"tests/versions/probes/3.9/{name}"
    done = _cli(old, new, "--old-triton-version", "3.6", "--new-triton-version", "3.9", "--engine", "f2",
                "--report-dir", str(tmp_path), "--format", "text,json,md,html")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == ("layoutcheck diff: 1 module(s) matched: 0 regression(s), 1 improvement(s), "
                                           "0 neutral change(s) (Triton 3.6 -> 3.9)")
    assert done.stdout.splitlines()[1].startswith(
        "tools/ldmatrix_rows.py:178:18: improvement: ttg.local_load: wavefronts: 2048 -> 1024 (ldmatrix.x4.trans")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["diff.html", "diff.json", "diff.md", "diff.txt"]
    assert json.loads((tmp_path / "diff.json").read_text())["summary"]["counts"]["improvement"] == 1
    assert "| improvement | `tools/ldmatrix_rows.py:178:18` | ttg.local_load | wavefronts | 2048 | 1024 |" in \
        (tmp_path / "diff.md").read_text()
    back = _cli(new, old, "--old-triton-version", "3.9", "--new-triton-version", "3.6", "--engine", "f2")
    assert back.returncode == 1 and ": regression: ttg.local_load: wavefronts: 1024 -> 2048" in back.stdout
    assert _cli(new, old, "--old-triton-version", "3.9", "--new-triton-version", "3.6", "--engine", "f2",
                "--fail-on", "never").returncode == 0
    bad = _cli(old, "nowhere/")
    assert (bad.returncode, bad.stdout, bad.stderr) == (2, "", "layoutcheck: error: nowhere/: no such file or folder\n")
    bad = _cli(old, new, "--fail-on", "sometimes")
    assert bad.returncode == 2 and bad.stderr == ("layoutcheck: error: argument --fail-on: must be one of regression, "
                                                  "change, never, got 'sometimes'\n")
    bad = _cli(old, new, "--new-triton-version", "2.0")
    assert bad.returncode == 2 and "Triton 2.0 is not modelled" in bad.stderr and "--new-triton-version" in bad.stderr


def test_the_api_refuses_bad_arguments():
    with pytest.raises(CheckerError, match="engine must be"):
        checker.diff(str(PROBES / "3.6"), str(PROBES / "3.9"), engine="magic")
    with pytest.raises(CheckerError, match="give the old side's TTGIR files or folders"):
        checker.diff([], str(PROBES / "3.9"))


def test_a_library_installed_beside_each_triton_is_one_file():
    """Kernels of a package installed in each side's environment (a virtual environment per Triton) carry that
    environment's path in their locations: the diff knows the file by its path inside site-packages."""
    from checker.run.diff import _op_key, installed_path
    assert installed_path("/venv-3.8/lib/python3.11/site-packages/liger_kernel/ops/rms_norm.py") == \
        "liger_kernel/ops/rms_norm.py" == installed_path("/opt/venv-3.9/lib/python3.12/site-packages/"
                                                         "liger_kernel/ops/rms_norm.py")
    assert installed_path("/usr/lib/python3/dist-packages/pkg/k.py") == "pkg/k.py"
    assert installed_path("tools/ldmatrix_rows.py") == "tools/ldmatrix_rows.py"      # a project file: as it is
    rec = {"source": {"op": "ttg.local_load", "python": {"file": "/a/site-packages/p/k.py", "line": 7, "col": 3}}}
    assert _op_key(rec) == ("p/k.py", 7, "ttg.local_load")


def test_two_environments_paths_pair_the_same_operations(tmp_path):
    """The same compile under two environments' site-packages paths: every operation pairs, nothing changes."""
    sides = {}
    for side, prefix in (("old", "/venv-a/lib/python3.11/site-packages/"),
                         ("new", "/venv-b/lib/python3.12/site-packages/")):
        folder = tmp_path / side
        folder.mkdir()
        for f in sorted((PROBES / "3.9").glob("gpu_bank_f16_64x64_*.ttgir"))[:4]:
            (folder / f.name).write_text(f.read_text().replace('loc("tools/', f'loc("{prefix}probes/'))
        sides[side] = str(folder)
    d = checker.diff(sides["old"], sides["new"], engine="f2")
    assert d["summary"]["modules"]["matched"] == 4 and d["changes"] == []


def test_more_tensor_memory_is_a_regression(tmp_path):
    """Three 128x256 f32 TMEM buffers (768 columns) against two (512): the kernel's tensor memory changes, a
    regression one way, an improvement the other."""
    three = (ROOT / "tests" / "allocation" / "tmem_over_capacity.ttgir").read_text()
    for side, text in (("old", three.replace("3x128x256xf32", "2x128x256xf32")), ("new", three)):
        (tmp_path / side).mkdir()
        (tmp_path / side / "k.ttgir").write_text(text)
    d = checker.diff(str(tmp_path / "old"), str(tmp_path / "new"), engine="f2")
    tmem = [(c["old"], c["new"], c["class"]) for c in d["changes"] if c["what"] == "kernel_tmem_columns"]
    assert tmem == [(512, 768, "regression")]
    back = checker.diff(str(tmp_path / "new"), str(tmp_path / "old"), engine="f2")
    assert [(c["old"], c["new"], c["class"]) for c in back["changes"] if c["what"] == "kernel_tmem_columns"] == [
        (768, 512, "improvement")]
