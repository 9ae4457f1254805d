"""What Triton's AxisInfo analysis knows of every integer and pointer value of a TTGIR module, and the
address model of each global access built on it.

Triton decides how wide a global load or store is from three facts per value and per tensor dim d
(lib/Analysis/AxisInfo.cpp, class ``AxisInfo``):

- ``contiguity[d]``: the values come in runs of that many consecutive integers along d;
- ``divisibility[d]``: the first value of every such run is a multiple of it (a power of two; for a
  pointer, in bytes);
- ``constancy[d]``: the values come in runs of that many equal values along d;

and, where known, the value itself (``constant``). Scalars have rank 1. `analyze(module)` computes them for
every SSA value of every function as Triton's sparse data-flow analysis does: each operation by its own rule
(the visitor of AxisInfo.cpp named in each rule's docstring below), ``tt.contiguity`` / ``tt.divisibility`` /
``tt.constancy`` attributes on an operation overriding what its rule gives (``AxisInfoAnalysis::visitOperation``,
where ``tl.multiple_of`` / ``tl.max_contiguous`` hints land), function arguments from their attributes
(``initPessimisticStateFromFunc``), any other value at the pessimistic state (all 1, or its hints:
``getPessimisticValueState``), and loop-carried values at the fixed point of the join (``AxisInfo::join``:
gcd of contiguity and constancy, ``getDivisibilityFromContiguity`` for divisibility) over the loop's
entry and its ``scf.yield``.

Alongside, each value gets an *affine form* where it has one: value(c) = base + sum_d c_d * stride_d over
the tensor coordinates c, each stride an integer or ``Unknown(divisor)`` (a runtime value known to be a
multiple of ``divisor``: ``x * stride_am`` with ``stride_am`` an argument). A pointer's strides are in
bytes. ``%x % %M`` by a runtime ``M`` keeps its left side's form (the bounds guard ``offs % M`` is taken
not to wrap inside the tile); every other operation outside the rules (a load, a division, a select)
gives no form. The coalescing property counts 32-byte sectors on that form (`checker.properties.coalesced`).

A verify asks only what the global accesses read: `analyze(module, access_reads)` visits the operations those
values depend on (`_needed`: a visit reads only its inputs, so they get what the whole module's analysis gives
them) and leaves the rest out (a softmax's exp and reductions, a matmul's accumulator).

`access_of(module, op, info)` reads one global access (``tt.load``, ``tt.store``, ``amdg.buffer_load`` /
``amdg.buffer_store``, the global side of ``ttg.async_copy_global_to_local`` / ``amdg.buffer_load_to_local``,
``tt.atomic_rmw`` / ``tt.atomic_cas`` / ``amdg.buffer_atomic_rmw`` / ``_cas``): its pointer (or base and offsets), mask,
element type and the figures Triton's lowering reads (`GlobalAccess`).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from ..syntax.ttgir import Module, Operation, TypeRef, split_top

MAX_DIVISOR = 1 << 62          # highestPowOf2Divisor(0): the divisor of 0, "any power of two"
MAX_ROUNDS = 32                # rounds of the loop fixed point before giving up (pessimistic)


def pow2_divisor(n: int) -> int:
    """The largest power of two dividing n (MAX_DIVISOR for 0): Triton's highestPowOf2Divisor."""
    return MAX_DIVISOR if n == 0 else n & -n


def gcd(*xs: int) -> int:
    """Triton's gcd: 0 is the neutral element."""
    out = 0
    for x in xs:
        out = x if out == 0 else (out if x == 0 else math.gcd(out, x))
    return out


def times(a: int, b: int) -> int:
    """a * b, saturated at MAX_DIVISOR (multiplyDivisor)."""
    return MAX_DIVISOR if b and a > MAX_DIVISOR // b else a * b


@dataclass(frozen=True)
class Unknown:
    """A runtime integer known only to be a multiple of ``divisor`` (a stride passed as an argument)."""

    divisor: int

    def __str__(self) -> str:
        return f"?*{self.divisor}" if self.divisor > 1 else "?"


Stride = "int | Unknown"


@dataclass(frozen=True)
class AxisInfo:
    """Per-dim contiguity, divisibility and constancy, and the value when it is a known constant."""

    contiguity: tuple[int, ...]
    divisibility: tuple[int, ...]
    constancy: tuple[int, ...]
    constant: int | None = None

    @property
    def rank(self) -> int:
        return len(self.contiguity)

    @property
    def consistent(self) -> bool:
        """All three vectors have the rank's length."""
        return len(self.divisibility) == len(self.constancy) == len(self.contiguity)

    @staticmethod
    def pessimistic(rank: int) -> AxisInfo:
        return AxisInfo((1,) * rank, (1,) * rank, (1,) * rank)

    def with_hints(self, hints: dict[str, list[int]]) -> AxisInfo:
        """The hint attributes of an operation replace what its rule gave (visitOperation)."""
        def pick(key, own):
            h = hints.get(key)
            return tuple(h) if h else own
        return AxisInfo(pick("tt.contiguity", self.contiguity), pick("tt.divisibility", self.divisibility),
                        pick("tt.constancy", self.constancy), self.constant)

    def to_dict(self) -> dict:
        return {"contiguity": list(self.contiguity), "divisibility": list(self.divisibility),
                "constancy": list(self.constancy), "constant": self.constant}


def divisibility_from_contiguity(a: AxisInfo, b: AxisInfo, d: int) -> int:
    """The divisibility of a value that is either a or b (getDivisibilityFromContiguity): when their runs
    differ in length, a run of the result may start inside one of theirs."""
    ca, cb = a.contiguity[d], b.contiguity[d]
    if ca == cb or MAX_DIVISOR in (ca, cb):
        return gcd(a.divisibility[d], b.divisibility[d])
    return gcd(a.divisibility[d], b.divisibility[d], ca, cb)


def _gcd2(x: int, y: int) -> int:
    """gcd(x, y) of two, without the loop (the same value: 0 neutral, else math.gcd)."""
    return y if x == 0 else (x if y == 0 else math.gcd(x, y))


def join(a: AxisInfo | None, b: AxisInfo | None) -> AxisInfo | None:
    """AxisInfo::join: what is true of both (gcd per dim); the constant when both are the same one.
    Divisibility per dim is `divisibility_from_contiguity`, written out here (the analysis' hottest code)."""
    if a is None:
        return b
    if b is None:
        return a
    ac, ad, ak = a.contiguity, a.divisibility, a.constancy
    bc, bd, bk = b.contiguity, b.divisibility, b.constancy
    n = len(ac)
    if not (len(bc) == n == len(ad) == len(ak) == len(bd) == len(bk)):
        return a                              # another rank, or inconsistent
    if ac == bc and ad == bd and ak == bk and min(ac + ad + ak, default=0) >= 0:
        # the same vectors (a loop-carried value once settled): gcd(n, n) == n for n >= 0 keeps them all,
        # and the contiguities being equal, the divisibilities too; only the constant may go
        return a if a.constant is None or a.constant == b.constant else AxisInfo(ac, ad, ak)
    divs = tuple(_gcd2(x, y) if ca == cb or ca == MAX_DIVISOR or cb == MAX_DIVISOR
                 else _gcd2(_gcd2(_gcd2(x, y), ca), cb) for x, y, ca, cb in zip(ad, bd, ac, bc))
    return AxisInfo(tuple(map(_gcd2, ac, bc)), divs, tuple(map(_gcd2, ak, bk)),
                    a.constant if a.constant is not None and a.constant == b.constant else None)


def _join_keeps(s: AxisInfo, c: AxisInfo) -> bool:
    """join(s, c) == s. When s is c (a value's first setting) that holds without the join if no entry is
    negative (gcd(n, n) == n for n >= 0, and the constant is kept) or the vectors are inconsistent (join
    returns s); a negative hint gives gcd(-3, -3) == 3, so those are joined."""
    if s is c and (min(s.contiguity + s.divisibility + s.constancy, default=0) >= 0 or not s.consistent):
        return True
    return join(s, c) == s


# ---------------------------------------------------------------------------------------- the rules


