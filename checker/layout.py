"""LinearLayout: an F2-linear map between named, power-of-two sized index spaces.

A layout L has ordered *in-dims* (hardware indices: ``register, lane, warp,
block``; or ``offset, block`` for shared memory) and ordered *out-dims*
(tensor coordinates ``dim0, dim1, ...``). Each in-dim d of size 2^k has k
bases: ``bases[d][i] = L(d = 2^i, every other input 0)``, one integer per
out-dim. L is linear over GF(2):

    L(x) = XOR of bases[d][i] over every set bit i of every input x[d].

Bit conventions follow Triton exactly. Flattening puts the first in-dim in
the low bits; an out basis is packed with out-dim k shifted by the sum of the
log sizes of the out-dims before it. The matrix of L has one column per
in-bit (in-dims in order, bit 0 first) and one row per out-bit.

Everything here is a pure function of (in-dims, bases, out-dims): values are
immutable and every operation returns a new layout.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from operator import lshift
from typing import Any, NoReturn, TypedDict

from . import f2
from .errors import LayoutError

Basis = tuple[int, ...]


class LayoutDict(TypedDict):
    """`LinearLayout.to_dict`: plain data (JSON, YAML, certificates)."""

    bases: dict[str, list[list[int]]]
    out_dims: dict[str, int]


def is_power_of_two(n: int) -> bool:
    return isinstance(n, int) and n > 0 and (n & (n - 1)) == 0


def log2(n: int) -> int:
    """log2 of a power of two."""
    return n.bit_length() - 1


class LinearLayout:
    """An F2-linear map {in-dims} -> {out-dims}; see the module docstring."""

    __slots__ = ("_ins", "_outs", "_columns", "_rank", "_hash", "_in_map")
    _ins: tuple[tuple[str, tuple[Basis, ...]], ...]
    _outs: tuple[tuple[str, int], ...]
    _columns: tuple[int, ...] | None
    _rank: int | None
    _hash: int | None
    _in_map: dict[str, tuple[Basis, ...]] | None      # in-dim name -> bases, built on first use (`_by_in_dim`)

    def __init__(self, bases: Mapping[str, Sequence[Sequence[int]]] | Sequence[tuple[str, Sequence[Sequence[int]]]],
                 out_dims: Sequence[tuple[str, int]], *, require_surjective: bool = False) -> None:
        items = bases.items() if isinstance(bases, Mapping) else bases
        ins = tuple((str(name), tuple([tuple(map(int, b)) for b in bs])) for name, bs in items)
        outs = tuple((str(name), int(size)) for name, size in out_dims)
        self._ins = ins
        self._outs = outs
        self._columns = None
        self._rank = None
        self._hash = None
        self._in_map = None
        self._check_invariants(require_surjective)

    @classmethod
    def _of(cls, ins: Iterable[tuple[str, Iterable[Basis]]], outs: Iterable[tuple[str, int]]) -> LinearLayout:
        """A layout from parts an operation of this class built and knows to be valid
        (distinct dim names, power-of-two sizes, bases tuples of ints within their out-dims):
        no conversion, no re-check. Every public way in goes through __init__, which checks."""
        L = object.__new__(cls)
        L._ins = tuple((n, tuple(bs)) for n, bs in ins)
        L._outs = tuple(outs)
        L._columns = L._rank = L._hash = L._in_map = None
        return L

    # ----------------------------------------------------------------- building

    @classmethod
    def from_bases(cls, bases: Mapping[str, Sequence[Sequence[int]]] | Sequence[tuple[str, Sequence[Sequence[int]]]],
                   out_names: Sequence[str]) -> LinearLayout:
        """Build from bases, inferring each out size as the smallest power of
        two above every basis component; the result must be surjective."""
        items = list(bases.items() if isinstance(bases, Mapping) else bases)
        every = [b for _, bs in items for b in bs]
        for b in every:
            if len(b) != len(out_names):
                raise LayoutError(f"basis {list(b)} has {len(b)} components, expected {len(out_names)}")
        # per out-dim, the least power of two above its largest component (0 -> 1)
        sizes = [1 << int(max(column)).bit_length() for column in zip(*every)] if every else [1] * len(out_names)
        return cls(items, list(zip(out_names, sizes)), require_surjective=True)

    @classmethod
    def empty(cls) -> LinearLayout:
        return cls((), ())

    @classmethod
    def strided_1d(cls, size: int, stride: int, in_dim: str, out_dim: str) -> LinearLayout:
        """x -> x * stride for x < size; out size stride * size."""
        if size == 0:
            return cls.empty()
        if not is_power_of_two(size):
            raise LayoutError(f"strided_1d size must be a power of two, got {size}")
        bases = [(i * stride,) for i in powers_below(size)]
        return cls._of([(in_dim, bases)], [(out_dim, stride * size)])

    @classmethod
    def identity_1d(cls, size: int, in_dim: str, out_dim: str) -> LinearLayout:
        """x -> x for x < size."""
        return cls.strided_1d(size, 1, in_dim, out_dim)

    @classmethod
    def zeros_1d(cls, size: int, in_dim: str, out_dim: str, out_size: int = 1) -> LinearLayout:
        """x -> 0 for x < size (a broadcast)."""
        if size == 0:
            return cls.empty()
        if not is_power_of_two(size):
            raise LayoutError(f"zeros_1d size must be a power of two, got {size}")
        if not is_power_of_two(out_size):
            raise LayoutError(f"zeros_1d out size must be a power of two, got {out_size}")
        return cls._of([(in_dim, [(0,)] * log2(size))], [(out_dim, out_size)])

    def _check_invariants(self, require_surjective: bool) -> None:
        names = [n for n, _ in self._ins]
        if len(set(names)) != len(names):
            raise LayoutError(f"duplicate in-dim names {names}")
        out_names = [n for n, _ in self._outs]
        if len(set(out_names)) != len(out_names):
            raise LayoutError(f"duplicate out-dim names {out_names}")
        n_out = len(self._outs)
        for name, size in self._outs:
            if not is_power_of_two(size):
                raise LayoutError(f"out-dim '{name}' has size {size}: out-dim sizes must be powers of two")
        every = [b for _, bs in self._ins for b in bs]
        if every and (any(len(b) != n_out for b in every) or
                      any(min(column) < 0 or max(column) >= size
                          for column, (_, size) in zip(zip(*every), self._outs))):
            self._refuse_basis_out_of_range()         # (per out-dim: its components, read in C by min / max)
        if require_surjective and not self.is_surjective():
            raise LayoutError(f"layout is required to be surjective but is not: {self.summary()}")

    def _refuse_basis_out_of_range(self) -> None:
        """The LayoutError naming the first basis with a component too many or too few, negative, or not below
        its out-dim's size (`_check_invariants` found one)."""
        n_out = len(self._outs)
        for in_dim, bs in self._ins:
            for b in bs:
                if len(b) != n_out:
                    raise LayoutError(f"basis {list(b)} of in-dim '{in_dim}' has {len(b)} components, "
                                      f"expected one per out-dim ({n_out})")
                for (out_dim, size), c in zip(self._outs, b):
                    if c < 0:
                        raise LayoutError(f"basis {list(b)} of in-dim '{in_dim}' is negative")
                    if c >= size:
                        raise LayoutError(f"basis {c} of in-dim '{in_dim}' for out-dim '{out_dim}' "
                                          f"is not less than the out-dim size {size}")

    # ------------------------------------------------------------------ queries

    def _by_in_dim(self) -> dict[str, tuple[Basis, ...]]:
        """In-dim name -> its bases, kept: the queries by name below are asked thousands of times a run."""
        m = self._in_map
        if m is None:
            m = self._in_map = dict(self._ins)
        return m

    @property
    def in_dims(self) -> tuple[str, ...]:
        return tuple(self._by_in_dim())

    @property
    def out_dims(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self._outs)

    @property
    def out_dim_sizes(self) -> tuple[tuple[str, int], ...]:
        return self._outs

    @property
    def in_dim_sizes(self) -> tuple[tuple[str, int], ...]:
        return tuple((n, 1 << len(bs)) for n, bs in self._ins)

    @property
    def bases(self) -> dict[str, tuple[Basis, ...]]:
        return dict(self._ins)

    def has_in_dim(self, d: str) -> bool:
        return d in self._by_in_dim()

    def has_out_dim(self, d: str) -> bool:
        return any(n == d for n, _ in self._outs)

    def in_bases(self, d: str) -> tuple[Basis, ...]:
        bs = self._by_in_dim().get(d)
        if bs is None:
            raise LayoutError(f"in-dim '{d}' is not in the layout (in-dims {list(self.in_dims)})")
        return bs

    def in_dim_size_log2(self, d: str) -> int:
        return len(self.in_bases(d))

    def in_dim_size(self, d: str) -> int:
        return 1 << self.in_dim_size_log2(d)

    def out_dim_index(self, d: str) -> int:
        for k, (n, _) in enumerate(self._outs):
            if n == d:
                return k
        raise LayoutError(f"out-dim '{d}' is not in the layout (out-dims {list(self.out_dims)})")

    def out_dim_size(self, d: str) -> int:
        return self._outs[self.out_dim_index(d)][1]

    def out_dim_size_log2(self, d: str) -> int:
        return log2(self.out_dim_size(d))

    def basis(self, in_dim: str, i: int, out_dim: str) -> int:
        return self.in_bases(in_dim)[i][self.out_dim_index(out_dim)]

    @property
    def total_in_size_log2(self) -> int:
        return sum(len(bs) for _, bs in self._ins)

    @property
    def total_out_size_log2(self) -> int:
        return sum(log2(s) for _, s in self._outs)

    @property
    def total_in_size(self) -> int:
        return 1 << self.total_in_size_log2

    @property
    def total_out_size(self) -> int:
        return 1 << self.total_out_size_log2

    @property
    def num_out_dims(self) -> int:
        return len(self._outs)

    # ---------------------------------------------------------- flat bit matrix

    def _out_shifts(self) -> list[int]:
        shifts, acc = [], 0
        for _, size in self._outs:
            shifts.append(acc)
            acc += log2(size)
        return shifts

    def pack_out(self, coords: Sequence[int]) -> int:
        """Pack an out coordinate (one int per out-dim) into one integer."""
        v = 0
        for c, s in zip(coords, self._out_shifts()):
            v |= c << s
        return v

    def unpack_out(self, v: int) -> tuple[int, ...]:
        out = []
        for _, size in self._outs:
            out.append(v & (size - 1))
            v >>= log2(size)
        return tuple(out)

    @property
    def columns(self) -> tuple[int, ...]:
        """The matrix columns: one packed out value per in-bit, in flat order."""
        if self._columns is None:
            shifts = self._out_shifts()
            cols = []
            for _, bs in self._ins:
                for b in bs:
                    v = 0
                    for c, s in zip(b, shifts):
                        v |= c << s
                    cols.append(v)
            self._columns = tuple(cols)
        return self._columns

    def rank(self) -> int:
        if self._rank is None:
            self._rank = f2.rank(self.columns)
        return self._rank

    def is_surjective(self) -> bool:
        return self.rank() == self.total_out_size_log2

    def is_injective(self) -> bool:
        return self.rank() == self.total_in_size_log2

    def is_invertible(self) -> bool:
        return self.is_surjective() and self.total_in_size_log2 == self.total_out_size_log2

    # -------------------------------------------------------------- application

    def apply(self, ins: Mapping[str, int] | Sequence[tuple[str, int]]) -> dict[str, int]:
        """L(ins): every in-dim must be given (as name -> value)."""
        ins = dict(ins)
        if len(ins) != len(self._ins) or any(name not in ins for name, _ in self._ins):  # (distinct names)
            raise LayoutError(f"apply needs exactly the in-dims {list(self.in_dims)}, got {sorted(ins)}")
        n_out = len(self._outs)
        acc = [0] * n_out
        for name, bs in self._ins:
            x = ins[name]
            if x < 0 or x >= (1 << len(bs)):
                raise LayoutError(f"input {name}={x} is out of range [0, {1 << len(bs)})")
            while x:                        # the basis of each set bit of x, lowest first
                low = x & -x
                b = bs[low.bit_length() - 1]
                for k in range(n_out):
                    acc[k] ^= b[k]
                x ^= low
        return {n: v for (n, _), v in zip(self._outs, acc)}

    def split_in(self, x: int) -> dict[str, int]:
        """Unflatten an input index into per-in-dim values."""
        out = {}
        for name, bs in self._ins:
            out[name] = x & ((1 << len(bs)) - 1)
            x >>= len(bs)
        return out

    def join_in(self, ins: Mapping[str, int]) -> int:
        x, shift = 0, 0
        for name, bs in self._ins:
            x |= ins.get(name, 0) << shift
            shift += len(bs)
        return x

    # ------------------------------------------------------- reshape / reorder

    def transpose_ins(self, new_order: Sequence[str]) -> LinearLayout:
        _require_same_dims(new_order, self.in_dims, "in")
        b = self.bases
        return LinearLayout._of([(d, b[d]) for d in new_order], self._outs)

    def transpose_outs(self, new_order: Sequence[str]) -> LinearLayout:
        _require_same_dims(new_order, self.out_dims, "out")
        perm = [self.out_dim_index(d) for d in new_order]
        ins = [(n, [tuple(b[p] for p in perm) for b in bs]) for n, bs in self._ins]
        return LinearLayout._of(ins, [self._outs[p] for p in perm])

    def reshape_ins(self, new_ins: Sequence[tuple[str, int]]) -> LinearLayout:
        """Concatenate all bases in in-dim order and re-split them by new sizes."""
        flat = [b for _, bs in self._ins for b in bs]
        _require_resplit(new_ins, self.total_in_size, "reshape_ins")
        out, i = [], 0
        for name, size in new_ins:
            k = log2(size)
            out.append((name, flat[i:i + k]))
            i += k
        return LinearLayout._of(((str(n), bs) for n, bs in out), self._outs)

    def reshape_outs(self, new_outs: Sequence[tuple[str, int]]) -> LinearLayout:
        """Pack every basis into one integer and re-split it by the new out sizes."""
        _require_resplit(new_outs, self.total_out_size, "reshape_outs")
        col = iter(self.columns)
        ins = []
        for name, bs in self._ins:
            nb = []
            for _ in bs:
                v = next(col)
                comp = []
                for _, size in new_outs:
                    comp.append(v % size)
                    v //= size
                nb.append(tuple(comp))
            ins.append((name, nb))
        return LinearLayout._of(ins, tuple((str(n), int(size)) for n, size in new_outs))

    def flatten_ins(self) -> LinearLayout:
        if not self._ins:
            return self
        return self.reshape_ins([(self._ins[0][0], self.total_in_size)])

    def flatten_outs(self) -> LinearLayout:
        if not self._outs:
            return self
        return self.reshape_outs([(self._outs[0][0], self.total_out_size)])

    def sublayout(self, in_dims: Iterable[str], out_dims: Iterable[str]) -> LinearLayout:
        """Restrict to the given in-dims (others read as 0) and out-dims; sizes kept."""
        in_set, out_set = set(in_dims), set(out_dims)
        _require_subset(in_set, self.in_dims, "in")
        _require_subset(out_set, self.out_dims, "out")
        keep = [k for k, (n, _) in enumerate(self._outs) if n in out_set]
        ins = [(n, [tuple(b[k] for k in keep) for b in bs]) for n, bs in self._ins if n in in_set]
        return LinearLayout._of(ins, [self._outs[k] for k in keep])

    def sublayout_is_zero(self, in_dims: Iterable[str], out_dims: Iterable[str]) -> bool:
        sub = self.sublayout(in_dims, out_dims)
        return all(c == 0 for _, bs in sub._ins for b in bs for c in b)

    def with_in_dim(self, d: str) -> LinearLayout:
        """The same map with one more in-dim d of size 1 (no bases), last."""
        if self.has_in_dim(d):
            raise LayoutError(f"with_in_dim: '{d}' is already an in-dim")
        return LinearLayout._of(self._ins + ((d, ()),), self._outs)

    def remove_zero_bases_along_dim(self, d: str) -> LinearLayout:
        ins = [(n, [b for b in bs if any(b)] if n == d else bs) for n, bs in self._ins]
        return LinearLayout._of(ins, self._outs)

    # ------------------------------------------------------------ the algebra

    def __mul__(self, outer: LinearLayout) -> LinearLayout:
        """Direct product: self's bases are the low bits of every shared dim."""
        inner = self
        in_names = supremum(inner.in_dims, outer.in_dims)
        out_names = supremum(inner.out_dims, outer.out_dims)
        in_log = {d: 0 for d in in_names}
        out_log = {d: 0 for d in out_names}
        for lay in (inner, outer):
            for n, bs in lay._ins:
                in_log[n] += len(bs)
            for n, s in lay._outs:
                out_log[n] += log2(s)
        inner_b, outer_b = inner.bases, outer.bases
        inner_out = {n: k for k, (n, _) in enumerate(inner._outs)}
        outer_out = {n: k for k, (n, _) in enumerate(outer._outs)}
        inner_shift = {n: log2(s) for n, s in inner._outs}
        # where each out component of the product comes from: (index in the factor's basis, shift)
        take_inner = [inner_out.get(o) for o in out_names]
        take_outer = [(outer_out.get(o), inner_shift.get(o, 0)) for o in out_names]
        inner_same = list(inner.out_dims) == out_names

        def from_inner(b: Basis) -> Basis:
            return b if inner_same else tuple(0 if k is None else b[k] for k in take_inner)

        def from_outer(b: Basis) -> Basis:
            return tuple(0 if k is None else b[k] << sh for k, sh in take_outer)

        ins = [(d, [from_inner(b) for b in inner_b.get(d, ())] + [from_outer(b) for b in outer_b.get(d, ())])
               for d in in_names]
        return LinearLayout._of(ins, [(o, 1 << out_log[o]) for o in out_names])

    def compose(self, outer: LinearLayout) -> LinearLayout:
        """outer ∘ self: self's out-dims feed outer's in-dims (matched by name)."""
        _require_same_dims(self.out_dims, outer.in_dims, "compose: out/in")
        for n, s in self._outs:
            if s > outer.in_dim_size(n):
                raise LayoutError(f"compose: out-dim '{n}' of size {s} exceeds outer in-dim size "
                                  f"{outer.in_dim_size(n)}")
        names = self.out_dims
        ins = []
        for n, bs in self._ins:
            nb = []
            for b in bs:
                r = outer.apply(dict(zip(names, b)))
                nb.append(tuple(r[o] for o in outer.out_dims))
            ins.append((n, nb))
        return LinearLayout._of(ins, outer._outs)

    def invert_and_compose(self, outer: LinearLayout) -> LinearLayout:
        """C with outer(C(x)) = self(x), the free variables of the solve set to 0.

        C's in-dims are self's; its out-dims are outer's in-dims at outer's
        sizes. An in-dim whose sublayout is identical in both maps as the
        identity (Triton's broadcasting heuristic); the rest is solved by least
        squares over GF(2) with the lowest-index pivot columns.

        Written on the bases (`invert_and_compose_generic` is the same map composed from sublayouts,
        products and transposes, the reference it is tested against): with outer's components put in
        self's out order, an in-dim d of both is an identity dim when every out size is the same in both
        and d's bases are equal. The other in-bits of outer, packed at outer's out sizes, are the
        columns; each other in-bit of self, packed the same way, is a target; f2.solve gives each target
        the mask x of pivot columns summing to it. C's basis for such a bit has, for each out-dim e of C
        (outer's in-dims, in outer's order), the bits of x that belong to e (0 for an identity dim);
        the basis j of an identity dim d is 2^j along d and 0 elsewhere.
        """
        B = self
        out_names = B.out_dims
        _require_same_dims(out_names, outer.out_dims, "invert_and_compose: out")
        index = {n: k for k, (n, _) in enumerate(outer._outs)}
        perm = [index[d] for d in out_names]
        a_sizes = [outer._outs[p][1] for p in perm]
        for d, a, b in zip(out_names, a_sizes, (s for _, s in B._outs)):
            if a < b:
                raise LayoutError(f"invert_and_compose: out-dim '{d}' of the target ({a}) "
                                  f"is smaller than the source's ({b})")
        a_ins = [(n, tuple(tuple(b[p] for p in perm) for b in bs)) for n, bs in outer._ins]
        identity = set()
        if a_sizes == [s for _, s in B._outs]:
            b_bases = dict(B._ins)
            identity = {n for n, bs in a_ins if n in b_bases and b_bases[n] == bs}
        a_rest = [(n, bs) for n, bs in a_ins if n not in identity]
        b_rest = [(n, bs) for n, bs in B._ins if n not in identity]
        if bool(a_rest) != bool(b_rest):
            raise LayoutError("invert_and_compose: one layout has in-dims left to solve and the other none")
        shifts, acc = [], 0
        for size in a_sizes:
            shifts.append(acc)
            acc += size.bit_length() - 1
        cols = [sum(map(lshift, b, shifts)) for _, bs in a_rest for b in bs]
        sol = f2.solve(cols, [sum(map(lshift, b, shifts)) for _, bs in b_rest for b in bs])
        if sol is None:
            raise LayoutError("invert_and_compose: the source layout reaches tensor elements the target "
                              "layout never holds (image not contained)")
        # per out-dim of C (outer's in-dims): where its bits sit in a solution mask, or None (identity)
        fields: list[tuple[int, int] | None] = []
        at = 0
        for n, bs in outer._ins:
            if n in identity:
                fields.append(None)
            else:
                fields.append((at, (1 << len(bs)) - 1))
                at += len(bs)
        names = [n for n, _ in outer._ins]
        ins, k = [], 0
        for n, bs in B._ins:
            if n in identity:
                e = names.index(n)
                ins.append((n, tuple(tuple(1 << j if i == e else 0 for i in range(len(names)))
                                     for j in range(len(bs)))))
                continue
            xs = sol[k:k + len(bs)]
            k += len(bs)
            ins.append((n, tuple(tuple(0 if f is None else (x >> f[0]) & f[1] for f in fields) for x in xs)))
        return LinearLayout._of(ins, outer.in_dim_sizes)

    def invert_and_compose_generic(self, outer: LinearLayout) -> LinearLayout:
        """`invert_and_compose` composed from sublayouts, a least-squares solve, products with 1-D
        identities and transposes (Triton's own construction): the reference the closed form is tested
        against."""
        out_names = list(self.out_dims)
        _require_same_dims(out_names, outer.out_dims, "invert_and_compose: out")
        A = outer.transpose_outs(out_names)
        B = self
        for d in out_names:
            if A.out_dim_size(d) < B.out_dim_size(d):
                raise LayoutError(f"invert_and_compose: out-dim '{d}' of the target ({A.out_dim_size(d)}) "
                                  f"is smaller than the source's ({B.out_dim_size(d)})")
        identity_dims = [d for d in A.in_dims
                         if B.has_in_dim(d) and A.sublayout([d], out_names) == B.sublayout([d], out_names)]
        a_rest = [d for d in A.in_dims if d not in identity_dims]
        b_rest = [d for d in B.in_dims if d not in identity_dims]
        if bool(a_rest) != bool(b_rest):
            raise LayoutError("invert_and_compose: one layout has in-dims left to solve and the other none")
        ret = _lstsq(A.sublayout(a_rest, out_names), B.sublayout(b_rest, out_names)) if a_rest \
            else LinearLayout.empty()
        for d in identity_dims:
            ret = ret * LinearLayout.identity_1d(A.in_dim_size(d), d, d)
        return ret.transpose_ins(list(B.in_dims)).transpose_outs(list(A.in_dims))

    def pseudoinvert(self) -> LinearLayout:
        ident = LinearLayout.empty()
        for n, s in self._outs:
            ident = ident * LinearLayout.identity_1d(s, n, n)
        return ident.invert_and_compose(self)

    def invert(self) -> LinearLayout:
        if not self.is_invertible():
            raise LayoutError("invert: layout is not invertible (must be surjective and square)")
        return self.pseudoinvert()

    def is_trivial_over(self, dims: Sequence[str]) -> bool:
        """The square sublayout dims -> dims is the identity, with no cross terms."""
        for d in dims:
            if not self.has_in_dim(d) or not self.has_out_dim(d):
                raise LayoutError(f"is_trivial_over: dim '{d}' must be both an in-dim and an out-dim")
        rest_in = [d for d in self.in_dims if d not in dims]
        rest_out = [d for d in self.out_dims if d not in dims]
        return (_square_sublayout_is_identity(self, dims)
                and self.sublayout_is_zero(rest_in, dims)
                and self.sublayout_is_zero(dims, rest_out))

    def quotient(self, dims: Sequence[str]) -> LinearLayout | None:
        """The layout on the remaining dims when trivial over `dims`, else None."""
        if any(not self.has_in_dim(d) for d in dims) or not self.is_trivial_over(dims):
            return None
        return self.sublayout([d for d in self.in_dims if d not in dims],
                              [d for d in self.out_dims if d not in dims])

    def get_free_variable_masks(self) -> dict[str, int]:
        """Per in-dim, the bitmask of in-bits in the span of earlier in-bits."""
        free = set(f2.free_columns(self.columns))
        out, c = {}, 0
        for n, bs in self._ins:
            mask = 0
            for i in range(len(bs)):
                if c in free:
                    mask |= 1 << i
                c += 1
            out[n] = mask
        return out

    def get_num_consecutive_in_out(self) -> int:
        """How many consecutive values of the first in-dim map to consecutive
        values of the first out-dim, with every other basis leaving those bits alone."""
        if not self._ins or not self._outs:
            return 1
        first = self._ins[0][1]
        consec = 0
        while consec < len(first):
            b = first[consec]
            if b[0] != (1 << consec) or any(b[1:]):
                break
            consec += 1
        other = 0
        for k, (_n, bs) in enumerate(self._ins):
            for i, b in enumerate(bs):
                if k != 0 or i >= consec:
                    other |= b[0]
        tz = (other & -other).bit_length() - 1 if other else 31
        return 1 << min(consec, tz)

    # ---------------------------------------------------------------- equality

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LinearLayout):
            return NotImplemented
        return self._ins == other._ins and self._outs == other._outs

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((self._ins, self._outs))
        return self._hash

    # ---------------------------------------------------------- serialization

    def to_dict(self) -> LayoutDict:
        """{"bases": {in_dim: [[c_dim0, c_dim1, ...], ...]}, "out_dims": {dim: size}}."""
        return {"bases": {n: [list(b) for b in bs] for n, bs in self._ins},
                "out_dims": {n: s for n, s in self._outs}}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> LinearLayout:
        try:
            bases = d["bases"]
            out_dims = d["out_dims"]
        except (KeyError, TypeError):
            raise LayoutError("a LinearLayout mapping needs 'bases' and 'out_dims'") from None
        if isinstance(out_dims, Mapping):
            outs = list(out_dims.items())
        else:
            outs = [tuple(x) for x in out_dims]
        return cls(list(bases.items()), outs)

    @classmethod
    def from_triton_json(cls, d: Mapping[str, Any]) -> LinearLayout:
        """The conformance data's format: {"in_dims", "in": {dim: bases}, "out_dims", "shape"}
        (out_dims defaults to dim0..dim{r-1}; shape gives the out sizes)."""
        try:
            in_dims, bases, shape = d["in_dims"], d["in"], d["shape"]
        except (KeyError, TypeError):
            raise LayoutError("a Triton LinearLayout needs 'in_dims', 'in' and 'shape'") from None
        out_dims = d.get("out_dims") or [f"dim{i}" for i in range(len(shape))]
        return cls([(n, bases.get(n, [])) for n in in_dims], list(zip(out_dims, shape)))

    def summary(self) -> str:
        """One short line for messages: the in- and out-dimension sizes, never the bases."""
        ins = ", ".join(f"{d}={n}" for d, n in self.in_dim_sizes) or "none"
        outs = ", ".join(f"{d}={n}" for d, n in self.out_dim_sizes) or "none"
        return f"in-dims ({ins}) -> out-dims ({outs})"

    def __repr__(self) -> str:
        return f"LinearLayout({self.to_dict()!r})"

    def __str__(self) -> str:
        outs = "[" + ", ".join(f"{n} (size {s})" for n, s in self._outs) + "]"
        if not self._ins:
            return "(empty layout)" if not self._outs else f"(empty layout with out-dims {outs})"
        lines = []
        for n, bs in self._ins:
            if not bs:
                lines.append(f" - {n} is a size 1 dimension")
                continue
            for i, b in enumerate(bs):
                prefix = " - " if i == 0 else "   "
                lines.append(f"{prefix}{n}={1 << i} -> ({', '.join(map(str, b))})")
        lines.append(f"where out dims are: {outs}")
        return "\n".join(lines)


