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

Each field says how it is written (`param`): Triton's attribute key, the YAML
key, Gluon's parameter name, and what each syntax means when it is left out.
The readers (checker/syntax) and the attribute printer are driven by that
metadata; normal forms (``tilesPerWarp`` of all ones is ``()``) are the
encoding's own (``__post_init__``), so every reader builds equal values.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import MISSING, dataclass, fields, replace
from dataclasses import field as dc_field
from functools import cache
from typing import Any, ClassVar, Generic, TypeVar, overload

from ..errors import EncodingError, LayoutError, NotModelled
from ..layout import LinearLayout, is_power_of_two, standard_out_dims
from ..versions import TritonVersion
from ..versions import active as active_version

REGISTER, LANE, WARP, BLOCK, OFFSET = "register", "lane", "warp", "block", "offset"

Bases = tuple[tuple[int, ...], ...]

_Owner = TypeVar("_Owner")
_Value = TypeVar("_Value")


def as_bases(value: object) -> Bases:
    """Normalize a list of lists of ints into a tuple of tuples (anything else: EncodingError)."""
    return tuple(as_ints(b) for b in _items(value, "a list of bases"))


def as_ints(value: object) -> tuple[int, ...]:
    """Normalize a list of ints into a tuple; a bool, float, str or nested list is an EncodingError."""
    out = tuple(_items(value, "a list of integers"))
    for v in out:
        if isinstance(v, bool) or not isinstance(v, int):
            raise EncodingError(f"expected a list of integers, got {type(v).__name__} {str(v)[:40]} in it")
    return out


def _items(value: object, what: str) -> Sequence[Any]:
    if value is None:
        return ()
    if not isinstance(value, (list, tuple)):
        raise EncodingError(f"expected {what}, got {type(value).__name__} {str(value)[:40]}")
    return value


# ---------------------------------------------------------------- field metadata

class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()     # a key that must be given

# How a field's value is written (attribute text: ``4``, ``true``, ``[1, 2]``, ``[[0, 1]]``, ``#ttg...``).
INT, BOOL, INTS, BASES, ENCODING = "int", "bool", "ints", "bases", "encoding"
CGA = "cga"                     # ``CGALayout = [[...]]`` or the legacy CTAsPerCGA / CTASplitNum / CTAOrder
RANK = "rank"                   # an integer that may be left out: deduced (`implied_rank`)


@dataclass(frozen=True)
class Param:
    """How one encoding field is named and defaulted in each syntax (see `param`)."""

    triton: str                 # Triton's parameter name: the attribute key, and the field validate() reports
    form: str                   # INT, BOOL, INTS, BASES, ENCODING, CGA or RANK
    text_default: Any           # what an attribute text without the key means (REQUIRED: the key must be given)
    elided: bool                # Triton's printer leaves the key out when the value is text_default
    lenient_default: Any        # text_default for the lenient reader (Triton's own parser has a default)
    yaml: str                   # the YAML key
    yaml_default: Any           # what a YAML declaration without the key means (REQUIRED: the schema requires it)
    gluon: str | None           # Gluon's parameter name (None: Gluon has no such parameter)
    gluon_default: Any          # what a Gluon spec without the parameter means (REQUIRED: Gluon requires it)
    gives_rank: bool            # the readers take the rank from this field (read first)


def param(triton: str, form: str, *, default: Any = MISSING, text_default: Any = MISSING, elided: bool | None = None,
          lenient_default: Any = REQUIRED, yaml: str = "", yaml_default: Any = MISSING, gluon: str | None = "",
          gluon_default: Any = MISSING, gives_rank: bool = False) -> Any:
    """A dataclass field with its `Param`. `default` is the Python default; every syntax's default is it
    unless given (text_default also serves YAML when there is no Python default). A CGA is left out of the
    printed text when empty; other fields are printed unless `elided`. `gluon` and `yaml` default to the
    field's own name."""
    python = REQUIRED if default is MISSING else default
    text = python if text_default is MISSING else text_default
    p = Param(triton, form, text, form == CGA if elided is None else elided, lenient_default, yaml,
              (text if default is MISSING else default) if yaml_default is MISSING else yaml_default, gluon,
              python if gluon_default is MISSING else gluon_default, gives_rank)
    return dc_field(default=default, metadata={"param": p})


@cache
def params_of(cls: type) -> tuple[tuple[str, Param], ...]:
    """(field name, Param) of every field of an encoding class, in field order (names filled in)."""
    out = []
    for f in fields(cls):
        p: Param = f.metadata["param"]
        out.append((f.name, replace(p, yaml=p.yaml or f.name, gluon=f.name if p.gluon == "" else p.gluon)))
    return tuple(out)