def _binary(lhs: AxisInfo, rhs: AxisInfo, shape: Sequence[int], constant: int | None, contiguity, divisibility,
            constancy=None) -> AxisInfo:
    """BinaryOpVisitorImpl: a known constant result is constant over the whole shape; otherwise each dim by
    the op's contiguity / divisibility rules, constancy the gcd of the operands' unless the op says more."""
    rank = lhs.rank
    if constant is not None:
        return _constant_result(rank, shape, constant)
    r = range(rank)
    cons = constancy or (lambda d: _gcd2(lhs.constancy[d], rhs.constancy[d]))
    return AxisInfo(tuple(map(contiguity, r)), tuple(map(divisibility, r)), tuple(map(cons, r)))


def _constant_result(rank: int, shape: Sequence[int], constant: int) -> AxisInfo:
    """A binary op's result known to be `constant`: the same value over the whole shape."""
    return AxisInfo((1,) * rank, (pow2_divisor(constant),) * rank, tuple(shape) if shape else (1,) * rank, constant)


def _is_contiguous_dim(x: AxisInfo, shape, d) -> bool:
    return bool(shape) and x.contiguity[d] == shape[d]


def _is_constant_dim(x: AxisInfo, shape, d) -> bool:
    return bool(shape) and x.constancy[d] == shape[d]


def add_sub(kind: str, lhs: AxisInfo, rhs: AxisInfo, shape, elem_bytes: int = 1) -> AxisInfo:
    """AddSubOpAxisInfoVisitor (``arith.addi``, ``arith.subi``, ``tt.addptr`` with elem_bytes the pointee's
    size). A run of one side plus a constant run of the other stays a run; two runs added do not; the
    divisibility of a run start is the gcd of the sides' (the offset side scaled to bytes for addptr), clamped
    to the result's run length when a side's runs are longer. (`_binary` written out, one pass over the dims:
    the hottest rule.)"""
    if lhs.constant is not None and rhs.constant is not None:
        constant = {"add": lhs.constant + rhs.constant, "sub": lhs.constant - rhs.constant,
                    "addptr": lhs.constant + rhs.constant * elem_bytes}[kind]
        return _constant_result(lhs.rank, shape, constant)
    lc, lv, lk = lhs.contiguity, lhs.divisibility, lhs.constancy
    rc, rv, rk = rhs.contiguity, rhs.divisibility, rhs.constancy
    contiguity, divisibility, constancy = [], [], []
    for d in range(len(lc)):
        a_run, a_div, a_const, b_run, b_div, b_const = lc[d], lv[d], lk[d], rc[d], rv[d], rk[d]
        if kind == "sub":
            run = _gcd2(a_run, b_const)
        else:
            run = max(_gcd2(a_const, b_run), _gcd2(a_run, b_const))
        if kind == "addptr":
            b_div = times(b_div, elem_bytes)
        if a_run > 1 and b_run > 1:
            if kind == "sub" and a_run == b_run:
                div = _gcd2(a_div, b_div)
            else:
                div = 2 if a_div % 2 == 0 and b_div % 2 == 0 else 1
        elif a_run > 1 or b_run > 1:
            div = _gcd2(_gcd2(a_div, b_div), times(run, elem_bytes if kind == "addptr" else 1))
        else:
            div = _gcd2(a_div, b_div)
        contiguity.append(run)
        divisibility.append(div)
        constancy.append(_gcd2(a_const, b_const))
    return AxisInfo(tuple(contiguity), tuple(divisibility), tuple(constancy))


def mul(lhs: AxisInfo, rhs: AxisInfo, shape) -> AxisInfo:
    """MulIOpAxisInfoVisitor: only a multiplication by 1 keeps a run; divisibilities multiply, a run's taken
    as 1 (its later elements are not multiples of its start's)."""
    def contiguity(d):
        a = lhs.contiguity[d] if rhs.constant == 1 else 1
        b = rhs.contiguity[d] if lhs.constant == 1 else 1
        return max(a, b)

    def divisibility(d):
        a = 1 if lhs.contiguity[d] > 1 and rhs.constant != 1 else lhs.divisibility[d]
        b = 1 if rhs.contiguity[d] > 1 and lhs.constant != 1 else rhs.divisibility[d]
        return times(a, b)

    constant = None
    if lhs.constant is not None and rhs.constant is not None:
        constant = lhs.constant * rhs.constant
    elif lhs.constant == 0 or rhs.constant == 0:
        constant = 0
    return _binary(lhs, rhs, shape, constant, contiguity, divisibility)