# --------------------------------------------------------------------- helpers


def powers_below(n: int) -> list[int]:
    out, i = [], 1
    while i < n:
        out.append(i)
        i *= 2
    return out


def axis_bases(rank: int, d: int, n: int, start: int = 1) -> list[tuple[int, ...]]:
    """The bases start·1, start·2, start·4, ... (factors below n) along out component d of `rank` components,
    the rest 0: an identity of size n placed above `start` (a product's outer factor)."""
    out = []
    step = 1
    while step < n:
        b = [0] * rank
        b[d] = start * step
        out.append(tuple(b))
        step <<= 1
    return out


def _require_resplit(sizes: Sequence[tuple[str, int]], total_size: int, what: str) -> None:
    """A re-split of a dimension space: distinct names, every size a power of two, their product the
    space's size (what the result of a reshape needs besides its bases, which the reshape keeps valid)."""
    names = [name for name, _ in sizes]
    if len(set(names)) != len(names):
        raise LayoutError(f"{what}: duplicate dim names {names}")
    total = 1
    for name, size in sizes:
        if not is_power_of_two(size):
            raise LayoutError(f"{what}: size {size} of '{name}' is not a power of two")
        total *= size
    if total != total_size:
        raise LayoutError(f"{what}: total size {total} != {total_size}")


