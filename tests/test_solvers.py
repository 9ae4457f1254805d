"""checker/solvers.py: Bitwuzla reading SMT-LIB2 text: sat with the model read back by symbol (quoted or not,
undeclared ones as 0), unsat, text it cannot read as an internal error, the engine it wraps renamed, and a
missing extra as one line. (Its agreement with F2 and Z3 on the corpus: tests/test_engine_all.py.)"""

import pathlib
import sys

import pytest

from checker import prove, smt, solvers
from checker.errors import CheckerError, InternalError
from checker.layout import LinearLayout
from checker.properties.result import EngineVerdict
from checker.smt import Answer, Obligation

needs_bitwuzla = pytest.mark.skipif(not solvers.available(), reason="bitwuzla (layoutcheck[solvers]) not installed")

SAT = """\
(set-logic QF_BV)
(declare-const x (_ BitVec 8))
(declare-const |a b| (_ BitVec 4))
(assert (= (bvadd x #x01) #x05))
(assert (= |a b| #x3))
"""
UNSAT = "(declare-const x (_ BitVec 8))\n(assert (= (bvmul x #x02) #x01))\n"      # 2x is even


@needs_bitwuzla
def test_a_model_is_read_back_by_symbol():
    assert solvers.solve_smtlib(SAT, {"x": "x", "ab": "|a b|", "quoted": "|x|", "y": "y"}) == Answer(
        "sat", {"x": 4, "ab": 3, "quoted": 4, "y": 0})                # y is not declared: unconstrained, 0
    assert solvers.solve_smtlib(UNSAT, {"x": "x"}) == Answer("unsat")
    assert solvers.solve_smtlib(UNSAT, {"x": "x"}, timeout_ms=5000) == Answer("unsat")


@needs_bitwuzla
def test_check_smtlib_from_scratch():
    assert solvers.check_smtlib(SAT) == "sat" and solvers.check_smtlib(UNSAT) == "unsat"
    with pytest.raises(InternalError) as e:
        solvers.check_smtlib("(assert (= y #x01))")
    assert str(e.value).startswith("bitwuzla cannot read the obligation's SMT-LIB2 text: ")
    assert "undefined symbol 'y'" in str(e.value)


@needs_bitwuzla
def test_solve_decides_an_obligation_through_its_smtlib_text():
    L = LinearLayout([("register", [(1,), (2,), (4,)])], [("dim0", 8)])
    ob = Obligation("t")
    k = ob.index(L, "k")
    ob.require(ob.image(L, k) == 6)
    assert solvers.solve(ob, None) == Answer("sat", {"k.register": 6})
    ob.require(ob.image(L, k) == 7)
    assert solvers.solve(ob, None).status == "unsat"


@needs_bitwuzla
def test_engine_names_the_second_solver():
    def z3_engine():                    # an engine names the solver in force (smt.solver_name), as smt.verdict does
        return EngineVerdict("z3", "holds", explanation=f"{smt.solver_name()} found no model; z3x and az3 stay")
    assert z3_engine().explanation == "z3 found no model; z3x and az3 stay"
    v = solvers.engine(z3_engine)()
    assert (v.engine, v.status, v.explanation) == ("bitwuzla", "holds", "bitwuzla found no model; z3x and az3 stay")
    assert smt.solver_name() == "z3"
    assert solvers.version().count(".") >= 1
    L = LinearLayout([("register", [(1,), (1,)])], [("dim0", 4)])
    r = prove.injective(L, engine="all")
    assert r.fails and r.verdicts["bitwuzla"].status == "fails" and r.verdicts["bitwuzla"].counterexample.replay()


def test_a_missing_second_solver_is_one_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "bitwuzla", None)                # import bitwuzla raises ImportError
    assert not solvers.available()
    with pytest.raises(CheckerError) as e:
        solvers.require()
    assert str(e.value) == ("field 'engine': --engine all needs the second SMT solver (bitwuzla), which is not "
                            "installed: pip install bitwuzla")


@pytest.fixture
def without_z3(monkeypatch):
    """A Python where the z3-solver package cannot be found (z3lib looks it up once)."""
    from checker import z3lib
    monkeypatch.setattr(z3lib, "installed", lambda: False)


MISSING_Z3 = ("--engine both needs Z3 (the z3-solver package), which is not installed: pip install z3-solver, or "
              "--engine f2")


def test_a_missing_z3_is_one_line_before_anything_is_read(without_z3, tmp_path):
    """checker.verify with an engine that runs Z3 refuses at once (every check used to fail with an internal error
    "No module named 'z3'"); --engine f2 needs no Z3 and runs."""
    import checker
    kernel = str(pathlib.Path(__file__).parent.parent / "specs" / "kernels" / "softmax.cuda80.ttgir")
    with pytest.raises(CheckerError) as e:
        checker.verify(kernel)
    assert e.value.message == MISSING_Z3 and e.value.field == "engine"
    report = checker.verify(kernel, engine="f2")
    assert report["summary"]["checks"] == 8 and report["summary"]["failed"] == 0


@pytest.mark.parametrize("command", [["verify", "specs/kernels/softmax.cuda80.ttgir"],
                                     ["prove", "surjective", "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = "
                                      "[32], warpsPerCTA = [4], order = [0]}>", "--shape", "128", "--engine", "z3"]])
def test_the_cli_says_so_in_one_line_and_exits_2(without_z3, command, capsys, monkeypatch):
    from checker.cli import main
    monkeypatch.chdir(pathlib.Path(__file__).parent.parent)
    assert main(command) == 2
    err = capsys.readouterr().err.strip().splitlines()
    engine = "z3" if "z3" in command else "both"
    assert err == [f"layoutcheck: error: field 'engine': {MISSING_Z3.replace('--engine both', f'--engine {engine}')}"]
