"""What every encoding is: an immutable value that validates itself and lowers to a LinearLayout.

An encoding class is a frozen dataclass (hashable, so lowerings are cached
per (encoding, shape)) with:

- ``kind``: the attribute mnemonic (``blocked``, ``nvmma_shared``, ...);
- ``validate()``: Triton's verifier rules, raising `EncodingError` that names
  the field (Triton's parameter name) and the rule;
- ``rank``: the tensor rank it describes;
- ``to_linear_layout(shape)``: the lowering, on an already validated encoding
  and a shape checked by `check_shape`.

Distributed encodings map ``register, lane, warp, block`` to ``dim0..``;
shared encodings map ``offset, block``. Parents that can be the parent of a
``dot_op`` implement ``dot_operand_layout``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar, Sequence

from ..errors import EncodingError, NotModelled
from ..layout import LinearLayout, is_power_of_two

REGISTER, LANE, WARP, BLOCK, OFFSET = "register", "lane", "warp", "block", "offset"

Bases = tuple[tuple[int, ...], ...]


def as_bases(value) -> Bases:
    """Normalize a list of lists of ints into a tuple of tuples (anything else: EncodingError)."""
    return tuple(as_ints(b) for b in _items(value, "a list of bases"))


def as_ints(value) -> tuple[int, ...]:
    """Normalize a list of ints into a tuple; a bool, float, str or nested list is an EncodingError."""
    out = tuple(_items(value, "a list of integers"))
    for v in out:
        if isinstance(v, bool) or not isinstance(v, int):
            raise EncodingError(f"expected a list of integers, got {type(v).__name__} {str(v)[:40]} in it")
    return out


def _items(value, what: str):
    if value is None:
        return ()
    if not isinstance(value, (list, tuple)):
        raise EncodingError(f"expected {what}, got {type(value).__name__} {str(value)[:40]}")
    return value


@dataclass(frozen=True)
class Encoding:
    """Base of every encoding value."""

    kind: ClassVar[str] = ""
    is_shared: ClassVar[bool] = False

    @property
    def rank(self) -> int:
        raise NotImplementedError

    def validate(self) -> None:
        """Raise EncodingError when Triton's verifier would reject the encoding."""

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        raise NotImplementedError

    def fail(self, field: str, rule: str) -> EncodingError:
        """Build the error for a broken rule about one of this encoding's fields."""
        return EncodingError(f"{self.kind}: {rule}", field=field)

    def check_shape(self, shape: Sequence[int]) -> None:
        """Shape rules Triton enforces before lowering (rank, powers of two)."""
        if len(shape) != self.rank:
            raise EncodingError(f"{self.kind}: shape {list(shape)} has rank {len(shape)} but the encoding "
                                f"has rank {self.rank}", field="shape")
        for s in shape:
            if not is_power_of_two(s):
                if self.is_shared:      # Triton allocates such a buffer (Proton's 96-entry one); no LinearLayout
                    raise NotModelled(f"{self.kind}: every shape dimension must be a power of two for a "
                                      f"LinearLayout, got {list(shape)} (Triton builds none for it)", field="shape")
                raise EncodingError(f"{self.kind}: every shape dimension must be a power of two, "
                                    f"got {list(shape)}", field="shape")

    def params(self) -> dict:
        """The encoding's parameters as plain data (for JSON and YAML)."""
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, Encoding):
                v = {"kind": v.kind, **v.params()}
            elif isinstance(v, tuple):
                v = [list(x) if isinstance(x, tuple) else x for x in v]
            out[f.name] = v
        return out


@dataclass(frozen=True)
class DistributedEncoding(Encoding):
    """An encoding of a tensor held in registers: register, lane, warp, block -> dims."""

    def dot_operand_layout(self, op_idx: int, k_width: int, shape: Sequence[int]) -> LinearLayout:
        raise EncodingError(f"dot_op: a {self.kind} parent cannot hold dot operands", field="parent")

    def validate_dot_operand(self, op_idx: int, k_width: int) -> None:
        """Rules on (opIdx, kWidth) that depend on this parent."""
        raise EncodingError(f"dot_op: a {self.kind} parent cannot hold dot operands", field="parent")


@dataclass(frozen=True)
class SharedEncoding(Encoding):
    """An encoding of a tensor in shared memory: offset, block -> dims."""

    is_shared: ClassVar[bool] = True

    def alignment(self) -> int:
        """Required alignment of the buffer, in bytes (Triton's getAlignment)."""
        return 16

    def padding_offset_bits(self) -> tuple[int, ...]:
        """Offset bits whose offsets the encoding declares padding (their bases are zero); none by default."""
        return ()


def require_power_of_two_entries(enc: Encoding, field: str, values: Sequence[int]) -> None:
    if any(not is_power_of_two(v) for v in values):
        raise enc.fail(field, f"every entry must be a power of two, got {list(values)}")


def require_permutation(enc: Encoding, field: str, order: Sequence[int], rank: int) -> None:
    if sorted(order) != list(range(rank)):
        raise enc.fail(field, f"must be a permutation of 0..{rank - 1}, got {list(order)}")


def require_rank(enc: Encoding, field: str, values: Sequence, rank: int) -> None:
    if len(values) != rank:
        raise enc.fail(field, f"has {len(values)} entries but the encoding has rank {rank}")


def matrix_order(rank: int, row_major: bool) -> list[int]:
    """Triton's getMatrixOrder: [r-1, r-2, ..., 0] row-major, else the last two swapped."""
    if rank < 2:
        return [0] * rank
    order = list(range(rank - 1, -1, -1))
    if not row_major:
        order[0], order[1] = order[1], order[0]
    return order