def field_by_triton_name(cls: type, triton: str) -> str | None:
    """The field Triton calls `triton` (warpsPerCTA -> warps_per_cta), or None."""
    return next((name for name, p in params_of(cls) if p.triton == triton), None)


def implied_rank(cls: type, given: Mapping[str, object], legacy_order: object = None) -> int:
    """The rank of an encoding whose rank is a field (RANK): the `rank` given, else the length of the first
    basis of its bases fields (field order, the CGA included), else the length of the legacy CTAOrder, else
    the field's default. Every reader deduces it here; values that are not lists of lists, and bases of no
    component, are passed over."""
    rank = given.get("rank")
    if isinstance(rank, int) and not isinstance(rank, bool):
        return rank
    for name, p in params_of(cls):
        value = given.get(name)
        if p.form in (BASES, CGA) and isinstance(value, (list, tuple)) and value \
                and isinstance(value[0], (list, tuple)) and value[0]:
            return len(value[0])
    if isinstance(legacy_order, (list, tuple)):
        return len(legacy_order)
    default: int = next(p.text_default for name, p in params_of(cls) if p.form == RANK)
    return default


class derived(Generic[_Owner, _Value]):
    """A property of an encoding computed once per value (encodings are immutable): the first read stores
    the value in the instance's ``__dict__``, where later reads find it before this (non-data) descriptor.
    It is functools.cached_property without the lock Python 3.11 takes on every first read (1.4 µs; a cold
    lowering reads several such values once each, from validate, check_shape and to_linear_layout)."""

    def __init__(self, fn: Callable[[_Owner], _Value]) -> None:
        self.fn, self.name, self.__doc__ = fn, fn.__name__, fn.__doc__

    def __set_name__(self, owner: type[_Owner], name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type[_Owner] | None = None) -> derived[_Owner, _Value]: ...
    @overload
    def __get__(self, obj: _Owner, owner: type[_Owner] | None = None) -> _Value: ...

    def __get__(self, obj: _Owner | None, owner: type[_Owner] | None = None) -> derived[_Owner, _Value] | _Value:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.fn(obj)
        return value


def hash_once(field_hash: Callable[[_Owner], int]) -> Callable[[_Owner], int]:
    """An encoding class's hash (the frozen dataclass's, over its fields) computed once per value and kept on
    it: a cold lowering hashes a value for the parse cache, the lowering cache and a per-encoding tile, a
    slice its parent again within its own. `encodings._register` puts it on every class."""
    def __hash__(self: _Owner) -> int:
        h: int | None = self.__dict__.get("_field_hash")
        if h is None:
            h = self.__dict__["_field_hash"] = field_hash(self)
        return h
    return __hash__


# ---------------------------------------------------------------- bases

def bases_rank(*groups: Bases) -> int:
    """The number of components of the first basis found (0 when every group is empty)."""
    for bs in groups:
        if bs:
            return len(bs[0])
    return 0


def bases_extent(bases: Bases, rank: int) -> list[int]:
    """Per dim, the smallest power of two above every component of the bases (the out sizes they span)."""
    if rank == 2:                       # the common rank: per dim, the OR of the components has the max's length
        x = y = 0
        try:
            for a, b in bases:
                x |= a
                y |= b
        except (ValueError, TypeError):     # a basis of another length, a component that is no int
            pass
        else:
            if type(x) is int and type(y) is int and x >= 0 and y >= 0:
                return [1 << x.bit_length(), 1 << y.bit_length()]
    if bases and all(map(rank.__eq__, map(len, bases))):  # per dim, the bit length of its largest component
        return [1 << max(int(max(col)), 0).bit_length() for col in zip(*bases)]
    spans = [0] * rank                  # per dim, the OR of its positive components: its bit length is the max's
    for basis in bases:
        for d, c in enumerate(basis):
            if c > 0:
                spans[d] |= int(c)
    return [1 << s.bit_length() for s in spans]


def packed_columns(bases: Bases, rank: int, sizes: Sequence[int] | None = None) -> tuple[list[int], int]:
    """(one column per basis, the out bits): each basis packed into an int, dim0 in the low bits, every dim
    as wide as `bases_extent` makes it (`sizes`, where the caller has them already) -- the columns of the
    layout the bases span, as from_bases infers it (no negative components)."""
    shifts, bits = [], 0
    for size in bases_extent(bases, rank) if sizes is None else sizes:
        shifts.append(bits)
        bits += size.bit_length() - 1
    if len(shifts) == 2:                # (the same sum, written out for the common ranks)
        high = shifts[1]
        return [x | y << high for x, y in bases], bits
    if len(shifts) == 3:
        mid, high = shifts[1:]
        return [x | y << mid | z << high for x, y, z in bases], bits
    return [sum(int(c) << sh for c, sh in zip(b, shifts)) for b in bases], bits


