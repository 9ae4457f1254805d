"""NVMMA shared layouts: the core matrix, fp4 padding, Triton 3.9's transposed tiles, TMA shape errors, Gluon."""

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from checker.encodings import lower
from checker.encodings.nvmma_shared import NvmmaSharedEncoding
from checker.errors import EncodingError
from checker.syntax.gluon import from_gluon

from ..tables import stored_elements
from .test_closed import cga


def offsets(enc, shape):
    return [list(b) for b in lower(enc, shape).bases["offset"]]


@pytest.mark.parametrize("swizzle, alignment", [(0, 128), (32, 256), (64, 512), (128, 1024)])
def test_alignment(swizzle, alignment):
    for bits in (8, 16, 32):
        assert NvmmaSharedEncoding(swizzle, False, bits).alignment() == alignment


def test_128b_fp16_core_matrix():
    """vec 8, perPhase 1, maxPhase 8: row r is XOR-swizzled by 8 * r columns (16-byte units)."""
    enc = NvmmaSharedEncoding(128, False, 16)
    assert (enc.vec, enc.per_phase, enc.max_phase) == (8, 1, 8)
    assert offsets(enc, [8, 64]) == [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32]]
    order = stored_elements(lower(enc, [8, 64]))
    assert order[64:72] == [64 + 8 + c for c in range(8)]  # row 1 starts with its second 16-byte chunk


def test_32b_swizzle_two_rows_per_phase():
    enc = NvmmaSharedEncoding(32, False, 16)
    assert (enc.vec, enc.per_phase, enc.max_phase) == (8, 4, 2)
    assert offsets(enc, [8, 16]) == [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 8]]


def test_fp4_padded_aliases_the_padding():
    """Each 16 offsets hold 8 real columns and 8 padding ones, which map onto the real ones (a zero basis)."""
    assert offsets(NvmmaSharedEncoding(128, False, 8, fp4_padded=True), [8, 64]) == [
        [0, 1], [0, 2], [0, 4], [0, 0], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32]]


def test_no_swizzle_is_row_major_then_grows():
    assert offsets(NvmmaSharedEncoding(0, False, 16), [4, 8]) == [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0]]


def test_transposed_no_swizzle_rank2_has_dim0_fastest():
    assert offsets(NvmmaSharedEncoding(0, True, 16), [8, 4]) == [[1, 0], [2, 0], [4, 0], [0, 1], [0, 2]]


def test_transposed_no_swizzle_rank3_is_triton_39_verbatim():
    """Triton 3.9 permutes the components of a tile whose out-dims run [2, 1, 0] positionally, so the
    rotated box lands on the wrong axes; clamping it to the shape leaves a zero (non-injective) basis."""
    assert offsets(NvmmaSharedEncoding(0, True, 16, rank=3), [4, 8, 8]) == [
        [0, 1, 0], [0, 2, 0], [1, 0, 0], [2, 0, 0], [0, 0, 0], [0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 4, 0]]


def test_transposed_swizzled_rank3():
    assert offsets(NvmmaSharedEncoding(32, True, 32, rank=3), [8, 2, 8]) == [
        [1, 0, 0], [2, 0, 0], [4, 0, 0], [0, 0, 2], [0, 0, 4], [4, 1, 0], [0, 0, 1]]


def test_cga_splits_the_tile():
    L = lower(NvmmaSharedEncoding(128, False, 16, cga_layout=((1, 0),)), [256, 64])
    assert L.bases["block"] == ((128, 0),)
    assert L.in_dim_size("offset") == 128 * 64


