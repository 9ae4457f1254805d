"""Bit-vector lowering of LinearLayouts for the Z3 engine (the only module that imports z3).

Every property is checked as an *obligation*: a quantifier-free formula whose
models are exactly the counterexamples. ``unsat`` proves the property,
``sat`` refutes it and the model is decoded into a witness, ``unknown``
(timeout, resource limit) proves nothing.

Lowering, derived from the LinearLayout alone:

* a hardware index is one bit-vector per in-dim, as wide as that in-dim has
  bases (an in-dim of size 1 has no variable and reads as 0);
* L(x) is a packed bit-vector of the out bits (out-dim k shifted by the log
  sizes of the out-dims before it, as `LinearLayout.pack_out`): out bit k is
  the XOR of the input bits whose basis has bit k set;
* "c is not in the image of L" is stated linearly, without quantifiers: some
  functional w annihilates every column of L (w·L(e_j) = 0) and w·c = 1;
  w is then a certificate any reader can re-check;
* shapes become unsigned bounds on each out-dim field, and non-linear parts
  (a padded shared layout's physical offset
  ``i + sum_k (i >> log2 interval_k) << log2 pad_k``) become bit-vector
  arithmetic on a wide word.

`to_smtlib` prints any obligation as an SMT-LIB2 script (``(check-sat)``
answers ``unsat`` exactly when the property holds) for another solver.
Inside ``with solved_by(f):`` every `Obligation.solve` is answered by
``f(obligation, timeout_ms)`` instead of Z3 (`checker.solvers` routes the
obligations' SMT-LIB2 text to a second solver that way, for ``engine="all"``).
"""

from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass, field
from typing import Callable, Iterator, Mapping, Sequence

from .layout import LinearLayout, log2
from .padded import PaddedLayout, phys

WIDE = 64  # bit width for arithmetic (byte counts, physical offsets)


class _LazyZ3:
    """Stands for the z3 module until a Z3 term is first built: importing z3 costs ~60 ms and
    ``--engine f2`` (and ``import checker.prove``) never needs it. The first attribute looked up
    imports z3 and puts the real module in this module's globals, so later lookups are plain."""

    __slots__ = ()

    def __getattr__(self, name: str):
        import z3 as module
        globals()["z3"] = module
        return getattr(module, name)


z3 = _LazyZ3()

_SOLVER: contextvars.ContextVar = contextvars.ContextVar("layoutcheck_smt_solver", default=None)


@contextlib.contextmanager
def solved_by(solve: Callable[["Obligation", "int | None"], "Answer"]) -> Iterator[None]:
    """Inside the block, `Obligation.solve` returns ``solve(obligation, timeout_ms)`` instead of asking Z3."""
    token = _SOLVER.set(solve)
    try:
        yield
    finally:
        _SOLVER.reset(token)


@dataclass
class Answer:
    """A solver's answer: "sat" (values decode the model), "unsat" or "unknown"."""

    status: str
    values: dict[str, int] = field(default_factory=dict)
    reason: str = ""


def verdict(answer: Answer, *, holds: str, on_sat: Callable[[dict[str, int]], tuple]):
    """A solver's answer as the Z3 engine's verdict (an `EngineVerdict`): ``unknown`` when it gave up
    (the reason kept), ``holds`` on unsat (`holds` says why), ``fails`` on sat: ``on_sat(values)``
    builds the (counterexample, explanation) pair from the model's values."""
    from .properties.result import EngineVerdict
    if answer.status == "unknown":
        return EngineVerdict("z3", "unknown", explanation=f"z3 gave up: {answer.reason}")
    if answer.status == "unsat":
        return EngineVerdict("z3", "holds", explanation=holds)
    counterexample, explanation = on_sat(answer.values)
    return EngineVerdict("z3", "fails", counterexample=counterexample, explanation=explanation)


