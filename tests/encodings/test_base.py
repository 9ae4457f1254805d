"""What every encoding shares (checker/encodings/base.py): the field metadata the readers and the printer are
driven by, the one rank deduction, the normal forms the encodings keep, and the basis helpers (first
appearance order, Triton's permutation-matrix test) against the LinearLayout algebra."""

from dataclasses import MISSING, fields

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.encodings import ENCODING_CLASSES
from checker.encodings.amd_mfma import AmdMfmaEncoding
from checker.encodings.amd_wmma import AmdWmmaEncoding
from checker.encodings.base import (
    BASES,
    BOOL,
    CGA,
    ENCODING,
    INT,
    INTS,
    RANK,
    REQUIRED,
    bases_rank,
    implied_rank,
    is_permutation_matrix,
    order_by_first_appearance,
    params_of,
)
from checker.encodings.nvmma_shared import NvmmaSharedEncoding
from checker.encodings.padded_shared import PaddedSharedEncoding, identity_offsets
from checker.layout import LinearLayout, identity_standard_nd, standard_out_dims

FORMS = {INT, BOOL, INTS, BASES, ENCODING, CGA, RANK}


@pytest.mark.parametrize("kind", sorted(ENCODING_CLASSES))
def test_every_field_says_how_it_is_written(kind):
    cls = ENCODING_CLASSES[kind]
    params = dict(params_of(cls))
    assert list(params) == [f.name for f in fields(cls)]
    assert all(p.form in FORMS for p in params.values())
    for name in ("triton", "yaml"):                                     # one field per key in each syntax
        keys = [getattr(p, name) for p in params.values()]
        assert len(set(keys)) == len(keys), (kind, name)
    gluon = [p.gluon for p in params.values() if p.gluon]
    assert len(set(gluon)) == len(gluon)
    assert sum(p.gives_rank or p.form == RANK for p in params.values()) <= 1
    for f in fields(cls):
        p = params[f.name]
        if f.default is not MISSING:                                  # a Python default is every syntax's,
            assert p.yaml_default in (f.default, REQUIRED)              # unless the syntax requires the key
            assert p.gluon_default in (f.default, REQUIRED)
        if p.elided:                                                    # left out of the text only at a default
            assert p.text_default is not REQUIRED
    order = getattr(cls, "attribute_order", None)
    assert order is None or sorted(order) == sorted(params)


def test_field_names_in_each_syntax():
    """Examples of the metadata: Triton's camelCase, the YAML snake_case, Gluon's names, the defaults."""
    nvmma = dict(params_of(NvmmaSharedEncoding))
    assert (nvmma["swizzling_byte_width"].triton, nvmma["swizzling_byte_width"].yaml,
            nvmma["swizzling_byte_width"].gluon) == ("swizzlingByteWidth", "swizzling_byte_width", "swizzle_byte_width")
    assert (nvmma["transposed"].text_default, nvmma["transposed"].elided) == (False, False)   # always printed
    assert (nvmma["fp4_padded"].text_default, nvmma["fp4_padded"].elided) == (False, True)
    mfma = dict(params_of(AmdMfmaEncoding))
    assert (mfma["version"].text_default, mfma["version"].lenient_default) == (REQUIRED, 0)
    assert mfma["warps_per_cta"].gives_rank and mfma["is_transposed"].gluon == "transposed"
    shared_linear = dict(params_of(ENCODING_CLASSES["shared_linear"]))["alignment_bytes"]
    assert (shared_linear.triton, shared_linear.yaml, shared_linear.yaml_default) == ("alignment", "alignment", 16)
    tmem = dict(params_of(ENCODING_CLASSES["tensor_memory_encoding"]))["col_stride"]
    assert (tmem.text_default, tmem.yaml_default, tmem.gluon_default) == (REQUIRED, 1, 1)