@pytest.mark.parametrize("enc, shape, field, message", [
    (NvmmaSharedEncoding(32, False, 32), [8, 4], "shape",
     "block shape along the contiguous dimension 1 is too small for the swizzle byte size 32 in an "
     "NVMMASharedLayout, got 4 but expected at least 8"),
    (NvmmaSharedEncoding(128, True, 8, fp4_padded=True), [16, 256], "shape",
     "contiguous dimension 0 .* got 32 but expected at least 128"),
    (NvmmaSharedEncoding(32, True, 16), [32, 2], "shape", "Illegal shared layout"),
    (NvmmaSharedEncoding(128, False, 16, rank=3), [64, 64], "shape",
     "rank must be equal to or one less than the shape size. Got 3 and 2"),
    (NvmmaSharedEncoding(128, False, 16), [2, 64, 64], "shape", "give the shape \\[64, 64\\]"),
    (NvmmaSharedEncoding(48, False, 16), [64, 64], "swizzlingByteWidth", "must be 0, 32, 64, or 128"),
    (NvmmaSharedEncoding(0, False, 0), [64, 64], "elementBitWidth", "non-zero"),
    (NvmmaSharedEncoding(64, False, 16, rank=1), [64], "shape", "needs rank >= 2"),
    (NvmmaSharedEncoding(0, False, 16), [48, 64], "shape", "power of two"),
])
def test_rejected(enc, shape, field, message):
    with pytest.raises(EncodingError, match=message) as info:
        lower(enc, shape)
    assert info.value.field == field


def test_gluon_constructor_and_asserts():
    spec = {"class": "NVMMASharedLayout", "params": {"swizzle_byte_width": 64, "element_bitwidth": 16,
                                                      "rank": 3, "transposed": True}}
    assert from_gluon(spec) == NvmmaSharedEncoding(64, True, 16, False, 3)
    for params, message in [({"swizzle_byte_width": 128, "element_bitwidth": 4}, "element_bitwidth"),
                            ({"swizzle_byte_width": 64, "element_bitwidth": 8, "fp4_padded": True},
                             "fp4_padded only supports 128 byte swizzling"),
                            ({"swizzle_byte_width": 128, "element_bitwidth": 16, "fp4_padded": True},
                             "element_bitwidth=8"),
                            ({"swizzle_byte_width": 0, "element_bitwidth": 16, "cga_layout": [[1, 0, 0]]},
                             "rank is 2")]:
        with pytest.raises(EncodingError, match=message):
            from_gluon({"class": "NVMMASharedLayout", "params": params})


@pytest.mark.parametrize("block_shape, dtype, transposed, swizzle", [
    ([64, 64], "float16", False, 128),       # a 128-byte row
    ([64, 64], "float8e4nv", False, 64),     # a 64-byte row
    ([64, 8], "bfloat16", False, 0),         # 16 bytes: no swizzle fits
    ([64, 8], "bfloat16", True, 128),        # transposed: the row is dim0 (64 x 2 bytes)
    ([4, 128], "float8e4nv", False, 0),      # fewer than 8 rows
    ([128], "float32", False, 0),            # rank 1
    ([16, 48], "float16", False, 32),        # 96 bytes: 32 divides it, 64 does not
])
def test_get_default_for(block_shape, dtype, transposed, swizzle):
    enc = from_gluon({"class": "NVMMASharedLayout", "ctor": "get_default_for",
                      "params": {"block_shape": block_shape, "dtype": dtype, "transposed": transposed}})
    assert enc.swizzling_byte_width == swizzle
    assert enc.rank == len(block_shape) and enc.transposed == transposed


def test_get_default_for_divides_by_the_cga_and_rejects_unknown_dtypes():
    enc = from_gluon({"class": "NVMMASharedLayout", "ctor": "get_default_for",
                      "params": {"block_shape": [128, 128], "dtype": "float16", "cga_layout": [[0, 1]]}})
    assert enc.swizzling_byte_width == 128 and enc.cga_layout == ((0, 1),)
    enc = from_gluon({"class": "NVMMASharedLayout", "ctor": "get_default_for",
                      "params": {"block_shape": [16, 64], "dtype": "float16", "cga_layout": [[0, 1]]}})
    assert enc.swizzling_byte_width == 64
    with pytest.raises(EncodingError, match="unknown dtype"):
        from_gluon({"class": "NVMMASharedLayout", "ctor": "get_default_for",
                    "params": {"block_shape": [64, 64], "dtype": "float17"}})
    with pytest.raises(EncodingError, match="element_bitwidth"):
        from_gluon({"class": "NVMMASharedLayout", "ctor": "get_default_for",
                    "params": {"block_shape": [64, 64], "dtype": "int1"}})


# ---------------------------------------------------------------- closed form == reference

SWIZZLED = [(s, b, fp4) for s in (32, 64, 128) for b in (1 << e for e in range(12)) if b <= 8 * s
            for fp4 in (False, True)]


