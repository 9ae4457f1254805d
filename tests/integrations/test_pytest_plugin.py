"""checker/integrations/pytest_plugin.py in a pytest of its own: without --layoutcheck it does nothing; with it, each
test during which a kernel with errors was compiled fails with the kernel's findings (warnings too under
--layoutcheck-werror), the summary closes the session and the reports go to --layoutcheck-report-dir. The
kernels are "compiled" by calling the installed session's Triton listener with a TTGIR file, as
``triton.compile`` does (the real compiler: tests/test_triton.py)."""

import os
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("triton")

ROOT = pathlib.Path(__file__).resolve().parents[2]
WARNED = ROOT / "specs" / "kernels" / "matmul.gfx942.ttgir"        # three 2-way bank conflicts (warnings)
CLEAN = ROOT / "specs" / "kernels" / "vector_add.cuda80.ttgir"

TESTS = f'''
import checker.triton


def compiled(name, ttgir, hash):
    checker.triton.session().listener(metadata={{"name": name, "hash": hash, "target": ("hip", "gfx942")}},
                                      metadata_group={{name + ".ttgir": ttgir}})


def test_warned():
    compiled("matmul", {str(WARNED)!r}, "h1")


def test_clean():
    compiled("vector_add", {str(CLEAN)!r}, "h2")


def test_missing():
    compiled("gone", "/nonexistent/gone.ttgir", "h3")


def test_again():
    compiled("matmul", {str(WARNED)!r}, "h1")           # seen before: not verified again, still this test's


def test_nothing():
    pass
'''


def plugin_installed() -> bool:
    from importlib.metadata import entry_points
    return any(ep.value == "checker.integrations.pytest_plugin" for ep in entry_points(group="pytest11"))


def pytest_run(tmp_path, *args, prelude=""):
    (tmp_path / "test_kernels.py").write_text(TESTS)
    load = [] if plugin_installed() else ["-p", "checker.integrations.pytest_plugin"]
    code = prelude + "import sys, pytest; sys.exit(pytest.main(sys.argv[1:]))"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    return subprocess.run([sys.executable, "-c", code, "-q", "-p", "no:cacheprovider", *load, "test_kernels.py",
                           *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)


def test_off_unless_asked(tmp_path):
    done = pytest_run(tmp_path, "-k", "nothing")
    assert done.returncode == 0 and "1 passed" in done.stdout and "layoutcheck" not in done.stdout, done.stdout


def test_the_options_are_registered(tmp_path):
    done = pytest_run(tmp_path, "--help")
    help_text = " ".join(done.stdout.split())
    for option in ("--layoutcheck ", "--layoutcheck-werror", "--layoutcheck-report-dir=DIR",
                   "--layoutcheck-only=PATTERN", "--layoutcheck-differential"):
        assert option in help_text
    assert "verify the layouts of every Triton kernel compiled" in help_text


def test_a_kernel_with_errors_fails_its_test_and_the_summary_ends_the_session(tmp_path):
    done = pytest_run(tmp_path, "--layoutcheck", "--layoutcheck-report-dir", str(tmp_path / "reports"))
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "1 failed, 4 passed" in out and "FAILED test_kernels.py::test_missing" in out
    assert "layoutcheck: 1 kernel(s) compiled by this test have errors:" in out
    assert "  kernel gone (hip:gfx942): 0 error(s), 0 warning(s)" in out
    assert "    cannot verify kernel gone: /nonexistent/gone.ttgir: no such file or folder" in out
    summary = out[out.index("= layoutcheck ="):]
    assert summary.splitlines()[1].startswith(
        "layoutcheck run: 3 kernels verified (3 compiled, 0 from Triton's cache), 105 checks: 1 error, 4 warnings")
    assert "  matmul      hip:gfx942     98 checks  4 warning(s), shared memory 32768 B" in summary
    assert "  vector_add  hip:gfx942      7 checks  ok, shared memory 0 B" in summary
    assert "  gone        hip:gfx942      0 checks  not verified" in summary
    assert sorted(os.listdir(tmp_path / "reports")) == ["kernels", "report.json", "report.txt"]
    assert sorted(os.listdir(tmp_path / "reports" / "kernels")) == ["matmul.gfx942.ttgir", "vector_add.gfx942.ttgir"]
    assert (tmp_path / "reports" / "report.txt").read_text().startswith(
        "layoutcheck verify: 105 checks, 101 passed, 0 failed, 4 warnings (engine both, Triton 3.9: installed)")


def test_werror_fails_the_tests_that_compiled_a_warned_kernel(tmp_path):
    done = pytest_run(tmp_path, "--layoutcheck", "--layoutcheck-werror")
    out = done.stdout
    assert "3 failed, 2 passed" in out, out + done.stderr
    assert {line.split("::")[1].split()[0] for line in out.splitlines() if line.startswith("FAILED ")} == {
        "test_warned", "test_missing", "test_again"}
    assert "layoutcheck: 1 kernel(s) compiled by this test have errors or warnings:" in out
    assert "  kernel matmul (hip:gfx942): 4 error(s), 0 warning(s)" in out           # werror: warnings are errors
    assert f"    {WARNED.name}:84: ttg.local_store: error: 2-way bank conflict (ds_write2_b32)" in out


def test_only_selects_checks(tmp_path):
    done = pytest_run(tmp_path, "--layoutcheck", "--layoutcheck-only", "*:well_formed*", "-k", "warned or clean")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "layoutcheck run: 2 kernels verified (2 compiled, 0 from Triton's cache), 21 checks: 0 errors, " \
           "0 warnings" in done.stdout
    assert "  matmul      hip:gfx942     20 checks  ok" in done.stdout


def test_without_triton_it_is_a_usage_error(tmp_path):
    done = pytest_run(tmp_path, "--layoutcheck", prelude="import sys; sys.modules['triton'] = None; ")
    assert done.returncode == 4
    assert ("ERROR: --layoutcheck: checker.triton needs Triton, which is not installed "
            "(pip install triton==3.9.0)") in done.stderr
