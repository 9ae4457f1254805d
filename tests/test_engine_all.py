"""--engine all: F2, Z3 and Bitwuzla (layoutcheck[solvers]) agree on a slice of the conformance corpus and on
the bundled specs; Bitwuzla's models become replayed witnesses; a missing extra is one line, exit 2; a
disagreement is exit 3. The whole corpus: ``python -m tests.engines_all`` (docs/solvers.md)."""

import json
import subprocess
import sys

import pytest

import checker
from checker import prove, smt, solvers
from checker.cli import main
from checker.errors import CheckerError, InternalError
from checker.layout import LinearLayout
from checker.properties.result import engines_for

from . import engines_all

pytestmark = pytest.mark.skipif(not solvers.available(), reason="bitwuzla (layoutcheck[solvers]) not installed")

BLOCKED = "#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 2], order = [1, 0]}>"
ENC = checker.parse_encoding(BLOCKED)
SLICE = engines_all.corpus(every=60)


@pytest.mark.parametrize("item", SLICE, ids=[f"{stem}:{case.get('id', i)}" for i, (stem, case) in enumerate(SLICE)])
def test_corpus_slice_agrees(item):
    out = engines_all.run_case(item)
    assert not out["bad"], out["bad"]


def test_slice_covers_every_kind_of_check():
    props = {p for item in SLICE for p, _ in _safe_checks(item)}
    assert {"surjective", "injective", "injective_up_to_broadcast", "invertible", "fits", "equivalent",
            "conversion", "bank_conflict_free.store", "bank_conflict_free.load", "bank_conflict_free.triton",
            "aligned_access"} <= props


def _safe_checks(item):
    try:
        return list(engines_all.checks(*item))
    except CheckerError:
        return []


def test_three_verdicts_and_bitwuzla_witness_replays():
    r = prove.injective(ENC, [8, 8], engine="all")
    assert r.fails and set(r.verdicts) == {"f2", "z3", "bitwuzla"}
    v = r.verdicts["bitwuzla"]
    assert v.status == "fails" and v.counterexample.replay() and v.explanation.startswith("bitwuzla model")
    r = prove.surjective(LinearLayout([("register", [(1,)]), ("lane", [(2,)])], [("dim0", 8)]), engine="all")
    assert r.fails and r.verdicts["bitwuzla"].counterexample.kind == "missing_coordinate"
    assert r.verdicts["bitwuzla"].counterexample.replay()
    other = checker.parse_encoding("#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], "
                                   "warpsPerCTA = [2, 1], order = [0, 1]}>")
    r = prove.conversion(ENC, other, [16, 16], engine="all")
    assert set(r.verdicts) == {"f2", "z3", "bitwuzla"} and r.details["level"] == "cta"
    assert engines_for("all") == ("f2", "z3", "bitwuzla")


def test_bitwuzla_reads_what_layoutcheck_smt_writes(capsys):
    for prop, shape, want in (("injective", "8x8", "sat"), ("injective", "16x16", "unsat"),
                              ("surjective", "16x16", "unsat"), ("injective_up_to_broadcast", "8x8", "unsat")):
        assert main(["smt", prop, BLOCKED, "--shape", shape]) == 0
        text = capsys.readouterr().out
        assert solvers.check_smtlib(text) == want == smt.check_smtlib(text), prop
    assert "(and " not in _one_operand(text)


def _one_operand(text: str) -> str:
    """Lines with an `and`/`or` of one operand (SMT-LIB2 needs two), which Bitwuzla rejects."""
    import re
    return "\n".join(line for line in text.splitlines() if re.search(r"\((and|or) [^ ()]+\)", line))


def test_disagreement_is_an_internal_error(monkeypatch, capsys):
    monkeypatch.setattr(solvers, "solve", lambda ob, timeout_ms: smt.Answer("unsat"))
    with pytest.raises(InternalError, match="engines disagree"):
        prove.injective(ENC, [8, 8], engine="all")
    assert main(["prove", "injective", BLOCKED, "--shape", "8x8", "--engine", "all"]) == 3
    assert "engines disagree" in capsys.readouterr().err


def test_a_bad_model_does_not_replay(monkeypatch):
    monkeypatch.setattr(solvers, "solve", lambda ob, timeout_ms: smt.Answer("sat", {n: 0 for n in ob.symbols}))
    with pytest.raises(InternalError, match="bitwuzla counterexample .* does not replay"):
        prove.injective(ENC, [8, 8], engine="all")


def test_missing_extra_is_one_line_exit_2(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "bitwuzla", None)     # import bitwuzla raises ImportError
    assert not solvers.available()
    assert main(["prove", "injective", BLOCKED, "--shape", "16x16", "--engine", "all"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "pip install bitwuzla" in err
    assert main(["verify", "specs/", "--engine", "all", "--quiet", "--report-dir", "/nonexistent"]) == 2
    assert "pip install bitwuzla" in capsys.readouterr().err
    with pytest.raises(CheckerError, match="pip install bitwuzla"):
        prove.injective(ENC, [16, 16], engine="all")
    assert prove.injective(ENC, [16, 16], engine="both").holds     # the other engines do not need it


def test_verify_specs_engine_all(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "checker", "verify", "specs/", "--engine", "all", "--quiet",
                           "--jobs", "2", "--report-dir", str(tmp_path), "--format", "json"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads((tmp_path / "report.json").read_text())
    engines = [c["engines"] for c in report["checks"] if c["engines"]]
    assert engines and all(set(e) == {"f2", "z3", "bitwuzla"} and len(set(e.values())) == 1 for e in engines)


def test_model_values_read_back_by_symbol():
    L = LinearLayout([("register", [(1 << i,) for i in range(20)])], [("dim0", 1 << 20)])
    ob = smt.Obligation("t")
    k = ob.index(L, "k")
    ob.require(ob.image(L, k) == 5)
    assert solvers.solve(ob, 10_000).status == "sat"
    assert solvers.solve(ob, 10_000).values["k.register"] == 5
