"""AMD MFMA accumulators and operands: the TritonGPUAttrDefs.td pictures as exact tables, the verifier,
and the operand rules (every conformance case runs in tests/conformance/test_lowering.py)."""

import pytest

from checker.encodings import lower
from checker.encodings.amd_mfma import AmdMfmaEncoding
from checker.encodings.dot_operand import DotOperandEncoding
from checker.encodings.slice import SliceEncoding
from checker.errors import EncodingError
from checker.syntax.gluon import from_gluon

from ..tables import owners, thread_grid


def mfma(instr=(32, 32, 8), warps=(1, 2), transposed=False, **kw):
    return AmdMfmaEncoding(3, warps, instr, transposed, **kw)


def regs_of(L, lane, warp=0):
    """(lane, register) -> coordinate, for every register of one lane."""
    return [tuple(L.apply({"register": r, "lane": lane, "warp": warp, "block": 0}).values())
            for r in range(L.in_dim_size("register"))]


# ------------------------------------------------------- the td's pictures


def test_example1_32x32_thread_grid():
    """Example 1: [32, 64], warpsPerCTA [1, 2], 32x32: lanes 0-31 hold rows 0-3 (mod 8), lanes 32-63 rows 4-7."""
    row_a = list(range(0, 32)) + list(range(64, 96))
    row_b = list(range(32, 64)) + list(range(96, 128))
    picture = ([row_a] * 4 + [row_b] * 4) * 4
    L = lower(mfma(), [32, 64])
    assert thread_grid(L, threads_per_warp=64) == picture
    assert all(len(v) == 1 for v in owners(L, 64).values())  # every element held once


def test_example1_lane_register_table():
    L = lower(mfma(), [32, 64])
    rows_low = [0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27]
    assert regs_of(L, 0) == [(r, 0) for r in rows_low]
    assert regs_of(L, 33) == [(r + 4, 1) for r in rows_low]
    assert regs_of(L, 63) == [(r + 4, 31) for r in rows_low]
    assert regs_of(L, 0, warp=1) == [(r, 32) for r in rows_low]


def test_example2_16x16_thread_grid_and_table():
    """Example 2: [16, 32], warpsPerCTA [1, 2], 16x16: 16 lanes per group of 4 rows."""
    picture = []
    for group in range(4):
        picture += [list(range(16 * group, 16 * group + 16)) + list(range(64 + 16 * group, 80 + 16 * group))] * 4
    L = lower(mfma((16, 16, 16)), [16, 32])
    assert thread_grid(L, threads_per_warp=64) == picture
    assert regs_of(L, 0) == [(0, 0), (1, 0), (2, 0), (3, 0)]
    assert regs_of(L, 17) == [(4, 1), (5, 1), (6, 1), (7, 1)]
    assert regs_of(L, 63, warp=1) == [(12, 31), (13, 31), (14, 31), (15, 31)]


def test_example3_4x4_is_not_a_valid_tile_in_triton_3_9():
    """Example 3 pictures a 4x4 MFMA, which Triton 3.9's verifier no longer accepts."""
    with pytest.raises(EncodingError, match=r"invalid \(mDim, nDim\)") as info:
        lower(mfma((4, 4, 4), (2, 2)), [8, 8])
    assert info.value.field == "instrShape"


@pytest.mark.parametrize("tiles, picture", [
    ((1, 1), [[0, 1, 0, 1], [2, 3, 2, 3], [0, 1, 0, 1], [2, 3, 2, 3]]),
    ((2, 2), [[0, 0, 1, 1], [0, 0, 1, 1], [2, 2, 3, 3], [2, 2, 3, 3]]),
])
def test_example4_tiles_per_warp(tiles, picture):
    """Example 4: 16 tiles of 16x16 with warpsPerCTA [2, 2]: the warp computing each tile."""
    L = lower(mfma((16, 16, 16), (2, 2), tiles_per_warp=tiles), [64, 64])
    own = owners(L, 64)
    assert [[own[(16 * i, 16 * j)][0][1] // 64 for j in range(4)] for i in range(4)] == picture


# ------------------------------------------------------ variants and rules


def test_transposed_swaps_m_and_n():
    L = lower(mfma(transposed=True, warps=(1, 1)), [32, 32])
    assert L.to_dict()["bases"]["register"] == [[0, 1], [0, 2], [0, 8], [0, 16]]
    assert L.to_dict()["bases"]["lane"] == [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]]


def test_f64_height_one():
    L = lower(mfma((16, 16, 4), (1, 1), element_bit_width=64), [16, 16])
    assert L.to_dict()["bases"]["register"] == [[4, 0], [8, 0]]
    assert L.to_dict()["bases"]["lane"] == [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0]]


