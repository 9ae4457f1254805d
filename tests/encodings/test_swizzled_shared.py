"""Swizzled shared layouts: the five worked examples of TritonGPUAttrDefs.td, as exact offset tables."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.encodings import lower
from checker.encodings.swizzled_shared import SwizzledSharedEncoding
from checker.errors import CheckerError, EncodingError

from ..tables import stored_elements
from .test_closed import cga


@pytest.mark.parametrize("vec, per_phase, max_phase, shape, table", [
    (1, 1, 4, [4, 4], [[0, 1, 2, 3], [5, 4, 7, 6], [10, 11, 8, 9], [15, 14, 13, 12]]),
    (1, 2, 4, [4, 4], [[0, 1, 2, 3], [4, 5, 6, 7], [9, 8, 11, 10], [13, 12, 15, 14]]),
    (1, 1, 2, [8, 4], [[0, 1, 2, 3], [5, 4, 7, 6], [8, 9, 10, 11], [13, 12, 15, 14],
                       [16, 17, 18, 19], [21, 20, 23, 22], [24, 25, 26, 27], [29, 28, 31, 30]]),
    (1, 2, 2, [8, 4], [[0, 1, 2, 3], [4, 5, 6, 7], [9, 8, 11, 10], [13, 12, 15, 14],
                       [16, 17, 18, 19], [20, 21, 22, 23], [25, 24, 27, 26], [29, 28, 31, 30]]),
    (2, 1, 4, [4, 8], [[0, 1, 2, 3, 4, 5, 6, 7], [10, 11, 8, 9, 14, 15, 12, 13],
                       [20, 21, 22, 23, 16, 17, 18, 19], [30, 31, 28, 29, 26, 27, 24, 25]]),
], ids=["ex1-basic", "ex2-per-phase", "ex3-max-phase", "ex4-both", "ex5-vec"])
def test_td_examples(vec, per_phase, max_phase, shape, table):
    L = lower(SwizzledSharedEncoding(vec, per_phase, max_phase, (1, 0)), shape)
    assert stored_elements(L) == [e for row in table for e in row]
    assert L.is_invertible()


def test_example_5_formula():
    L = lower(SwizzledSharedEncoding(2, 1, 4, (1, 0)), [4, 8])
    flat = stored_elements(L)
    for r in range(4):
        for c in range(8):
            assert flat[r * 8 + c] == r * 8 + ((c // 2) ^ r) * 2 + c % 2


def test_rank3_and_column_major():
    L = lower(SwizzledSharedEncoding(2, 1, 4, (0, 1, 2)), [8, 4, 2])
    assert L.to_dict()["bases"]["offset"] == [[1, 0, 0], [2, 0, 0], [4, 0, 0], [2, 1, 0], [4, 2, 0], [0, 0, 1]]


@pytest.mark.parametrize("enc, field, message", [
    (SwizzledSharedEncoding(1, 0, 4, (1, 0)), "perPhase",
     "must be a positive integer (Triton's lowering divides by it), got 0"),
    (SwizzledSharedEncoding(1, 1, 0, (1, 0)), "maxPhase",
     "must be a positive integer (Triton's lowering divides by it), got 0"),
    (SwizzledSharedEncoding(-1, 1, 1, (1, 0)), "vec", "expected an unsigned integer value in vec, got -1"),
    (SwizzledSharedEncoding(1, -2, 1, (1, 0)), "perPhase", "expected an unsigned integer value in perPhase, got -2"),
    (SwizzledSharedEncoding(1, 1, -1, (1, 0)), "maxPhase", "expected an unsigned integer value in maxPhase, got -1"),
    (SwizzledSharedEncoding(1, 1, 1, (0, 0)), "order", None),
])
def test_rejected(enc, field, message):
    """Negative values: Triton's parser message; perPhase / maxPhase 0 pass Triton's verifier but crash its
    lowering (SIGFPE), so they are refused."""
    with pytest.raises(EncodingError) as info:
        lower(enc, [16, 16])
    assert info.value.field == field
    if message is not None:
        assert info.value.message == f"swizzled_shared: {message}"


# Triton 3.9's to_linear_layout (Gluon builder) at 16x16, order [1, 0]: vec = 0 is the identity, and
# non-powers of two are accepted and computed by the same formula (157 random cases, ranks 1-3, agree).
@pytest.mark.parametrize("text, offset", [
    ("#ttg.swizzled_shared<{vec = 0, perPhase = 1, maxPhase = 1, order = [1, 0]}>",
     [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 0], [8, 0]]),
    ("#ttg.swizzled_shared<{vec = 0, perPhase = 2, maxPhase = 3, order = [1, 0]}>",
     [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 0], [8, 0]]),
    ("#ttg.swizzled_shared<{vec = 3, perPhase = 3, maxPhase = 3, order = [1, 0]}>",
     [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 3], [8, 6]]),
    ("#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 3, order = [1, 0]}>",
     [[0, 1], [0, 2], [0, 4], [0, 8], [1, 2], [2, 4], [4, 2], [8, 4]]),
])
def test_what_triton_accepts_it_builds(text, offset):
    from checker import parse_encoding
    L = lower(parse_encoding(text), [16, 16])
    assert L.to_dict()["bases"] == {"offset": offset, "block": []}


def test_rank_mismatch_rejected():
    with pytest.raises(EncodingError, match="rank 3 but the encoding has rank 2"):
        lower(SwizzledSharedEncoding(2, 1, 4, (1, 0)), [16, 16, 2])


# ---------------------------------------------------------------- fast paths == reference

def _outcome(fn, *args):
    try:
        return fn(*args)
    except CheckerError as e:
        return (type(e).__name__, getattr(e, "field", None), str(e))


def _reference_validate(enc):
    """validate as first written: the unsigned reads, then validate_phases (vec, perPhase, maxPhase, order,
    CGA), one rule at a time."""
    for field, v in (("vec", enc.vec), ("perPhase", enc.per_phase), ("maxPhase", enc.max_phase)):
        if v < 0:
            raise enc.fail(field, f"expected an unsigned integer value in {field}, got {v}")
    enc.validate_phases(min_vec=0, why=" (Triton's lowering divides by it)")


@st.composite
def _cga(draw, rank, valid=True):
    """CGA bases: valid ones (per dim the powers 1, 2, 4, ... with broadcast zeros), or arbitrary small ones."""
    if not valid:
        return tuple(draw(st.lists(st.lists(st.integers(-1, 4), min_size=rank - 1, max_size=rank + 1).map(tuple),
                                   max_size=3)))
    return draw(cga(rank))


@st.composite
def _any_swizzled(draw):
    rank = draw(st.integers(1, 4))
    phase = st.integers(-2, 20)
    order = draw(st.one_of(st.permutations(range(rank)).map(tuple),
                           st.lists(st.integers(-1, rank), min_size=rank, max_size=rank).map(tuple)))
    return SwizzledSharedEncoding(draw(phase), draw(phase), draw(phase), order,
                                  draw(st.booleans().flatmap(lambda v: _cga(len(order), v))))


@given(_any_swizzled())
@settings(max_examples=400, deadline=None)
def test_validate_reports_what_the_reference_reports(enc):
    """The one-test fast path of validate passes exactly what the rule-by-rule checks pass, and a broken
    encoding gets the same first error (field and message)."""
    assert _outcome(enc.validate) == _outcome(_reference_validate, enc)


@given(st.integers(1, 4).flatmap(lambda r: st.tuples(
    st.integers(0, 40), st.integers(1, 9), st.integers(1, 17), st.permutations(range(r)).map(tuple), _cga(r))),
    st.data())
@settings(max_examples=400, deadline=None)
def test_closed_form_equals_generic(params, data):
    """to_linear_layout (bases written directly; no CGA: no combine) equals to_linear_layout_generic bit for
    bit, for any vec (0 and non-powers of two included), perPhase, maxPhase, order and CGA."""
    enc = SwizzledSharedEncoding(*params)
    shape = tuple(data.draw(st.lists(st.integers(0, 8).map(lambda e: 1 << e), min_size=enc.rank,
                                     max_size=enc.rank)))
    enc.validate()
    enc.check_shape(shape)
    closed, generic = enc.to_linear_layout(shape), enc.to_linear_layout_generic(shape)
    assert closed.in_dims == generic.in_dims and closed.out_dim_sizes == generic.out_dim_sizes
    assert closed.bases == generic.bases


def test_one_cta_layout_values():
    """No CGA: the offset bases (row r at column 4 * ((r / 2) % 4)), an empty block dim, the shape as out
    sizes."""
    L = lower(SwizzledSharedEncoding(4, 2, 4, (1, 0)), [16, 32])
    assert L.to_dict() == {"bases": {"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 4], [4, 8],
                                                [8, 0]], "block": []}, "out_dims": {"dim0": 16, "dim1": 32}}