def test_the_rank_is_deduced_in_one_place():
    """The rank given, else the first basis of the bases fields (field order), else CTAOrder's length, else
    the default; values that are no bases, and bases of no component, are passed over."""
    assert implied_rank(AmdWmmaEncoding, {"rank": 3, "warp_bases": ((0, 1),)}) == 3
    assert implied_rank(AmdWmmaEncoding, {"warp_bases": ((0, 1, 0),), "cga_layout": ((1, 0),)}) == 3
    assert implied_rank(AmdWmmaEncoding, {"register_bases": ((),), "cga_layout": [[1, 0, 0]]}) == 3
    assert implied_rank(AmdWmmaEncoding, {"cga_layout": 5}, legacy_order=(2, 1, 0)) == 3
    assert implied_rank(AmdWmmaEncoding, {}) == 2
    assert implied_rank(NvmmaSharedEncoding, {"cga_layout": [[0, 0, 0, 1]]}) == 4
    assert implied_rank(NvmmaSharedEncoding, {"rank": True}) == 2           # a boolean is no rank


def test_normal_forms_are_the_encodings_own():
    """tilesPerWarp of all ones (any length, as Triton's parser may give) is (), whoever builds it."""
    plain = AmdMfmaEncoding(3, (2, 2), (32, 32, 8), True)
    assert AmdMfmaEncoding(3, (2, 2), (32, 32, 8), True, (1, 1)) == plain
    assert AmdMfmaEncoding(3, (2, 2), (32, 32, 8), True, (1, 1, 1)).tiles_per_warp == ()
    assert AmdMfmaEncoding(3, (2, 2), (32, 32, 8), True, (2, 1)).tiles == (2, 1)
    assert plain.tiles == (1, 1)


def test_bases_rank_and_first_appearance():
    assert bases_rank((), ((0, 1, 0),)) == 3 and bases_rank((), ()) == 0
    assert order_by_first_appearance(((0, 0, 0), (0, 1, 0), (0, 2, 0), (1, 0, 0)), 3) == [1, 0, 2]
    assert order_by_first_appearance((), 3) == [2, 1, 0]


@st.composite
def bases(draw):
    rank = draw(st.integers(1, 3))
    return tuple(tuple(draw(st.sampled_from((0, 0, 1, 2, 4, 3))) for _ in range(rank))
                 for _ in range(draw(st.integers(0, 5))))


@given(bases(), bases())
@settings(max_examples=300, deadline=None)
def test_permutation_matrix_is_tritons_on_the_layout(a, b):
    """is_permutation_matrix on bases == the test on the LinearLayout they span (out sizes inferred)."""
    if bases_rank(a) and bases_rank(b) and bases_rank(a) != bases_rank(b):
        b = ()
    rank = bases_rank(a, b)
    try:
        layout = LinearLayout.from_bases([("x", a), ("y", b)], standard_out_dims(rank))
    except Exception:
        return                                                          # not surjective: no layout to compare
    cols = [c for c in layout.columns if c]
    expected = all(c & (c - 1) == 0 for c in cols) and len(set(cols)) == len(cols) == layout.total_out_size_log2
    assert is_permutation_matrix(a, b) == expected


def test_negative_components_are_no_permutation():
    assert not is_permutation_matrix(((-1, 1),))
    assert is_permutation_matrix(((0, 1), (1, 0)), ((0, 0),))


@given(st.lists(st.integers(0, 3), min_size=1, max_size=3), st.randoms())
@settings(max_examples=100, deadline=None)
def test_identity_offsets_are_identity_standard_nd(logs, rnd):
    shape = [1 << e for e in logs]
    order = list(range(len(shape)))
    rnd.shuffle(order)
    layout = identity_standard_nd("offset", shape, order).transpose_outs(standard_out_dims(len(shape)))
    assert identity_offsets(shape, order) == layout.in_bases("offset")
    enc = PaddedSharedEncoding((32,), (4,), identity_offsets(shape, order))
    found = enc.identity_order_shape()
    assert found is not None and identity_offsets(found[1], found[0]) == enc.offset_bases