def order_by_first_appearance(bases: Bases, rank: int) -> list[int]:
    """Dims in order of the first non-zero component of each basis, then the rest from rank-1 down
    (Triton's getOrder of a linear layout)."""
    order: list[int] = []
    for b in bases:
        nz = next((k for k, c in enumerate(b) if c), None)
        if nz is not None and nz not in order:
            order.append(nz)
    return order + [d for d in range(rank - 1, -1, -1) if d not in order]


def is_permutation_columns(columns: Iterable[int], out_bits: int) -> bool:
    """Triton's isPermutationMatrix on packed matrix columns: after removing the zero columns, each is one
    bit, no two are equal, and there are as many as out bits."""
    cols = [c for c in columns if c]
    return not any(c & (c - 1) for c in cols) and len(set(cols)) == len(cols) == out_bits


def is_permutation_matrix(*groups: Bases) -> bool:
    """Triton's isPermutationMatrixLayout on the layout these bases span, each out size the smallest power
    of two above its components: after dropping zero bases, each basis is one power of two along one dim,
    all distinct, as many as the out bits.

    Read on the bases directly: a basis that is one power of two 2^j along dim d is the column of out bit
    j of d; the out bits of d are log2 of its size, bit_length of its largest such power; so the columns
    are a permutation exactly when no basis has two non-zero components (or a negative or non-power-of-two
    one), none repeats, and their count is the sum of those bit lengths."""
    every = [b for bs in groups for b in bs]
    top = [0] * max(map(len, every), default=0)
    seen = set()
    for b in every:
        single = None
        for d, c in enumerate(b):
            if c:
                if single is not None or c < 0 or c & (c - 1):
                    return False
                single = (d, c)
        if single is None:
            continue
        if single in seen:
            return False
        seen.add(single)
        if single[1] > top[single[0]]:
            top[single[0]] = single[1]
    return len(seen) == sum(t.bit_length() for t in top)


@dataclass(frozen=True)
class Encoding:
    """Base of every encoding value."""

    kind: ClassVar[str] = ""
    is_shared: ClassVar[bool] = False

    def __getstate__(self) -> dict[str, object]:
        """Only the fields travel (pickled to a worker process): what a value derives on itself (its hash,
        `derived` values) is computed again where it is used."""
        names = {f.name for f in fields(self)}
        return {k: v for k, v in self.__dict__.items() if k in names}

    @property
    def rank(self) -> int:
        raise NotImplementedError

    def validate(self) -> None:
        """Raise EncodingError when Triton's verifier would reject the encoding."""

    @property
    def validated(self) -> bool:
        """True once `validate` has passed under the Triton version in force, which it then need not again
        (the value is immutable; `lower` asks this at every shape; a few rules are a release's:
        `versions.follows`, so one value read for two versions is validated for each); raises as validate
        does, every time it is asked."""
        done: tuple[TritonVersion, ...] | None = self.__dict__.get("_validated_for")
        version = active_version()
        if done is None or version not in done:
            self.validate()
            self.__dict__["_validated_for"] = (done or ()) + (version,)
        return True

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

    def params(self) -> dict[str, Any]:
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


def stored_layout(enc: Encoding, ins: Sequence[tuple[str, Bases]], field: str) -> LinearLayout:
    """The layout of bases given directly (linear, shared_linear, padded_shared), out sizes inferred; a
    layout that is no LinearLayout (not surjective) is the encoding's error on `field`."""
    try:
        return LinearLayout.from_bases(ins, standard_out_dims(enc.rank))
    except LayoutError as e:
        raise enc.fail(field, e.message) from None


def require_stored_shape(enc: Encoding, sizes: Sequence[int], shape: Sequence[int], covers: str) -> None:
    """A layout given by its bases is used as is: the shape must be the out sizes they span (`sizes`)."""
    for d, (want, got) in enumerate(zip(sizes, shape)):
        if want != got:
            raise EncodingError(f"{enc.kind}: mismatch in expected shape for dimension {d}: {covers} {want}, "
                                f"the shape asks for {got}", field="shape")


def require_power_of_two_entries(enc: Encoding, field: str, values: Sequence[int]) -> None:
    if any(not is_power_of_two(v) for v in values):
        raise enc.fail(field, f"every entry must be a power of two, got {list(values)}")


def require_permutation(enc: Encoding, field: str, order: Sequence[int], rank: int) -> None:
    if sorted(order) != list(range(rank)):
        raise enc.fail(field, f"must be a permutation of 0..{rank - 1}, got {list(order)}")


def require_rank(enc: Encoding, field: str, values: Sequence[object], rank: int) -> None:
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
