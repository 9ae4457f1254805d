"""Verdicts at the edges (issue 11): the API's layout_shape for surjective, and timeouts of 0 or less refused."""

import pytest

import checker
from checker import prove
from checker.cli import main
from checker.errors import CheckerError
from checker.layout import LinearLayout
from checker.verdict import Engines

BLOCKED = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>"
# one lane basis short of 8x8: dim0 = 4 is never reached (the 4x8 half is covered)
SHORT = LinearLayout({"register": [(0, 1), (1, 0)], "lane": [(0, 2), (0, 4), (2, 0), (0, 0)]},
                     [("dim0", 8), ("dim1", 8)])


# ---------------------------------------------------------------- surjective(L, shape, layout_shape=)


def test_a_layout_judged_over_another_shape_says_so():
    with pytest.raises(CheckerError) as info:
        prove.surjective(SHORT, [4, 8])
    assert info.value.field == "shape"
    assert str(info.value) == ("field 'shape': the layout is lowered at 8x8 but the shape is 4x8: judging a layout "
                               "over another shape than its own needs layout_shape=8x8")
    r = prove.surjective(SHORT, [4, 8], layout_shape=[8, 8])
    assert r.holds and r.details["shape"] == {"dim0": 4, "dim1": 8}
    assert r.details["layout_shape"] == {"dim0": 8, "dim1": 8}     # coordinates with dim0 >= 4 do not count
    assert prove.surjective(SHORT, [8, 8]).fails and "layout_shape" not in prove.surjective(SHORT).details
    with pytest.raises(CheckerError, match="layout_shape 16x8 is not the layout's own shape 8x8"):
        prove.surjective(SHORT, [4, 8], layout_shape=[16, 8])


def test_an_encoding_lowered_at_layout_shape_judged_over_shape():
    enc = checker.parse_encoding(BLOCKED)                      # a 8x4 tile of 32 lanes
    assert prove.surjective(enc, [8, 4]).holds
    r = prove.surjective(enc, [4, 4], layout_shape=[8, 4])     # the tile's upper half is covered
    assert r.holds and r.details["layout_shape"] == {"dim0": 8, "dim1": 4}
    r = prove.surjective(enc, [16, 4], layout_shape=[8, 4])    # rows 8..15 are held by nobody
    assert r.fails and r.counterexample.data["coordinate"] == {"dim0": 8, "dim1": 0}
    assert prove.surjective(enc, [16, 4]).holds                 # lowered at 16x4: Triton wraps the tile


# ---------------------------------------------------------------- timeouts


@pytest.mark.parametrize("bad", [0, -1, -10_000])
def test_api_refuses_a_timeout_of_zero_or_less(bad):
    L = LinearLayout({"register": [(1,)], "lane": [(2,)]}, [("dim0", 4)])
    calls = [lambda: prove.surjective(L, timeout_ms=bad), lambda: prove.injective(L, timeout_ms=bad),
             lambda: prove.equivalent(L, L, timeout_ms=bad), lambda: prove.conversion(L, L, timeout_ms=bad),
             lambda: prove.surjective(L, engine="f2", timeout_ms=bad)]
    for call in calls:
        with pytest.raises(CheckerError) as info:
            call()
        assert str(info.value) == f"field 'timeout_ms': must be a positive number of milliseconds, got {bad}"
    with pytest.raises(CheckerError, match="field 'timeout_ms'"):
        checker.verify("specs/kernels/matmul.cuda80.ttgir", timeout_ms=bad)


def test_none_is_no_limit_and_one_is_a_limit():
    L = LinearLayout({"register": [(1,)], "lane": [(2,)]}, [("dim0", 4)])
    assert prove.surjective(L, timeout_ms=None).holds and prove.surjective(L, timeout_ms=1).status in ("holds",
                                                                                                       "unknown")
    with pytest.raises(CheckerError, match="got True"):
        prove.surjective(L, timeout_ms=True)


def test_engines_and_registry_refuse_it_too():
    from checker import smt
    from checker.properties.surjective import surjective
    from checker.registry import PROPERTIES
    L = LinearLayout({"register": [(1,)], "lane": [(2,)]}, [("dim0", 4)])
    with pytest.raises(CheckerError, match="field 'timeout_ms'"):
        surjective(L, engines=Engines(timeout_ms=0))                             # Z3 would read 0 as no limit
    with pytest.raises(CheckerError, match="field 'timeout_ms'"):
        smt.check_smtlib("(check-sat)", timeout_ms=0)
    with pytest.raises(CheckerError, match="field 'timeout_ms'"):
        PROPERTIES["surjective"].run(None, "both", 0)


@pytest.mark.parametrize("value", ["0", "-3"])
def test_cli_prove_refuses_it(capsys, value):
    code = main(["prove", "surjective", BLOCKED, "--shape", "8x4", "--timeout", value])
    _, err = capsys.readouterr()
    assert code == 2
    assert err == f"layoutcheck: error: field '--timeout': must be a positive number of milliseconds, got {value}\n"