class Obligation:
    """Variables and constraints whose models are the counterexamples to one property."""

    def __init__(self, name: str):
        self.name = name
        self._constraints: list = []
        self._vars: dict[str, z3.BitVecRef] = {}

    # -------------------------------------------------------------- variables

    def var(self, name: str, width: int) -> z3.BitVecRef:
        v = z3.BitVec(f"{self.name}.{name}", max(1, width), ctx=context())
        self._vars[name] = v
        if width == 0:  # bit-vectors have at least one bit; a 0-bit value is that bit fixed at 0
            self.require(v == 0)
        return v

    def index(self, L: LinearLayout, tag: str, widths: Mapping[str, int] | None = None) -> dict[str, z3.BitVecRef]:
        """A hardware index of L: one variable per in-dim with bits (widths may widen some)."""
        out = {}
        for d, size in L.in_dim_sizes:
            w = (widths or {}).get(d, log2(size))
            if w:
                out[d] = self.var(f"{tag}.{d}", w)
        return out

    def packed(self, L: LinearLayout, tag: str) -> z3.BitVecRef:
        """A free packed coordinate (or functional) over L's out bits."""
        return self.var(tag, L.total_out_size_log2)

    def require(self, *constraints) -> None:
        self._constraints.extend(constraints)

    # ------------------------------------------------------------ expressions

    def image(self, L: LinearLayout, index: Mapping[str, z3.BitVecRef]) -> z3.BitVecRef:
        """L(index), packed. Missing dims read as 0; only the low bits of each
        in-dim that L has are used (a wider variable's high bits are ignored)."""
        n = max(1, L.total_out_size_log2)
        terms: list[list] = [[] for _ in range(n)]
        j = 0
        cols = L.columns
        for d, size in L.in_dim_sizes:
            x = index.get(d)
            for k in range(log2(size)):
                col = cols[j]
                j += 1
                if x is None or k >= x.size() or not col:
                    continue
                bit = z3.Extract(k, k, x)
                for b in _bits(col):
                    terms[b].append(bit)
        return _concat([_xor(t) for t in terms])

    # ------------------------------------------------------------------ solve

    def solve(self, timeout_ms: int | None) -> Answer:
        """Decide the constraints. The obligations are quantifier-free bit-vector formulas made
        of XOR chains, so they go straight to bit-blasting and SAT after simplification and
        equation solving (dense 24-bit layouts: seconds with the default solver, a tenth with
        this); should that pipeline give up for another reason than the time limit, Z3's
        default solver gets the same constraints. Inside `solved_by`, that solver answers instead."""
        other = _SOLVER.get()
        if other is not None:
            return other(self, timeout_ms)
        s = _solver(z3.Then("simplify", "solve-eqs", "simplify", "bit-blast", "sat", ctx=context()).solver(), timeout_ms)
        s.add(*self._constraints)
        r = s.check()
        if r == z3.unknown and "timeout" not in s.reason_unknown() and "canceled" not in s.reason_unknown():
            s = _solver(z3.Solver(ctx=context()), timeout_ms)
            s.add(*self._constraints)
            r = s.check()
        if r == z3.unsat:
            return Answer("unsat")
        if r == z3.unknown:
            return Answer("unknown", reason=s.reason_unknown())
        m = s.model()
        return Answer("sat", {n: m.eval(v, model_completion=True).as_long() for n, v in self._vars.items()})

    @property
    def symbols(self) -> dict[str, str]:
        """Each variable's name (the keys of `Answer.values`) -> its SMT-LIB2 symbol."""
        return {n: f"{self.name}.{n}" for n in self._vars}

    def to_smtlib(self) -> str:
        s = z3.Solver(ctx=context())
        s.add(*self._constraints)
        return f"; obligation {self.name}: sat = counterexample, unsat = the property holds\n" + s.to_smt2()


def _solver(s, timeout_ms: int | None):
    if timeout_ms is not None:
        _positive(timeout_ms)
        s.set("timeout", int(timeout_ms))
    return s


def _positive(timeout_ms) -> None:
    """Z3 reads a timeout of 0 as "no limit": refuse it (and negative ones) instead."""
    from .properties.result import check_timeout
    check_timeout(timeout_ms)


def to_smtlib(obligation: Obligation) -> str:
    """SMT-LIB2 text of an obligation (declarations, assertions, check-sat)."""
    return obligation.to_smtlib()


def check_smtlib(text: str, timeout_ms: int | None = None) -> str:
    """Re-check SMT-LIB2 text from scratch (in a context of its own): "sat", "unsat" or "unknown"."""
    s = z3.Solver(ctx=z3.Context())
    if timeout_ms is not None:
        _positive(timeout_ms)
        s.set("timeout", int(timeout_ms))
    s.from_string(text)
    return str(s.check())


# ------------------------------------------------------------------ formulas


def any_of(*cs):
    return _or(cs)


def all_of(*cs):
    return _and(cs)


def negate(c):
    return z3.Not(c)


def masked_nonzero(x: Mapping[str, z3.BitVecRef], masks: Mapping[str, int]):
    """Some dim d has a set bit of x[d] inside masks[d]."""
    terms = [x[d] & masks[d] != 0 for d in x if masks.get(d)]
    return _or(terms)


