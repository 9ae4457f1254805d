"""Dot operands of NVIDIA MMA and blocked (FMA) parents: hand-checked bases, the CGA rule, verifier dispatch."""

from dataclasses import dataclass

import pytest

from checker.encodings import lower
from checker.encodings.base import DistributedEncoding
from checker.encodings.blocked import BlockedEncoding
from checker.encodings.dot_operand import DotOperandEncoding, broadcast_along_k, dot_operand_cga
from checker.encodings.linear import LinearEncoding
from checker.encodings.nvidia_mma import NvidiaMmaEncoding
from checker.encodings.slice import SliceEncoding
from checker.errors import EncodingError
from checker.layout import LinearLayout
from checker.syntax.gluon import from_gluon

AMPERE = NvidiaMmaEncoding(2, 0, (2, 2), (16, 8))
HOPPER = NvidiaMmaEncoding(3, 0, (4, 1), (16, 64, 16))
BLOCKED = BlockedEncoding((2, 2), (8, 4), (1, 2), (1, 0))


def bases(enc, shape):
    return lower(enc, shape).to_dict()["bases"]


def test_ampere_a_operand():
    """A = 16 x 8k: kWidth=2 K registers, 4 lanes along K, 8 along M, 2 M registers, 2 K registers;
    the warp along K (warp order row-major: dim1 first) is a broadcast."""
    assert bases(DotOperandEncoding(0, AMPERE, 2), [32, 32]) == {
        "register": [[0, 1], [8, 0], [0, 8], [0, 16]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
        "warp": [[0, 0], [16, 0]], "block": []}


def test_ampere_b_operand():
    """B = 8k x 8 with K (dim0) fastest; the warp along K (dim0, second in the warp order) broadcasts."""
    assert bases(DotOperandEncoding(1, AMPERE, 2), [32, 32]) == {
        "register": [[1, 0], [8, 0], [16, 0], [0, 16]], "lane": [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]],
        "warp": [[0, 8], [0, 0]], "block": []}


def test_hopper_a_operand_takes_m_from_the_instruction():
    """Triton 3.9 sizes the A tile's M by instrShape[rank-2] (here 64: three M registers)."""
    parent = NvidiaMmaEncoding(3, 0, (4, 1), (64, 64, 16))
    assert bases(DotOperandEncoding(0, parent, 2), [64, 32]) == {
        "register": [[0, 1], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16]],
        "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "warp": [[0, 0], [0, 0]], "block": []}


def test_m8_instruction_uses_a_k_tile_of_4k():
    parent = NvidiaMmaEncoding(2, 0, (1, 1), (8, 8))
    assert bases(DotOperandEncoding(0, parent, 1), [8, 4]) == {
        "register": [], "lane": [[0, 1], [0, 2], [1, 0], [2, 0], [4, 0]], "warp": [], "block": []}


def test_fma_b_operand_holds_all_of_k_per_thread():
    """Blocked parent, B: sizePerThread[K=0] := 32; the 8 lanes along K broadcast."""
    assert bases(DotOperandEncoding(1, BLOCKED), [32, 32]) == {
        "register": [[0, 1], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 16]],
        "lane": [[0, 2], [0, 4], [0, 0], [0, 0], [0, 0]], "warp": [[0, 8]], "block": []}


def test_fma_a_operand_rank1():
    """Rank 1 is allowed for A (K is dim 0): one thread holds the whole vector."""
    enc = DotOperandEncoding(0, BlockedEncoding((1,), (32,), (2,), (0,)))
    assert bases(enc, [2]) == {"register": [[1]], "lane": [[0]] * 5, "warp": [[0]], "block": []}


