"""Bit-vector lowering of LinearLayouts for the Z3 engine (the only module that uses Z3, with `z3lib`).

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

Terms are SMT-LIB2 text (`Term`: a bit-vector or Boolean term with Python's
operators, as Z3's own Python terms have them), built without the Z3 API; an
obligation is one script. Z3 decides it in up to three steps (`Obligation.solve`):

1. in a command session (`_Session`: Z3's SMT-LIB2 interpreter in a context of
   its own, driven through `checker.z3lib`, so a run that decides everything there
   never imports the z3 package: 18 ms of a process), push, script, check-sat,
   pop, bounded by SESSION_WORK: no parser or tactic set-up per obligation (a
   solver's ``from_string`` alone costs 0.1 ms), and 97% of the obligations of
   specs/ and tests/corpus decide here;
2. what that leaves, and the counting obligations (`Obligation.counting`), in the
   same session by ``check-sat-using`` the tactic ``simplify, propagate-values,
   solve-eqs, bit-blast, smt`` (the bit-blasted formula goes to the SMT core's
   CDCL, whose set-up costs a tenth of the stand-alone SAT solver's), bounded by
   BOUNDED_WORK (the same tactic in a solver of its own costs 15% more: its
   parser set-up);
3. what that leaves, by a solver of that tactic under the timeout (then Z3's
   default solver, should the tactic give up for another reason); dense XOR
   systems (`Obligation.dense`) skip steps 1 and 2 and go to the stand-alone SAT
   solver, which takes them better.

`to_smtlib` prints any obligation as an SMT-LIB2 script (``(check-sat)``
answers ``unsat`` exactly when the property holds) for another solver.
Inside ``with solved_by(f, name):`` every `Obligation.solve` is answered by
``f(obligation, timeout_ms)`` instead of Z3 (`checker.solvers` routes the
obligations' SMT-LIB2 text to a second solver that way, for ``engine="all"``).
"""

from __future__ import annotations

import contextlib
import contextvars
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import z3lib
from .errors import InternalError
from .layout import LinearLayout, log2
from .padded import PaddedLayout, phys
from .verdict import EngineVerdict, check_timeout

WIDE = 64  # bit width for arithmetic (byte counts, physical offsets)


class _LazyZ3:
    """Stands for the z3 module until a Z3 term is first built: importing z3 costs ~60 ms and
    ``--engine f2`` (and ``import checker.prove``) never needs it. The first attribute looked up
    imports z3 and puts the real module in this module's globals, so later lookups are plain."""

    __slots__ = ()

    def __getattr__(self, name: str):
        import z3 as module  # lazy: Z3 takes ~50 ms to import; --engine f2 never needs it (docstring above)
        # Z3 would take SIGINT over while it works (its own handler cancels the call and the run goes on, a
        # Ctrl-C lost): without it, the interrupt waits for the call to return and stops the run (exit 130)
        module.set_param("ctrl_c", False)
        globals()["z3"] = module
        return getattr(module, name)


z3 = _LazyZ3()

_SOLVER: contextvars.ContextVar = contextvars.ContextVar("layoutcheck_smt_solver", default=None)
# the time limit of `Obligation.solve` when the caller gives none: set by `time_limit` around an engine's run
# (`checker.properties.result.run_engines`), so that a property's Z3 engine does not pass it down by hand
_TIME_LIMIT: contextvars.ContextVar = contextvars.ContextVar("layoutcheck_smt_time_limit", default=None)
_IN_FORCE = object()      # `Obligation.solve`'s default: the limit in force


@contextlib.contextmanager
def time_limit(timeout_ms: int | None) -> Iterator[None]:
    """Inside the block, `Obligation.solve()` without a limit of its own gives each obligation `timeout_ms`
    (None: no limit)."""
    token = _TIME_LIMIT.set(timeout_ms)
    try:
        yield
    finally:
        _TIME_LIMIT.reset(token)


@contextlib.contextmanager
def solved_by(solve: Callable[[Obligation, int | None], Answer], name: str) -> Iterator[None]:
    """Inside the block, `Obligation.solve` returns ``solve(obligation, timeout_ms)`` instead of asking Z3, and
    the verdicts and models say they come from `name` (`solver_name`)."""
    token = _SOLVER.set((solve, name))
    try:
        yield
    finally:
        _SOLVER.reset(token)


def solver_name() -> str:
    """The solver deciding obligations here: "z3", or the one `solved_by` routes them to (an engine's
    explanation names it: "z3 model: ...", "bitwuzla gave up: ...")."""
    routed = _SOLVER.get()
    return "z3" if routed is None else routed[1]


