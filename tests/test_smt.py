import random

from checker import smt
from checker.layout import LinearLayout
from checker.properties.injective import injective
from checker.properties.surjective import surjective
from checker.padded import PaddedLayout

L = LinearLayout({"register": [(1, 0), (0, 3)], "lane": [(2, 1), (0, 0), (4, 2)], "warp": []},
                 [("dim0", 8), ("dim1", 4)])


def _evaluate(L, x):
    ob = smt.Obligation("eval")
    idx = ob.index(L, "x")
    out = ob.packed(L, "out")
    ob.require(out == ob.image(L, idx), *[idx[d] == x[d] for d in idx])
    return ob.solve(1000).values["out"]


def test_image_is_apply():
    rng = random.Random(7)
    for _ in range(20):
        x = {d: rng.randrange(L.in_dim_size(d)) for d in L.in_dims}
        c = L.apply(x)
        assert _evaluate(L, x) == L.pack_out([c["dim0"], c["dim1"]])


def test_index_has_no_variable_for_size_one_dims():
    ob = smt.Obligation("dims")
    assert set(ob.index(L, "x")) == {"register", "lane"}


def test_zero_width_value_is_zero():
    ob = smt.Obligation("empty")
    v = ob.var("v", 0)
    ob.require(v != 0)
    assert ob.solve(1000).status == "unsat"


def test_padded_offset_arithmetic():
    mem = PaddedLayout(LinearLayout({"offset": [(1 << k,) for k in range(8)]}, [("dim0", 256)]), (32, 8), (4, 1))
    for i in (0, 7, 8, 31, 32, 200, 255):
        ob = smt.Obligation("pad")
        x = ob.var("i", 8)
        out = ob.var("out", smt.WIDE)
        ob.require(x == i, out == smt.padded_offset(x, mem.intervals, mem.paddings))
        assert ob.solve(1000).values["out"] == mem.phys(i) == i + (i >> 5) * 4 + (i >> 3)


def test_smtlib_text_rechecks():
    from checker.properties.injective import obligation as inj_obligation
    from checker.properties.surjective import obligation as surj_obligation
    onto = LinearLayout({"register": [(1, 0), (0, 3)], "lane": [(2, 1), (0, 1), (4, 2)]}, [("dim0", 8), ("dim1", 4)])
    holds = surj_obligation(onto, {"dim0": 8, "dim1": 4})
    text = smt.to_smtlib(holds)
    assert text.startswith("; obligation surjective: sat = counterexample, unsat = the property holds")
    assert "(declare-fun surjective.coordinate () (_ BitVec 5))" in text and "(check-sat)" in text
    assert smt.check_smtlib(text) == "unsat"
    fails = inj_obligation("injective", L, False)
    assert smt.check_smtlib(smt.to_smtlib(fails)) == "sat"
    assert surjective(onto).holds and injective(L).fails and surjective(L).fails


def test_timeout_is_unknown_never_holds():
    rng = random.Random(1)
    dense = LinearLayout({"register": [(rng.randrange(1 << 24),) for _ in range(24)]}, [("dim0", 1 << 24)])
    r = injective(dense, timeout_ms=1)
    assert r.status == "unknown" and r.counterexample is None
    assert r.verdicts["f2"].status == "holds" and r.verdicts["z3"].status == "unknown"
    assert r.explanation.startswith("f2: holds") and "z3: unknown" in r.explanation
    assert injective(dense, engine="f2").holds
