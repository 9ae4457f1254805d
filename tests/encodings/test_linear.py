"""Linear layouts: bases by value and the verifier rules."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.encodings import lower
from checker.encodings.base import bases_extent, is_permutation_matrix
from checker.encodings.linear import LinearEncoding, permutation_sizes
from checker.errors import EncodingError


def test_linear_refits_to_a_larger_and_a_smaller_shape():
    enc = LinearEncoding(((0, 1),), ((0, 2), (0, 4), (1, 0), (2, 0), (4, 0)), ((8, 0),))
    assert lower(enc, [16, 8]).to_dict()["bases"]["register"] == [[0, 1]]
    # larger: repetitions along the rep order (dim1 first: the registers move along dim1)
    assert lower(enc, [32, 16]).to_dict()["bases"]["register"] == [[0, 1], [0, 8], [16, 0]]
    # smaller: out-of-shape registers are dropped, lanes/warps broadcast
    small = lower(enc, [4, 8]).to_dict()["bases"]
    assert small["lane"] == [[0, 2], [0, 4], [1, 0], [2, 0], [0, 0]] and small["warp"] == [[0, 0]]


def test_linear_must_be_a_permutation_matrix():
    swizzled = LinearEncoding(((0, 1), (0, 1)), ((0, 2), (0, 4), (1, 0), (2, 0), (4, 0)), ((8, 0),))
    with pytest.raises(EncodingError, match="permutation matrix"):
        lower(swizzled, [16, 8])
    xor = LinearEncoding(((4, 0),), ((0, 8), (8, 0), (0, 1), (0, 2), (1, 0)), ((0, 5), (2, 0)))
    with pytest.raises(EncodingError, match="permutation matrix"):
        lower(xor, [16, 16])


def test_linear_at_its_own_size_keeps_its_bases():
    enc = LinearEncoding(((0, 1),), ((0, 2), (0, 4), (1, 0), (2, 0), (4, 0)), ((8, 0),))
    assert lower(enc, [16, 8]).to_dict()["bases"] == {"register": [[0, 1]],
                                                      "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
                                                      "warp": [[8, 0]], "block": []}
    # larger along dim0 only: one repetition, nothing clamped
    assert lower(enc, [32, 8]).to_dict()["bases"]["register"] == [[0, 1], [16, 0]]


def test_linear_reports_the_first_broken_group():
    """Checks run group by group (register, lane, warp, block), each its length then its sign."""
    enc = LinearEncoding(((0, -1),), ((0, 2, 0),), ())
    with pytest.raises(EncodingError, match="non-negative") as info:
        lower(enc, [4, 4])
    assert info.value.field == "register"
    enc = LinearEncoding(((0, 1),), ((0, 2, 0),), ((-1, 0),))
    with pytest.raises(EncodingError, match="2 components") as info:
        lower(enc, [4, 4])
    assert info.value.field == "lane"


# ------------------------------------------- the permutation test on the bases (permutation_sizes)

components = st.sampled_from((0, 0, 0, 1, 2, 4, 8, 3, 6, -1, -2))


@st.composite
def any_bases(draw):
    r = draw(st.integers(1, 3))
    return r, tuple(draw(st.lists(st.tuples(*[components] * r), max_size=7)))


@st.composite
def one_bit_bases(draw):
    """Bases that are mostly a permutation matrix: one-bit columns, some zero, duplicated or missing."""
    r = draw(st.integers(1, 3))
    every = [tuple(1 << j if k == d else 0 for k in range(r)) for d in range(r) for j in range(draw(st.integers(0, 3)))]
    every += [(0,) * r] * draw(st.integers(0, 2))
    if every and draw(st.booleans()):
        every.append(draw(st.sampled_from(every)))        # a duplicate
    if every and draw(st.booleans()):
        every.pop(draw(st.integers(0, len(every) - 1)))   # a missing bit
    return r, tuple(draw(st.permutations(every)))


@given(st.one_of(any_bases(), one_bit_bases()))
@settings(max_examples=400, deadline=None)
def test_permutation_sizes_is_the_permutation_test(rank_bases):
    rank, bases = rank_bases
    got = permutation_sizes(bases, rank)
    assert (got is not None) == is_permutation_matrix(bases)
    if got is not None:
        assert got == bases_extent(bases, rank)


def test_permutation_sizes_values():
    assert permutation_sizes(((0, 1), (2, 0), (0, 0), (1, 0)), 2) == [4, 2]
    assert permutation_sizes((), 3) == [1, 1, 1]
    assert permutation_sizes(((0, 1), (0, 1)), 2) is None           # duplicated
    assert permutation_sizes(((1, 1), (2, 0)), 2) is None           # two bits in one basis
    assert permutation_sizes(((0, 2),), 2) is None                  # bit 0 of dim1 missing
    assert permutation_sizes(((3, 0), (4, 0)), 2) is None           # not a power of two
    assert permutation_sizes(((-1, 0),), 2) is None                 # negative


# --------------------------------------------- the closed form against the composition, near its size

@st.composite
def linear_near_its_size(draw):
    """A valid linear layout and a shape within a factor 4 of the sizes its bases span, per dim (equal, larger
    and smaller dims all common: each path of to_linear_layout)."""
    r = draw(st.integers(1, 3))
    every = [tuple(1 << j if k == d else 0 for k in range(r)) for d in range(r) for j in range(draw(st.integers(0, 3)))]
    every += [(0,) * r] * draw(st.integers(0, 2))
    every = draw(st.permutations(every))
    cuts = sorted(draw(st.lists(st.integers(0, len(every)), min_size=3, max_size=3)))
    edges = [0, *cuts, len(every)]
    enc = LinearEncoding(*(tuple(every[a:b]) for a, b in zip(edges, edges[1:])))
    sizes = bases_extent(every, r) if every else [1] * r
    factors = draw(st.lists(st.sampled_from((0, 0, 0, -2, -1, 1, 2)), min_size=r, max_size=r))  # log2
    return enc, tuple(max(1, s << k if k >= 0 else s >> -k) for s, k in zip(sizes, factors))


@given(linear_near_its_size())
@settings(max_examples=300, deadline=None)
def test_closed_form_is_the_composition(enc_shape):
    enc, shape = enc_shape
    enc.validate()
    closed, generic = enc.to_linear_layout(shape), enc.to_linear_layout_generic(shape)
    assert closed.in_dims == generic.in_dims and closed.out_dim_sizes == generic.out_dim_sizes
    assert closed.bases == generic.bases
