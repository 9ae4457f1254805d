"""Closed-form lowering (checker/encodings/closed.py and each family's to_linear_layout) against the generic
composition kept as the reference (each family's *_generic method): bit for bit (in-dims, bases, out-dims and
their sizes), or the same error, for random valid parameters and shapes (hypothesis)."""

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from checker.encodings import lower
from checker.encodings.amd_mfma import MFMA_TILES, AmdMfmaEncoding
from checker.encodings.amd_wmma import WMMA_INSTR_SHAPES, AmdWmmaEncoding
from checker.encodings.blocked import BlockedEncoding
from checker.encodings.dot_operand import DotOperandEncoding
from checker.encodings.linear import LinearEncoding, check_permutation_matrix
from checker.encodings.nvidia_mma import NvidiaMmaEncoding
from checker.encodings.nvmma_shared import NvmmaSharedEncoding
from checker.encodings.shared_linear import SharedLinearEncoding
from checker.encodings.slice import SliceEncoding
from checker.encodings.swizzled_shared import SwizzledSharedEncoding
from checker.errors import CheckerError

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                             HealthCheck.filter_too_much])


def pow2(lo: int, hi: int):
    return st.integers(lo, hi).map(lambda e: 1 << e)


def pow2s(rank: int, lo: int = 0, hi: int = 3):
    return st.lists(pow2(lo, hi), min_size=rank, max_size=rank).map(tuple)


@st.composite
def cga(draw, rank: int):
    """Valid CGA bases: per dim the powers 1, 2, 4, ... in order, interleaved, with broadcast (zero) bases."""
    n = draw(st.integers(0, 3))
    count = [0] * rank
    out = []
    for _ in range(n):
        if out and draw(st.booleans()) and draw(st.booleans()):
            out.append((0,) * rank)
            continue
        d = draw(st.integers(0, rank - 1))
        b = [0] * rank
        b[d] = 1 << count[d]
        count[d] += 1
        out.append(tuple(b))
    return tuple(out)


def shapes(rank: int, hi: int = 9):
    return st.lists(pow2(0, hi), min_size=rank, max_size=rank).map(tuple)


def outcome(fn, shape):
    try:
        return fn(tuple(shape))
    except CheckerError as e:
        return (type(e).__name__, str(e))


def check(enc, shape):
    """Closed form == generic on an encoding that validates at a shape it accepts."""
    try:
        enc.validate()
        enc.check_shape(tuple(shape))
    except CheckerError:
        assume(False)
    closed = outcome(enc.to_linear_layout, shape)
    generic = outcome(enc.to_linear_layout_generic, shape)
    assert closed == generic
    if not isinstance(closed, tuple):
        assert closed.in_dims == generic.in_dims and closed.out_dim_sizes == generic.out_dim_sizes
        assert closed.bases == generic.bases


@st.composite
def blocked(draw, rank=None):
    r = rank or draw(st.integers(1, 3))
    return BlockedEncoding(draw(pow2s(r)), draw(pow2s(r, 0, 5)), draw(pow2s(r)),
                           tuple(draw(st.permutations(range(r)))), draw(cga(r)))


@st.composite
def nvidia_mma(draw, rank=None):
    v = draw(st.sampled_from((2, 3)))
    r = 2 if v == 3 else (rank or draw(st.integers(2, 3)))
    if v == 3:
        instr = (draw(st.sampled_from((16, 64))), draw(pow2(3, 8)), 16)
    else:
        instr = (1,) * (r - 2) + (draw(pow2(3, 6)), draw(pow2(3, 5)))
    return NvidiaMmaEncoding(v, 0, draw(pow2s(r)), instr, draw(cga(r)))


@st.composite
def amd_mfma(draw, rank=None):
    r = rank or draw(st.integers(2, 3))
    m, n = draw(st.sampled_from(MFMA_TILES))
    tiles = draw(st.one_of(st.just(()), pow2s(r, 0, 2)))
    return AmdMfmaEncoding(draw(st.integers(0, 4)), draw(pow2s(r)), (m, n, draw(pow2(2, 5))), draw(st.booleans()),
                           tiles, draw(st.sampled_from((32, 64))), draw(cga(r)))


def distributed(rank=None):
    return st.one_of(blocked(rank), nvidia_mma(rank), amd_mfma(rank))


@given(st.one_of(blocked(), nvidia_mma(), amd_mfma()).filter(lambda e: e.rank >= 2), st.data())
@SETTINGS
def test_slice(parent, data):
    enc = SliceEncoding(data.draw(st.integers(0, parent.rank - 1)), parent)
    check(enc, data.draw(shapes(enc.rank)))


@given(distributed().filter(lambda e: e.rank >= 2), st.integers(0, 1), st.data())
@SETTINGS
def test_dot_op(parent, op_idx, data):
    k_width = 0 if isinstance(parent, BlockedEncoding) else data.draw(pow2(0, 4))
    enc = DotOperandEncoding(op_idx, parent, k_width)
    check(enc, data.draw(shapes(enc.rank)))


@given(st.integers(1, 3).flatmap(lambda r: st.tuples(
    pow2(0, 4), st.integers(1, 8), st.integers(1, 16), st.permutations(range(r)).map(tuple), cga(r))), st.data())
@SETTINGS
def test_swizzled_shared(params, data):
    vec, per_phase, max_phase, order, cga_bases = params
    enc = SwizzledSharedEncoding(vec, per_phase, max_phase, order, cga_bases)
    check(enc, data.draw(shapes(enc.rank)))


