"""AMD WMMA accumulators and operands: the TritonGPUAttrDefs.td pictures as exact tables, the verifier,
and the operand rules (every conformance case runs in tests/conformance/test_lowering.py)."""

import json
import pathlib

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from checker.encodings import lower
from checker.encodings.amd_wmma import PLACED_TILES, WMMA_INSTR_SHAPES, AmdWmmaEncoding, placed_tile
from checker.encodings.dot_operand import DotOperandEncoding
from checker.errors import CheckerError, EncodingError, NotModelled
from checker.syntax.gluon import from_gluon
from checker.syntax.mlir_attr import parse_attribute
from checker.versions import using

from ..tables import thread_grid

WARPS_2X2 = ((0, 1), (1, 0))  # legacy warpsPerCTA [2, 2]: warp bit 0 along dim1, bit 1 along dim0


def wmma(version=2, transposed=False, regs=(), warps=WARPS_2X2, instr=(16, 16, 16), **kw):
    return AmdWmmaEncoding(version, transposed, regs, warps, instr, **kw)


def regs_of(L, lane, warp=0):
    return [tuple(L.apply({"register": r, "lane": lane, "warp": warp, "block": 0}).values())
            for r in range(L.in_dim_size("register"))]


def tile_rows(rows):
    """The thread grid of warps [2, 2] over [32, 32]: rows (r, c) -> lane within one 16x16 tile."""
    return [[rows[r % 16][c % 16] + 32 * ((c // 16) + 2 * (r // 16)) for c in range(32)] for r in range(32)]


# ------------------------------------------------------- the td's pictures


def test_v1_picture():
    """version 1: lanes 0-15 along a row, lane 16 one row down; rows alternate between the two halves."""
    L = lower(wmma(version=1), [32, 64])
    lanes = [[t % 32 for t in row] for row in thread_grid(L)]
    assert lanes == [[c % 16 + 16 * (r % 2) for c in range(64)] for r in range(32)]
    assert regs_of(L, 0) == [(0, 0), (2, 0), (4, 0), (6, 0), (8, 0), (10, 0), (12, 0), (14, 0),
                             (0, 32), (2, 32), (4, 32), (6, 32), (8, 32), (10, 32), (12, 32), (14, 32)]
    assert regs_of(L, 16)[:8] == [(1, 0), (3, 0), (5, 0), (7, 0), (9, 0), (11, 0), (13, 0), (15, 0)]


def test_v2_picture():
    """version 2, not transposed: lanes 0-15 hold rows 0-7 of their column, lanes 16-31 rows 8-15."""
    L = lower(wmma(), [32, 32])
    assert thread_grid(L) == tile_rows([[c + 16 * (r // 8) for c in range(16)] for r in range(16)])
    assert regs_of(L, 0) == [(r, 0) for r in range(8)]
    assert regs_of(L, 16) == [(r, 0) for r in range(8, 16)]
    assert regs_of(L, 31, warp=3) == [(r + 16, 31) for r in range(8, 16)]


def test_v2_transposed_picture():
    """version 2, transposed: lane r holds columns 0-7 of row r, lane r + 16 columns 8-15."""
    L = lower(wmma(transposed=True), [32, 32])
    assert thread_grid(L) == tile_rows([[r + 16 * (c // 8) for c in range(16)] for r in range(16)])
    assert regs_of(L, 0) == [(0, c) for c in range(8)]
    assert regs_of(L, 16) == [(0, c) for c in range(8, 16)]
    assert regs_of(L, 1, warp=2) == [(17, c) for c in range(8)]


# ------------------------------------------------------ variants and rules


def test_register_bases_place_tiles():
    L = lower(wmma(version=3, regs=((0, 1),), warps=((1, 0),), instr=(16, 16, 32)), [32, 32])
    assert L.to_dict()["bases"]["register"] == [[1, 0], [2, 0], [4, 0], [0, 16]]
    assert L.to_dict()["bases"]["warp"] == [[16, 0]]


def test_rank3():
    enc = wmma(version=3, regs=((1, 0, 0),), warps=((0, 0, 1), (0, 1, 0)), instr=(16, 16, 32), rank=3)
    L = lower(enc, [2, 32, 32])
    assert L.to_dict()["bases"]["register"] == [[0, 1, 0], [0, 2, 0], [0, 4, 0], [1, 0, 0]]
    assert L.to_dict()["bases"]["warp"] == [[0, 0, 16], [0, 16, 0]]


def test_duplicated_tiles_rejected_unless_the_shape_hides_them():
    """A register and a warp basis on the same tile: Triton aborts (not a permutation), but at a shape of
    one tile both are broadcast (zero) and the layout is accepted."""
    enc = wmma(version=1, transposed=True, regs=((1, 0),))
    with pytest.raises(EncodingError, match="permutation matrix") as info:
        lower(enc, [32, 32])
    assert info.value.field == "bases"
    assert lower(enc, [16, 16]).to_dict()["bases"]["warp"] == [[0, 0], [0, 0]]


def test_cta_layout_must_be_surjective():
    with pytest.raises(EncodingError, match="cover every element") as info:
        lower(wmma(warps=((0, 2),)), [16, 64])
    assert info.value.field == "ctaLayout"


@pytest.mark.parametrize("enc, field, message", [
    (wmma(version=4), "version", r"\[1, 3\]"),
    (wmma(version=1, instr=(16, 16, 32)), "instrShape", "invalid WMMA v1 instruction shape"),
    (wmma(version=3), "instrShape", "invalid WMMA v3 instruction shape"),
    (wmma(regs=((0, 1, 0),)), "ctaLayout", "2 components"),
    (wmma(rank=4, warps=()), "rank", "rank 2 or 3"),
])
def test_verifier(enc, field, message):
    with pytest.raises(EncodingError, match=message) as info:
        lower(enc, [32] * enc.rank)
    assert info.value.field == field


@pytest.mark.parametrize("version, instr, k_width, ok", [
    (1, (16, 16, 16), 4, False), (1, (16, 16, 16), 8, True), (1, (16, 16, 16), 16, True),
    (2, (16, 16, 16), 2, False), (2, (16, 16, 16), 4, True), (2, (16, 16, 32), 16, True),
    (3, (16, 16, 32), 0, False), (3, (16, 16, 32), 6, False), (3, (16, 16, 32), 2, True),
])
def test_operand_k_width(version, instr, k_width, ok):
    dot = DotOperandEncoding(0, wmma(version=version, instr=instr), k_width)
    if ok:
        assert lower(dot, [32, 32]).in_dims == ("register", "lane", "warp", "block")
    else:
        with pytest.raises(EncodingError) as info:
            lower(dot, [32, 32])
        assert info.value.field == "kWidth"


@pytest.mark.parametrize("k_width, accepted_by_36", [(2, True), (4, False), (8, True), (16, True), (32, False)])
def test_operand_k_width_of_v3_by_release(k_width, accepted_by_36):
    """Triton 3.6.0's verifier takes kWidth 2, 8 or 16 for a WMMA v3 operand, 3.7.0's any power of two (change
    wmma_v3_any_k_width: both wheels asked, 2026-12-06); 3.5.1 refuses WMMA v3 itself (wmma_version_3). One value
    validated under 3.9 first is validated again for each release."""
    dot = DotOperandEncoding(0, wmma(version=3, instr=(16, 16, 32)), k_width)
    assert dot.validated
    for release in ("3.7", "3.8"):
        with using(release):
            assert dot.validated
    with using("3.6"):
        if accepted_by_36:
            assert dot.validated
        else:
            with pytest.raises(EncodingError, match=f"kWidth must be 2 or 8 or 16 for a WMMA v3 parent, got {k_width}"):
                dot.validated  # noqa: B018
    with using("3.5"), pytest.raises(EncodingError, match=r"WMMA version must be in the \[1, 2\] range, got 3") as info:
        dot.validated  # noqa: B018
    assert info.value.field == "version"


def test_v1_operand_duplicates_lanes_along_k():
    A = lower(DotOperandEncoding(0, wmma(version=1), 16), [16, 16])
    assert A.to_dict()["bases"]["lane"] == [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0]]
    assert A.to_dict()["bases"]["register"] == [[0, 1], [0, 2], [0, 4], [0, 8]]


def test_operand_k_repeats_after_the_cta_registers():
    """Triton 3.9 (conformance case low-dot_op-54ff0456f591): the tile repeats along K only up to
    instrShape[2]; a longer K is reached by the shape, after the ctaLayout's register bases."""
    parent = wmma(version=3, regs=((1, 0), (0, 2)), warps=((0, 1), (2, 0)), instr=(16, 16, 4))
    A = lower(DotOperandEncoding(0, parent, 8), [64, 32])
    assert A.to_dict()["bases"] == {"register": [[0, 1], [0, 2], [0, 4], [16, 0], [0, 16]],
                                    "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8]],
                                    "warp": [[0, 0], [32, 0]], "block": []}


def test_operand_cga_drops_k():
    parent = wmma(version=3, instr=(16, 16, 32), cga_layout=((1, 0),))
    B = lower(DotOperandEncoding(1, parent, 8), [32, 64])
    assert B.to_dict()["bases"]["block"] == [[0, 0]]


@pytest.mark.parametrize("params, field, message", [
    ({"version": 0}, "version", r"\[1, 3\]"),
    ({"warp_bases": [[0, 1, 0]]}, "warp_bases", "rank mismatch"),
    ({"cga_layout": [[1]]}, "cga_layout", "rank mismatch"),
])
def test_gluon_asserts(params, field, message):
    spec = {"class": "AMDWMMALayout", "params": {"version": 2, "transposed": False, "warp_bases": [[0, 1]],
                                                 **params}}
    with pytest.raises(EncodingError, match=message) as info:
        from_gluon(spec)
    assert info.value.field == field


def test_gluon_defaults():
    enc = from_gluon({"class": "AMDWMMALayout", "params": {"version": 1, "transposed": True,
                                                           "warp_bases": [[0, 1], [1, 0]]}})
    assert enc == AmdWmmaEncoding(1, True, (), WARPS_2X2, (16, 16, 16), (), 2)


def test_cga_places_ctas_above_the_tiles():
    """Rank 2 with a CGA: the block basis comes after the per-CTA shape t = shape / CGA size (dim0 16)."""
    enc = wmma(version=2, warps=((0, 1),), cga_layout=((1, 0),))
    assert lower(enc, [32, 32]).to_dict()["bases"] == {"register": [[1, 0], [2, 0], [4, 0]],
                                                       "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [8, 0]],
                                                       "warp": [[0, 16]], "block": [[16, 0]]}


def test_a_small_shape_broadcasts_what_lies_beyond_it():
    """Components at or beyond the shape become 0 (kept, not dropped); a larger dim1 adds repetitions."""
    L = lower(wmma(version=3, regs=((1, 0),), warps=((0, 1),), instr=(16, 16, 32)), [4, 64])
    assert L.to_dict()["bases"] == {"register": [[1, 0], [2, 0], [0, 0], [0, 0], [0, 32]],
                                    "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 0]],
                                    "warp": [[0, 16]], "block": []}


def test_placed_tiles_table():
    """The constant table of the tile's placed bases is placed_tile's, and places (inner, outer) at the
    matrix order's first two dims (rank 3, transposed: inner = dim1, outer = dim2; batch dim0 zero)."""
    assert all(PLACED_TILES[key] == placed_tile(*key) for key in PLACED_TILES)
    regs, lanes = placed_tile(False, True, 3)
    assert regs == ((0, 0, 1), (0, 0, 2), (0, 0, 4))
    assert lanes == ((0, 1, 0), (0, 2, 0), (0, 4, 0), (0, 8, 0), (0, 0, 8))


# --------------------------------------- the closed form against the composition, any ctaLayout

@st.composite
def cta_bases(draw, rank: int):
    """(register, warp) bases: one-bit bases spanning 1 to 4 tiles per dim, shuffled, with zero bases and,
    often, a duplicated basis, a basis of two bits (the xor of two others) or an arbitrary one -- the
    ctaLayouts validate accepts (surjective) that are no permutation matrix."""
    every = [tuple(1 << j if k == d else 0 for k in range(rank)) for d in range(rank)
             for j in range(draw(st.integers(0, 2)))]
    every += [(0,) * rank] * draw(st.integers(0, 1))
    extra = draw(st.sampled_from(("none", "duplicate", "two bits", "any")))
    if extra == "duplicate" and every:
        every.append(draw(st.sampled_from(every)))
    elif extra == "two bits" and len(every) >= 2:
        a, b = draw(st.permutations(every))[:2]
        every.append(tuple(x ^ y for x, y in zip(a, b)))
    elif extra == "any":
        every.append(draw(st.tuples(*[st.integers(0, 4)] * rank)))
    every = draw(st.permutations(every))
    cut = draw(st.integers(0, len(every)))
    return tuple(every[:cut]), tuple(every[cut:])


@st.composite
def valid_cga(draw, rank: int):
    """CGA bases that are a permutation matrix once their zero bases go, in a random order."""
    every = [tuple(1 << j if k == d else 0 for k in range(rank)) for d in range(rank)
             for j in range(draw(st.integers(0, 1)))]
    every += [(0,) * rank] * draw(st.integers(0, 1))
    return tuple(draw(st.permutations(every)))


@st.composite
def wmma_and_shape(draw):
    """A ctaLayout (`cta_bases`), any version, order, rank and CGA, and a shape from 1 to 128 per dim."""
    v = draw(st.integers(1, 3))
    r = draw(st.integers(2, 3))
    enc = AmdWmmaEncoding(v, draw(st.booleans()), *draw(cta_bases(r)),
                          draw(st.sampled_from(WMMA_INSTR_SHAPES[v])), draw(valid_cga(r)), r)
    shape = tuple(draw(st.lists(st.integers(0, 7).map(lambda e: 1 << e), min_size=r, max_size=r)))
    return enc, shape


def outcome(fn, shape):
    try:
        return fn(shape)
    except CheckerError as e:
        return (type(e).__name__, str(e), e.field)


@given(wmma_and_shape())
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
def test_closed_form_is_the_composition(enc_shape):
    """to_linear_layout (rank 2 written out, Triton's final check skipped for a permutation ctaLayout) ==
    to_linear_layout_generic, bit for bit or the same error."""
    enc, shape = enc_shape
    try:
        enc.validate()
    except CheckerError:
        assume(False)
    closed, generic = outcome(enc.to_linear_layout, shape), outcome(enc.to_linear_layout_generic, shape)
    assert closed == generic
    if not isinstance(closed, tuple):
        assert closed.in_dims == generic.in_dims and closed.out_dim_sizes == generic.out_dim_sizes
        assert closed.bases == generic.bases


# ------------------------------------------------------- Triton 3.6: warpsPerCTA and tilesPerWarp

ORACLE_36 = [json.loads(line) for line in (pathlib.Path(__file__).parent / "wmma_triton36_oracle.jsonl").open()]


def _bases(attr, shape, version):
    with using(version):
        L = lower(parse_attribute(attr), shape)
    return {**{d: [list(b) for b in L.in_bases(d)] for d in ("register", "lane", "warp", "block")},
            "shape": [s for _, s in L.out_dim_sizes]}


def test_triton_36_lowers_warps_per_cta_as_layoutcheck_does():
    """tests/encodings/wmma_triton36_oracle.jsonl: 463 (encoding, shape) cases in Triton 3.6's spelling
    (warpsPerCTA, tilesPerWarp; versions 1-3 with every instrShape, isTranspose, rank 2 and 3, CGAs; dot
    operands 0/1 with every kWidth 3.6 accepts), each lowered by Triton 3.6.0 itself (tools/version_oracle.py
    --route both: Gluon's to_linear_layout and the C++ toLinearLayout of the parsed attribute agree). The
    first three are h_mx_gemm_fp8's (tests/verify/ttgir/mx_gemm_fp8_gfx1250_triton36.ttgir), the rest a
    seeded sample of the 84,138 cases of that grid (every one of which layoutcheck lowers as Triton 3.6.0)."""
    assert len(ORACLE_36) == 463
    wrong = [(r["attr"], r["shape"]) for r in ORACLE_36 if _bases(r["attr"], r["shape"], "3.6") != r["ll"]]
    assert wrong == []
    # the same encodings as layoutcheck lowers them for 3.7 (the ctaLayout #8946 converts them to): tiles
    # and CGAs differ (change wmma_lowered_from_cta_layout), one CTA with unit tiles does not
    differ = [r for r in ORACLE_36 if _bases(r["attr"], r["shape"], "3.7") != r["ll"]]
    assert len(differ) > 100
    assert all("tilesPerWarp = [2" in r["attr"] or "tilesPerWarp = [4" in r["attr"] or "CGALayout" in r["attr"]
               or "tilesPerWarp = [1, 2" in r["attr"] or "tilesPerWarp = [1, 4" in r["attr"]
               or "tilesPerWarp = [1, 1, 2" in r["attr"] for r in differ)


def test_triton_36_puts_the_n_repetitions_before_a_warps_m_tiles():
    """Triton 3.6.0's answer for tilesPerWarp = [2, 2] at [64, 128]: the N repetition (register [0, 64])
    comes before the M tile ([16, 0]); 3.7 (tile x ctaLayout, then the repetitions) puts it after."""
    attr = ("#ttg.amd_wmma<{version = 3, isTranspose = true, warpsPerCTA = [2, 2], tilesPerWarp = [2, 2], "
            "instrShape = [16, 16, 128]}>")
    tile = [[0, 1], [0, 2], [0, 4]]
    assert _bases(attr, [64, 128], "3.6")["register"] == tile + [[0, 16], [0, 64], [16, 0]]
    assert _bases(attr, [64, 128], "3.7")["register"] == tile + [[0, 16], [16, 0], [0, 64]]
    assert _bases(attr, [64, 128], "3.6")["warp"] == [[0, 32], [32, 0]]


def test_triton_36_operand_of_tiled_parent_repeats_k_first():
    """Operand A of tilesPerWarp [2, 2], kWidth 16, K = 128 (Triton 3.6.0): K repeats up to the shape's K
    (registers [0, 32], [0, 64]) before the parent's M tile ([16, 0]); 3.7 repeats K by instrShape[2] only."""
    attr = ("#ttg.dot_op<{opIdx = 0, parent = #ttg.amd_wmma<{version = 3, isTranspose = true, warpsPerCTA = [2, 2], "
            "tilesPerWarp = [2, 2], instrShape = [16, 16, 128]}>, kWidth = 16}>")
    got = _bases(attr, [64, 128], "3.6")
    assert got == {"register": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 32], [0, 64], [16, 0]],
                   "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 16]], "warp": [[0, 0], [32, 0]], "block": [],
                   "shape": [64, 128]}


def test_triton_36_operand_takes_the_parents_cga_as_it_is():
    """Operand A's K is dim 1; Triton 3.6 gives it the parent's CGA [[0, 1]] unchanged (a block along K),
    3.7 zeroes the K component."""
    attr = ("#ttg.dot_op<{opIdx = 0, parent = #ttg.amd_wmma<{version = 2, isTranspose = false, warpsPerCTA = [2, 2], "
            "CGALayout = [[0, 1]]}>, kWidth = 8}>")
    assert _bases(attr, [32, 64], "3.6")["block"] == [[0, 32]]
    assert _bases(attr, [32, 64], "3.7")["block"] == [[0, 0]]


def test_a_cta_layout_without_a_warps_per_cta_form_has_no_triton_36_lowering():
    """Triton 3.6's warpsPerCTA / tilesPerWarp give dim 1's tiles and warps, then dim 0's: a ctaLayout in
    another order (here dim 0's warp before dim 1's) is a Triton 3.7 layout only."""
    other = wmma(version=3, regs=((0, 1),), warps=((1, 0), (0, 2)), instr=(16, 16, 32))
    assert other.warps_and_tiles is None
    assert wmma(version=3, regs=((0, 1),), warps=((0, 2), (1, 0)), instr=(16, 16, 32)).warps_and_tiles == \
        ((2, 2), (1, 2))
    with using("3.6"), pytest.raises(NotModelled, match="warpsPerCTA and tilesPerWarp, which cannot give"):
        lower(other, [64, 64])
    assert lower(other, [64, 64]).in_bases("warp") == ((16, 0), (0, 32))   # 3.7 and later
    assert wmma(warps=((1, 0), (0, 1))).warps_and_tiles is None