# A timed check costs Z3 a timer (0.08 ms: a third of a typical obligation's 0.2-0.3 ms). So a sparse obligation
# is first given a fixed amount of work instead (Z3's rlimit, no timer): every obligation of specs/ and
# tests/corpus decides within BOUNDED_WORK (the padded-layout ones, the costliest at 2-4 ms, need up to 50,000;
# 20,000 left them to the timed check after a wasted try); one that does not gets the timed check as before.
# The bounded try is the command session's ``check-sat-using`` the tactic (step 2 of the module docstring).
# Only with a timeout of BOUNDED_FIRST_MS or more (or none), so that it stays far below the time allowed.
BOUNDED_WORK = 100_000
BOUNDED_FIRST_MS = 1000

# Before that (with a timeout of BOUNDED_FIRST_MS or more, or none), a sparse obligation goes to the
# command session (`_Session`) with SESSION_WORK of work:
# Z3 keeps one command interpreter per context, so the script is read without the parser set-up that a solver's
# from_string pays on every call (0.1 ms), and decided by the session's incremental SMT core without the tactic's
# set-up. On the 2,905 distinct obligations of specs/ and tests/corpus this decides 97% (median 0.13 ms against
# 0.46 ms); the rest, mostly padded-layout arithmetic that the core takes far longer over without the tactic's
# preprocessing, run out of work and go on as below (total 1.13 s against 1.73 s).
SESSION_WORK = 10_000

_PROVED: contextvars.ContextVar = contextvars.ContextVar("layoutcheck_smt_proved", default=None)
PROVED_LIMIT = 65536


@contextlib.contextmanager
def proofs_shared() -> Iterator[None]:
    """Inside the block, an obligation whose script Z3 has already found unsat is answered unsat without
    asking again (a run's checks share many: the same layout's injectivity under two ops, the same
    allocation's fit; a third of a kernel's obligations). Only unsat is kept: it is a fact of the formula
    text alone, where a model depends on the context it was found in, and a timeout on the time left.
    Each block starts empty, so a run never reuses what an earlier run proved; a second solver
    (`solved_by`) is never answered from it."""
    token = _PROVED.set(set())
    try:
        yield
    finally:
        _PROVED.reset(token)


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
    if answer.status == "unknown":
        return EngineVerdict("z3", "unknown", explanation=f"{solver_name()} gave up: {answer.reason}")
    if answer.status == "unsat":
        return EngineVerdict("z3", "holds", explanation=holds)
    counterexample, explanation = on_sat(answer.values)
    return EngineVerdict("z3", "fails", counterexample=counterexample, explanation=explanation)


class Term:
    """A bit-vector term (``width`` bits) or a Boolean one (``width`` None) as SMT-LIB2 text.

    Python's operators build terms as on Z3's terms: ``^ & | + - * << ~`` on bit-vectors (an int
    operand is a constant of the other's width, taken modulo 2^width), ``==`` and ``!=`` on either
    kind (a Boolean); `size` is the width. A term has no truth value in Python (as Z3's)."""

    __slots__ = ("text", "width")

    def __init__(self, text: str, width: int | None):
        self.text = text
        self.width = width

    def size(self) -> int:
        if self.width is None:
            raise InternalError(f"a Boolean term has no width: {_clip(self.text)}")
        return self.width

    def __repr__(self) -> str:
        return self.text

    __hash__ = object.__hash__

    def __bool__(self):
        raise InternalError(f"a symbolic term has no truth value: {_clip(self.text)}")

    def __eq__(self, other):  # type: ignore[override]
        a, b = _pair(self, other)
        return Term(f"(= {a.text} {b.text})", None)

    def __ne__(self, other):  # type: ignore[override]
        a, b = _pair(self, other)
        return Term(f"(distinct {a.text} {b.text})", None)

    def __xor__(self, other):
        return _bv("bvxor", self, other)

    def __rxor__(self, other):
        return _bv("bvxor", other, self)

    def __and__(self, other):
        return _bv("bvand", self, other)

    def __rand__(self, other):
        return _bv("bvand", other, self)

    def __or__(self, other):
        return _bv("bvor", self, other)

    def __ror__(self, other):
        return _bv("bvor", other, self)

    def __add__(self, other):
        return _bv("bvadd", self, other)

    def __radd__(self, other):
        return _bv("bvadd", other, self)

    def __sub__(self, other):
        return _bv("bvsub", self, other)

    def __rsub__(self, other):
        return _bv("bvsub", other, self)

    def __mul__(self, other):
        return _times(self, other)

    def __rmul__(self, other):
        return _times(other, self)

    def __lshift__(self, other):
        return _bv("bvshl", self, other)

    def __rshift__(self, other):  # arithmetic, as Z3's >>; `lshr` is the logical one
        return _bv("bvashr", self, other)

    def __invert__(self):
        return Term(f"(bvnot {_bits_of(self).text})", self.width)

    def __neg__(self):
        return Term(f"(bvneg {_bits_of(self).text})", self.width)