@pytest.mark.parametrize("swizzle, bits, fp4", SWIZZLED)
def test_core_parts_is_the_core_matrix(swizzle, bits, fp4):
    """Every valid swizzled (width, element bits, fp4Padded): the closed-form core equals the LinearLayout
    built from its bases (out sizes inferred, surjectivity checked)."""
    from checker.encodings.nvmma_shared import _core_parts
    core = NvmmaSharedEncoding(swizzle, False, bits, fp4_padded=fp4).core_matrix()
    assert _core_parts(swizzle, bits, fp4) == (core.in_bases("offset"), core.out_dim_size("dim0"),
                                               core.out_dim_size("dim1"))


def test_core_parts_values():
    from checker.encodings.nvmma_shared import _core_parts
    # 64-byte swizzle, 16-bit: 32 columns, vec 8, perPhase 2, maxPhase 4
    assert _core_parts(64, 16, False) == (((0, 1), (0, 2), (0, 4), (0, 8), (0, 16), (1, 0), (2, 8), (4, 16)), 8, 32)
    # fp4Padded 128-byte, 8-bit: 128 columns stored at 8 * (v / 16) + v % 8, so 64 wide, column 8 aliased
    assert _core_parts(128, 8, True) == (((0, 1), (0, 2), (0, 4), (0, 0), (0, 8), (0, 16), (0, 32),
                                          (1, 8), (2, 16), (4, 32)), 8, 64)


def _reference_check_shape(enc, shape):
    """check_shape as first written: the unpacked TMA box, then the packed one against the core matrix
    (its width read from the LinearLayout)."""
    from checker.encodings.base import Encoding
    from checker.encodings.cga import shape_per_cta
    from checker.errors import NotModelled
    n = len(shape)
    if enc.rank not in (n, n - 1) or enc.rank != n:
        return enc.check_shape(shape)               # the rank messages, unchanged
    Encoding.check_shape(enc, shape)
    if enc.swizzling_byte_width and n < 2:
        return enc.check_shape(shape)
    per_cta = shape_per_cta(enc.cga_layout, shape)
    enc.tma_block_shape(per_cta, packed=False)
    if enc.swizzling_byte_width:
        rows, cols = enc._collapsed(enc.tma_block_shape(per_cta, packed=True))
        core_cols = enc.core_matrix().out_dim_size("dim1")
        packing = 2 if enc.fp4_padded else 1
        if cols * packing < core_cols or rows < 8:
            raise NotModelled(f"{enc.kind}: Illegal shared layout: the TMA block collapsed to 2-D is "
                              f"[{rows}, {cols}], smaller than one core matrix "
                              f"[8, {core_cols // packing}] (Triton builds no LinearLayout for it)", field="shape")


def _outcome(fn, *args):
    from checker.errors import CheckerError
    try:
        return fn(*args)
    except CheckerError as e:
        return (type(e).__name__, getattr(e, "field", None), str(e))


@st.composite
def _nvmma(draw):
    rank = draw(st.integers(1, 4))
    s = draw(st.sampled_from((0, 32, 64, 128)))
    b = draw(st.sampled_from([1 << e for e in range(11)]))
    enc = NvmmaSharedEncoding(s, draw(st.booleans()), b, draw(st.booleans()), rank, draw(cga(rank)))
    shape = tuple(draw(st.lists(st.integers(0, 10).map(lambda e: 1 << e), min_size=rank, max_size=rank)))
    return enc, shape


@given(_nvmma())
@settings(max_examples=400, deadline=None)
def test_closed_form_equals_generic(case):
    """check_shape reports what the reference reports (same error, same field); where it passes, the closed
    to_linear_layout equals to_linear_layout_generic bit for bit (wide element widths, TMA boxes clamped at
    256, fp4Padded, ranks 1-4, CGAs)."""
    enc, shape = case
    assume(_outcome(enc.validate) is None)
    got, want = _outcome(enc.check_shape, shape), _outcome(_reference_check_shape, enc, shape)
    assert got == want
    if got is None:     # (fp4Padded with wide elements: the reshape's size error, from both)
        closed, generic = _outcome(enc.to_linear_layout, shape), _outcome(enc.to_linear_layout_generic, shape)
        assert closed == generic
        if not isinstance(closed, tuple):
            assert closed.in_dims == generic.in_dims and closed.out_dim_sizes == generic.out_dim_sizes
            assert closed.bases == generic.bases