def test_cga_zeroes_k():
    assert dot_operand_cga(((1, 0), (0, 1)), 0, 2) == ((1, 0), (0, 0))
    assert dot_operand_cga(((1, 0), (0, 1)), 1, 2) == ((0, 0), (0, 1))
    enc = DotOperandEncoding(0, BlockedEncoding((1, 4), (4, 8), (2, 2), (1, 0), ((1, 0),)))
    assert enc.cga_layout == ((1, 0),)
    assert lower(enc, [64, 128]).bases["block"] == ((32, 0),)
    enc_b = DotOperandEncoding(1, BlockedEncoding((1, 4), (4, 8), (2, 2), (1, 0), ((1, 0),)))
    assert lower(enc_b, [32, 64]).bases["block"] == ((0, 0),)


def test_broadcast_along_k():
    L = broadcast_along_k("warp", [2, 4], [1, 0], 1)
    assert L == LinearLayout([("warp", [(0, 0), (0, 0), (0, 1)])], [("dim1", 1), ("dim0", 2)])


def test_gluon_converter_converts_the_parent():
    enc = from_gluon({"class": "DotOperandLayout", "params": {
        "operand_index": 0, "k_width": 2, "parent": {"class": "NVMMADistributedLayout", "params": {
            "version": [2, 0], "warps_per_cta": [2, 2], "instr_shape": [16, 8]}}}})
    assert enc == DotOperandEncoding(0, AMPERE, 2)


@pytest.mark.parametrize("enc, field, message", [
    (DotOperandEncoding(2, AMPERE, 2), "opIdx", "opIdx can be 0 or 1, got 2"),
    (DotOperandEncoding(0, AMPERE, 0), "kWidth", "kWidth is mandatory for an Ampere or Hopper MMA parent"),
    (DotOperandEncoding(0, AMPERE, 3), "kWidth", "power of two"),
    (DotOperandEncoding(1, HOPPER, 2), "opIdx", "opIdx must be 0 for a Hopper MMA parent"),
    (DotOperandEncoding(0, BLOCKED, 2), "kWidth", "not supported when the parent is a blocked layout"),
    (DotOperandEncoding(0, SliceEncoding(0, BLOCKED), 0), "parent", "slice parent cannot hold dot operands"),
    (DotOperandEncoding(0, LinearEncoding(((0, 1),), ((1, 0),), ()), 0), "parent",
     "linear parent cannot hold dot operands"),
    (DotOperandEncoding(1, BlockedEncoding((1,), (32,), (1,), (0,))), "parent", "does not have"),
    (DotOperandEncoding(0, NvidiaMmaEncoding(5, 0, (4, 1), (16, 8)), 2), "versionMajor", "versionMajor"),
])
def test_rejected(enc, field, message):
    with pytest.raises(EncodingError, match=message) as info:
        lower(enc, [32, 32] if enc.rank == 2 else [32])
    assert info.value.field == field


@dataclass(frozen=True)
class _HookedParent(DistributedEncoding):
    """A stand-in AMD-style parent: the dot operand must defer to its hooks."""

    kind = "hooked"
    calls: list

    @property
    def rank(self):
        return 2

    def validate_dot_operand(self, op_idx, k_width):
        self.calls.append(("validate", op_idx, k_width))
        if k_width == 0:
            raise EncodingError("dot_op: kWidth is mandatory for this parent", field="kWidth")

    def dot_operand_layout(self, op_idx, k_width, shape):
        self.calls.append(("lower", op_idx, k_width, tuple(shape)))
        return LinearLayout.identity_1d(shape[0], "register", "dim0") * \
            LinearLayout.identity_1d(shape[1], "register", "dim1")


def test_parent_hooks_are_called():
    calls = []
    enc = DotOperandEncoding(1, _HookedParent(calls), 8)
    enc.validate()
    L = enc.to_linear_layout([4, 4])
    assert calls == [("validate", 1, 8), ("lower", 1, 8, (4, 4))]
    assert L.in_dim_size("register") == 16
    with pytest.raises(EncodingError, match="mandatory for this parent"):
        DotOperandEncoding(0, _HookedParent([]), 0).validate()
