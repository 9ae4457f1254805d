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


_BLOCKED = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
_SHARED = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"


@pytest.mark.parametrize("argv, message", [
    (["prove", "invertible", _BLOCKED, "--shape", "64x64"],
     "field 'layouts': invertible's first layout (layout) must be shared, got a distributed one (#blocked)"),
    (["prove", "fits", _BLOCKED, "--shape", "64x64", "--dtype-bits", "16"],
     "field 'layouts': fits's first layout (layout) must be shared, got a distributed one (#blocked)"),
    (["prove", "conversion", _BLOCKED, _SHARED, "--shape", "64x64"],
     "field 'layouts': conversion's second layout (dst) must be distributed, got a shared one (#swizzled_shared)"),
    (["swizzle", _SHARED, _SHARED, "--shape", "64x64", "--dtype-bits", "16"],
     "field 'layouts': the store layout (the first) must be a register (distributed) layout, got a shared one "
     "(#swizzled_shared); give the shared layout in use with --current"),
    (["verify", ""], "field 'paths': an empty path names no file or folder"),
])
def test_a_layout_of_the_wrong_kind_or_an_empty_path_is_named(capsys, argv, message):
    """Issue 27, defect 9: the argument is named, not an in-dim the user never wrote."""
    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == f"layoutcheck: error: {message}"


def test_a_declaration_that_fails_at_lowering_names_its_file_and_line(capsys, tmp_path):
    enc = tmp_path / "enc.yaml"
    enc.write_text("version: 1\nencodings:\n\n  nv:\n    kind: nvmma_shared\n    swizzling_byte_width: 128\n"
                   "    transposed: false\n    element_bit_width: 16\n")
    assert main(["lower", "--file", str(enc), "--name", "nv", "--shape", "4x4"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"layoutcheck: error: {enc}:4: field 'shape': nvmma_shared: block shape along the "
                          "contiguous dimension 1 is too small")


def test_an_operand_error_names_the_layout_on_the_command_line(capsys):
    wave64 = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
    assert main(["prove", "bank_conflict_free", wave64, _SHARED, "--shape", "64x64", "--dtype-bits", "16"]) == 2
    assert capsys.readouterr().err.strip() == ("layoutcheck: error: field 'layouts': the first layout (reg): R has 64 "
                                               "lanes; sm90 has warps of 32")


def test_text_mixing_two_releases_names_its_argument(capsys):
    """Fuzz (swizzle #2429): a text whose marks contradict each other was refused without saying which argument."""
    mixed = ("#ttg.amd_wmma<{version = 2, isTranspose = true, ctaLayout = {warp = [[1, 0]]}, warpsPerCTA = [2, 1]}>")
    assert main(["lower", mixed, "--shape", "32x32"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("layoutcheck: error: field 'encoding': this text mixes the syntax of two Triton releases: ")
    assert err.count("\n") == 1


def test_a_module_with_problems_gets_its_one_line_without_version_notes(tmp_path, capsys):
    """Fuzz (ttgir #2487): the notes on the module's detected Triton version came before the error line of a
    module the reader could not read whole; the report's headline names the version."""
    path = tmp_path / "k.ttgir"
    path.write_text('#loc = loc("k.py":1:1)\n'
                    'module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {\n'
                    '  tt.func @k() {\n    tt.return\n  }\n}\n}\n')
    assert main(["verify", str(path), "--quiet", "--report-dir", str(tmp_path / "r")]) == 2
    out, err = capsys.readouterr()
    assert err == f"layoutcheck: error: 1 problem(s) in the TTGIR input; first: {path}:7: '}}' closes no region or " \
                  "bracket\n"
    assert "Triton 3.8: detected" in out.splitlines()[0]


def test_schema_prints_the_spec_schema_with_the_registrys_properties(capsys):
    code, out, _ = run(capsys, "schema", "spec")
    doc = json.loads(out)
    assert code == 0 and doc["$id"] == "spec.schema.json"
    assert doc["$defs"]["check"]["properties"]["prove"]["enum"][:3] == ["surjective", "injective",
                                                                       "injective_up_to_broadcast"]
    code, out, _ = run(capsys, "schema", "report")
    assert code == 0 and "matches_triton" in json.loads(out)["$defs"]["check"]["properties"]["property"]["enum"]
    with pytest.raises(SystemExit) as e:
        run(capsys, "schema", "specs")
    assert e.value.code == 2 and "invalid choice: 'specs'" in capsys.readouterr().err


def test_prove_coalesced_from_the_command_line(capsys):
    cols = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>"
    code, out, _ = run(capsys, "prove", "coalesced", cols, "--shape", "64x32", "--dtype-bits", "32",
                       "--direction", "store", "--json")
    got = json.loads(out)
    assert code == 1 and got["status"] == "fails" and got["counterexample"]["kind"] == "narrow_vector"
    assert (got["details"]["instruction"], got["details"]["sectors"], got["details"]["min_sectors"]) == (
        "st.global.b32", 512, 256)
    rows = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
    code, out, _ = run(capsys, "prove", "coalesced", rows, "--shape", "64x32", "--dtype-bits", "32")
    assert code == 0 and out == ("coalesced: holds\nld.global.v4.b32: 4-element vectors, the layout's most; 256 "
                                 "sectors in 16 requests, the minimum\n")