def test_derived_is_computed_once_per_value_and_leaves_equality_alone():
    from checker.encodings.base import derived
    from checker.encodings.shared_linear import SharedLinearEncoding
    calls = []

    class Thing:
        @derived
        def answer(self):
            """the answer"""
            calls.append(1)
            return 42
    thing = Thing()
    assert (thing.answer, thing.answer, len(calls)) == (42, 42, 1)
    assert Thing().answer == 42 and len(calls) == 2
    assert Thing.answer.__doc__ == "the answer"
    a = SharedLinearEncoding(((0, 1), (1, 0), (2, 0)))
    b = SharedLinearEncoding(((0, 1), (1, 0), (2, 0)))
    assert a._extent == [4, 2] and "_extent" in vars(a) and "_extent" not in vars(b)
    assert a == b and hash(a) == hash(b)          # a frozen dataclass: derived values are no fields


@given(st.integers(1, 4).flatmap(lambda r: st.tuples(
    st.just(r), st.lists(st.lists(st.integers(-(1 << 12), 1 << 12), min_size=r, max_size=r), max_size=8))))
@settings(max_examples=200, deadline=None)
def test_bases_extent_is_the_power_of_two_above_each_dims_largest_component(case):
    from checker.encodings.base import bases_extent
    rank, bases = case
    want = [1] * rank
    for b in bases:
        for d, c in enumerate(b):
            while want[d] <= c:
                want[d] *= 2
    assert bases_extent([tuple(b) for b in bases], rank) == want


def test_bases_extent_values():
    from checker.encodings.base import bases_extent
    assert bases_extent([(0, 5, -3), (4, 0, 0)], 3) == [8, 8, 1]
    assert bases_extent([(3,), (1, 2)], 2) == [4, 4]            # ragged: read component by component
    assert bases_extent([], 2) == [1, 1]
    assert bases_extent([(0, 5), (-4, 1)], 2) == [1, 8]           # rank 2: a negative component spans nothing
    np = pytest.importorskip("numpy")
    assert bases_extent([(np.int64(5), 0), (1, np.int64(2))], 2) == [8, 4]     # numpy integers count as ints


def test_lower_validates_an_encoding_value_once_and_a_bad_one_every_time(monkeypatch):
    from checker.encodings import clear_caches, lower
    from checker.encodings.blocked import BlockedEncoding
    from checker.errors import EncodingError
    clear_caches()                                  # no hit for an equal value another test lowered
    calls = []
    real = BlockedEncoding.validate
    monkeypatch.setattr(BlockedEncoding, "validate", lambda self: (calls.append(self), real(self))[1])
    enc = BlockedEncoding((1, 2), (4, 8), (2, 2), (1, 0))
    for shape in ((16, 32), (32, 32), (64, 128)):
        assert tuple(size for _, size in lower(enc, shape).out_dim_sizes) == shape
    assert len(calls) == 1
    bad = BlockedEncoding((1, 3), (4, 8), (2, 2), (1, 0))
    for shape in ((16, 32), (32, 32)):
        with pytest.raises(EncodingError, match="sizePerThread") as info:
            lower(bad, shape)
        assert info.value.field == "sizePerThread"
    assert len(calls) == 3


def test_an_encoding_hashes_its_fields_once_and_pickles_its_fields_only():
    import pickle

    from checker.encodings import clear_caches, lower
    from checker.encodings.blocked import BlockedEncoding
    from checker.encodings.slice import SliceEncoding
    from checker.versions import active
    enc = SliceEncoding(1, BlockedEncoding((2, 2), (8, 4), (1, 2), (1, 0)))
    assert hash(enc) == hash(enc) == hash(SliceEncoding(1, BlockedEncoding((2, 2), (8, 4), (1, 2), (1, 0))))
    assert "_field_hash" in vars(enc) and hash(enc) != hash(SliceEncoding(0, enc.parent))
    clear_caches()                                  # an equal value lowered by another test is no hit
    lower(enc, (8,))
    assert vars(enc)["_validated_for"] == (active(),)      # validated once, for the version in force
    state = enc.__getstate__()
    assert set(state) == {"dim", "parent"}
    copy = pickle.loads(pickle.dumps(enc))
    assert copy == enc and hash(copy) == hash(enc) and "_validated_for" not in vars(copy)