def test_rank3_batch_warps():
    L = lower(AmdMfmaEncoding(3, (2, 1, 1), (16, 16, 16), False), [2, 16, 16])
    assert L.to_dict()["bases"]["warp"] == [[1, 0, 0]]
    assert L.to_dict()["bases"]["register"] == [[0, 1, 0], [0, 2, 0]]


def test_64x4_must_be_transposed_but_its_operands_are_fine():
    enc = mfma((64, 4, 4), (1, 1))
    with pytest.raises(EncodingError, match="must be transposed") as info:
        lower(enc, [64, 4])
    assert info.value.field == "isTransposed"
    # the 64x64 A operand of a 64x4 tile: kWidth 4 x 16 more K registers
    A = lower(DotOperandEncoding(0, enc, 4), [64, 64])
    assert A.to_dict()["bases"]["register"] == [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]]
    assert A.to_dict()["bases"]["lane"] == [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0]]


def test_dot_operand_k_repetition_and_warps_not_broadcast():
    parent = mfma((32, 32, 8), (2, 2))
    B = lower(DotOperandEncoding(1, parent, 4), [64, 64])
    # 4 registers along K, 32 lanes along N then 2 along K, then K repeats (64 / 8 = 8 times), then N
    assert B.to_dict()["bases"] == {
        "register": [[1, 0], [2, 0], [8, 0], [16, 0], [32, 0]],
        "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]],
        "warp": [[0, 32], [0, 0]],
        "block": []}


def test_slice_of_mfma():
    """Dropping N: the 16 lanes along N and the warps along N broadcast."""
    L = lower(SliceEncoding(1, mfma((16, 16, 16), (2, 2))), [32])
    assert L.to_dict()["bases"] == {"register": [[1], [2]], "lane": [[0], [0], [0], [0], [4], [8]],
                                    "warp": [[0], [16]], "block": []}


@pytest.mark.parametrize("enc, field, message", [
    (AmdMfmaEncoding(5, (1, 1), (32, 32, 8), False), "version", r"\[0, 4\]"),
    (mfma(element_bit_width=16), "elementBitWidth", "32 or 64"),
    (mfma(warps=(3, 1)), "warpsPerCTA", "power of two"),
    (mfma(warps=(2,)), "warpsPerCTA", "rank 2 or 3"),
    (mfma(warps=(1, 1), tiles_per_warp=(2, 3)), "tilesPerWarp", "power of two"),
    (mfma(warps=(1, 1), tiles_per_warp=(2,)), "tilesPerWarp", "rank"),
    (mfma(cga_layout=((1, 0), (1, 0))), "CGALayout", "permutation"),
])
def test_verifier(enc, field, message):
    with pytest.raises(EncodingError, match=message) as info:
        lower(enc, [64, 64][:enc.rank] + [64] * (enc.rank - 2))
    assert info.value.field == field


def test_all_ones_tiles_of_any_length_are_accepted():
    """Triton's parser gives a rank-2 MFMA tilesPerWarp = [1, 1, 1] (the instrShape length)."""
    assert lower(mfma(tiles_per_warp=(1, 1, 1)), [32, 64]) == lower(mfma(), [32, 64])
    assert lower(mfma(tiles_per_warp=(1,)), [32, 64]) == lower(mfma(), [32, 64])


@pytest.mark.parametrize("k_width, message", [(0, "mandatory"), (3, "power of two")])
def test_operand_k_width(k_width, message):
    with pytest.raises(EncodingError, match=message) as info:
        lower(DotOperandEncoding(0, mfma(), k_width), [32, 32])
    assert info.value.field == "kWidth"


