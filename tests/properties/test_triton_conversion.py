"""Triton's own view of a convert_layout: minimal conversion, triviality, class and lowering
(checker.properties.triton_conversion), on layouts Triton builds."""

from hypothesis import given, settings
from hypothesis import strategies as st

from checker import lower, parse_encoding
from checker.layout import LinearLayout
from checker.properties import triton_conversion as tc

ROWS = lower(parse_encoding("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
                            "order = [1, 0]}>"), [32, 32])
COLS = lower(parse_encoding("#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], "
                            "order = [0, 1]}>"), [32, 32])


def test_a_transpose_across_warps_goes_through_shared_memory():
    comp = tc.minimal_conversion(ROWS, COLS)
    assert comp.in_dims == ("register", "lane", "warp") and not tc.is_trivial(comp)
    assert tc.classify(ROWS, COLS, comp) == ("shared_memory", None)
    assert tc.lowering(comp, "shared_memory") == "shared_memory"


def test_the_same_layout_needs_nothing():
    comp = tc.minimal_conversion(ROWS, ROWS)
    assert comp.in_dims == () and tc.is_trivial(comp)
    assert tc.lowering(comp, tc.classify(ROWS, ROWS, comp)[0]) == "none"


DIMS = ("register", "lane", "warp")


@st.composite
def compositions(draw):
    """Layouts from (register, lane, warp) to the same dims, as `minimal_conversion` composes them: some dims
    the identity onto themselves (so the quotient succeeds), the others random bases, some touching them."""
    sizes = {d: draw(st.integers(0, 3)) for d in DIMS}
    outs = [(d, 1 << draw(st.integers(0, 3))) for d in DIMS]
    identity = {d: draw(st.booleans()) for d in DIMS}
    bases = []
    for d in DIMS:
        k = DIMS.index(d)
        if identity[d] and 1 << sizes[d] == outs[k][1]:
            bases.append((d, [tuple(1 << i if j == k else 0 for j in range(3)) for i in range(sizes[d])]))
        else:
            bases.append((d, [tuple(draw(st.integers(0, s - 1)) for _, s in outs) for _ in range(sizes[d])]))
    return LinearLayout(bases, outs)


@settings(max_examples=400, deadline=None)
@given(comp=compositions(), dim=st.sampled_from(DIMS + ("block",)))
def test_the_quotient_read_off_the_bases_is_the_layouts_quotient(comp, dim):
    assert tc._quotient(comp, dim) == comp.quotient([dim])


def test_the_quotient_read_off_the_bases_on_a_trivial_and_a_touched_dim():
    swap = LinearLayout([("register", [(0, 1), (0, 2)]), ("lane", [(1, 0), (2, 0)])], [("register", 4), ("lane", 4)])
    assert tc._quotient(swap, "lane") is None and swap.quotient(["lane"]) is None    # lane goes to register
    ident = LinearLayout([("register", [(1, 0), (2, 0)]), ("lane", [(0, 1), (0, 2)])], [("register", 4), ("lane", 4)])
    assert tc._quotient(ident, "register") == LinearLayout([("lane", [(1,), (2,)])], [("lane", 4)])
    touched = LinearLayout([("register", [(1, 0)]), ("lane", [(1, 1)])], [("register", 2), ("lane", 2)])
    assert tc._quotient(touched, "register") is None             # lane's basis moves the register
