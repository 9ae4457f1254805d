"""`layoutcheck run`, `checker.triton.install` and `pytest --layoutcheck` on kernels Triton compiles on CPU
(tests/triton/program.py: a Gluon and a plain Triton kernel, for NVIDIA and AMD targets)."""

import json
import os
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("triton")

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "tests" / "triton" / "program.py"
PROGRAM_REL = "tests/triton/program.py"


def marker_line(marker):
    for i, line in enumerate(PROGRAM.read_text().splitlines(), 1):
        if f"# {marker}" in line:
            return i
    raise AssertionError(marker)


def line_of(text):
    for i, line in enumerate(PROGRAM.read_text().splitlines(), 1):
        if text in line:
            return i
    raise AssertionError(text)


def env(tmp_path, **extra):
    e = dict(os.environ)
    e.update(TRITON_CACHE_DIR=str(tmp_path / "cache"), TRITON_DEFAULT_FP_FUSION="1", **extra)
    e["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + ([e["PYTHONPATH"]] if e.get("PYTHONPATH") else []))
    return e


def run(tmp_path, *args, targets=("cuda80", "gfx942"), **extra):
    cmd = [sys.executable, "-m", "checker", "run", *args, "--", sys.executable, PROGRAM_REL, *targets]
    return subprocess.run(cmd, cwd=ROOT, env=env(tmp_path, **extra), capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("run")
    return run(tmp, "--report-dir", str(tmp / "reports")), tmp


def findings(stderr):
    return [ln for ln in stderr.splitlines() if re.match(r"\S+:\d+(:\d+)?: (error|warning|note): ", ln)]


def test_diagnostics_at_the_python_lines(plain):
    done, _ = plain
    assert done.returncode == 0, done.stderr
    lines = findings(done.stderr)
    bank, convert, trans = marker_line("BANK_LINE"), marker_line("CONVERT_LINE"), line_of("tl.trans(x)")
    for mnemonic in ("STS.U16", "ds_write_b16"):          # cuda80 and gfx942
        assert any(ln.startswith(f"{PROGRAM_REL}:{bank}:5: warning: 8-way bank conflict ({mnemonic})")
                   and ln.endswith("[staged.ttgir:24: ttg.local_store]") for ln in lines), lines
    convert_notes = [ln for ln in lines if ln.startswith(f"{PROGRAM_REL}:{convert}:9: note: cta-level conversion")]
    assert len(convert_notes) == 2 and all("through shared memory" in ln and "ttg.convert_layout]" in ln
                                           for ln in convert_notes)
    trans_notes = [ln for ln in lines if ln.startswith(f"{PROGRAM_REL}:{trans}:") and "cta-level conversion" in ln]
    assert len(trans_notes) == 2 and all("[transpose.ttgir:" in ln for ln in trans_notes)
    assert not any(": error: " in ln for ln in lines)


def test_summary_and_reports(plain):
    done, tmp = plain
    head = next(ln for ln in done.stderr.splitlines() if "layoutcheck run:" in ln)
    assert re.search(r"layoutcheck run: 4 kernels verified \(4 compiled, 0 from Triton's cache\), \d+ checks: "
                     r"0 errors, 8 warnings, Triton 3\.9: installed", head), head      # per target: 2 bank, 2 global
    rows = [ln for ln in done.stderr.splitlines() if re.match(r"  (staged|transpose) ", ln)]
    assert [r.split()[:2] for r in rows] == [["staged", "cuda:80"], ["transpose", "cuda:80"],
                                             ["staged", "hip:gfx942"], ["transpose", "hip:gfx942"]]
    assert all("shared memory 8192 B (Triton: 8192 B)" in r for r in rows if "staged" in r)
    report = json.loads((tmp / "reports" / "report.json").read_text())
    assert (report["summary"]["triton_version"], report["summary"]["triton_version_reason"]) == ("3.9", "installed")
    assert report["summary"]["warnings"] == 8 and report["summary"]["failed"] == 0
    kernel_fits = [c for c in report["checks"] if c["property"] == "fits" and "kernel_bytes" in c["parameters"]]
    assert len(kernel_fits) == 4 and all(c["passed"] for c in kernel_fits)


def test_reports_name_kernels_by_name_and_target_not_by_cache_hash(plain):
    """Issue 27: the reports' files are the kernels' TTGIR copied into the report folder under readable names."""
    _, tmp = plain
    reports = tmp / "reports"
    copies = sorted(p.name for p in (reports / "kernels").iterdir())
    assert copies == ["staged.cuda80.ttgir", "staged.gfx942.ttgir", "transpose.cuda80.ttgir", "transpose.gfx942.ttgir"]
    report = json.loads((reports / "report.json").read_text())
    files = {c["source"]["file"] for c in report["checks"]}
    assert files == {str(reports / "kernels" / name) for name in copies}
    assert all(c["id"].startswith(c["source"]["file"] + ":") for c in report["checks"])
    assert {t["file"] for t in report["summary"]["ttgir"]} == files
    assert str(tmp / "cache") not in (reports / "report.txt").read_text()
    staged = (reports / "kernels" / "staged.cuda80.ttgir").read_text()
    assert "ttg.local_store" in staged and 'ttg.target = "cuda:80"' in staged


def test_two_kernels_of_one_name_and_target_keep_apart(tmp_path):
    from checker.integrations.triton import Kernel, kernel_files
    paths = []
    for i in range(2):
        paths.append(tmp_path / f"h{i}" / "k.ttgir")
        paths[-1].parent.mkdir()
        paths[-1].write_text(f"// kernel {i}\n")
    kernels = [Kernel("k", "hip:gfx950", str(p), f"{i}ABCDEFGHIJ", False, None, {"checks": []})
               for i, p in enumerate(paths)]
    names = kernel_files(kernels, str(tmp_path / "out"))
    assert names == {str(paths[0]): str(tmp_path / "out" / "k.gfx950.ttgir"),
                     str(paths[1]): str(tmp_path / "out" / "k.gfx950.1ABCDEFG.ttgir")}
    assert (tmp_path / "out" / "k.gfx950.1ABCDEFG.ttgir").read_text() == "// kernel 1\n"


def test_a_kernel_from_the_cache_is_located_in_the_program_as_it_is_now(tmp_path):
    """Issue 27: Triton's cache key ignores the program's path, so a program copied elsewhere gets the first
    compilation's TTGIR; its findings must still point at the file that ran, not at the old copy."""
    first, second = tmp_path / "first", tmp_path / "second"
    for folder in (first, second):
        folder.mkdir()
        (folder / "program.py").write_text(PROGRAM.read_text())
    bank = marker_line("BANK_LINE")
    for folder, compiled in ((first, 2), (second, 0)):
        cmd = [sys.executable, "-m", "checker", "run", "--", sys.executable, "program.py", "cuda80"]
        done = subprocess.run(cmd, cwd=folder, env=env(tmp_path), capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert f"({compiled} compiled, {2 - compiled} from Triton's cache)" in done.stderr
        lines = [ln for ln in findings(done.stderr) if "bank conflict (STS.U16)" in ln]
        assert [ln.split(": warning:")[0] for ln in lines] == [f"program.py:{bank}:5"], done.stderr


def test_relocation_leaves_ambiguous_and_foreign_locations_alone(tmp_path):
    from checker.integrations.triton import relocate_python
    new = tmp_path / "new"
    (new / "lib").mkdir(parents=True)
    (new / "k.py").write_text("")
    (new / "lib" / "helpers.py").write_text("")

    def report(*files):
        return {"checks": [{"source": {"python": {"file": f, "line": 1, "col": 1}}} for f in files]}

    r = report("/old/k.py", "/old/lib/helpers.py", "/old/lib/gone.py", "/usr/lib/triton/language/core.py")
    relocate_python(r, str(new / "k.py"))
    assert [c["source"]["python"]["file"] for c in r["checks"]] == [
        str(new / "k.py"), str(new / "lib" / "helpers.py"), "/old/lib/gone.py", "/usr/lib/triton/language/core.py"]
    r = report("/a/k.py", "/b/k.py")                      # two old copies: which one moved is unknown
    relocate_python(r, str(new / "k.py"))
    assert [c["source"]["python"]["file"] for c in r["checks"]] == ["/a/k.py", "/b/k.py"]


def test_werror_and_the_programs_own_status(tmp_path):
    done = run(tmp_path, "--werror", "--quiet", targets=("cuda80",))
    assert done.returncode == 1
    assert "layoutcheck run:" not in done.stderr           # --quiet: no summary
    done = run(tmp_path, targets=("cuda80",), PROGRAM_STATUS="3")
    assert done.returncode == 3                            # the program's status wins


def test_a_kernel_that_does_not_fit_is_an_error(tmp_path):
    done = run(tmp_path, targets=("cuda80",), PROGRAM_BIG="1")
    assert done.returncode == 1
    big = marker_line("BIG_LINE")
    lines = findings(done.stderr)
    assert any(ln.startswith(f"{PROGRAM_REL}:") and ": error: fits fails kernel: the kernel needs 262144 bytes"
               in ln and "[too_big.ttgir:" in ln for ln in lines), lines
    assert any(ln.startswith(f"{PROGRAM_REL}:{big}:") and ": error: fits fails" in ln for ln in lines), lines
    assert re.search(r"too_big +cuda:80 .*2 error\(s\), 2 warning\(s\), shared memory 262144 B \(Triton: 262144 B\)",
                     done.stderr)


def test_install_in_process(tmp_path, monkeypatch):
    import io

    import triton
    from triton.backends.compiler import GPUTarget

    import checker.triton
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "1")
    sys.path.insert(0, str(PROGRAM.parent))
    try:
        import program
    finally:
        sys.path.remove(str(PROGRAM.parent))
    out = io.StringIO()
    session = checker.triton.install(stream=out, report_dir=tmp_path / "reports")
    try:
        target = GPUTarget("cuda", 90, 32)
        triton.compile(program.triton_source(), target=target, options={"num_warps": 4})
        triton.compile(program.triton_source(), target=target, options={"num_warps": 4})    # cache hit: once
        triton.compile(program.gluon_source(32), target=target, options={"num_warps": 4})
    finally:
        checker.triton.uninstall()
    assert [k.name for k in session.kernels] == ["transpose", "staged"]
    assert session.warnings == 4 and session.errors == 0       # staged: 2 bank conflicts, 2 uncoalesced accesses
    assert session.exit_status() == 0 and session.exit_status(5) == 5
    assert f"program.py:{marker_line('BANK_LINE')}:5: warning: 8-way bank conflict" in out.getvalue()
    assert "layoutcheck run: 2 kernels verified" in out.getvalue()
    assert (tmp_path / "reports" / "report.json").exists()
    assert checker.triton.session() is None


PYTEST_FILE = textwrap.dedent('''
    import os, sys
    import triton
    from triton.backends.compiler import GPUTarget
    sys.path.insert(0, {folder!r})
    import program

    T = GPUTarget("cuda", 80, 32)

    def test_fine():
        triton.compile(program.triton_source(), target=T, options={{"num_warps": 4}})

    def test_conflicted():
        triton.compile(program.gluon_source(32), target=T, options={{"num_warps": 4}})

    def test_too_big():
        triton.compile(program.big_source(32), target=T, options={{"num_warps": 4}})
''')


def _plugin_installed() -> bool:
    """Whether pytest finds the plugin by its `pytest11` entry point (`pip install .`), as a user has it;
    an editable checkout without fresh metadata needs `-p checker.integrations.pytest_plugin` instead."""
    from importlib.metadata import entry_points
    return any(ep.value == "checker.integrations.pytest_plugin" for ep in entry_points(group="pytest11"))


def pytest_run(tmp_path, *args):
    test = tmp_path / "test_kernels.py"
    test.write_text(PYTEST_FILE.format(folder=str(PROGRAM.parent)))
    load = [] if _plugin_installed() else ["-p", "checker.integrations.pytest_plugin"]
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *load, str(test), *args]
    return subprocess.run(cmd, cwd=tmp_path, env=env(tmp_path), capture_output=True, text=True, timeout=300)


def test_pytest_plugin_fails_the_tests_whose_kernels_have_errors(tmp_path):
    done = pytest_run(tmp_path, "--layoutcheck")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed, 2 passed" in done.stdout
    assert "FAILED test_kernels.py::test_too_big" in done.stdout
    assert "fits fails kernel" in done.stdout
    assert "layoutcheck run: 3 kernels verified" in done.stdout


def test_pytest_plugin_werror_and_off(tmp_path):
    done = pytest_run(tmp_path, "--layoutcheck", "--layoutcheck-werror")
    assert "2 failed, 1 passed" in done.stdout, done.stdout
    done = pytest_run(tmp_path)                             # not asked: nothing checked
    assert done.returncode == 0 and "3 passed" in done.stdout and "layoutcheck" not in done.stdout


def test_pyproject_registers_the_plugin_and_the_extra():
    import tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["entry-points"]["pytest11"] == {"layoutcheck": "checker.integrations.pytest_plugin"}
    assert project["optional-dependencies"]["triton"] == ["triton==3.9.0"]


@pytest.mark.parametrize("args", [["run", "--", "python", "-c", "pass"],
                                  ["verify", "--differential", "specs/kernels/vector_add.cuda80.ttgir"]])
def test_without_triton_one_line_and_exit_2(args):
    code = ("import sys; sys.modules['triton'] = None; from checker.cli import main; "
            f"sys.exit(main({args!r}))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "needs Triton, which is not installed" in done.stderr
    code = ("import sys; sys.modules['triton'] = None; import checker.triton\n"
            "try:\n    checker.triton.install()\nexcept checker.CheckerError as e:\n    print(e)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "checker.triton needs Triton, which is not installed (pip install triton==3.9.0)"


def test_run_says_why_its_kernel_figure_is_not_tritons():
    from checker.integrations.triton import shared_mismatch
    report = {"checks": [{"id": "k.ttgir:5:tt.func:fits[kernel]", "details": {"kernel_bytes": 12288}}]}
    assert shared_mismatch(report, 12288, "k") is None
    assert shared_mismatch(report, None, "k") is None
    assert shared_mismatch(report, 8192, "k") == ("layoutcheck: kernel k: Triton allocated 8192 bytes of shared "
                                                  "memory, layoutcheck's model 12288: a difference the model does "
                                                  "not explain (please report it)")
    report["checks"][0]["details"]["uncertain"] = ["line 9: Triton inlines @f before allocating"]
    assert shared_mismatch(report, 8192, "k").endswith("model 12288: line 9: Triton inlines @f before allocating")


def test_run_says_why_its_tensor_memory_figure_is_not_tritons():
    from checker.integrations.triton import tmem_mismatch
    report = {"checks": [{"id": "k.ttgir:5:tt.func:fits[tensor_memory]", "details": {"tmem_size": 256}}]}
    assert tmem_mismatch(report, 256, "k") is None
    assert tmem_mismatch(report, None, "k") is None and tmem_mismatch(report, 0, "k") is None
    assert tmem_mismatch(report, 128, "k") == ("layoutcheck: kernel k: Triton allocated 128 columns of tensor "
                                               "memory, layoutcheck's model 256: a difference the model does not "
                                               "explain (please report it)")


def test_a_program_with_its_own_listener_is_still_verified_and_its_listener_still_called(tmp_path):
    """Issue 27, defect 6: the program's listener is chained, not allowed to switch layoutcheck off."""
    done = run(tmp_path, targets=("cuda80",), PROGRAM_LISTENER="1")
    assert done.returncode == 0, done.stderr
    assert "program listener saw 3 compilations" in done.stderr        # two kernels, then a cache hit
    assert re.search(r"layoutcheck run: 2 kernels verified \(2 compiled, 0 from Triton's cache\)", done.stderr)


def test_a_run_that_verifies_nothing_fails_and_leaves_no_stale_report(tmp_path):
    """Issue 27, defects 6 and 7: a gate never passes for having seen nothing; the (empty) reports replace an
    older run's."""
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "report.json").write_text('{"old": true}')
    done = run(tmp_path, "--report-dir", str(reports), targets=("cuda80",), PROGRAM_NOTHING="1")
    assert done.returncode == 1
    assert "layoutcheck run: error: no kernel was verified: the program compiled none with Triton" in done.stderr
    report = json.loads((reports / "report.json").read_text())
    assert report["summary"]["checks"] == 0 and "old" not in report


def test_a_program_dying_of_sigint_exits_130_under_run_as_alone(tmp_path):
    done = run(tmp_path, targets=("cuda80",), PROGRAM_SIGINT="1")
    assert done.returncode == 130, done.stderr
