"""The command line: outputs and exit codes of lower, show, prove and smt."""

import json

import pytest

import z3

from checker.cli import main

BLOCKED = "#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 2], order = [1, 0]}>"
DUP = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 2], order = [1, 0]}>"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_lower_json(capsys):
    code, out, _ = run(capsys, "lower", BLOCKED, "--shape", "16x16", "--json")
    assert code == 0
    assert json.loads(out) == {"bases": {"register": [[0, 1], [1, 0]],
                                         "lane": [[0, 2], [0, 4], [2, 0], [4, 0], [8, 0]],
                                         "warp": [[0, 8]], "block": []}, "out_dims": {"dim0": 16, "dim1": 16}}


def test_show_tensor_view_first_row(capsys):
    code, out, _ = run(capsys, "show", BLOCKED, "--shape", "16x16")
    assert code == 0
    assert out.splitlines()[0].startswith("[[ T0:0,  T0:1,  T1:0,  T1:1,")


def test_bad_input_is_one_line_exit_2(capsys):
    code, _, err = run(capsys, "lower", "#ttg.blocked<{sizePerThread = [2, 2]", "--shape", "16x16")
    assert code == 2 and err.count("\n") == 1 and err.startswith("layoutcheck: error:")
    code, _, err = run(capsys, "lower", BLOCKED, "--shape", "16xx")
    assert code == 2 and "16x16" in err
    code, _, err = run(capsys, "lower", BLOCKED, "--shape", "12x16")
    assert code == 2 and "power of two" in err


def test_prove_exit_codes_and_witness(capsys):
    code, out, _ = run(capsys, "prove", "surjective", BLOCKED, "--shape", "16x16")
    assert code == 0 and out.startswith("surjective: holds")
    # at 4x4 the 64 threads hold 16 elements: duplicated
    code, out, _ = run(capsys, "prove", "injective", DUP, "--shape", "4x4", "--json")
    res = json.loads(out)
    assert code == 1 and res["status"] == "fails" and res["counterexample"]["kind"] == "collision"


def test_smt_text_rechecks_in_z3(capsys, tmp_path):
    code, out, _ = run(capsys, "smt", "injective", DUP, "--shape", "4x4")
    assert code == 0 and "(check-sat)" in out
    s = z3.Solver()
    s.from_string(out)
    assert s.check() == z3.sat  # a model is a collision: not injective
    code, out, _ = run(capsys, "smt", "surjective", DUP, "--shape", "4x4")
    s = z3.Solver()
    s.from_string(out)
    assert s.check() == z3.unsat


def test_version_names_the_installed_package(capsys):
    import subprocess
    import sys
    from importlib.metadata import version
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out == f"layoutcheck {version('layoutcheck')}\n"
    out = subprocess.run([sys.executable, "-m", "checker", "--version"], capture_output=True, text=True)
    assert (out.returncode, out.stdout) == (0, f"layoutcheck {version('layoutcheck')}\n")