@pytest.mark.parametrize("params, field, message", [
    ({"version": 0}, "version", r"\[1, 4\]"),
    ({"instr_shape": [32, 32]}, "instr_shape", r"\(M, N, K\)"),
    ({"instr_shape": [8, 8, 4]}, "instr_shape", r"invalid intrinsic shape \[8, 8, 4\]"),
    ({"element_bitwidth": 16}, "element_bitwidth", "element bitwidth must be 32 or 64"),
    ({"cga_layout": [[1, 0, 0]]}, "cga_layout", "rank mismatch"),
])
def test_gluon_asserts(params, field, message):
    spec = {"class": "AMDMFMALayout", "params": {"version": 3, "instr_shape": [32, 32, 8], "transposed": False,
                                                 "warps_per_cta": [2, 2], **params}}
    with pytest.raises(EncodingError, match=message) as info:
        from_gluon(spec)
    assert info.value.field == field


def test_gluon_defaults():
    enc = from_gluon({"class": "AMDMFMALayout", "params": {"version": 4, "instr_shape": [16, 16, 32],
                                                           "transposed": True, "warps_per_cta": [4, 1],
                                                           "tiles_per_warp": [1, 1]}})
    assert enc == AmdMfmaEncoding(4, (4, 1), (16, 16, 32), True, (), 32, ())


# ------------------------------------------------------- Triton 3.5: elementType

def test_triton_35_element_type_is_read_and_lowered_as_35_does():
    """Triton 3.5 writes an MFMA layout's accumulator type (``elementType = f64 | i32 | f32``; 3.6 writes
    ``elementBitWidth = 64`` for f64 only, PR #8213): read as elementBitWidth 64 for f64, else 32.
    tests/encodings/mfma_element_type_triton35_oracle.jsonl: 216 cases (versions 2 and 3, instrShape 16 and 32,
    three warp shapes, transposed or not, three shapes, each element type), each lowered by Triton 3.5.1 itself
    (tools/version_oracle.py --route ctypes, 2026-12-06): every one equal."""
    import json
    import pathlib

    from checker.syntax.mlir_attr import parse_attribute, print_attribute
    from checker.versions import using
    rows = [json.loads(line) for line in (pathlib.Path(__file__).parent /
                                          "mfma_element_type_triton35_oracle.jsonl").open()]
    assert len(rows) == 216 and {r["attr"].rsplit("elementType = ", 1)[1][:3] for r in rows} == {"f64", "i32", "f32"}
    wrong = []
    for r in rows:
        with using("3.5"):
            L = lower(parse_attribute(r["attr"], lenient=True), r["shape"])
        got = {**{d: [list(b) for b in L.in_bases(d)] for d in ("register", "lane", "warp", "block")},
               "shape": [s for _, s in L.out_dim_sizes]}
        if got != r["ll"]:
            wrong.append(r["attr"])
    assert wrong == []
    f64 = parse_attribute("#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 1], instrShape = [16, 16], "
                          "isTransposed = true, elementType = f64}>")
    assert f64.element_bit_width == 64 and print_attribute(f64).endswith("elementBitWidth = 64}>")
    i32 = parse_attribute("#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 1], instrShape = [16, 16], "
                          "isTransposed = true, elementType = i32}>")
    assert i32.element_bit_width == 32
    with pytest.raises(Exception, match="'elementType' must be an element type such as f32 or f64, got 5"):
        parse_attribute("#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 1], instrShape = [16, 16, 16], "
                        "isTransposed = true, elementType = 5}>")


def test_an_int8_gemm_triton_35_compiled_is_read():
    """It was refused (exit 2: "expected a value, got 'i32'"); now checked with 3.5's rules, its shared memory
    Triton 3.5's 6144."""
    import checker
    from tests.verify.conftest import ROOT
    report = checker.verify(str(ROOT / "tests" / "verify" / "ttgir" / "amd_int8_mfma_triton35.ttgir"), engine="f2")
    assert report["summary"]["triton_version"] == "3.5" and report["summary"]["failed"] == 0
    assert [p for k in report["summary"]["ttgir"] for p in k["problems"]] == []
    (budget,) = [c for c in report["checks"] if c["id"].endswith("fits[kernel]")]
    assert (budget["details"]["kernel_bytes"], budget["details"]["exact"]) == (6144, True)