def _require_same_dims(a: Sequence[str], b: Sequence[str], what: str) -> None:
    if sorted(a) != sorted(b):
        raise LayoutError(f"{what} dims differ: {list(a)} vs {list(b)}")


def _require_subset(a: Iterable[str], b: Sequence[str], what: str) -> None:
    missing = [d for d in a if d not in b]
    if missing:
        raise LayoutError(f"{what}-dims {missing} are not in {list(b)}")


def supremum(x: Sequence[str], y: Sequence[str]) -> list[str]:
    """Order-preserving union of two name lists (ties favour x).

    sup([a, b], [a, c]) = [a, b, c]; sup([a, b], [b, a]) has no answer.
    """
    if not y or list(x) == list(y):
        return list(x)
    if not x:
        return list(y)
    result: list[str] = []
    seen: set[str] = set()
    pos_x = {e: i for i, e in enumerate(x)}
    pos_y = {e: i for i, e in enumerate(y)}
    i = j = 0
    inf = float("inf")

    def inconsistent() -> NoReturn:
        raise LayoutError(f"dimension orders {list(x)} and {list(y)} are inconsistent")

    while i < len(x) or j < len(y):
        while i < len(x) and x[i] in seen:
            i += 1
        while j < len(y) and y[j] in seen:
            j += 1
        if i >= len(x) and j >= len(y):
            break
        if i < len(x) and j < len(y) and x[i] == y[j]:
            if pos_y[x[i]] < j:
                inconsistent()
            result.append(x[i])
            seen.add(x[i])
            i += 1
            j += 1
            continue
        cand_x = pos_y[x[i]] if i < len(x) and x[i] in pos_y and pos_y[x[i]] >= j else inf
        cand_y = pos_x[y[j]] if j < len(y) and y[j] in pos_x and pos_x[y[j]] >= i else inf
        if i < len(x) and cand_x == inf:
            result.append(x[i])
            seen.add(x[i])
            i += 1
            continue
        if j < len(y) and cand_y == inf:
            result.append(y[j])
            seen.add(y[j])
            j += 1
            continue
        if cand_x <= cand_y:
            if pos_y[x[i]] < j:
                inconsistent()
            result.append(x[i])
            seen.add(x[i])
            i += 1
        else:
            if pos_x[y[j]] < i:
                inconsistent()
            result.append(y[j])
            seen.add(y[j])
            j += 1
    return result