@given(st.integers(1, 3).flatmap(lambda r: st.tuples(
    st.sampled_from((0, 32, 64, 128)), st.booleans(), st.sampled_from((4, 8, 16, 32, 64)), st.booleans(),
    st.just(r), cga(r))), st.data())
@SETTINGS
def test_nvmma_shared(params, data):
    enc = NvmmaSharedEncoding(*params)
    check(enc, data.draw(shapes(enc.rank)))


@st.composite
def permutation_bases(draw, rank: int, groups: int, bits: int = 3, zeros: int = 2):
    """`groups` lists of bases that together hold, per dim, the powers 1, 2, 4, ... (a random count of
    them), shuffled, with up to `zeros` zero (broadcast) bases: a permutation matrix once the zeros go."""
    every = [tuple(1 << j if k == d else 0 for k in range(rank))
             for d in range(rank) for j in range(draw(st.integers(0, bits)))]
    every += [(0,) * rank] * draw(st.integers(0, zeros))
    every = draw(st.permutations(every))
    cuts = sorted(draw(st.lists(st.integers(0, len(every)), min_size=groups - 1, max_size=groups - 1)))
    edges = [0, *cuts, len(every)]
    return tuple(tuple(every[a:b]) for a, b in zip(edges, edges[1:]))


@st.composite
def linear(draw):
    r = draw(st.integers(1, 3))
    return LinearEncoding(*draw(permutation_bases(r, 4)))


@st.composite
def amd_wmma(draw):
    v = draw(st.integers(1, 3))
    r = draw(st.integers(2, 3))
    regs, warps = draw(permutation_bases(r, 2, bits=2, zeros=1))
    return AmdWmmaEncoding(v, draw(st.booleans()), regs, warps, draw(st.sampled_from(WMMA_INSTR_SHAPES[v])),
                           draw(cga(r)), r)


@pytest.mark.parametrize("family", [blocked, nvidia_mma, amd_mfma, linear, amd_wmma], ids=lambda f: f.__name__)
@given(data=st.data())
@SETTINGS
def test_closed_form_is_the_composition(family, data):
    enc = data.draw(family())
    check(enc, data.draw(shapes(enc.rank)))


def outcome_of(fn):
    try:
        fn()
        return None
    except CheckerError as e:
        return (type(e).__name__, str(e))


small_bases = st.lists(st.lists(st.integers(0, 9), min_size=2, max_size=2).map(tuple), max_size=5).map(tuple)


@given(small_bases, small_bases, small_bases, small_bases)
@SETTINGS
def test_linear_validate_without_the_stored_layout(register, lane, warp, block):
    """The permutation test on the bases themselves gives validate's verdict and error of the stored layout."""
    enc = LinearEncoding(register, lane, warp, block)
    assert outcome_of(enc.validate) == outcome_of(
        lambda: check_permutation_matrix(enc, enc.stored_layout(), "a linear layout"))


@given(small_bases, small_bases)
@SETTINGS
def test_shared_linear_validate_without_the_stored_layout(offset, block):
    """Independent non-zero columns as many as the out bits <=> invertible once the zero bases go."""
    enc = SharedLinearEncoding(offset, block)

    def reference():
        L = enc.stored_layout()
        if not L.remove_zero_bases_along_dim("offset").remove_zero_bases_along_dim("block").is_invertible():
            raise enc.fail("offset", "the layout must be invertible after removing broadcast (zero) bases")
    assert outcome_of(enc.validate) == outcome_of(reference)


def test_lower_uses_the_closed_form():
    enc = BlockedEncoding((1, 4), (4, 8), (4, 1), (1, 0))
    assert lower(enc, [64, 64]) == enc.to_linear_layout_generic((64, 64))


@given(small_bases, small_bases, st.booleans())
@SETTINGS
def test_amd_wmma_validate_without_the_cta_layout(register, warp, transposed):
    """Full rank of the packed ctaLayout columns <=> from_bases accepts the ctaLayout (it is surjective)."""
    from checker.encodings.cga import validate_cga
    enc = AmdWmmaEncoding(2, transposed, register, warp, (16, 16, 16), (), 2)

    def reference():
        enc.cta_layout()
        validate_cga(enc.cga_layout, enc.rank, enc.kind)
    assert outcome_of(enc.validate) == outcome_of(reference)


@st.composite
def slice_parent(draw):
    """A distributed encoding of rank >= 2 from any family: the closed-form slice relies on its lowering
    being surjective (`SliceEncoding.to_linear_layout` does not re-check)."""
    parent = draw(st.one_of(blocked(), nvidia_mma(), amd_mfma(), linear(), amd_wmma()).filter(lambda e: e.rank >= 2))
    wrap = draw(st.sampled_from(("none", "dot_op", "slice")))
    if wrap == "dot_op":
        return DotOperandEncoding(draw(st.integers(0, 1)), parent,
                                  0 if isinstance(parent, BlockedEncoding) else draw(pow2(0, 4)))
    if wrap == "slice" and parent.rank >= 3:
        return SliceEncoding(draw(st.integers(0, parent.rank - 1)), parent)
    return parent


@given(slice_parent(), st.data())
@SETTINGS
def test_slice_of_every_family_is_surjective(parent, data):
    enc = SliceEncoding(data.draw(st.integers(0, parent.rank - 1)), parent)
    shape = data.draw(shapes(enc.rank))
    check(enc, shape)
    L = outcome(lambda s: lower(enc, s), shape)
    assume(not isinstance(L, tuple))                # an encoding Triton rejects at this shape: check() compared
    assert L.is_surjective() and tuple(size for _, size in L.out_dim_sizes) == tuple(shape)
