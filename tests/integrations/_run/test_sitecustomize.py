"""checker/integrations/_run/sitecustomize.py, the start-up hook of a `layoutcheck run` child (on its PYTHONPATH):
it runs the sitecustomize it shadows; without $LAYOUTCHECK_RUN it installs nothing; a Python without Triton runs
the program silently; a listener that cannot be installed is one line on stderr, and the program still runs."""

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]
HOOK = ROOT / "checker" / "integrations" / "_run"
PROGRAM = "import sys; print('the program ran', 'checker.integrations.triton' in sys.modules)"


def child(tmp_path, run=None):
    """The program in a child whose PYTHONPATH starts with the hook, then a folder with another sitecustomize
    and a `triton` that cannot be imported, then the repository."""
    other = tmp_path / "other"
    (other / "triton").mkdir(parents=True, exist_ok=True)
    (other / "sitecustomize.py").write_text("import sys\nprint('the shadowed sitecustomize ran as', __name__, "
                                            "file=sys.stderr)\n")
    (other / "triton" / "__init__.py").write_text("raise ImportError('no Triton in this Python')\n")
    env = {k: v for k, v in os.environ.items() if k not in ("LAYOUTCHECK_RUN", "PYTHONPATH")}
    env["PYTHONPATH"] = os.pathsep.join(map(str, (HOOK, other, ROOT)))
    if run is not None:
        env["LAYOUTCHECK_RUN"] = run
    return subprocess.run([sys.executable, "-c", PROGRAM], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)


def test_without_the_variable_only_the_shadowed_sitecustomize_runs(tmp_path):
    done = child(tmp_path)
    assert (done.returncode, done.stdout) == (0, "the program ran False\n")
    assert done.stderr == "the shadowed sitecustomize ran as sitecustomize\n"


def test_a_python_without_triton_runs_the_program_silently(tmp_path):
    done = child(tmp_path, '{"record_dir": "%s"}' % (tmp_path / "records"))
    assert (done.returncode, done.stdout) == (0, "the program ran True\n")
    assert done.stderr == "the shadowed sitecustomize ran as sitecustomize\n"


def test_a_listener_that_cannot_be_installed_is_one_line(tmp_path):
    done = child(tmp_path, "not json")
    assert (done.returncode, done.stdout) == (0, "the program ran True\n")
    assert done.stderr.splitlines() == [
        "the shadowed sitecustomize ran as sitecustomize",
        "layoutcheck: the compilation listener could not be installed: JSONDecodeError: Expecting value: line 1 "
        "column 1 (char 0)"]