def _square_sublayout_is_identity(L: LinearLayout, dims: Sequence[str]) -> bool:
    if not dims:
        return True
    for d in dims:
        if L.in_dim_size(d) != L.out_dim_size(d):
            return False
    sub = L.sublayout(dims, dims).flatten_ins().flatten_outs()
    if not sub._ins:
        return True
    return all(b[0] == (1 << i) for i, b in enumerate(sub._ins[0][1]))


def _lstsq(A: LinearLayout, B: LinearLayout) -> LinearLayout:
    """X with A(X(y)) = B(y): B's in-dims -> A's in-dims, pivot-only solution.

    Rows are A's out-bits; B's out-dims (same names, in A's order) may be
    smaller, their bits aligned to the low bits of A's.
    """
    a_shifts = A._out_shifts()
    b_index = {n: k for k, (n, _) in enumerate(B._outs)}
    targets = []
    for _, bs in B._ins:
        for b in bs:
            v = 0
            for (n, _), s in zip(A._outs, a_shifts):
                if n in b_index:
                    v |= b[b_index[n]] << s
            targets.append(v)
    sol = f2.solve(A.columns, targets)
    if sol is None:
        raise LayoutError("invert_and_compose: the source layout reaches tensor elements the target "
                          "layout never holds (image not contained)")
    total_a = A.total_in_size
    flat = LinearLayout([(A.in_dims[0], [(x,) for x in sol])], [(A.out_dims[0], total_a)])
    return flat.reshape_ins(list(B.in_dim_sizes)).reshape_outs(list(A.in_dim_sizes))