TRUE, FALSE = Term("true", None), Term("false", None)


def _clip(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."


def _bits_of(t) -> Term:
    if not isinstance(t, Term) or t.width is None:
        raise InternalError(f"expected a bit-vector term, got {_clip(repr(t))}")
    return t


def _pair(a, b) -> tuple[Term, Term]:
    """Two operands of one sort (an int becomes a constant of the other's width)."""
    if type(a) is Term and type(b) is Term and a.width == b.width:
        return a, b
    if not isinstance(a, Term):
        a = const(_int(a), _bits_of(b).width)
    elif not isinstance(b, Term):
        b = const(_int(b), _bits_of(a).width)
    if a.width != b.width:
        raise InternalError(f"operands of different sorts: {_clip(a.text)} ({_sort(a)}) and "
                            f"{_clip(b.text)} ({_sort(b)})")
    return a, b


def _int(v) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise InternalError(f"expected a term or an int, got {_clip(repr(v))}")
    return v


def _sort(t: Term) -> str:
    return "Bool" if t.width is None else f"(_ BitVec {t.width})"


def _bv(op: str, a, b) -> Term:
    a, b = _pair(a, b)
    _bits_of(a)
    return Term(f"({op} {a.text} {b.text})", a.width)


def _times(a, b) -> Term:
    """a * b (modulo 2^width). By a constant c it is the sum of x << k over the set bits k of c: shifts by
    constants are wiring and the sum is adders, where a multiplier bit-blasts into width^2 gates (a 64-bit
    product by 16 took 8 ms to decide; its shift takes 0.4 ms)."""
    a, b = _pair(a, b)
    _bits_of(a)
    c, x = _constant(a), b
    if c is None:
        c, x = _constant(b), a
    if c is None:
        return Term(f"(bvmul {a.text} {b.text})", a.width)
    shifted = [x if k == 0 else Term(f"(bvshl {x.text} {const(k, x.width).text})", x.width)
               for k in _bits(c) if k < x.width]
    if not shifted:
        return const(0, x.width)
    return shifted[0] if len(shifted) == 1 else Term(f"(bvadd {' '.join(t.text for t in shifted)})", x.width)


def _constant(t: Term) -> int | None:
    """The value of a constant term (as `const` writes it), else None."""
    text = t.text
    if not text.startswith("(_ bv"):
        return None
    value, _, width = text[5:-1].partition(" ")
    return int(value) if value.isdigit() and width.isdigit() else None


_SIMPLE = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789~!@$%^&*_-+=<>.?/")


_SYMBOLS: dict[str, str] = {}


def _symbol(name: str) -> str:
    """An SMT-LIB2 symbol for a name: as is when it is a simple symbol, else quoted |...|."""
    symbol = _SYMBOLS.get(name)
    if symbol is not None:
        return symbol
    if name and set(name) <= _SIMPLE and not name[0].isdigit():
        symbol = name
    else:
        if "|" in name or "\\" in name:
            raise InternalError(f"a variable name cannot hold '|' or a backslash: {name!r}")
        symbol = f"|{name}|"
    if len(_SYMBOLS) >= 65536:
        _SYMBOLS.clear()
    _SYMBOLS[name] = symbol
    return symbol


class Obligation:
    """Variables and constraints whose models are the counterexamples to one property."""

    def __init__(self, name: str, *, counting: bool = False):
        """`counting`: the obligation counts (sums of if-then-else over many pairwise comparisons, as a request's
        distinct sectors): the command session's SMT core runs out of its work on those before the tactic's
        preprocessing decides them (a coalescing obligation: 5 ms lost, then 7 ms in the tactic), so `solve` gives
        them to the tactic at once."""
        self.name = name
        self.counting = counting
        self._constraints: list[Term] = []
        self._vars: dict[str, tuple[str, int]] = {}     # name -> (symbol, width)
        self._weight = [0, 0]                           # set bits, nonzero columns of the images

    # -------------------------------------------------------------- variables

    def var(self, name: str, width: int) -> Term:
        symbol = _symbol(f"{self.name}.{name}")
        v = Term(symbol, width if width >= 1 else 1)
        self._vars[name] = (symbol, v.width)
        if width == 0:  # bit-vectors have at least one bit; a 0-bit value is that bit fixed at 0
            self.require(v == 0)
        return v

    def index(self, L: LinearLayout, tag: str, widths: Mapping[str, int] | None = None) -> dict[str, Term]:
        """A hardware index of L: one variable per in-dim with bits (widths may widen some)."""
        out = {}
        for d, size in L.in_dim_sizes:
            w = (widths or {}).get(d, log2(size))
            if w:
                out[d] = self.var(f"{tag}.{d}", w)
        return out

    def packed(self, L: LinearLayout, tag: str) -> Term:
        """A free packed coordinate (or functional) over L's out bits."""
        return self.var(tag, L.total_out_size_log2)

    def require(self, *constraints) -> None:
        for c in constraints:
            if not isinstance(c, Term) or c.width is not None:
                raise InternalError(f"a constraint must be a Boolean term, got {_clip(repr(c))}")
        self._constraints.extend(constraints)

    # ------------------------------------------------------------ expressions

    def image(self, L: LinearLayout, index: Mapping[str, Term]) -> Term:
        """L(index), packed. Missing dims read as 0; only the low bits of each
        in-dim that L has are used (a wider variable's high bits are ignored)."""
        key = (L, tuple((d, x.text, x.width) for d, x in index.items() if isinstance(x, Term)))
        known = _IMAGES.get(key) if len(key[1]) == len(index) else None
        if known is not None:       # the same layout at the same index terms: the same text
            text, width, set_bits, nonzero = known
            self._weight[1] += nonzero
            self._weight[0] += set_bits
            return Term(text, width)
        rows, set_bits, nonzero = _rows(L, index)
        lets = []       # index terms other than variables, named once
        names = {}
        for d, _ in L.in_dim_sizes:
            x = index.get(d)
            if x is None:
                continue
            name = x.text
            if name.startswith("("):
                lets.append(f"(?i{len(lets)} {name})")
                name = f"?i{len(lets) - 1}"
            names[d] = name
        self._weight[1] += nonzero
        self._weight[0] += set_bits
        out = _packed_rows(rows, names)
        if lets:
            out.text = f"(let ({' '.join(lets)}) {out.text})"
        if len(key[1]) == len(index):
            if len(_IMAGES) >= IMAGES_LIMIT:
                _IMAGES.clear()
            _IMAGES[key] = (out.text, out.width, set_bits, nonzero)
        return out

    def maps_to_zero(self, L: LinearLayout, index: Mapping[str, Term]):
        """L(index) = 0, as `image`'s value compared with 0, written out bit by bit: an out bit that one index
        bit alone sets says that index bit is 0, and those are asked together per variable (x AND mask = 0);
        an out bit that several set says their XOR is 0. The same formula in a third of the text (a layout's
        out bits are mostly set by one index bit each), which Z3 reads in half the time."""
        rows, set_bits, nonzero = _rows(L, index)
        self._weight[1] += nonzero                  # weighed as `image` weighs it (`dense`)
        self._weight[0] += set_bits
        masks: dict[str, int] = {}
        parts = []
        for row in rows:
            if len(row) == 1:
                d, k = row[0]
                masks[d] = masks.get(d, 0) | 1 << k
            elif row:
                parts.append(f"(= {_xor_text([f'((_ extract {k} {k}) {index[d].text})' for d, k in row])} (_ bv0 1))")
        parts = [f"(= (bvand {index[d].text} (_ bv{m} {index[d].size()})) (_ bv0 {index[d].size()}))"
                 for d, m in masks.items()] + parts
        return _and([Term(t, None) for t in parts])

    # ------------------------------------------------------------------ solve

    def script(self) -> str:
        """The declarations and assertions (SMT-LIB2), without (check-sat)."""
        decls = "".join(f"(declare-fun {sym} () (_ BitVec {w}))\n" for sym, w in self._vars.values())
        return decls + "".join(f"(assert {c.text})\n" for c in self._constraints)

    def solve(self, timeout_ms: Any = _IN_FORCE) -> Answer:
        """Decide the constraints. The obligations are quantifier-free bit-vector formulas made
        of XOR chains, so they go straight to bit-blasting after simplification and equation
        solving, then to a CDCL solver (`_tactic`; random dense 24-bit layouts: a few hundredths of
        a second, where Z3's default solver takes seconds); should that pipeline give up for another
        reason than the time limit, the default solver gets the same script. A sparse obligation is first
        given SESSION_WORK in the command session (not a counting one), then the tactic with BOUNDED_WORK there,
        with no timer (see both); only if that does not decide it does the timed check run (module docstring).
        Inside `solved_by`, that solver answers instead. ``timeout_ms``: milliseconds (a positive
        integer) or None for no limit; left out, the limit in force (`time_limit`)."""
        if timeout_ms is _IN_FORCE:
            timeout_ms = _TIME_LIMIT.get()
        routed = _SOLVER.get()
        if routed is not None:
            return routed[0](self, timeout_ms)
        if timeout_ms is not None:
            _positive(timeout_ms)
        text = self.script()
        proved = _PROVED.get()
        if proved is not None and text in proved:
            return Answer("unsat")
        answer = None
        if not self.dense and (timeout_ms is None or timeout_ms >= BOUNDED_FIRST_MS):
            session = _session()
            if not self.counting:
                answer = session.decide(text, self._vars)      # bounded by SESSION_WORK (see there)
            if answer is None:                                  # the tactic, bounded by BOUNDED_WORK (see there)
                answer = session.decide(text, self._vars, check=_CHECK_USING_TACTIC, work=BOUNDED_WORK)
        if answer is not None:
            if answer.status == "unsat" and proved is not None:
                _remember(proved, text)
            return answer
        ctx = context()
        s = _solver(_tactic(self.dense).solver(), timeout_ms)
        s.from_string(text)
        r = s.check()
        if r == z3.unknown and "timeout" not in s.reason_unknown() and "canceled" not in s.reason_unknown():
            s = _solver(z3.Solver(ctx=ctx), timeout_ms)
            s.from_string(text)
            r = s.check()
        if r == z3.unsat:
            if proved is not None:
                _remember(proved, text)
            return Answer("unsat")
        if r == z3.unknown:
            return Answer("unknown", reason=s.reason_unknown())
        m = s.model()
        if timeout_ms is not None and not z3.is_true(m.eval(z3.And(s.assertions()), model_completion=True)):
            # a check cut off by its timer can still answer sat, with a model that breaks the obligation: no
            # answer at all (a timeout is unknown, never a verdict; seen about once in 1,500 checks at 1 ms)
            return Answer("unknown", reason="timeout (the model given when cut off does not satisfy the obligation)")
        return Answer("sat", {n: m.eval(z3.BitVec(unquote(sym), w, ctx=ctx), model_completion=True).as_long()
                              for n, (sym, w) in self._vars.items()})

    @property
    def dense(self) -> bool:
        """Its images have columns of more than 4 set bits on average (layouts have at most 4, and 2.6 on
        average in the corpus): long XOR chains, which the stand-alone SAT solver takes better than the
        SMT core (random dense 24-bit bases: twice as fast), so `solve` gives it those."""
        bits, cols = self._weight
        return bits > 4 * cols

    @property
    def symbols(self) -> dict[str, str]:
        """Each variable's name (the keys of `Answer.values`) -> its SMT-LIB2 symbol."""
        return {n: f"{self.name}.{n}" for n in self._vars}

    def to_smtlib(self) -> str:
        return (f"; obligation {self.name}: sat = counterexample, unsat = the property holds\n"
                f"(set-info :status unknown)\n{self.script()}(check-sat)\n")


# `Obligation.image` texts by (layout, index terms): a run's checks ask for the same layout at the same
# variables many times (its injectivity, surjectivity, conversions); the text depends on nothing else
_IMAGES: dict[tuple, tuple[str, int | None, int, int]] = {}
IMAGES_LIMIT = 4096


def clear_caches() -> None:
    """Forget the texts and symbols kept across obligations (`_IMAGES`, `_SYMBOLS`, `_BIT_POSITIONS`): what a
    benchmark of a cold run clears, beside `checker.encodings.clear_caches`."""
    _IMAGES.clear()
    _SYMBOLS.clear()
    _BIT_POSITIONS.clear()


def _remember(proved: set, text: str) -> None:
    if len(proved) >= PROVED_LIMIT:
        proved.clear()
    proved.add(text)


class _Session:
    """Z3's SMT-LIB2 command interpreter in a context of its own, with models on and each ``check-sat``
    bounded by SESSION_WORK, driven through `checker.z3lib` (the ``z3`` package is not imported for it).

    An obligation is evaluated as ``(push)``, its script, a check (``(check-sat)``, or ``(check-sat-using`` the
    tactic``)`` with a bound of its own) and ``(get-value ...)`` of its variables on sat, ``(pop)``: the pop
    takes its declarations and assertions back out, so every obligation starts from the same empty assertion
    stack. The pop (with the bound put back) is sent ahead of the next obligation's push, in the same call
    (`_pending`): one call into Z3 per unsat obligation instead of three, the same commands in the same order,
    so the same answers and models (measured on the 100 obligations of three specs/kernels modules: 54 -> 44 us
    each). `decide` answers None when Z3 runs out of work (``unknown``) or answers anything it cannot read; the
    caller then decides the obligation the other way.

    Z3 puts the work bound on the whole context while a scope is open (its push bounds the context's
    resource limit; its pop lifts the bound again), and writes every ``:rlimit`` the session sets into its
    global parameters too, which each context made later starts from: the global value is put back after
    each call that sets it. Should a call fail, the context may be left with a scope open or the bound on,
    and every later check in it would run out of work at once: `decide` then leaves that session
    (`fresh_context`) before it answers None."""

    def __init__(self) -> None:
        self._ref = None
        self._pending = ""              # the last obligation's pop (and bound put back), sent with the next
        self._lib = z3lib.library()
        self._ref = self._lib.new_context()
        self._global_rlimit = self._lib.get_param("rlimit")
        try:
            self._eval("(set-option :print-success false)(set-option :produce-models true)"
                       f"(set-option :rlimit {SESSION_WORK})")
        finally:
            self._restore_global_rlimit()

    def __del__(self) -> None:
        if self._ref:
            self._lib.delete_context(self._ref)
            self._ref = None

    def _restore_global_rlimit(self) -> None:
        if self._global_rlimit is not None:
            self._lib.set_param("rlimit", self._global_rlimit)

    def _eval(self, commands: str) -> str:
        return self._lib.eval(self._ref, commands)

    def decide(self, text: str, variables: Mapping[str, tuple[str, int]], check: str = "(check-sat)",
               work: int | None = None) -> Answer | None:
        """`text` decided by `check`, with `work` instead of SESSION_WORK where given."""
        bound = f"(set-option :rlimit {work})" if work is not None else ""
        ahead, self._pending = self._pending, "(pop)" + (f"(set-option :rlimit {SESSION_WORK})" if bound else "")
        try:
            status = self._eval(ahead + bound + "(push)" + text + check).strip()
        except z3lib.Z3Error:
            fresh_context()
            return None
        finally:
            if bound or "rlimit" in ahead:
                self._restore_global_rlimit()
        if status == "unsat":
            return Answer("unsat")
        if status != "sat":
            return None
        values: dict[str, int] = {}
        if variables:
            try:
                printed = self._eval(f"(get-value ({' '.join(sym for sym, _ in variables.values())}))")
            except z3lib.Z3Error:
                fresh_context()
                return None
            read = {sym: _bv_value(value) for sym, value in _VALUE_PAIR.findall(printed)}
            for name, (sym, width) in variables.items():
                value = read.get(sym)
                if value is None or value >> width:
                    return None
                values[name] = value
        return Answer("sat", values)


_VALUE_PAIR = re.compile(r"\((\|[^|]*\||[^\s()|]+)\s+(#b[01]+|#x[0-9a-fA-F]+|\(_\s+bv\d+\s+\d+\))\)")


def _bv_value(printed: str) -> int:
    """A bit-vector value as Z3 prints it: #b0101, #x0f or (_ bv5 4)."""
    if printed.startswith("#b"):
        return int(printed[2:], 2)
    if printed.startswith("#x"):
        return int(printed[2:], 16)
    return int(printed.split()[1][2:])


def _session() -> _Session:
    """The command session (a Z3 context of its own, made on first use; `fresh_context` drops it)."""
    global _SESSION
    if _SESSION is None:
        _SESSION = _Session()
    return _SESSION


def unquote(symbol: str) -> str:
    """An SMT-LIB2 symbol without its |quotes| (the name a model gives it)."""
    return symbol[1:-1] if len(symbol) >= 2 and symbol[0] == symbol[-1] == "|" else symbol


def _solver(s, timeout_ms: int | None):
    if timeout_ms is not None:
        _positive(timeout_ms)
        s.set("timeout", int(timeout_ms))
    return s


def _positive(timeout_ms) -> None:
    """Z3 reads a timeout of 0 as "no limit": refuse it (and negative ones) instead."""
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
    return Term(f"(not {_bool(c).text})", None)


def masked_nonzero(x: Mapping[str, Term], masks: Mapping[str, int]):
    """Some dim d has a set bit of x[d] inside masks[d]."""
    terms = [x[d] & masks[d] != 0 for d in x if masks.get(d)]
    return _or(terms)


def high_bits_set(x: Term, keep: int):
    """x has a set bit at position >= keep."""
    if keep >= x.size():
        return FALSE
    return extract(x.size() - 1, keep, x) != 0


def dot(w: Term, v: Term):
    """The GF(2) inner product w·v as a 1-bit vector."""
    both = w & v     # named once (let), read bit by bit
    return Term(f"(let ((?b {both.text})) {_xor_text([f'((_ extract {k} {k}) ?b)' for k in range(both.size())])})", 1)


def annihilates(w: Term, columns: Sequence[int]):
    """w·c = 0 for every constant column c. When every column has at most one set bit (a layout whose bases
    are unit vectors, most distributed layouts), that says w is 0 on the bits they set: one extract per run
    of consecutive such bits, all of w when they are all of it (a third of the text, which Z3 reads in half
    the time); otherwise one XOR per column."""
    text = w.text
    single = _unit_union(columns)
    if single is not None:
        out = []
        lo = 0
        while single >> lo:
            if not single >> lo & 1:
                lo += 1
                continue
            hi = lo
            while single >> (hi + 1) & 1:
                hi += 1
            part = text if lo == 0 and hi == w.size() - 1 else f"((_ extract {hi} {lo}) {text})"
            out.append(Term(f"(= {part} (_ bv0 {hi - lo + 1}))", None))
            lo = hi + 1
        return _and(out)
    bits: dict[int, str] = {}      # bit b of w, written once
    out = []
    for c in columns:
        if c:
            read = []
            for b in _bit_positions(c):
                bit = bits.get(b)
                if bit is None:
                    bit = bits[b] = f"((_ extract {b} {b}) {text})"
                read.append(bit)
            out.append(Term(f"(= {_xor_text(read)} (_ bv0 1))", None))
    return _and(out)


def outside_span(ob: Obligation, v: Term, columns: Sequence[int], tag: str = "certificate"):
    """v is not in the span of the constant columns. When every column has at most one set bit (a layout whose
    bases are unit vectors: most distributed layouts), the span is the vectors whose set bits all lie among the
    columns' set bits S, so v is outside it iff v AND NOT S is not 0: a linear condition, with nothing more to
    find. Otherwise a certificate, the obligation's variable `tag`: some w with w·c = 0 for every column and
    w·v = 1 exists iff v is outside the span (the span is the annihilator of its annihilator). What the model
    gives for it: `certificate_of`."""
    covered = _unit_union(columns)
    if covered is not None:
        return (v & ((1 << v.size()) - 1 & ~covered)) != 0
    w = ob.var(tag, v.size())
    return all_of(annihilates(w, columns), dot(w, v) == 1)


def certificate_of(values: Mapping[str, int], v: int, columns: Sequence[int], tag: str = "certificate") -> int:
    """The certificate of an `outside_span` condition that holds at value `v` of its term: the model's `tag`,
    or with unit columns (no variable) the lowest set bit of v outside their bits, a w with w·c = 0 for every
    column and w·v = 1 (0 where v is inside the span: the condition did not hold there)."""
    if tag in values:
        return values[tag]
    covered = 0
    for c in columns:
        covered |= c
    outside = v & ~covered
    return outside & -outside


def _unit_union(columns: Sequence[int]) -> int | None:
    """The bits the columns set, when every column has at most one (unit vectors or zero), else None."""
    union = 0
    for c in columns:
        if c & (c - 1):
            return None
        union |= c
    return union


def fields_below(L: LinearLayout, packed: Term, shape: Mapping[str, int]):
    """Each out-dim field of a packed coordinate is below shape[dim]."""
    out, shift = [], 0
    for d, size in L.out_dim_sizes:
        k = log2(size)
        if k and shape.get(d, size) < size:
            out.append(ult(extract(shift + k - 1, shift, packed), const(shape[d], k)))
        shift += k
    return _and(out)


def extract(hi: int, lo: int, x: Term) -> Term:
    """Bits hi..lo of x."""
    return Term(f"((_ extract {hi} {lo}) {_bits_of(x).text})", hi - lo + 1)


def widen(x: Term, width: int = WIDE) -> Term:
    return Term(f"((_ zero_extend {width - x.size()}) {x.text})", width) if x.size() < width else x


def physical_offset(i: Term, mem: PaddedLayout) -> Term:
    """phys(i) for a padded (or linear) shared layout, on a WIDE word."""
    return phys(widen(i), mem.shifts, lshr)


_CONTEXT = None
_SESSION: _Session | None = None
_TACTICS: dict[bool, object] = {}


def _tactic(dense: bool = False):
    """The tactic an obligation is solved with, built once per context (each solver runs it afresh):
    simplification, constant propagation (a functional's bits that single-bit columns fix at 0 leave
    its inner products: surjective and conversion obligations decide in half the time), equation
    solving, bit-blasting, then the SMT core's CDCL; for dense XOR systems (`Obligation.dense`) the
    stand-alone SAT solver after a second simplification, whose set-up costs 0.8 ms a check."""
    t = _TACTICS.get(dense)
    if t is None:
        t = _TACTICS[dense] = z3.Then(*_TACTIC_STEPS[dense], ctx=context())
    return t


# `_tactic`'s steps for sparse (False) and dense (True) obligations
_TACTIC_STEPS = {False: ("simplify", "propagate-values", "solve-eqs", "bit-blast", "smt"),
                 True: ("simplify", "solve-eqs", "simplify", "bit-blast", "sat")}
# the sparse tactic as the command session's check (the bounded try of `Obligation.solve`)
_CHECK_USING_TACTIC = f"(check-sat-using (then {' '.join(_TACTIC_STEPS[False])}))"


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
    global _CONTEXT, _SESSION
    _CONTEXT = _SESSION = None
    _TACTICS.clear()


def const(value: int, width: int) -> Term:
    """The constant value (modulo 2^width) as a width-bit term."""
    if type(value) is not int:
        _int(value)
    return Term(f"(_ bv{value % (1 << width)} {width})", width)


def ite(cond, a, b):
    a, b = _pair(a, b)
    return Term(f"(ite {_bool(cond).text} {a.text} {b.text})", a.width)


def lshr(x, k: int):
    return _bv("bvlshr", x, k)


def ult(a, b):
    a, b = _pair(a, b)
    return Term(f"(bvult {_bits_of(a).text} {b.text})", None)


def ugt(a, b):
    a, b = _pair(a, b)
    return Term(f"(bvugt {_bits_of(a).text} {b.text})", None)


def wide(value: int) -> Term:
    return const(value, WIDE)


# ------------------------------------------------------------------ helpers


_BIT_POSITIONS: dict[int, tuple[int, ...]] = {}


def _bit_positions(v: int) -> tuple[int, ...]:
    """The set bits of v >= 0, lowest first (as `_bits`), kept per value: a run's columns repeat."""
    positions = _BIT_POSITIONS.get(v)
    if positions is None:
        if len(_BIT_POSITIONS) >= 65536:
            _BIT_POSITIONS.clear()
        positions = _BIT_POSITIONS[v] = tuple(_bits(v))
    return positions


def _bits(v: int):
    k = 0
    while v:
        if v & 1:
            yield k
        v >>= 1
        k += 1


def _bool(c) -> Term:
    if not isinstance(c, Term) or c.width is not None:
        raise InternalError(f"expected a Boolean term, got {_clip(repr(c))}")
    return c


def _and(cs) -> Term:
    """The conjunction; one operand stands alone (SMT-LIB2's ``and`` takes at least two, and solvers
    other than Z3 reject ``(and x)``), none is ``true``."""
    cs = [_bool(c) for c in cs]
    return cs[0] if len(cs) == 1 else Term(f"(and {' '.join(c.text for c in cs)})", None) if cs else TRUE


def _or(cs) -> Term:
    """The disjunction, as `_and`; none is ``false``."""
    cs = [_bool(c) for c in cs]
    return cs[0] if len(cs) == 1 else Term(f"(or {' '.join(c.text for c in cs)})", None) if cs else FALSE


def _xor_text(bits: list[str]) -> str:
    """The XOR of 1-bit terms (text); none is 0."""
    if not bits:
        return "(_ bv0 1)"
    return bits[0] if len(bits) == 1 else f"(bvxor {' '.join(bits)})"


def _rows(L: LinearLayout, index: Mapping[str, Term]) -> tuple[list[list[tuple[str, int]]], int, int]:
    """Per out bit of L, the index bits (in-dim, bit) whose column sets it, in index order, over the bits each
    index term has below its in-dim's size (missing dims read as 0); and the set bits and nonzero columns read
    (what `Obligation.dense` weighs)."""
    rows: list[list[tuple[str, int]]] = [[] for _ in range(max(1, L.total_out_size_log2))]
    set_bits = nonzero = 0
    j = 0
    cols = L.columns
    for d, size in L.in_dim_sizes:
        x = index.get(d)
        k_max = size.bit_length() - 1
        if x is not None:
            for k in range(min(k_max, x.size())):
                positions = _bit_positions(cols[j + k])
                if positions:
                    nonzero += 1
                    set_bits += len(positions)
                for b in positions:
                    rows[b].append((d, k))
        j += k_max
    return rows, set_bits, nonzero


def _packed_rows(rows: list[list[tuple[str, int]]], names: Mapping[str, str]) -> Term:
    """The packed value whose out bit j is the XOR of the index bits ``rows[j]`` (in-dim, bit) of the terms
    `names` (rows[0] the least significant), as `_concat` of `_xor_text` of each row, written with fewer terms:
    a run of out bits that copy consecutive bits of one index term, k+n-1 down to k, is one ``((_ extract k+n-1
    k) x)``, and a run of n zero bits one ``(_ bv0 n)`` (a layout's out bits mostly copy its index bits in
    order: the script is shorter, and Z3 reads and simplifies it sooner)."""
    parts: list[str] = []
    j = len(rows) - 1
    while j >= 0:                               # from the most significant bit down
        row = rows[j]
        i = j - 1
        if not row:
            while i >= 0 and not rows[i]:
                i -= 1
            parts.append(f"(_ bv0 {j - i})")
        elif len(row) == 1:
            d, k = row[0]
            while i >= 0 and len(rows[i]) == 1 and rows[i][0] == (d, k - (j - i)):
                i -= 1
            parts.append(f"((_ extract {k} {k - (j - i - 1)}) {names[d]})")
        else:
            parts.append(_xor_text([f"((_ extract {k} {k}) {names[d]})" for d, k in row]))
        j = i
    if len(parts) == 1:
        return Term(parts[0], len(rows))
    return Term(f"(concat {' '.join(parts)})", len(rows))