def high_bits_set(x: z3.BitVecRef, keep: int):
    """x has a set bit at position >= keep."""
    if keep >= x.size():
        return z3.BoolVal(False, ctx=context())
    return z3.Extract(x.size() - 1, keep, x) != 0


def dot(w: z3.BitVecRef, v: z3.BitVecRef):
    """The GF(2) inner product w·v as a 1-bit vector."""
    both = w & v
    return _xor([z3.Extract(k, k, both) for k in range(both.size())])


def annihilates(w: z3.BitVecRef, columns: Sequence[int]):
    """w·c = 0 for every constant column c."""
    out = []
    for c in columns:
        bits = [z3.Extract(b, b, w) for b in _bits(c)]
        if bits:
            out.append(_xor(bits) == 0)
    return _and(out)


def fields_below(L: LinearLayout, packed: z3.BitVecRef, shape: Mapping[str, int]):
    """Each out-dim field of a packed coordinate is below shape[dim]."""
    out, shift = [], 0
    for d, size in L.out_dim_sizes:
        k = log2(size)
        if k and shape.get(d, size) < size:
            out.append(z3.ULT(z3.Extract(shift + k - 1, shift, packed), z3.BitVecVal(shape[d], k, ctx=context())))
        shift += k
    return _and(out)


def widen(x: z3.BitVecRef, width: int = WIDE) -> z3.BitVecRef:
    return z3.ZeroExt(width - x.size(), x) if x.size() < width else x


def padded_offset(i: z3.BitVecRef, intervals: Sequence[int], paddings: Sequence[int]) -> z3.BitVecRef:
    """phys(i) of `checker.padded` (the one formula) on a WIDE word, with logical shifts."""
    return phys(widen(i), [(log2(iv), log2(pad)) for iv, pad in zip(intervals, paddings)], z3.LShR)


def physical_offset(i: z3.BitVecRef, mem: PaddedLayout) -> z3.BitVecRef:
    """phys(i) for a padded (or linear) shared layout, on a WIDE word."""
    return phys(widen(i), mem.shifts, z3.LShR)


_CONTEXT = None


def context():
    """The Z3 context every term and solver of layoutcheck is built in (one per process until
    `fresh_context`)."""
    global _CONTEXT
    if _CONTEXT is None:
        _CONTEXT = z3.Context()
    return _CONTEXT


def fresh_context() -> None:
    """Build what follows in a new Z3 context. A Z3 model depends on the terms its context has seen
    (their internal ids), so a Z3-only witness would otherwise depend on which checks ran before it in
    the same worker, i.e. on --jobs."""
    global _CONTEXT
    _CONTEXT = None


def const(value: int, width: int) -> z3.BitVecRef:
    return z3.BitVecVal(value, width, ctx=context())


def ite(cond, a, b):
    return z3.If(cond, a, b)


def lshr(x, k: int):
    return z3.LShR(x, k)


def ult(a, b):
    return z3.ULT(a, b)


def ugt(a, b):
    return z3.UGT(a, b)


def wide(value: int) -> z3.BitVecRef:
    return z3.BitVecVal(value, WIDE, ctx=context())


# ------------------------------------------------------------------ helpers


def _bits(v: int):
    k = 0
    while v:
        if v & 1:
            yield k
        v >>= 1
        k += 1


def _and(cs) -> z3.BoolRef:
    """The conjunction; one operand stands alone (SMT-LIB2's ``and`` takes at least two, and solvers
    other than Z3 reject Z3's printed ``(and x)``), none is ``true``."""
    cs = list(cs)
    return cs[0] if len(cs) == 1 else z3.And(cs) if cs else z3.BoolVal(True, ctx=context())


def _or(cs) -> z3.BoolRef:
    """The disjunction, as `_and`; none is ``false``."""
    cs = list(cs)
    return cs[0] if len(cs) == 1 else z3.Or(cs) if cs else z3.BoolVal(False, ctx=context())


def _xor(bits: list) -> z3.BitVecRef:
    if not bits:
        return z3.BitVecVal(0, 1, ctx=context())
    acc = bits[0]
    for b in bits[1:]:
        acc = acc ^ b
    return acc


def _concat(bits: list) -> z3.BitVecRef:
    """bits[0] is the least significant."""
    if len(bits) == 1:
        return bits[0]
    return z3.Concat(list(reversed(bits)))