def div(lhs: AxisInfo, rhs: AxisInfo, shape) -> AxisInfo:
    """DivOpAxisInfoVisitor (``arith.divsi`` / ``divui``)."""
    def contiguity(d):
        return lhs.contiguity[d] if rhs.constant == 1 else 1

    def constancy(d):
        c = gcd(lhs.constancy[d], rhs.constancy[d])
        if shape and _is_contiguous_dim(lhs, shape, d) and _is_constant_dim(rhs, shape, d):
            c = max(c, gcd(lhs.contiguity[d], lhs.divisibility[d], rhs.divisibility[d]))
        return c

    def divisibility(d):
        if lhs.constant == 0 or rhs.constant == 1:
            return lhs.divisibility[d]
        if rhs.constant is not None and rhs.constant != 0 and abs(rhs.constant) & (abs(rhs.constant) - 1) == 0 \
                and lhs.contiguity[d] == 1:
            return max(1, lhs.divisibility[d] // abs(rhs.constant))
        return 1

    constant = None
    if lhs.constant is not None and rhs.constant not in (None, 0):
        constant = int(lhs.constant / rhs.constant)      # C++ truncates toward zero
    return _binary(lhs, rhs, shape, constant, contiguity, divisibility, constancy)


def rem(lhs: AxisInfo, rhs: AxisInfo, shape) -> AxisInfo:
    """RemOpAxisInfoVisitor (``arith.remsi`` / ``remui``)."""
    def contiguity(d):
        if shape and _is_contiguous_dim(lhs, shape, d) and _is_constant_dim(rhs, shape, d):
            return gcd(lhs.contiguity[d], lhs.divisibility[d], rhs.divisibility[d])
        return 1

    def divisibility(d):
        return gcd(lhs.divisibility[d], rhs.divisibility[d]) if rhs.constancy[d] > 1 else 1

    def constancy(d):
        if shape and rhs.constant == 1:
            return shape[d]
        return gcd(lhs.constancy[d], rhs.constancy[d])

    constant = None
    if lhs.constant is not None and rhs.constant not in (None, 0):
        constant = int(math.fmod(lhs.constant, rhs.constant))
    elif rhs.constant == 1:
        constant = 0
    return _binary(lhs, rhs, shape, constant, contiguity, divisibility, constancy)


def shift(kind: str, lhs: AxisInfo, rhs: AxisInfo, shape) -> AxisInfo:
    """ShLIOpAxisInfoVisitor / ShROpAxisInfoVisitor: a shift by a constant k scales (or divides) the
    divisibility by 2^k; only a shift by 0 keeps a run."""
    def contiguity(d):
        return lhs.contiguity[d] if rhs.constant == 0 else 1

    def divisibility(d):
        if kind == "shr" and rhs.constant is None:
            return 1
        k = rhs.constant or 0
        ld = 1 if lhs.contiguity[d] > 1 and k else lhs.divisibility[d]
        return times(ld, 1 << k) if kind == "shl" else max(1, ld >> k)

    constant = None
    if lhs.constant is not None and rhs.constant is not None:
        constant = lhs.constant << rhs.constant if kind == "shl" else lhs.constant >> rhs.constant
    return _binary(lhs, rhs, shape, constant, contiguity, divisibility)


def logical(kind: str, lhs: AxisInfo, rhs: AxisInfo, shape) -> AxisInfo:
    """LogicalOpAxisInfoVisitor (``andi`` / ``ori`` / ``xori``): nothing but constancy, and constants folded."""
    constant = None
    if lhs.constant is not None and rhs.constant is not None:
        constant = {"and": lhs.constant & rhs.constant, "or": lhs.constant | rhs.constant,
                    "xor": lhs.constant ^ rhs.constant}[kind]
    return _binary(lhs, rhs, shape, constant, lambda d: 1, lambda d: 1)


def compare(pred: str, lhs: AxisInfo, rhs: AxisInfo, shape) -> AxisInfo:
    """CmpOpAxisInfoVisitor (``arith.cmpi``): the comparison of a run with a constant block is constant over
    gcd(run, divisibilities) elements (the mask alignment a bounds check ``offs < N`` gets)."""
    rank = len(shape) if shape else 1
    if lhs.constant is not None and rhs.constant is not None:
        a, b = lhs.constant, rhs.constant
        ua, ub = a % (1 << 64), b % (1 << 64)
        value = {"eq": a == b, "ne": a != b, "slt": a < b, "sle": a <= b, "sgt": a > b, "sge": a >= b,
                 "ult": ua < ub, "ule": ua <= ub, "ugt": ua > ub, "uge": ua >= ub}[pred]
        return AxisInfo((1,) * rank, (1,) * rank, tuple(shape) if shape else (1,), int(value))
    cons = []
    for d in range(rank):
        c = gcd(lhs.constancy[d], rhs.constancy[d])
        if pred in ("sgt", "ugt", "sle", "ule") and _is_constant_dim(lhs, shape, d):
            c = max(c, gcd(rhs.contiguity[d], lhs.divisibility[d], rhs.divisibility[d]))
        elif pred in ("slt", "ult", "sge", "uge") and _is_constant_dim(rhs, shape, d):
            c = max(c, gcd(lhs.contiguity[d], lhs.divisibility[d], rhs.divisibility[d]))
        cons.append(c)
    return AxisInfo((1,) * rank, (1,) * rank, tuple(cons))


def select(cond: AxisInfo, lhs: AxisInfo, rhs: AxisInfo, shape, scalar_cond: bool) -> AxisInfo:
    """SelectOpAxisInfoVisitor (``arith.select``)."""
    if cond.constant is not None:
        return rhs if cond.constant == 0 else lhs
    r = range(lhs.rank)
    if scalar_cond:
        cons = tuple(gcd(lhs.constancy[d], rhs.constancy[d]) for d in r)
        contig = tuple(gcd(lhs.contiguity[d], rhs.contiguity[d]) for d in r)
    else:
        cons = tuple(gcd(lhs.constancy[d], rhs.constancy[d], cond.constancy[d]) for d in r)
        contig = tuple(gcd(lhs.contiguity[d], rhs.contiguity[d], cond.constancy[d]) for d in r)
    divs = tuple(divisibility_from_contiguity(lhs, rhs, d) for d in r)
    constant = lhs.constant if lhs.constant is not None and lhs.constant == rhs.constant else None
    if constant is not None:
        cons = tuple(shape) if shape else (1,) * lhs.rank
    return AxisInfo(contig, divs, cons, constant)


def max_min(kind: str, lhs: AxisInfo, rhs: AxisInfo, shape) -> AxisInfo:
    """MaxMinOpAxisInfoVisitor (``arith.maxsi`` / ``maxui`` / ``minsi`` / ``minui``)."""
    rank = lhs.rank
    if lhs.constant is not None and rhs.constant is not None:
        v = max(lhs.constant, rhs.constant) if kind == "max" else min(lhs.constant, rhs.constant)
        return AxisInfo((1,) * rank, (pow2_divisor(v),) * rank, tuple(shape) if shape else (1,) * rank, v)
    r = range(rank)
    return AxisInfo(tuple(gcd(lhs.contiguity[d], rhs.contiguity[d]) for d in r),
                    tuple(divisibility_from_contiguity(lhs, rhs, d) for d in r),
                    tuple(gcd(lhs.constancy[d], rhs.constancy[d]) for d in r))


def expand_dims(x: AxisInfo, axis: int) -> AxisInfo:
    """ExpandDimsOpAxisInfoVisitor: the new dim of size 1 gets the gcd of the divisibilities (a run's taken
    as 1)."""
    if x.constant is not None:
        new = pow2_divisor(x.constant)
    else:
        new = 0
        for d in range(x.rank):
            new = gcd(new, 1 if x.contiguity[d] > 1 else x.divisibility[d])
        new = new or 1
    ins = lambda t, v: t[:axis] + (v,) + t[axis:]    # noqa: E731
    return AxisInfo(ins(x.contiguity, 1), ins(x.divisibility, new), ins(x.constancy, 1), x.constant)


def broadcast(x: AxisInfo, src_shape, dst_shape) -> AxisInfo:
    """BroadcastOpAxisInfoVisitor: a dim of size 1 becomes constant over its new size."""
    r = range(len(dst_shape))
    return AxisInfo(tuple(1 if src_shape[d] == 1 else x.contiguity[d] for d in r), x.divisibility,
                    tuple(dst_shape[d] if src_shape[d] == 1 else x.constancy[d] for d in r), x.constant)


def splat(x: AxisInfo, shape) -> AxisInfo:
    """SplatOpAxisInfoVisitor: constant over the whole shape, the scalar's divisibility."""
    return AxisInfo((1,) * len(shape), (x.divisibility[0],) * len(shape), tuple(shape), x.constant)


def make_range(start: int, end: int) -> AxisInfo:
    """MakeRangeOpAxisInfoVisitor: one run of end - start, starting at a multiple of start's divisor."""
    return AxisInfo((end - start,), (pow2_divisor(start),), (1,))


def trans(x: AxisInfo, order: Sequence[int]) -> AxisInfo:
    """TransOpAxisInfoVisitor: the dims permuted."""
    return AxisInfo(tuple(x.contiguity[o] for o in order), tuple(x.divisibility[o] for o in order),
                    tuple(x.constancy[o] for o in order), x.constant)


def reshape(x: AxisInfo, src_shape, dst_shape) -> AxisInfo:
    """ReshapeOpAxisInfoVisitor: each result dim inherits from the source dim whose row-major stride range
    holds its stride; a run survives only when the result dim starts at the source dim's low boundary."""
    if x.constant is not None:
        return AxisInfo((1,) * len(dst_shape), (pow2_divisor(x.constant),) * len(dst_shape), tuple(dst_shape),
                        x.constant)

    def suffix(shape):
        out = [1] * (len(shape) + 1)
        for d in range(len(shape) - 1, -1, -1):
            out[d] = out[d + 1] * shape[d]
        return out
    sp, dp = suffix(src_shape), suffix(dst_shape)
    contig, divs, cons = [1] * len(dst_shape), [1] * len(dst_shape), [1] * len(dst_shape)
    for dd in range(len(dst_shape)):
        dstride = dp[dd + 1]
        sd = next((s for s in range(len(src_shape)) if sp[s + 1] <= dstride < sp[s]), 0)
        sstride = sp[sd + 1]
        sc, sdv, sk = x.contiguity[sd], x.divisibility[sd], x.constancy[sd]
        if sc > 1:
            if dstride == sstride:
                c = min(sc, dst_shape[dd])
                contig[dd] = c
                divs[dd] = sdv if c == sc else min(sdv, c)
            continue
        end = sstride * sk
        if dstride <= end:
            k = min(dst_shape[dd], end // dstride)
            remaining = dst_shape[dd] // k
            dim = sd - 1
            while sk == src_shape[sd] and dim >= 0 and remaining > 1:
                piece = min(src_shape[dim], remaining)
                pc = min(x.constancy[dim], piece)
                k *= pc
                if pc < piece:
                    break
                remaining //= piece
                dim -= 1
            cons[dd] = k
        divs[dd] = sdv
    return AxisInfo(tuple(contig), tuple(divs), tuple(cons))


def load_result(ptr: AxisInfo, mask: AxisInfo | None) -> AxisInfo:
    """LoadOpAxisInfoVisitor: a loaded value is constant where both its pointer and its mask are."""
    r = range(ptr.rank)
    return AxisInfo((1,) * ptr.rank, (1,) * ptr.rank,
                    tuple(gcd(ptr.constancy[d], mask.constancy[d] if mask is not None else 0) for d in r))


# ------------------------------------------------------------------------------------ the affine forms

Form = tuple  # per dim: int | Unknown; None: no affine form


def _add_strides(a, b, sign=1):
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        da = a.divisor if isinstance(a, Unknown) else pow2_divisor(a)
        db = b.divisor if isinstance(b, Unknown) else pow2_divisor(b)
        return Unknown(min(da, db, MAX_DIVISOR))
    return a + sign * b


def _scale(s, k):
    """Stride s times k (k an int or Unknown)."""
    if isinstance(k, Unknown):
        if s == 0:
            return 0
        base = s.divisor if isinstance(s, Unknown) else pow2_divisor(s)
        return Unknown(times(base, k.divisor))
    if isinstance(s, Unknown):
        return Unknown(times(s.divisor, pow2_divisor(k))) if k else 0
    return s * k


# ------------------------------------------------------------------------------------ the module pass

_PRED = re.compile(r"\barith\.cmpi\s+(\w+)")
_CONST = re.compile(r"\barith\.constant\s+(?:dense<\s*([^<>\[\]]*?)\s*>|(-?\d+|true|false)\b)")
_POINTEE = re.compile(r"!tt\.ptr<\s*([a-zA-Z]\w*)")
_INT_TYPE = re.compile(r"\b[iu](\d+)\b|\bindex\b")
_INTEGER = re.compile(r"-?\d+")


def _hint_values(v) -> list[int] | None:
    """A hint attribute's values: ``16 : i32``, ``dense<16> : tensor<1xi32>``, ``dense<[16, 1]> ...``."""
    if v is None:
        return None
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return [v]
    nums = re.findall(r"-?\d+", str(v).split(":")[0])
    return [int(x) for x in nums] or None


def _hints(attrs: dict) -> dict[str, list[int]]:
    out = {}
    for key in ("tt.contiguity", "tt.divisibility", "tt.constancy"):
        if key in attrs:
            vals = _hint_values(attrs[key])
            if vals:
                out[key] = vals
    return out


def _fit(vals: list[int], rank: int) -> tuple[int, ...]:
    """A hint's values for a value of this rank (a single value: every dim, as initDimVectorFromHint's
    one-element vector is read at dim 0 of a scalar)."""
    return tuple(vals) if len(vals) == rank else tuple(vals[:1] * rank)


def value_shape(op: Operation) -> list[int]:
    """The shape of the op's (first) result: its tensor result type, else its last tensor type; [] for
    a scalar."""
    for t in op.result_types:
        if t.kind == "tensor":
            return list(t.shape)
    tensors = [t for t in op.operand_types if t.kind == "tensor"]
    return list(tensors[-1].shape) if tensors else []


def pointee_bits(text: str) -> int | None:
    """Bits of the element a ``!tt.ptr<T>`` in `text` points to (the first one)."""
    m = _POINTEE.search(text)
    if not m:
        return None
    return element_bits(m.group(1))


_ELEMENT = re.compile(r"(?:[iuf]|bf|f8E\w*?|f)(\d+)(?:\w*)")


def element_bits(name: str) -> int | None:
    if name in ("i1",):
        return 1
    m = _ELEMENT.fullmatch(name)
    if name.startswith("f8") or name.startswith("F8"):
        return 8
    if m:
        return int(m.group(1))
    if name.startswith("!tt.ptr"):
        return 64
    return None


@dataclass
class Analysis:
    """AxisInfo and affine forms of every value of a module, and the function arguments' hints."""

    info: dict[str, AxisInfo] = field(default_factory=dict)
    forms: dict[str, tuple | None] = field(default_factory=dict)
    shapes: dict[str, list[int]] = field(default_factory=dict)
    defs: dict[str, Operation] = field(default_factory=dict)
    arg_origin: dict[str, str] = field(default_factory=dict)    # argument -> the function argument's name
    renamed: dict[int, Operation] = field(default_factory=dict)  # id(original op) -> its copy, names unique

    def of(self, value: str | None, rank: int = 1) -> AxisInfo:
        got = self.info.get(value) if value else None
        return got if got is not None and got.rank == rank else AxisInfo.pessimistic(rank)


def _func_arg_hints(op: Operation) -> dict[str, dict[str, list[int]]]:
    """Each function argument's tt.* hint attributes, read from the signature text."""
    m = _SIGNATURE.search(op.text)
    if not m:
        return {}
    depth, end = 0, None
    body = m.group(1)
    for b in _BRACKET.finditer(body):           # the signature ends at the ")" closing its "("
        ch = b.group()
        if ch in "(<[{":
            depth += 1
        elif depth == 0 and ch == ")":
            end = b.start()
            break
        else:
            depth -= 1
    args = split_top(body[:end] if end is not None else body)
    out = {}
    for a in args:
        name = _ARG_NAME.match(a)
        if not name:
            continue
        hints = {}
        for key, pattern in _ARG_HINTS:
            h = pattern.search(a) if key in a else None
            if h:
                hints[key] = [int(x) for x in _INTEGER.findall(h.group(1))]
        out[name.group(1)] = hints
    return out


_SIGNATURE = re.compile(r"@[\w.$-]+\s*\((.*)")
_ARG_NAME = re.compile(r"\s*(%[\w.$-]+)")
_BRACKET = re.compile(r"[()<>\[\]{}]")
_ARG_HINTS = [(key, re.compile(re.escape(key) + r"\s*=\s*(dense<[^>]*>|-?\d+)"))
              for key in ("tt.contiguity", "tt.divisibility", "tt.constancy")]


def analyze(module: Module, reads: Callable[[Operation], Iterable[str]] | None = None) -> Analysis:
    """AxisInfo and affine forms of every SSA value of the module (module docstring), at the fixed point of
    the loops; with `reads` (the values a caller will ask about, per operation: `access_reads`), of those
    values and what they depend on (`_needed`), the others left out."""
    a = Analysis()
    ops = _scoped(module.operations, a)
    children: dict[int, list[Operation]] = {}
    funcs = []
    for op in ops:
        if op.results:
            shape = value_shape(op)             # one list for all its results (a visit does the same)
            for r in op.results:
                a.defs[r] = op
                a.shapes[r] = shape
        if op.parent is not None:
            children.setdefault(op.parent, []).append(op)
        if op.name == "tt.func":
            funcs.append(op)
    # function arguments: their hints; other block arguments are joined (scf.for) or pessimistic
    for op in funcs:
        hints = _func_arg_hints(op)
        types = {}
        for t, name in zip(op.argument_types, op.arguments):
            types[name] = t
        for name in op.arguments:
            t = types.get(name)
            shape = list(t.shape) if t is not None and t.kind == "tensor" else []
            rank = max(1, len(shape))
            h = hints.get(name.split("@")[0], {})
            info = AxisInfo.pessimistic(rank)
            info = AxisInfo(_fit(h["tt.contiguity"], rank) if "tt.contiguity" in h else info.contiguity,
                            _fit(h["tt.divisibility"], rank) if "tt.divisibility" in h else info.divisibility,
                            _fit(h["tt.constancy"], rank) if "tt.constancy" in h else info.constancy)
            a.info[name] = info
            a.shapes[name] = shape
            a.forms[name] = (0,) * rank
            a.arg_origin[name] = name
    order = range(len(ops)) if reads is None else _needed(ops, children, [v for op in ops for v in reads(op)])
    if _fixed_point(a, [ops[k] for k in order], [children.get(k, []) for k in order]):
        return a
    # no fixed point in MAX_ROUNDS rounds (cannot happen for monotone joins; a guard): pessimistic
    for v in list(a.info):
        if v not in a.arg_origin:
            a.info[v] = AxisInfo.pessimistic(a.info[v].rank)
            a.forms[v] = None
    return a


def _needed(ops: list[Operation], children: dict[int, list[Operation]], wanted: list[str]) -> list[int]:
    """The operations (indices, in order) that own the `wanted` values or a value they depend on (an op owns
    its results and its region arguments). What a value depends on is what its owner's visit reads for it
    (`_visit`): an ordinary op's operands; for a ``scf.for`` iteration argument or result, its init and what
    the loop's ``scf.yield`` gives it, and for the induction variable the lower bound and the step; for a
    ``scf.if`` result, what each region's ``scf.yield`` gives it. A visit writes a value from these alone, so
    the fixed point of these operations gives every wanted value what the whole module's gives it (a value
    they own but nobody wants may get less)."""
    owner: dict[str, int] = {}
    for k, op in enumerate(ops):
        for v in op.results:
            owner[v] = k
        for v in op.arguments:
            owner[v] = k
    need = bytearray(len(ops))
    seen: set[str] = set()
    todo = list(wanted)
    while todo:
        v = todo.pop()
        k = owner.get(v, -1)
        if k < 0 or v in seen:
            continue
        seen.add(v)
        op = ops[k]
        if op.name == "scf.for":
            if op.arguments and v == op.arguments[0]:
                todo += op.operands[0:1] + op.operands[2:3]
            else:
                j = op.arguments.index(v) - 1 if v in op.arguments else op.results.index(v)
                ys = _yields(children.get(k, []))
                todo += op.operands[3 + j:4 + j] + (ys[0].operands[j:j + 1] if ys else [])
        elif op.name == "scf.if":
            j = op.results.index(v)
            todo += [x for y in _yields(children.get(k, [])) for x in y.operands[j:j + 1]]
        elif not need[k]:
            todo += op.operands
        need[k] = 1
    return [k for k in range(len(ops)) if need[k]]


_ABSENT = object()        # a value not (yet) in a.info / a.forms / a.shapes: unlike any state, None included


def _fixed_point(a: Analysis, ops: list[Operation], children: list[list[Operation]]) -> bool:
    """Visit the operations in order, round after round, until a round changes no AxisInfo nor form (True),
    or MAX_ROUNDS rounds went by (False): the same rounds as the plain loop ``for op in ops: _visit(...)``,
    leaving the same state after each, but visiting only the ops whose visit may change something.

    Why a skipped visit changes nothing. A value's *state* is its entries in a.info, a.forms and a.shapes
    (or their absence). A visit of op reads only (i) its *inputs*: the state of its operands and, for
    ``scf.for`` / ``scf.if``, of its child ``scf.yield``'s operands; (ii) its *own* values: its results and
    region arguments; (iii) the op's text, fixed. It writes only its own values (an op owning none writes
    nothing: never visited), and no other op writes them (`_scoped` names them ``%x@<op index>``). So a
    visit is a function ``own' = f(inputs, own)`` of values, and when the inputs are what they were at the
    op's last visit and that visit's own' is a fixed point of f(inputs, .), visiting again changes nothing.
    An op is *clean* when the latter is known:

    - its last visit changed none of its own values; or
    - it is an ordinary op (a rule, not scf) whose last visit set every result to ``join(old, C)``: with the
      same inputs the rule gives the same C and form again, and the visit is a no-op when
      ``join(S, C) == S`` for each result's state S, the form being idempotent (`_set` keeps it or sets it
      to None, and a second set with the same form keeps either). This is checked (`_join_keeps`), not
      assumed: Triton's gcd is not idempotent on negative hints.

    So an op is visited when it is not clean, or when one of its inputs changed since its last visit: a
    value changed by op j's visit marks its users, those after j for this round (the plain loop visits
    them after j), those up to j for the next. A round changed "something" exactly when some visit changed
    a value's AxisInfo or form (key presence included), as the plain loop's comparison of a.info / a.forms
    before and after the round sees it: a value is written only in its owner's visit, once a round.
    Shapes changed only mark users (the plain loop does not compare them).

    A round scans the ops owning values in order and visits those marked: a mark made during the round is
    always ahead of the scan. An ordinary op with distinct results (no scf op, no region arguments: most of
    them) is visited here, `_visit`'s steps written out (`_outcome`, then each result joined as `_set` does),
    so each result's change is seen as it is made; any other op is visited by `_visit` and its values
    compared with a snapshot taken before."""
    n = len(ops)
    users: dict[str, list[int]] = {}
    for k, op in enumerate(ops):
        inputs = op.operands
        if op.name in ("scf.for", "scf.if"):
            inputs = inputs + [v for c in children[k] if c.name == "scf.yield" for v in c.operands]
        for v in (dict.fromkeys(inputs) if len(inputs) > 1 else inputs):     # each op once per value
            users.setdefault(v, []).append(k)
    owned = [op.results + op.arguments for op in ops]
    writers = [k for k in range(n) if owned[k]]     # an op owning no value (a store, a yield) writes nothing
    ordinary = [not op.arguments and op.name not in ("scf.for", "scf.if") and
                (len(op.results) < 2 or len(set(op.results)) == len(op.results)) for op in ops]
    info, forms, shapes = a.info, a.forms, a.shapes
    # the shape each visit gives an op's results: its value_shape, which `analyze` set on them (one list)
    op_shapes = [shapes.get(op.results[0]) if op.results else None for op in ops]
    pending = bytearray(b"\x01" * n)     # the ops marked for the next round
    for _ in range(MAX_ROUNDS):
        changed = False
        marked, pending = pending, bytearray(n)
        for k in writers:
            if not marked[k]:
                continue
            op = ops[k]
            if ordinary[k]:
                shape = op_shapes[k]
                got = _outcome(a, op, shape)
                if got is None:          # an operand not reached: nothing written
                    continue
                c, form = got
                dirty = False
                for v in op.results:
                    old = info.get(v, _ABSENT)
                    new = c if old is _ABSENT else join(old, c)
                    info[v] = new
                    moved = old is _ABSENT or (new is not old and new != old)
                    old_form = forms.get(v, _ABSENT)
                    if old_form is _ABSENT:
                        forms[v] = form
                        moved = True
                    elif old_form != form:
                        forms[v] = None
                        moved = moved or old_form is not None
                    old_shape = shapes.get(v, _ABSENT)
                    shapes[v] = shape
                    if moved or (old_shape is not shape and old_shape != shape):
                        dirty = True
                        changed = changed or moved
                        for u in users.get(v, ()):
                            if u <= k:
                                pending[u] = 1
                            else:
                                marked[u] = 1
                if dirty:
                    for v in op.results:
                        if not _join_keeps(info[v], c):
                            pending[k] = 1       # not clean: visit again next round
                            break
                continue
            mine = owned[k]
            before = [(info.get(v, _ABSENT), forms.get(v, _ABSENT), shapes.get(v, _ABSENT)) for v in mine]
            got = _visit(a, op, children[k], op_shapes[k])
            dirty = False
            for v, old_state in zip(mine, before):
                state = (info.get(v, _ABSENT), forms.get(v, _ABSENT), shapes.get(v, _ABSENT))
                if state == old_state:
                    continue
                dirty = True
                changed = changed or state[:2] != old_state[:2]
                for u in users.get(v, ()):
                    if u <= k:
                        pending[u] = 1
                    else:
                        marked[u] = 1
            if dirty and not (got is not None and all(_join_keeps(info[r], got[0]) for r in op.results)):
                pending[k] = 1           # not clean: visit again next round
        if not changed:
            return True
    return False


def _scoped(ops: list[Operation], a: Analysis) -> list[Operation]:
    """The operations with every SSA name made unique (``%50@381``: the name and its defining line): MLIR's
    printer reuses names in sibling regions, so a use is resolved to the latest definition before it whose
    region encloses the use. `Analysis.renamed` maps each original operation to its copy.

    An op's scope, the (parent index, region) chain from its block out to the module, innermost first,
    depends only on its block (its parent and region): it is the block itself followed by the parent op's
    scope, so it is computed once per block. Each definition is kept with its unique name, made once."""
    blocks: dict[tuple, tuple[tuple, set]] = {}      # block -> (its chain, the scopes whose names it sees)

    def scope(op: Operation) -> tuple[tuple, set]:
        """The op's block's (chain, enclosing), the blocks out to the first one known built outermost first
        (a loop, not a recursion: a nested function calling itself is a reference cycle, and all it holds would
        wait for the cyclic collector)."""
        block = (None, 0) if op.parent is None else (op.parent, getattr(op, "region", None) or 0)
        got = blocks.get(block)
        if got is not None:
            return got
        pending, outer = [block], ()
        while op.parent is not None:
            op = ops[op.parent]
            parent = (None, 0) if op.parent is None else (op.parent, getattr(op, "region", None) or 0)
            known = blocks.get(parent)
            if known is not None:
                outer = known[0]
                break
            pending.append(parent)
        for b in reversed(pending):
            outer = (b,) + outer
            blocks[b] = (outer, set(outer) | {(p, None) for p, _ in outer})
        return blocks[block]

    defs: dict[str, list[tuple[tuple, str]]] = {}    # name -> (the scope of each definition, its unique name)
    renamed = a.renamed
    out = []
    for i, op in enumerate(ops):
        chain, enclosing = scope(op)
        operands = []
        for name in op.operands:
            for where, unique in reversed(defs.get(name, ())):
                if where in enclosing:
                    name = unique
                    break
            operands.append(name)
        own = chain[0]
        results = []
        for r in op.results:
            unique = f"{r}@{i}"
            defs.setdefault(r, []).append((own, unique))
            results.append(unique)
        arguments = []
        for r in op.arguments:
            unique = f"{r}@{i}"
            defs.setdefault(r, []).append(((i, None), unique))       # visible in each of its regions
            arguments.append(unique)
        copy = _renamed_copy(op, operands, results, arguments)
        renamed[id(op)] = copy
        out.append(copy)
    return out


_PLAIN_OPERATION = not hasattr(Operation, "__slots__") and not hasattr(Operation, "__post_init__") and \
    all(f.init for f in dataclasses.fields(Operation))
_OPERATION_FIELDS = len(dataclasses.fields(Operation))


def _renamed_copy(op: Operation, operands: list[str], results: list[str], arguments: list[str]) -> Operation:
    """``dataclasses.replace(op, operands=..., results=..., arguments=...)``. While Operation is a plain
    dataclass (no slots, no __post_init__, every field set by __init__), the object replace builds is a
    shallow copy of op's fields with those three replaced, which a copy of its __dict__ (holding nothing but
    the fields) made the new object's gives at a fifth of the cost (replace walks the fields and calls
    __init__ for each op)."""
    if not _PLAIN_OPERATION or type(op) is not Operation or len(op.__dict__) != _OPERATION_FIELDS:
        return dataclasses.replace(op, operands=operands, results=results, arguments=arguments)
    fields = op.__dict__.copy()
    fields["operands"], fields["results"], fields["arguments"] = operands, results, arguments
    copy = object.__new__(Operation)
    copy.__dict__ = fields
    return copy


def _set(a: Analysis, value: str, info: AxisInfo | None, form) -> None:
    old = a.info.get(value)
    a.info[value] = join(old, info) if old is not None else info
    if value in a.forms:
        if a.forms[value] != form:
            a.forms[value] = None
    else:
        a.forms[value] = form


def _yields(children: list[Operation], region: int | None = None) -> list[Operation]:
    return [c for c in children if c.name == "scf.yield" and (region is None or c.region == region)]


def _visit(a: Analysis, op: Operation, children: list[Operation], shape: list[int] | None = None) -> tuple | None:
    """Visit one operation: set its own values (`_fixed_point`). Returns the (AxisInfo, form) an ordinary
    op's rule gave and set on each result; None for scf ops and ops that set no result. `shape`: the op's
    `value_shape`, when the caller has it."""
    name = op.name
    if name == "scf.for":
        # operands: lb, ub, step, inits...; arguments: iv, iter_args...; results: the iter_args' finals
        lb, step = a.of(op.operands[0] if op.operands else None), a.of(op.operands[2] if len(op.operands) > 2 else None)
        if op.arguments:
            _set(a, op.arguments[0], AxisInfo((1,), (gcd(lb.divisibility[0], step.divisibility[0]),), (1,)), None)
            a.shapes.setdefault(op.arguments[0], [])
        ys = _yields(children)
        yielded = ys[0].operands if ys else []
        for k, arg in enumerate(op.arguments[1:]):
            init = op.operands[3 + k] if 3 + k < len(op.operands) else None
            shape = a.shapes.get(init, []) if init else []
            a.shapes[arg] = shape
            for src in [init] + ([yielded[k]] if k < len(yielded) else []):
                if src is not None and src in a.info:
                    _set(a, arg, a.info[src], a.forms.get(src))
                    if k < len(op.results):
                        _set(a, op.results[k], a.info[src], a.forms.get(src))
                        a.shapes[op.results[k]] = shape
        return
    if name == "scf.if":
        for region in (0, 1):
            for y in _yields(children, region):
                for k, v in enumerate(y.operands):
                    if k < len(op.results) and v in a.info:
                        _set(a, op.results[k], a.info[v], a.forms.get(v))
        return
    if op.arguments:
        _region_arguments(a, op)
    if not op.results:
        return None
    if shape is None:
        shape = value_shape(op)
    got = _outcome(a, op, shape)
    if got is None:
        return None
    info, form = got
    for r in op.results:
        _set(a, r, info, form)
        a.shapes[r] = shape
    return got


def _outcome(a: Analysis, op: Operation, shape: list[int]) -> tuple | None:
    """The (AxisInfo, form) a visit of an ordinary op joins into each of its results: its rule's (`_rule`),
    pessimistic where it has none or gives another rank, its hint attributes over it. None while an operand
    is not reached yet (visitOperation waits for it): the visit writes nothing."""
    known = a.info
    for v in op.operands:
        if v not in known and v.startswith("%"):
            return None
    rank = max(1, len(shape))
    try:
        got = _rule(a, op, shape)
    except (IndexError, KeyError, ValueError, ZeroDivisionError):
        got = None                            # operands of another rank than the op's rule reads: unsure
    hints = _hints(op.attributes) if op.attributes else None
    if got is None:
        info, form = _pessimistic(rank), None
    else:
        info, form = got
        if not len(info.contiguity) == len(info.divisibility) == len(info.constancy) == rank or \
                (form is not None and len(form) != rank):
            info, form = _pessimistic(rank), None
    if hints:
        info = info.with_hints({k: list(_fit(v, rank)) for k, v in hints.items()})
    return info, form


_PESSIMISTIC: dict[int, AxisInfo] = {}


def _pessimistic(rank: int) -> AxisInfo:
    """`AxisInfo.pessimistic(rank)`, one object per rank (AxisInfo is frozen): the outcome of a third of the
    visits (no rule), made once."""
    got = _PESSIMISTIC.get(rank)
    if got is None:
        got = _PESSIMISTIC[rank] = AxisInfo.pessimistic(rank)
    return got


def _region_arguments(a: Analysis, op: Operation) -> None:
    """Block arguments of regions other than a function's and scf.for's (while, reduce, warp_specialize
    partitions, ...) start at the pessimistic state (setAllToEntryStates), at their own rank."""
    if not op.arguments or op.name in ("tt.func", "scf.for"):
        return
    types = op.argument_types if len(op.argument_types) == len(op.arguments) else [None] * len(op.arguments)
    for arg, t in zip(op.arguments, types):
        if arg not in a.info:
            shape = list(t.shape) if t is not None and t.kind == "tensor" else []
            _set(a, arg, AxisInfo.pessimistic(max(1, len(shape))), None)
            a.shapes[arg] = shape


_CASTS = ("arith.extsi", "arith.extui", "arith.trunci", "ttg.convert_layout", "tt.bitcast", "gluon.set_auto_layout",
          "builtin.unrealized_conversion_cast", "arith.index_cast", "arith.index_castui")
_BINARY = {"arith.addi": "add", "arith.subi": "sub", "tt.addptr": "addptr", "arith.muli": "mul",
           "arith.divsi": "div", "arith.divui": "div", "arith.remsi": "rem", "arith.remui": "rem",
           "arith.andi": "and", "arith.ori": "or", "arith.xori": "xor", "arith.shli": "shl", "arith.shrui": "shr",
           "arith.shrsi": "shr", "arith.maxsi": "max", "arith.maxui": "max", "arith.minsi": "min",
           "arith.minui": "min", "arith.cmpi": "cmp"}


def _rule(a: Analysis, op: Operation, shape: list[int]):
    """(AxisInfo, affine form) of the op's result by Triton's visitor for it (`_RULES`, by op name); None: no
    visitor (pessimistic), or operands it does not read. Index casts are not among Triton's visitors either:
    they are read as casts here only for the affine form (their AxisInfo is pessimistic, as Triton's)."""
    rule = _RULES.get(op.name)
    return None if rule is None else rule(a, op, shape)


def _cast_rule(a: Analysis, op: Operation, shape: list[int]):
    operands = op.operands
    if not operands:
        return None
    rank = max(1, len(shape))
    x = a.info[operands[0]]
    form = a.forms.get(operands[0])
    if op.name.startswith("arith.index_cast"):
        return AxisInfo.pessimistic(rank), form
    if op.name == "builtin.unrealized_conversion_cast" and x.rank != rank:
        return None
    return x, form


def _make_range_rule(a: Analysis, op: Operation, shape: list[int]):
    start, end = op.attributes.get("start", 0), op.attributes.get("end")
    if not isinstance(end, int) or not isinstance(start, int):
        return None
    return make_range(start, end), (1,)


def _constant_rule(a: Analysis, op: Operation, shape: list[int]):
    return _constant(op, shape)


def _poison_rule(a: Analysis, op: Operation, shape: list[int]):
    rank = max(1, len(shape))
    return AxisInfo((MAX_DIVISOR,) * rank, (MAX_DIVISOR,) * rank, (MAX_DIVISOR,) * rank), None


def _splat_rule(a: Analysis, op: Operation, shape: list[int]):
    operands = op.operands
    if not operands:
        return None
    return splat(a.info[operands[0]], shape), (0,) * max(1, len(shape))


def _expand_dims_rule(a: Analysis, op: Operation, shape: list[int]):
    operands = op.operands
    if not operands:
        return None
    axis = op.axis
    x = a.info[operands[0]]
    if axis is None:
        return None
    f = a.forms.get(operands[0])
    return expand_dims(x, axis), (f[:axis] + (0,) + f[axis:] if f is not None else None)


def _broadcast_rule(a: Analysis, op: Operation, shape: list[int]):
    operands = op.operands
    if not operands:
        return None
    src = a.shapes.get(operands[0]) or []
    if len(src) != len(shape):
        return None
    return broadcast(a.info[operands[0]], src, shape), a.forms.get(operands[0])


def _trans_rule(a: Analysis, op: Operation, shape: list[int]):
    operands = op.operands
    if not operands:
        return None
    m = re.search(r"order\s*=\s*array<i32:\s*([\d,\s]+)>", op.text)
    if not m:
        return None
    order = [int(x) for x in m.group(1).split(",") if x.strip()]
    f = a.forms.get(operands[0])
    return trans(a.info[operands[0]], order), (tuple(f[o] for o in order) if f is not None else None)


def _reshape_rule(a: Analysis, op: Operation, shape: list[int]):
    operands = op.operands
    if not operands:
        return None
    src = a.shapes.get(operands[0]) or []
    if not src or not shape:
        return None
    return reshape(a.info[operands[0]], src, shape), None


def _load_rule(a: Analysis, op: Operation, shape: list[int]):
    operands = op.operands
    if not operands:
        return None
    mask = a.info.get(operands[1]) if len(operands) > 1 else None
    return load_result(a.info[operands[0]], mask), None


def _select_rule(a: Analysis, op: Operation, shape: list[int]):
    operands = op.operands
    if len(operands) != 3:
        return None
    cond = a.info[operands[0]]
    scalar = not any(t.kind == "tensor" and t.element_type == "i1" for t in op.operand_types[:1]) and \
        (a.shapes.get(operands[0]) == [])
    return select(cond, a.info[operands[1]], a.info[operands[2]], shape, scalar), None


def _binary_rule(a: Analysis, op: Operation, shape: list[int]):
    """The rules of two operands of one rank (`_BINARY` names each op's), and the affine form of the result."""
    operands = op.operands
    if len(operands) != 2:
        return None
    kind = _BINARY[op.name]
    lhs, rhs = a.info[operands[0]], a.info[operands[1]]
    if lhs.rank != rhs.rank:
        return None
    lf, rf = a.forms.get(operands[0]), a.forms.get(operands[1])
    if kind in ("add", "sub", "addptr"):
        eb = 1
        if kind == "addptr":
            bits = pointee_bits(op.text)
            if bits is None:
                return None
            eb = max(1, bits // 8)
        form = None
        if lf is not None and rf is not None:
            form = tuple(_add_strides(x, _scale(y, eb), -1 if kind == "sub" else 1) for x, y in zip(lf, rf))
        return add_sub(kind, lhs, rhs, shape, eb), form
    if kind == "mul":
        return mul(lhs, rhs, shape), _mul_form(lf, rf, lhs, rhs, shape)
    if kind == "shl":
        form = tuple(_scale(s, 1 << rhs.constant) for s in lf) if lf is not None and rhs.constant is not None \
            and 0 <= rhs.constant < 62 else None
        return shift("shl", lhs, rhs, shape), form
    if kind == "shr":
        return shift("shr", lhs, rhs, shape), None
    if kind == "div":
        return div(lhs, rhs, shape), None
    if kind == "rem":
        runtime = rhs.constant is None and all(_is_constant_dim(rhs, shape, d) for d in range(len(shape))) \
            if shape else rhs.constant is None
        return rem(lhs, rhs, shape), (lf if runtime else None)
    if kind in ("and", "or", "xor"):
        return logical(kind, lhs, rhs, shape), None
    if kind in ("max", "min"):
        return max_min(kind, lhs, rhs, shape), None
    m = _PRED.search(op.text)                 # cmp
    if not m:
        return None
    return compare(m.group(1), lhs, rhs, shape), None


# each op's rule by its name: (AxisInfo, form) of its result, None where its operands are not what the rule reads
_RULES = {name: _cast_rule for name in _CASTS} | {name: _binary_rule for name in _BINARY} | {
    "tt.make_range": _make_range_rule, "arith.constant": _constant_rule, "ub.poison": _poison_rule,
    "tt.splat": _splat_rule, "tt.expand_dims": _expand_dims_rule, "tt.broadcast": _broadcast_rule,
    "tt.trans": _trans_rule, "tt.reshape": _reshape_rule, "tt.load": _load_rule, "arith.select": _select_rule}


def _mul_form(lf, rf, lhs: AxisInfo, rhs: AxisInfo, shape):
    """x * y where one side is the same everywhere (a constant, or a splat runtime scalar)."""
    if lf is None or rf is None:
        return None

    def factor(x: AxisInfo, f):
        if any(s != 0 for s in f):
            return None
        if x.constant is not None:
            return x.constant
        if shape and not all(x.constancy[d] == shape[d] for d in range(len(shape))):
            return None
        return Unknown(x.divisibility[0])
    k = factor(rhs, rf)
    if k is not None:
        return tuple(_scale(s, k) for s in lf)
    k = factor(lhs, lf)
    if k is not None:
        return tuple(_scale(s, k) for s in rf)
    return None


def _constant(op: Operation, shape: list[int]):
    """ConstantOpAxisInfoVisitor: an integer (or i1) scalar or splat; its value zero-extended from its type."""
    m = _CONST.search(op.text)
    if not m:
        return None
    text = m.group(1) if m.group(1) is not None else m.group(2)
    text = text.strip()
    if text in ("true", "false"):
        value = 1 if text == "true" else 0
    elif _INTEGER.fullmatch(text):
        value = int(text)
        after = op.text[m.end():]
        t = _INT_TYPE.search(after)
        width = int(t.group(1)) if t and t.group(1) else 64
        value %= 1 << width                       # getZExtValue
    else:
        return None                               # a float, or a dense list: no visitor result
    rank = max(1, len(shape))
    return AxisInfo((1,) * rank, (pow2_divisor(value),) * rank, tuple(shape) if shape else (1,), value), \
        (0,) * rank


# ------------------------------------------------------------------------------------ global accesses


@dataclass
class GlobalAccess:
    """One global load or store as Triton's lowering reads it.

    ``ptr``: the pointer tensor's AxisInfo (divisibility in bytes), or for a buffer op the offsets' (in
    elements) with ``base_divisibility_bytes`` the scalar base's; ``mask``: the mask's AxisInfo or None;
    ``ptr_type``: the pointer (or offsets) tensor type, whose layout orders the access; ``bits``: the
    element's bits; ``strides``: bytes per coordinate step (int or `Unknown`), None when the address is not
    affine; ``contiguity_hint``: a buffer op's own ``contiguity`` attribute (0: none)."""

    op: Operation
    kind: str                      # "load" or "store"
    buffer: bool
    ptr: AxisInfo
    mask: AxisInfo | None
    ptr_type: TypeRef
    bits: int
    strides: tuple | None
    base_divisibility_bytes: int | None = None
    contiguity_hint: int = 0
    shared: TypeRef | None = None          # a copy's destination memdesc
    atomic: str | None = None              # an atomic's operation: add, fadd, max, ..., cas
    element: str | None = None             # the element type (f16, bf16, f32, i32, ...)
    l1_cached: bool = True                 # a load that leaves its lines in L1 (`caches_in_l1`)


ACCESSES = {"tt.load": ("load", False), "tt.store": ("store", False),
            "amdg.buffer_load": ("load", True), "amdg.buffer_store": ("store", True),
            "ttg.async_copy_global_to_local": ("copy", False), "amdg.buffer_load_to_local": ("copy", True),
            "tt.atomic_rmw": ("atomic", False), "tt.atomic_cas": ("atomic", False),
            "amdg.buffer_atomic_rmw": ("atomic", True), "amdg.buffer_atomic_cas": ("atomic", True)}
_KEYWORD_VALUE = r"\b{}\s*=?\s*(%[\w.#-]+)"
_CACHE_MODIFIER = re.compile(r"\bcacheModifier\s*=\s*(\w+)")
# Triton's CacheModifier cases (TritonAttrDefs.td) by the number the generic form prints (``cache = 3 : i32``)
CACHE_MODIFIERS = {1: "none", 2: "ca", 3: "cg", 4: "wb", 5: "cs", 6: "wt", 7: "cv"}
L1_BYPASS = ("cg", "cs", "cv")


def caches_in_l1(op: Operation) -> bool:
    """Whether a load leaves the lines it reads in the L1 cache, where a later load of the same thread finds
    them: not with ``cacheModifier = cg`` (NVIDIA ``ld.global.cg``: L2 only), ``cs`` or ``cv`` (AMD's loads
    with those modifiers set its streaming / no-reuse bits: third_party/amd/.../Utility.cpp
    ``getCacheModifierFlagsForLoadStore``; NVIDIA emits plain ``ld.global`` for them, counted as bypassing too,
    the cautious side), nor a volatile load (``ld.volatile``)."""
    volatile = op.attributes.get("isVolatile")
    if volatile is True or re.search(r"\bisVolatile\s*=\s*true\b", op.text):
        return False
    m = _CACHE_MODIFIER.search(op.text)
    modifier = m.group(1) if m else CACHE_MODIFIERS.get(op.attributes.get("cache"), "none")
    return modifier not in L1_BYPASS
_RMW = re.compile(r"\b(?:tt\.atomic_rmw|amdg\.buffer_atomic_rmw)\s+(\w+)")


def access_of(op: Operation, a: Analysis) -> GlobalAccess | str:
    """The access `op` makes (`GlobalAccess`), or why it is not modelled (a string)."""
    kind, buffer = ACCESSES[op.name]
    op = a.renamed.get(id(op), op)
    tensors = [t for t in op.operand_types if t.kind == "tensor"]
    if not op.operands:
        return f"{op.name} without operands"
    address, base, masks = _operands_read(op, kind, buffer)
    if buffer:
        if base is None:
            return f"{op.name} whose base and offsets are not read"
        offs = address
        typed = [t for t in op.types if t.kind == "tensor"]     # the value's type: the offsets' shape and layout
        if not typed:
            return f"{op.name} without a typed value tensor"
        ptr_type = typed[0]
        bits = pointee_bits(op.text)
        value_type = None       # Triton <= 3.8 prints no `!tt.ptr<T>` on a buffer load, store or atomic: the value's
        if bits is None and kind == "copy":      # no `!tt.ptr<T>` in the text: the destination's element
            bits = next((t.element_bits for t in op.types if t.kind == "memdesc" and t.element_bits), None)
        elif bits is None:
            value_type = ptr_type.element_type
            bits = ptr_type.element_bits
        if bits is None:
            return f"{op.name} whose element type is not read"
        shared = None
        if kind != "copy":
            mask = next((a.info.get(v) for v in masks if a.shapes.get(v) == list(ptr_type.shape) and
                         _is_i1(a, v)), None)
        else:                   # buffer_load_to_local %base[%offsets] mask = %m other = %o ... into %dst : ...
            mask = a.info.get(masks[0]) if masks else None
            mems = [t for t in op.types if t.kind == "memdesc"]
            offs_types = [t for t in op.operand_types if t.kind == "tensor" and t.element_type.startswith("i")]
            if not mems or not offs_types:
                return f"{op.name} without typed offsets and destination"
            ptr_type, shared = offs_types[0], mems[0]
        hint = op.attributes.get("contiguity")
        form = a.forms.get(offs)
        eb = max(1, bits // 8)
        strides = tuple(_scale(s, eb) for s in form) if form is not None else None
        m_el = _POINTEE.search(op.text)
        m_rmw = _RMW.search(op.text)
        return GlobalAccess(op, kind, True, a.of(offs, len(ptr_type.shape)), mask, ptr_type, bits, strides,
                            base_divisibility_bytes=a.of(base).divisibility[0],
                            contiguity_hint=hint if isinstance(hint, int) else 0, shared=shared,
                            atomic=("cas" if op.name == "amdg.buffer_atomic_cas" else
                                    m_rmw.group(1) if kind == "atomic" and m_rmw else None),
                            element=m_el.group(1) if m_el else value_type,
                            l1_cached=kind != "load" or caches_in_l1(op))
    ptrs = [t for t in tensors if t.element_type.startswith("!tt.ptr")]
    if not ptrs:
        return f"{op.name} of a scalar pointer or a tensor descriptor (not a tensor of pointers)"
    ptr_type = ptrs[0]
    ptr = address
    bits = pointee_bits(ptr_type.element_type)
    if bits is None:
        return f"{op.name} whose element type is not read"
    shared = atomic = None
    hint = 0
    mask_value = masks[0] if masks else None
    if kind == "copy":
        mems = [t for t in op.types if t.kind == "memdesc"]
        if not mems:
            return f"{op.name} without a typed destination"
        shared = mems[0]
        h = op.attributes.get("contiguity")
        hint = h if isinstance(h, int) else 0
    elif kind == "atomic":
        m_rmw = _RMW.search(op.text)
        atomic = m_rmw.group(1) if m_rmw else "cas"
    mask = a.info.get(mask_value) if mask_value is not None else None
    rank = len(ptr_type.shape)
    element = ptr_type.element_type[len("!tt.ptr<"):].split(">")[0].split(",")[0].strip()
    return GlobalAccess(op, kind, False, a.of(ptr, rank), mask, ptr_type, bits, a.forms.get(ptr),
                        contiguity_hint=hint, shared=shared, atomic=atomic, element=element,
                        l1_cached=kind != "load" or caches_in_l1(op))


def _operands_read(op: Operation, kind: str, buffer: bool) -> tuple[str | None, str | None, list[str]]:
    """The values `access_of` reads of an access: (the pointer, or a buffer op's offsets; a buffer op's base;
    the mask, or a buffer op's candidates for it: the operands after its offsets). A buffer op whose base and
    offsets are not read gives (None, None, [])."""
    names = dict(zip([v.split("@")[0] for v in op.operands], op.operands))

    def keyword(key: str) -> list[str]:
        m = re.search(_KEYWORD_VALUE.format(key), op.text)
        return [names.get(m.group(1), m.group(1))] if m else []
    if buffer:
        # amdg.buffer_load %ptr[%offsets], %mask, %other ...; buffer_store %value, %ptr[%offsets], %mask
        m = re.search(r"(%[\w.#-]+)\s*\[\s*(%[\w.#-]+)\s*\]", op.text)
        if not m:
            return None, None, []
        base, offs = names.get(m.group(1), m.group(1)), names.get(m.group(2), m.group(2))
        if kind == "copy":
            return offs, base, keyword("mask")
        return offs, base, op.operands[op.operands.index(offs) + 1:] if offs in op.operands else []
    ptr = op.operands[0] if op.operands else None
    if kind == "copy":
        # ttg.async_copy_global_to_local %src, %dst mask %m other %o {contiguity = 8 : i32} : tensor -> memdesc
        return ptr, None, keyword("mask")
    if kind == "atomic":
        # tt.atomic_rmw fadd, acq_rel, gpu, %ptr, %val[, %mask] : (...) -> ...; tt.atomic_cas sem, scope, %ptr,
        # %cmp, %val
        return ptr, None, op.operands[2:3] if _RMW.search(op.text) else []
    at = 1 if kind == "load" else 2
    return ptr, None, op.operands[at:at + 1]


def access_reads(op: Operation) -> list[str]:
    """The values whose AxisInfo `access_of` reads for this op (none for an op that is no access): what
    `analyze` needs the values of, given as its ``reads``."""
    if op.name not in ACCESSES:
        return []
    address, base, masks = _operands_read(op, *ACCESSES[op.name])
    return [v for v in (address, base, *masks) if v is not None]


def _is_i1(a: Analysis, v: str) -> bool:
    op = a.defs.get(v)
    if op is None:
        return False
    return any(t.element_type == "i1" for t in op.result_types + op.operand_types[-1:]) or op.name == "arith.cmpi"