def _quotient_outs(A: LinearLayout, B: LinearLayout) -> list[tuple[str, int]] | None:
    """The out dims of C in A == B * C or A == C * B (A's, each size divided by B's), or None where B has
    a dim A lacks or an out dim larger than A's."""
    if any(not A.has_in_dim(d) for d in B.in_dims) or any(not A.has_out_dim(d) for d in B.out_dims):
        return None
    c_out = []
    for o in A.out_dims:
        out_c = A.out_dim_size_log2(o) - (B.out_dim_size_log2(o) if B.has_out_dim(o) else 0)
        if out_c < 0:
            return None
        c_out.append((o, 1 << out_c))
    return c_out


def divide_left(A: LinearLayout, B: LinearLayout) -> LinearLayout | None:
    """C with A == B * C, or None."""
    c_out = _quotient_outs(A, B)
    if c_out is None:
        return None
    c_ins = []
    for d in A.in_dims:
        in_a = A.in_dim_size_log2(d)
        in_b = B.in_dim_size_log2(d) if B.has_in_dim(d) else 0
        if in_a < in_b:
            return None
        for i in range(in_b):
            for o in A.out_dims:
                exp = B.basis(d, i, o) if B.has_out_dim(o) else 0
                if A.basis(d, i, o) != exp:
                    return None
        rows = []
        for i in range(in_b, in_a):
            comp = []
            for o, _ in c_out:
                ob = B.out_dim_size_log2(o) if B.has_out_dim(o) else 0
                v = A.basis(d, i, o)
                if v & ((1 << ob) - 1):
                    return None
                comp.append(v >> ob)
            rows.append(tuple(comp))
        c_ins.append((d, rows))
    C = LinearLayout(c_ins, c_out)
    if B * C != A:
        raise LayoutError("divide_left: internal inconsistency (B * C != A)")
    return C


