import json

import pytest

from checker.errors import CheckerError, InternalError
from checker.properties.result import Counterexample, EngineVerdict, Result, run_engines
from checker.verdict import Engines


def _cx(ok=True):
    return Counterexample("demo", {"value": 3}, lambda d: ok and d["value"] == 3)


def test_agreement_gives_the_f2_explanation_and_both_times():
    r = run_engines("demo", Engines("both"),
               {"f2": lambda: EngineVerdict("f2", "fails", counterexample=_cx(), explanation="why"),
                "z3": lambda: EngineVerdict("z3", "fails", counterexample=_cx(), explanation="model")})
    assert r.status == "fails" and r.explanation == "why" and r.counterexample.data == {"value": 3}
    assert set(r.seconds) == {"f2", "z3"} and all(t >= 0 for t in r.seconds.values())
    d = r.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["counterexample"] == {"kind": "demo", "value": 3}


def test_disagreement_is_an_internal_error_with_both_answers():
    with pytest.raises(InternalError) as e:
        run_engines("demo", Engines("both"), {"f2": lambda: EngineVerdict("f2", "holds", explanation="rank 6"),
                                "z3": lambda: EngineVerdict("z3", "fails", counterexample=_cx(), explanation="model")})
    assert "f2: holds (rank 6)" in str(e.value) and "z3: fails (model)" in str(e.value)


def test_witness_that_does_not_replay_is_an_internal_error():
    with pytest.raises(InternalError, match="does not replay"):
        run_engines("demo", Engines("z3"), {"z3": lambda: EngineVerdict("z3", "fails", counterexample=_cx(ok=False))})


def test_unknown_never_becomes_holds():
    r = run_engines("demo", Engines("both"), {"f2": lambda: EngineVerdict("f2", "holds", explanation="rank 6"),
                                "z3": lambda: EngineVerdict("z3", "unknown", explanation="timeout")})
    assert r.status == "unknown" and not r.holds
    assert r.explanation == "f2: holds (rank 6); z3: unknown (timeout)"


def test_bad_requests():
    with pytest.raises(CheckerError) as e:
        run_engines("demo", Engines("cvc5"), {})
    assert e.value.field == "engine"
    with pytest.raises(InternalError):
        EngineVerdict("f2", "fails")
    with pytest.raises(InternalError):
        EngineVerdict("f2", "maybe")


def test_result_is_true_exactly_when_it_holds_and_reads_in_one_line():
    import json
    import subprocess
    import sys

    import checker
    L = checker.lower(checker.parse_encoding("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], "
                                             "warpsPerCTA = [4, 1], order = [1, 0]}>"), [16, 16])
    broadcast = checker.prove.injective(L)
    covers = checker.prove.surjective(L, [16, 16])
    assert (bool(broadcast), bool(covers)) == (False, True)
    assert repr(broadcast) == ("<Result injective fails: lane=2 has a zero basis (a broadcast): indices lane=2 "
                               "and 0 hold (dim0=0, dim1=0)>")
    assert repr(covers) == ("<Result surjective holds: the bases span all 8 coordinate bits of the shape "
                            "(dim0=16, dim1=16)>")
    data = json.loads(json.dumps(broadcast.to_dict()))
    assert data["status"] == "fails" and data["counterexample"]["kind"] == "collision"
    assert json.loads(broadcast.to_json()) == data
    unknown = Result("injective", "unknown", {}, None, "z3: unknown (timeout)")
    assert not unknown and repr(unknown) == "<Result injective unknown: z3: unknown (timeout)>"
    # `checker.prove` after a plain `import checker`, in a fresh interpreter
    out = subprocess.run([sys.executable, "-c", "import checker; print(checker.prove.surjective.__name__)"],
                         capture_output=True, text=True, check=True).stdout
    assert out == "surjective\n"