def divide_right(A: LinearLayout, B: LinearLayout) -> LinearLayout | None:
    """C with A == C * B, or None."""
    c_out = _quotient_outs(A, B)
    if c_out is None:
        return None
    c_size = dict(c_out)
    c_ins = []
    for d in A.in_dims:
        in_a = A.in_dim_size_log2(d)
        in_b = B.in_dim_size_log2(d) if B.has_in_dim(d) else 0
        in_c = in_a - in_b
        if in_c < 0:
            return None
        rows = [tuple(A.basis(d, i, o) for o, _ in c_out) for i in range(in_c)]
        for i in range(in_c, in_a):
            for o in B.out_dims:
                shift = log2(c_size[o])
                v = A.basis(d, i, o)
                if v & ((1 << shift) - 1) or (v >> shift) != B.basis(d, i - in_c, o):
                    return None
        c_ins.append((d, rows))
    C = LinearLayout(c_ins, c_out)
    if C * B != A:
        raise LayoutError("divide_right: internal inconsistency (C * B != A)")
    return C


# ------------------------------------------------ helpers used by the lowerings


def standard_out_dims(rank: int) -> list[str]:
    return [f"dim{i}" for i in range(rank)]


def identity_standard_nd(in_dim: str, shape: Sequence[int], order: Sequence[int]) -> LinearLayout:
    """Product over order (minor first) of identity_1d(shape[d], in_dim, dim d)."""
    names = standard_out_dims(len(shape))
    for d in order:
        if not is_power_of_two(shape[d]):
            raise LayoutError(f"identity_standard_nd: size {shape[d]} of dim {d} is not a power of two")
    position = {d: k for k, d in enumerate(order)}
    bases = []
    for d in order:                     # the product's bases, built directly: dim d's bits, minor dims first
        for i in range(log2(shape[d])):
            basis = [0] * len(order)
            basis[position[d]] = 1 << i
            bases.append(tuple(basis))
    return LinearLayout._of([(in_dim, bases)] if order else [], [(names[d], shape[d]) for d in order])


def ensure_layout_not_larger_than(L: LinearLayout, shape: Mapping[str, int], *,
                                  broadcast_registers: bool = True) -> LinearLayout:
    """Clamp each out size to shape; components that fall outside become 0
    (broadcast). With broadcast_registers=False, register bases that became
    zero that way are dropped instead."""
    if not shape:
        return L
    new_sizes = []
    for n, s in L.out_dim_sizes:
        want = shape[n]
        if not is_power_of_two(want):
            raise LayoutError(f"shape {want} of '{n}' is not a power of two")
        new_sizes.append(min(s, want))
    ins = []
    for n, bs in L._ins:
        drop = (not broadcast_registers) and n == "register"
        nb = []
        for b in bs:
            was_zero = not any(b)
            clamped = tuple(0 if c >= size else c for c, size in zip(b, new_sizes))
            if drop and not was_zero and not any(clamped):
                continue
            nb.append(clamped)
        ins.append((n, nb))
    return LinearLayout._of(ins, list(zip(L.out_dims, new_sizes)))


def ensure_layout_not_smaller_than(L: LinearLayout, shape: Mapping[str, int]) -> LinearLayout:
    """Grow each out-dim (in L's out order) to shape by appending bases of the
    first in-dim (register / offset): the register-repetition order."""
    if not shape:
        return L
    k = L.in_dims[0]
    grow = []
    for n, actual in L.out_dim_sizes:
        desired = shape[n]
        if desired >= actual and desired % actual:
            raise LayoutError(f"cannot grow '{n}' from {actual} to {desired}")
        if desired > actual:
            grow.append((n, actual, desired // actual))
    if not grow:
        return L
    index = {n: j for j, n in enumerate(L.out_dims)}
    extra = []                          # = L * prod identity_1d(desired / actual, k, n), in L's out order
    for n, actual, factor in grow:
        for i in range(log2(factor)):
            basis = [0] * len(index)
            basis[index[n]] = actual << i
            extra.append(tuple(basis))
    ins = [(d, bs + tuple(extra) if d == k else bs) for d, bs in L._ins]
    outs = [(n, shape[n] if shape[n] > s else s) for n, s in L._outs]
    return LinearLayout._of(ins, outs)


def transpose_components(L: LinearLayout, order: Sequence[int]) -> LinearLayout:
    """New component i = old component order[i]; out names kept, sizes inferred.

    (Triton's transposeLinearLayout.)
    """
    ins = [(n, [tuple(b[i] for i in order) for b in bs]) for n, bs in L._ins]
    return LinearLayout.from_bases(ins, L.out_dims)
