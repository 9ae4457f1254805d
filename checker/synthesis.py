"""Shared-layout synthesis: the fewest wavefronts any shared layout gives a store and a load, proven.

Problem. A register layout R_s is stored into a shared buffer (``local_store``,
``local_alloc`` with a value, an asynchronous copy) and a register layout R_l
is loaded from it (``local_load``); elements of ``bits`` bits, one CTA. The
shared layout S (offset -> tensor, invertible) is ours to choose. Each side
is scored by `checker.properties.bank_conflicts` (the hardware model, the
instruction Triton emits for that S): ``wavefronts = cost * phases``. We want
S minimizing W(S) = W_s(S) + W_l(S), and a proof that no S does better.

Notation. Tensor vectors are packed ints (F2^n, n = log2 of the elements).
S is an ordered basis t_0 .. t_{n-1} of F2^n (t_i = S(offset 2^i)). With e the
element bytes, a bank row holds 2^c elements, c = log2(banks * bank_bytes / e);
``down`` = log2(bank_bytes / e) offset bits lie inside one word (0 when e >=
bank_bytes). U = span(t_0..t_{down-1}), G = span(t_c..t_{n-1}) (the segment
bits: which bank row).

The lower bound (per side, then joint). Every S gives each side one plan
(`smem.plan.plan`): an ``st/ld.shared`` of v = 2^j elements (Triton's
largestVectorisation: j register bases of R are t_0..t_{j-1}), an
``stmatrix/ldmatrix`` (its per-tile registers and lanes 0, 1 are the first
offsets; transposed: lanes 2, 3, 4 first), or an AMD transposed read (its
tile lanes first). Call these the side's *options*; each option o fixes

* its number of phases, phases(o), a function of R alone (registers over the
  vector, lane groups of the hardware's table for the width, warps); and
* a *prefix*: the sets the first offset bases t_0, t_1, ... must come from.

For a phase P (its vector registers and the lane group of lane 0), let Q be
the span of their tensor vectors, r = rank Q. The phase's words are the
offset map restricted to Q shifted by the word size, so rank W(P) >= r - down
(+ up sub-word bits for wide elements), while the bank projection has rank at
most log2(banks); hence (module docstring of bank_conflicts: cost = 2^(rank W
- rank b∘W))

    cost >= 2^max(0, r - c),   W_side >= bound(o) = phases(o) * 2^max(0, r_min(o) - c)

with r_min(o) the smallest rank over the choices of o's vector registers.
S satisfies the prefixes of the options it realizes on both sides, so two
options are *compatible* only if their prefixes can be filled with one
sequence of distinct vectors; therefore

    W(S) >= LB = min over compatible (o_s, o_l) of bound(o_s) + bound(o_l).

This is a relaxation (every S is counted under the pair it realizes), hence a
true lower bound. The per-side bound LB_side = min_o bound(o) is the least
wavefronts that side can have under any S.

Attaining it (the construction). For a compatible pair we fill the prefix
(t_0..t_{k-1}), put every other nonzero basis of R_s and R_l into a
complement C of the prefix's span (so the registers that should vectorize do,
and nothing else touches those offset bits), and choose G inside C greedily:
one vector w at a time, picked so that w is outside A_side + U + G for both
sides (A_side = Q_side + U). dim(A ∩ G) rises only when A + U + G covers C, so
G meets each A in the least dimension the count allows; over F2 no space is
the union of two proper subspaces, so a w avoiding both exists whenever
neither is forced (the two-subspace common-complement argument, the one
behind Triton's GenericSwizzling). The bank bits are the rest of C. Each
candidate is then scored by the real model (`side_figures`, access "auto":
whatever Triton emits for it); the swizzled family (``#ttg.swizzled_shared``,
every vec/perPhase/maxPhase/order) and the IR's own layout are scored too,
so the result is never worse than the IR's choice. When the best score
equals LB the optimum is *proven* (the certificate: the layout, LB's option
pair, and the rank bound above); otherwise the gap is reported and the
result is the best found (``proven`` false). Families (``nvmma``: the eight
NVMMA layouts of the element width; ``padded``: identity offsets in every
order with one (interval, padding) pair on a grid, scored by the padded
integer model of `padded_access`) are searched exhaustively, so their
minimum is proven within the family.

Every synthesized layout is verified by `bank_conflict_free` with both
engines on both sides (`Synthesis.verify`).
"""

from __future__ import annotations

import heapq
import itertools
import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import f2
from .encodings import lower
from .encodings.closed import names
from .encodings.nvmma_shared import NvmmaSharedEncoding
from .encodings.padded_shared import PaddedSharedEncoding
from .encodings.shared_linear import SharedLinearEncoding
from .encodings.swizzled_shared import SwizzledSharedEncoding
from .errors import CheckerError, InternalError
from .hardware import PRESETS, Hardware, coset_basis, resolve
from .layout import LinearLayout, log2, powers_below, standard_out_dims
from .limits import shape as checked_shape
from .padded import PaddedLayout
from .properties import bank_conflicts as bc
from .properties.smem import plan as sp
from .properties.smem.plan import BLOCK, LANE, OFFSET, REG, WARP
from .syntax.mlir_attr import print_attribute
from .verdict import DEFAULT_ENGINES, Engines

FAMILIES = ("any", "nvmma", "padded")
F2_ONLY = Engines("f2")               # the search scores candidates by F2 ranks alone


# ------------------------------------------------------------------ scoring


@dataclass(frozen=True)
class SideFigures:
    """One side's access under one shared layout (the hardware model's figures)."""

    direction: str
    instruction: str
    mnemonic: str
    vector_bytes: int
    wavefronts: int
    min_wavefronts: int

    @property
    def conflicts(self) -> int:
        return self.wavefronts // self.min_wavefronts - 1 if self.min_wavefronts else 0

    @property
    def key(self) -> tuple[str, int]:
        return (self.instruction, self.vector_bytes)

    def to_dict(self) -> dict[str, Any]:
        return {"direction": self.direction, "instruction": self.instruction, "mnemonic": self.mnemonic,
                "vector_bytes": self.vector_bytes, "wavefronts": self.wavefronts,
                "min_wavefronts": self.min_wavefronts}

    def describe(self) -> str:
        tail = "" if self.wavefronts == self.min_wavefronts else \
            f" ({self.wavefronts // self.min_wavefronts}-way conflict, {self.min_wavefronts} conflict-free)"
        return f"{self.mnemonic} ({self.vector_bytes} B per lane): {self.wavefronts} wavefronts{tail}"


def side_figures(R: LinearLayout, S, bits: int, direction: str, access: str, hw: Hardware) -> SideFigures:
    """The wavefronts of one side (F2 ranks only: the search's scoring; `verify` runs both engines)."""
    if isinstance(S, PaddedLayout):
        res = bc.bank_conflict_free(R, S, bits, direction=direction, access=access, hardware=hw, engines=F2_ONLY)
        d = res.details
        return SideFigures(direction, d["instruction"], d.get("mnemonic", d["instruction"]), d["vector_bytes"],
                           d["wavefronts"], d["min_wavefronts"])
    Rn, Sn = sp.normalize(R, S)
    p = sp.plan(Rn, Sn, bits, direction, access, hw)
    wm = sp.word_map(p, hw)
    words = [c for _, _, c in sp.free_bits(p, wm)]
    mask = hw.banks - 1
    cost = 1 << (f2.rank(words) - f2.rank([w & mask for w in words]))
    phases = (p.phases_per_instruction * p.instructions_per_warp) << p.cvt.in_dim_size_log2(WARP)
    return SideFigures(direction, p.instruction, p.mnemonic(hw), p.vector_bytes, cost * phases, phases)


class VectorFigures:
    """The wavefronts `side_figures` gives one side of an AMD ds_read / ds_write plan, from packed columns
    alone (no LinearLayout is built): the search's cheap lower bound on a candidate (`synthesize`).

    Where it applies (`applies`): an AMD target, access ``auto``, no ``stmatrix``/``ldmatrix`` for the
    direction and, for a load, no transposed LDS read of the element width, so `smem.plan.plan` goes
    straight to `vector_plan` and `paired_plan`; S a bijective LinearLayout in R's frame, one CTA. Then,
    with cvt = S^-1 ∘ R (the unique solve, S invertible) on R's non-zero registers, lanes and warps:

    * v = 2^k is the largest k <= log2(max elements per access) such that the cvt columns with one of the
      low k offset bits set are exactly k registers with columns 1, 2, .., 2^(k-1): `largest_vectorisation`'s
      register permutation finds those registers, and `divide_left` by the identity tile succeeds iff every
      other column (register, lane, warp) keeps clear of the low k bits;
    * phases = |groups(direction, v bytes)| * 2^(registers - k) * warps. A ds_read2/ds_write2 pairing
      (`paired_plan`) with no pair rule for 2v bytes (checked: else `wavefronts` gives None) moves its pair
      register from the instruction bits to the select bits, above the vector bits (`pairs.address_registers`
      steps over the vector), so the product is unchanged;
    * where a register lies one vector away (offset 2^k), no lane or warp sets bit k and twice the vector is
      at most `smem.plan.MERGED_BYTES`, LLVM may merge the pair into the wider vector (`smem.plan._merged`,
      which also needs every address register to pair that way): None, the full model decides;
    * cost = 2^(rank W - rank b∘W), W the words of the phase's free directions (`free_bits`): the vector
      registers (offsets 2^i, i < k), a coset basis of lane 0's group and the sub-word bits, word(c) = (c <<
      up) >> down. The pairing rebases at most one register above the vector and keeps the groups, so W is
      the plan's.

    So the value is the figure itself; the search uses it only as a lower bound (a candidate is scored in
    full before it can be chosen), and `tests/test_synthesis.py` checks it against `side_figures`."""

    def __init__(self, R: LinearLayout, bits: int, direction: str, access: str, hw: Hardware):
        matrix = "stmatrix" if direction == "store" else "ldmatrix"
        e = bits // 8
        self.applies = (hw.vendor == "amd" and access == "auto" and not hw.has(matrix) and 8 <= bits
                        and e <= hw.max_vector_bytes and R.has_in_dim(LANE) and R.in_dim_size(LANE) == hw.warp_size
                        and set(R.in_dims) <= {REG, LANE, WARP, BLOCK}
                        and (not R.has_in_dim(BLOCK) or R.in_dim_size(BLOCK) == 1)
                        and not (direction == "load" and sp.trans_load_params(bits, hw) is not None))
        self.direction, self.hw, self.bits = direction, hw, bits
        self.out_sizes = R.out_dim_sizes
        self.regs = [c for c in _cols(R, REG) if c]           # drop_broadcast_registers
        self.lanes, self.warps = _cols(R, LANE), _cols(R, WARP)
        self._targets = self.regs + self.lanes + self.warps
        self._reg_set = frozenset(self.regs)
        self._least_by_run: list[int | None] | None = None     # `least` by the run's length
        self.kmax = log2(max(1, min(128, hw.max_vector_bytes * 8) // bits))
        self.up = log2(e // hw.bank_bytes) if e > hw.bank_bytes else 0
        self.down = log2(hw.bank_bytes // e) if e < hw.bank_bytes else 0
        self._per_k: dict[int, tuple[int, list[int]] | None] = {}
        # (k, lane offsets) -> wavefronts: the figure depends on the offsets only through the vector width and
        # the lanes' columns (registers and warps decide k alone), and one search's candidates often share
        # the lanes' offsets (a swizzle that leaves the lanes' bits alone): kept for this object's search
        self._by_lanes: dict[tuple[int, tuple[int, ...]], int | None] = {}

    def least(self, columns: Sequence[int]) -> int | None:
        """A lower bound on `wavefronts` from S's columns alone (columns[i] = S(offset 2^i)); None where
        `wavefronts` may be None. Vectors of 2^k elements need registers with offsets 1, 2, .., 2^(k-1), i.e.
        columns[0] .. columns[k-1] among R's registers, so k is at most the length of that run (and at most the
        registers); and every phase costs at least one wavefront: the least phases over those k."""
        if self._least_by_run is None:             # the least phases over k <= run, while every k has a rule
            self._least_by_run, least = [], None
            for k in range(min(self.kmax, len(self.regs)) + 1):
                got = self._groups(k)
                if got is None:
                    break
                least = got[0] if least is None else min(least, got[0])
                self._least_by_run.append(least)
        run, most = 0, min(self.kmax, len(self.regs), len(columns))
        while run < most and columns[run] in self._reg_set:
            run += 1
        return self._least_by_run[run] if run < len(self._least_by_run) else None

    @property
    def targets(self) -> list[int]:
        """R's columns whose offsets the figure needs (non-zero registers, lanes, warps), in that order."""
        return self._targets

    def _groups(self, k: int) -> tuple[int, list[int]] | None:
        """(phases, coset basis of lane 0's group) for vectors of 2^k elements; None: no phase rule, or a
        pair rule (not modelled here)."""
        if k not in self._per_k:
            vb = (1 << k) * self.bits // 8
            try:
                groups = self.hw.groups(self.direction, vb)
                got = None if self.hw.pair_groups(2 * vb) is not None else \
                    (len(groups) << (len(self.regs) - k) << len(self.warps), coset_basis(groups))
            except CheckerError:
                got = None
            self._per_k[k] = got
        return self._per_k[k]

    def wavefronts(self, offsets: Sequence[int]) -> int | None:
        """The side's wavefronts given cvt's columns (`targets`' offsets under S^-1, same order)."""
        nr, nl = len(self.regs), len(self.lanes)
        regs, lanes = offsets[:nr], offsets[nr:nr + nl]
        touched = 0                             # the offset bits some lane or warp column sets
        for c in offsets[nr:]:
            touched |= c
        k = self.kmax
        while k > 0:
            low = (1 << k) - 1
            if not touched & low and sorted(c for c in regs if c & low) == [1 << i for i in range(k)]:
                break
            k -= 1
        if 2 * ((1 << k) * self.bits // 8) <= sp.MERGED_BYTES and any(c == 1 << k for c in regs) \
                and not touched >> k & 1:
            return None     # LLVM may merge the adjacent accesses (`smem.plan._merged`): the full model decides
        key = (k, tuple(lanes))
        if key in self._by_lanes:
            return self._by_lanes[key]
        got = self._groups(k)
        if got is None:
            self._by_lanes[key] = None
            return None
        phases, coset = got
        up, down = self.up, self.down
        lane_words = [(c << up) >> down for c in lanes]
        words = ([((1 << i) << up) >> down for i in range(k)] + [f2.combine(lane_words, g) for g in coset]
                 + [1 << i for i in range(up)])
        mask = self.hw.banks - 1
        value = (1 << (f2.rank(words) - f2.rank([w & mask for w in words]))) * phases
        self._by_lanes[key] = value
        return value


def vector_bounds(S, sides: Sequence[VectorFigures]) -> list[int | None]:
    """Each side's `VectorFigures.wavefronts` under the shared layout S (None for a side it does not apply to,
    or when S is not a bijective LinearLayout of one CTA in the sides' frame): one solve of S's offset columns
    for every side's targets."""
    inverse = _OffsetInverse.of(S, sides)
    return inverse.bounds() if inverse is not None else [None] * len(sides)


class _OffsetInverse:
    """S^-1 for `vector_bounds`: S's offset columns in one echelon basis (`f2.solve`'s, inline: this runs once
    per candidate of the search), each stored vector tagged with the columns it sums. S is bijective iff no
    column reduces to 0 (n independent columns of F2^n), and then reducing a target t to 0 XORs the tags of
    x = S^-1 t, cvt's column for t. The basis is built when first needed: at once where S's bijectivity is in
    question (`of`), else at the first `figure` (`of_columns` with ``independent``: most candidates of a search
    are ruled out by `least`, which reads the columns alone)."""

    __slots__ = ("sides", "use", "columns", "_basis", "solved")

    def __init__(self, sides: Sequence[VectorFigures], use: list[int], columns: Sequence[int]):
        self.sides, self.use, self.columns = sides, use, columns
        self._basis: dict[int, tuple[int, int]] | None = None
        self.solved: dict[int, int] = {}                    # t -> x: the sides share most targets

    @classmethod
    def of(cls, S, sides: Sequence[VectorFigures]) -> _OffsetInverse | None:
        """None where `vector_bounds` gives no figure for any side."""
        sizes = getattr(S, "out_dim_sizes", None)
        # offsets and at most a block dim of size 1: S's columns are the offset columns
        if not isinstance(S, LinearLayout) or \
                any(d != OFFSET and (d != BLOCK or size != 1) for d, size in S.in_dim_sizes):
            return None
        return cls.of_columns(S.columns, sizes, sides)

    @classmethod
    def of_columns(cls, columns: Sequence[int], sizes, sides: Sequence[VectorFigures],
                   independent: bool = False) -> _OffsetInverse | None:
        """`of` for the layout of one offset dim (and a block dim of size 1) with these columns and out sizes;
        independent: the caller knows the columns independent (S bijective), so the basis waits for `figure`."""
        use = [i for i, f in enumerate(sides) if f.applies and f.out_sizes == sizes]
        if not use or len(columns) != sum(log2(s) for _, s in sizes):
            return None
        inverse = cls(sides, use, columns)
        if not independent and inverse.basis() is None:
            return None                                     # dependent columns: not bijective
        return inverse

    def basis(self) -> dict[int, tuple[int, int]] | None:
        """Leading bit -> (vector, columns summed), built once; None when the columns are dependent."""
        if self._basis is not None:
            return self._basis
        basis: dict[int, tuple[int, int]] = {}
        for j, v in enumerate(self.columns):
            tag = 1 << j
            while v:
                lead = v.bit_length() - 1
                hit = basis.get(lead)
                if hit is None:
                    basis[lead] = (v, tag)
                    break
                v ^= hit[0]
                tag ^= hit[1]
            else:
                return None
        self._basis = basis
        return basis

    def bounds(self) -> list[int | None]:
        """`vector_bounds`: each side's `VectorFigures.wavefronts`."""
        return [self.figure(i) for i in range(len(self.sides))]

    def figure(self, i: int) -> int | None:
        """Side i's `VectorFigures.wavefronts` (None where `vector_bounds` gives none)."""
        if i not in self.use:
            return None
        basis, solved = self.basis(), self.solved
        if basis is None:
            raise InternalError("synthesis: a layout's columns vouched independent are not")
        offsets = []
        for t in self.sides[i].targets:
            x = solved.get(t)
            if x is None:
                x, rest = 0, t
                while rest:
                    v, tag = basis[rest.bit_length() - 1]       # every bit leads a vector: the basis spans F2^n
                    rest ^= v
                    x ^= tag
                solved[t] = x
            offsets.append(x)
        return self.sides[i].wavefronts(offsets)

    def least(self) -> list[int | None]:
        """A lower bound on each of `bounds` from S's columns alone (`VectorFigures.least`), no solve."""
        out: list[int | None] = [None] * len(self.sides)
        for i in self.use:
            out[i] = self.sides[i].least(self.columns)
        return out


# ------------------------------------------------------------- the lower bound


@dataclass(frozen=True)
class Option:
    """One plan a side may get under some S: its prefix (allowed vectors per leading offset bit),
    its phases and its wavefront bound."""

    kind: str                                   # "vector", "matrix", "matrix.trans", "ds_read_tr"
    vector_elems: int
    prefix: tuple[frozenset, ...]
    phases: int
    bound: int
    phase_lanes: tuple[int, ...]                # lane indices spanning the phase's lane group (coset basis)
    reg_positions: tuple[int, ...]              # prefix positions that are the phase's registers

    def describe(self) -> str:
        if self.kind == "vector":
            return f"{self.vector_elems}-element vectors"
        return self.kind


def _cols(L: LinearLayout, d: str) -> list[int]:
    return sp.dim_columns(L, d)


def side_options(R: LinearLayout, bits: int, direction: str, access: str, hw: Hardware) -> list[Option]:
    """The options of one side (module docstring), each with phases(o) and bound(o)."""
    Rn, _ = sp.drop_broadcast_registers(R)
    regs, lanes = _cols(Rn, REG), _cols(Rn, LANE)
    n_regs, warps = len(regs), 1 << Rn.in_dim_size_log2(WARP)
    vreg = frozenset(regs)
    e = bits // 8
    c = log2(max(1, hw.banks * hw.bank_bytes // e))
    out: list[Option] = []
    matrix = "stmatrix" if direction == "store" else "ldmatrix"

    def lane_vecs(idx: Sequence[int]) -> list[int]:
        return [f2.combine(lanes, v) for v in idx]

    def rmin(j: int, lane_idx: Sequence[int], fixed: Sequence[int] = ()) -> int:
        lv = lane_vecs(lane_idx) + list(fixed)
        best = None
        for sub in itertools.combinations(regs, j):
            r = f2.rank(list(sub) + lv)
            best = r if best is None else min(best, r)
            if best == j:
                break
        return best if best is not None else f2.rank(lv)

    vector_access = access in ("auto", "st.shared", "ld.shared", "cp.async", "direct_to_lds", "fill_store")
    if vector_access:
        name = "cp.async" if access in ("cp.async", "direct_to_lds") else "st.shared"
        gdir = "store" if name == "cp.async" or direction == "store" else "load"
        max_bytes = hw.max_vector_bytes
        widths = None
        if access in ("cp.async", "direct_to_lds") and hw.vendor == "amd":
            widths = [w for w in hw.direct_to_lds if w >= e]
            max_bytes = max(widths) if widths else e
        max_elems = max(1, min(128, max_bytes * 8) // bits)
        for j in range(0, min(n_regs, log2(max_elems)) + 1):
            vb = (1 << j) * e
            if widths is not None and vb not in widths:
                continue
            try:
                groups = hw.groups(gdir, vb)
            except CheckerError:
                continue
            lane_idx = coset_basis(groups)
            phases = (1 << (n_regs - j)) * len(groups) * warps
            bound = phases << max(0, rmin(j, lane_idx) - c)
            out.append(Option("vector", 1 << j, (vreg,) * j, phases, bound, tuple(lane_idx), tuple(range(j))))
    if access in ("auto", matrix) and hw.has(matrix) and len(lanes) == 5 and bits <= 32:
        t = log2(32 // bits)
        if n_regs >= t and lanes[0] and lanes[1]:
            phases = (1 << (n_regs - t)) * warps
            out.append(Option("matrix", 1 << t, (vreg,) * t + (frozenset([lanes[0]]), frozenset([lanes[1]])),
                              phases, phases, tuple(1 << i for i in range(5)), tuple(range(t))))
    if access in ("auto", matrix + ".trans") and hw.has(matrix) and len(lanes) == 5 and \
            (bits == 16 or (bits == 8 and hw.has("b8"))):
        o = log2(16 // bits)
        per_tile = log2((16 if direction == "store" and bits == 8 else 32) // bits) + o
        if n_regs >= per_tile and all(lanes[2:5]):
            groups = 2 if per_tile + 5 + log2(bits // 8) > 7 else 1
            phases = (1 << (n_regs - per_tile)) * groups * warps
            out.append(Option("matrix.trans", 1 << per_tile,
                              tuple(frozenset([x]) for x in lanes[2:5]) + (vreg,) * o, phases, phases,
                              tuple(1 << i for i in range(5)), tuple(range(3, 3 + o))))
    if direction == "load" and access in ("auto", "ds_read_tr"):
        params = sp.trans_load_params(bits, hw)
        if params is not None:
            T = params[0] // bits
            if (1 << n_regs) >= T and log2(T) <= len(lanes) and all(lanes[:log2(T)]):
                try:
                    groups = hw.groups("transpose", params[0] // 8)
                    phases = ((1 << n_regs) // T) * len(groups) * warps
                    out.append(Option("ds_read_tr", T, tuple(frozenset([x]) for x in lanes[:log2(T)]), phases,
                                      phases, tuple(coset_basis(groups)), ()))
                except CheckerError:
                    pass
    if not out:
        raise CheckerError(f"no {direction} instruction of {hw.name} fits this layout (access {access})",
                           field="access")
    return out


def _fill(a: tuple[frozenset, ...], b: tuple[frozenset, ...], limit: int = 64) -> list[tuple[int, ...]]:
    """Sequences of distinct, independent vectors satisfying both prefixes (position-wise), up to `limit`."""
    k = max(len(a), len(b))
    allowed = [sorted(frozenset.intersection(*[p[i] for p in (a, b) if i < len(p)])) for i in range(k)]
    out: list[tuple[int, ...]] = []
    _extend(allowed, [], out, limit)
    return out


def _extend(allowed: list[list[int]], seq: list[int], out: list[tuple[int, ...]], limit: int) -> None:
    """`_fill`'s search, depth first: each way to extend `seq` by a nonzero vector of allowed[len(seq)] outside
    its span, until `out` holds `limit` full sequences (a function of its own, not one nested in `_fill` calling
    itself: that would be a reference cycle, freed only by the cyclic collector)."""
    if len(out) >= limit:
        return
    i = len(seq)
    if i == len(allowed):
        out.append(tuple(seq))
        return
    for v in allowed[i]:
        if v and not f2.in_span(v, seq):
            seq.append(v)
            _extend(allowed, seq, out, limit)
            seq.pop()


def compatible(a: Option, b: Option) -> bool:
    return bool(_fill(a.prefix, b.prefix, limit=1))


# ---------------------------------------------------------------- construction


class _Checks:
    """Membership in a subspace A of F2^n by parity checks: w is in A iff w has an even overlap with every
    vector of a basis of the annihilator A^⊥ = {h : h·a = 0 for all a in A} ((A^⊥)^⊥ = A in finite dimension),
    n - dim A popcounts against the dim A reduction steps of an echelon basis. `_Construction` restricts the
    checks to its coordinates."""

    __slots__ = ("checks",)

    def __init__(self, vectors: Sequence[int], n: int):
        # column j of the map h -> (h·a_i)_i holds bit j of every a_i: its kernel is A^⊥
        cols = [0] * n
        for i, v in enumerate(vectors):
            while v:
                low = v & -v
                cols[low.bit_length() - 1] |= 1 << i
                v ^= low
        self.checks = f2.nullspace(cols)

    def __contains__(self, w: int) -> bool:
        for h in self.checks:
            if (h & w).bit_count() & 1:
                return False
        return True


def _side_columns(R: LinearLayout) -> tuple[list[int], list[int], list[int]]:
    """R's register (broadcast registers dropped), lane and warp columns."""
    Rn, _ = sp.drop_broadcast_registers(R)
    return _cols(Rn, REG), _cols(Rn, LANE), _cols(Rn, WARP)


def _xor_rows(rows: Sequence[int], x: int) -> int:
    """The XOR of rows[i] over the set bits i of x."""
    out = 0
    while x:
        low = x & -x
        out ^= rows[low.bit_length() - 1]
        x ^= low
    return out


def _covered(unit: Sequence[int], masks: Sequence[int]) -> bool:
    """Whether the spaces K_M = {x : `_xor_rows(unit, x)` & M = 0} of F2^m (m = len(unit)), one per mask M,
    cover F2^m. Inclusion–exclusion: |union| is the signed sum over the nonempty sets of spaces of the size of
    their intersection, K_(OR of their masks), of dimension m - rank of its checks (rank of the rows restricted
    to the checks = rank of the columns ``unit[i] & M``). First the common case, no count: a space no check of
    which meets any coordinate (``unit[i] & M`` all 0) is F2^m itself."""
    m = len(unit)
    for mask in masks:
        if not any(u & mask for u in unit):
            return True
    size = 0
    for r in range(1, len(masks) + 1):
        for some in itertools.combinations(masks, r):
            joint = 0
            for mask in some:
                joint |= mask
            size += (1 if r % 2 else -1) << (m - f2.rank([u & joint for u in unit]))
    return size == 1 << m


RANDOM_PER_STEP = 48                            # random combinations tried for each w of G
PAIRS_PER_STEP = 64                             # pairwise sums of cbasis tried for each w of G


class _Construction:
    """The construction (module docstring) for one option pair and prefix: an ordered basis t_0..t_{n-1}
    with that prefix per `order(rng)`, or None. What takes no random draw (the complement, the spaces the
    greedy choice of G asks about, the vectors it tries first) is done once for all of the search's attempts.

    Coordinates. Every w tried is a combination cbasis·x (cbasis is independent: x <-> w is one to one), and
    every space asked about is one in coordinates x: span(uext + G) (uext = cbasis[:len(uext)]) and each
    area A + span(G), whose coordinates are (A ∩ span(cbasis)) + span(G) (G lies in span(cbasis)): A's parity
    checks h restricted to cbasis, h·(cbasis·x) = (h·cbasis_i)_i · x. Each space is the kernel of its checks;
    all the checks are packed in one int per coordinate (``unit[i]``: bit p is check p's parity on
    coordinate i), so x's syndrome is the XOR of ``unit[i]`` over the set bits of x, and x lies in a space
    iff its syndrome meets the space's ``mask`` nowhere.

    Bit-sliced fixed vectors. The vectors tried first for each w (cbasis, then its first pairwise sums: the
    ``fixed`` coordinates) are the same at every step, so ``sliced[p]`` holds, one bit per fixed vector, its
    syndrome's bit p: the fixed vectors outside a space are the OR of ``sliced`` over the space's mask."""

    def __init__(self, os_: Option, ol: Option, prefix: tuple[int, ...], n: int, c: int, down: int,
                 columns) -> None:
        k = len(prefix)
        others = []
        for side in columns:
            for cols in side:
                others += [v for v in cols if v and v not in prefix]
        spanned = f2.Span(prefix)               # prefix + the sides' columns, then prefix + cbasis
        cbasis = [v for v in others if spanned.add(v)]
        for i in range(n):
            if len(prefix) + len(cbasis) == n:
                break
            if spanned.add(1 << i):
                cbasis.append(1 << i)
        self.prefix, self.n, self.steps = prefix, n, max(0, n - c)
        self.cbasis = cbasis if len(prefix) + len(cbasis) == n else None
        # (batches of draws taken, the order) of an attempt that read none of its draws (`order`)
        self.replay: tuple[int, list[int] | None] | None = None
        if self.cbasis is None:
            return
        m = len(cbasis)
        self.uext = cbasis[:max(0, down - k)]
        u = list(prefix[:down]) + self.uext
        checks = [[1 << i for i in range(len(self.uext), m)]]           # span(uext + G)
        rows = [0] * n                          # rows[r]: the coordinates i whose cbasis_i has bit r
        for i, b in enumerate(cbasis):
            while b:
                low = b & -b
                rows[low.bit_length() - 1] |= 1 << i
                b ^= low
        self.weights = []
        for (_, lanes, _), o in ((columns[0], os_), (columns[1], ol)):
            q = [prefix[i] for i in o.reg_positions if i < k] + [f2.combine(lanes, v) for v in o.phase_lanes]
            checks.append(f2.span_basis([_xor_rows(rows, h) for h in _Checks(q + u, n).checks]))
            self.weights.append(o.phases)       # phase counts, >= 1
        self.unit = [0] * m                     # the packed checks (class docstring), one bit per check
        self.masks = []                         # per space: the bits of its checks
        bits = 0
        for space in checks:
            mask = 0
            for h in space:
                mask |= 1 << bits
                while h:
                    low = h & -h
                    self.unit[low.bit_length() - 1] |= 1 << bits
                    h ^= low
                bits += 1
            self.masks.append(mask)
        pairs = list(itertools.combinations(range(m), 2))[:PAIRS_PER_STEP]
        self.fixed = [1 << i for i in range(m)] + [(1 << a) | (1 << b) for a, b in pairs]
        holds = [1 << i for i in range(m)]      # holds[i]: the fixed vectors with coordinate i
        for j, (a, b) in enumerate(pairs, m):
            holds[a] |= 1 << j
            holds[b] |= 1 << j
        self.sliced = [0] * bits
        for i, packed in enumerate(self.unit):
            while packed:
                low = packed & -packed
                self.sliced[low.bit_length() - 1] ^= holds[i]
                packed ^= low

    def order(self, rng: random.Random) -> list[int] | None:
        """One attempt: G chosen greedily, w by w: among the fixed vectors, then RANDOM_PER_STEP random
        combinations of cbasis (drawn in full at every step, so the generator's state is the same whatever is
        chosen), the first w outside span(uext + G) with the least increase, the sum of the weights of the
        areas holding it (a random one must be strictly better than the best before it).

        Replay. The generator feeds the walk only through the draws, and a step reads them only when no fixed
        vector has increase 0 and some draw may win (below); otherwise the step's choice is a function of the
        walk so far. So an attempt that read no draw at all is a function of this object alone: every later
        attempt walks the same way to the same order. It is kept (`replay`), and a later attempt takes the
        same number of draws from the generator (RANDOM_PER_STEP per step walked, each ``getrandbits(m)``, as
        the walk does) and returns it: the same order, the generator left in the same state."""
        if self.cbasis is None:
            return None
        m = len(self.cbasis)
        if self.replay is not None:
            batches, got = self.replay
            deque(map(rng.getrandbits, itertools.repeat(m, batches * RANDOM_PER_STEP)), maxlen=0)
            return None if got is None else list(got)
        tally: list[Any] = [0, False]
        got = self._walk(rng, self.cbasis, tally)
        if not tally[1]:
            self.replay = (tally[0], None if got is None else list(got))
        return got

    def _walk(self, rng: random.Random, cbasis: list[int], tally: list[Any]) -> list[int] | None:
        """One attempt of `order`; tally: [batches of draws taken, whether a draw was read], kept up to date."""
        unit, masks, sliced = list(self.unit), list(self.masks), list(self.sliced)
        (wt_s, wt_l), fixed, m = self.weights, self.fixed, len(cbasis)
        g: list[int] = []                       # coordinates
        for _ in range(self.steps):
            outside = []
            for mask in masks:
                out = 0
                while mask:
                    low = mask & -mask
                    out |= sliced[low.bit_length() - 1]
                    mask ^= low
                outside.append(out)
            free, out_s, out_l = outside
            best = best_inc = None
            # the fixed vectors by increase; equal weights tie, and then the first of either set wins
            by_inc: dict[int, int] = {}
            for inc, members in ((0, free & out_s & out_l), (wt_s, free & ~out_s & out_l),
                                 (wt_l, free & out_s & ~out_l), (wt_s + wt_l, free & ~out_s & ~out_l)):
                by_inc[inc] = by_inc.get(inc, 0) | members
            for inc in sorted(by_inc):
                if by_inc[inc]:
                    first = by_inc[inc] & -by_inc[inc]
                    best, best_inc = fixed[first.bit_length() - 1], inc
                    break
            draws = list(map(rng.getrandbits, itertools.repeat(m, RANDOM_PER_STEP)))
            tally[0] += 1
            in_taken, in_s, in_l = masks
            # a random x can win only outside span(uext + G) with an increase below best_inc: outside the areas
            # whose weights reach it (their intersection when neither does). When those spaces cover F2^m, as
            # they often do once the fixed vectors all fall in one, no draw can win
            barred = [in_taken]
            if best_inc is not None:
                barred += [mask for wt, mask in ((wt_s, in_s), (wt_l, in_l)) if wt >= best_inc]
                if max(wt_s, wt_l) < best_inc:
                    barred.append(in_s | in_l)
            if best_inc != 0 and not _covered(unit, barred):
                tally[1] = True
                for x in draws:
                    syn = _xor_rows(unit, x)
                    if not syn & in_taken:      # x = 0 too (w = 0)
                        continue
                    inc = (0 if syn & in_s else wt_s) + (0 if syn & in_l else wt_l)
                    if best_inc is None or inc < best_inc:
                        best, best_inc = x, inc
                        if inc == 0:
                            break
            if best is None:
                return None
            g.append(best)
            # every space grows by best. (K + x)^⊥ is the kernel of h -> h·x on K^⊥: the checks with an even
            # parity on x stay, and one check h0 with an odd parity is spent making every other odd one even
            # (h + h0), one check fewer, as the dimension says (none odd: x is in K already). In the packed
            # syndromes, check h + h0 is bit h XOR bit h0; h0's bit leaves the mask
            syn = _xor_rows(unit, best)
            for t, mask in enumerate(masks):
                odd = syn & mask
                if odd:
                    h0 = odd & -odd
                    rest = odd ^ h0
                    unit = [u ^ rest if u & h0 else u for u in unit]
                    spent = sliced[h0.bit_length() - 1]
                    while rest:
                        low = rest & -rest
                        sliced[low.bit_length() - 1] ^= spent
                        rest ^= low
                    masks[t] = mask ^ h0
        uext = self.uext
        g = [f2.combine(cbasis, x) for x in g]
        bank: list[int] = []
        banked = f2.Span(uext + g)              # uext + g, then + bank
        for w in cbasis:
            if len(uext) + len(bank) + len(g) == len(cbasis):
                break
            if banked.add(w):
                bank.append(w)
        order = list(self.prefix) + uext + bank + g
        return order if len(order) == self.n and f2.rank(order) == self.n else None


# ------------------------------------------------------------------ the result


@dataclass
class Candidate:
    encoding: Any                               # the encoding printed (swizzled, shared_linear, nvmma, padded)
    layout: Any                                 # its LinearLayout (or PaddedLayout) at the shape
    store: SideFigures
    load: SideFigures
    source: str                                 # "swizzled", "constructed", "ir", "nvmma", "padded"

    @property
    def total(self) -> int:
        return self.store.wavefronts + self.load.wavefronts


@dataclass
class Synthesis:
    """The synthesized layout, the figures before (the IR's layout, if given) and after, and the proof."""

    best: Candidate
    current: Candidate | None
    lower_bound: int                            # joint: no S of the family has fewer wavefronts (sum of sides)
    side_bounds: tuple[int, int]                # each side alone, over every S
    bound_pair: tuple[str, str]                 # the option pair behind lower_bound
    proven: bool
    family: str
    argument: str
    at_current: Candidate | None = None         # the best keeping the IR layout's instructions
    at_current_bound: int | None = None
    bits: int = 16
    rank_bound: int = 0                         # the rank bound over compatible plan pairs (docstring)
    shape: tuple[int, ...] = ()
    hardware: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def improves(self) -> bool:
        return self.current is not None and self.best.total < self.current.total

    def attribute(self) -> str:
        return print_attribute(self.best.encoding)

    def gluon(self) -> str:
        return gluon_text(self.best.encoding, self.shape)

    def to_dict(self) -> dict[str, Any]:
        d = {"layout": self.attribute(), "gluon": self.gluon(), "source": self.best.source,
             "store": self.best.store.to_dict(), "load": self.best.load.to_dict(),
             "wavefronts": self.best.total, "lower_bound": self.lower_bound,
             "side_bounds": list(self.side_bounds), "bound_options": list(self.bound_pair),
             "proven": self.proven, "family": self.family, "argument": self.argument}
        if self.current is not None:
            d["before"] = {"store": self.current.store.to_dict(), "load": self.current.load.to_dict(),
                           "wavefronts": self.current.total}
            d["improves"] = self.improves
        if self.at_current is not None:
            d["at_current_vectorization"] = {"wavefronts": self.at_current.total,
                                             "lower_bound": self.at_current_bound}
        return d

    def verify(self, engines: Engines = DEFAULT_ENGINES, store_access: str = "auto", load_access: str = "auto",
               R_store: LinearLayout | None = None, R_load: LinearLayout | None = None) -> None:
        """Re-decide both sides with `bank_conflict_free` (both engines must agree) and check the figures."""
        for R, fig, access in ((R_store, self.best.store, store_access), (R_load, self.best.load, load_access)):
            if R is None:
                continue
            res = bc.bank_conflict_free(R, self.best.layout, self.bits, direction=fig.direction, access=access,
                                        hardware=self.hardware, engines=engines)
            if res.details["wavefronts"] != fig.wavefronts:
                raise InternalError(f"synthesis: the {fig.direction} side scores {res.details['wavefronts']} "
                                    f"wavefronts when verified, {fig.wavefronts} in the search")


def gluon_text(enc, shape: Sequence[int]) -> str:
    """The Gluon constructor call for a shared encoding (``gl.`` = triton.experimental.gluon.language)."""
    kind = enc.kind
    if kind == "swizzled_shared":
        return (f"gl.SwizzledSharedLayout(vec={enc.vec}, per_phase={enc.per_phase}, max_phase={enc.max_phase}, "
                f"order={list(enc.order)})")
    if kind == "shared_linear":
        return (f"gl.SharedLinearLayout(offset_bases={[list(b) for b in enc.offset_bases]}, "
                f"block_bases={[list(b) for b in enc.block_bases]}, alignment={enc.alignment_bytes})")
    if kind == "nvmma_shared":
        return (f"gl.NVMMASharedLayout(swizzle_byte_width={enc.swizzling_byte_width}, "
                f"element_bitwidth={enc.element_bit_width}, rank={enc.rank}, transposed={enc.transposed})")
    if kind == "padded_shared":
        pairs = [[i, p] for i, p in zip(enc.intervals, enc.paddings)]
        return (f"gl.PaddedSharedLayout(interval_padding_pairs={pairs}, "
                f"offset_bases={[list(b) for b in enc.offset_bases]}, cga_layout=[], shape={list(shape)})")
    raise CheckerError(f"no Gluon text for {kind}", field="layout")


# --------------------------------------------------------------------- search


def _std(R: LinearLayout, rank: int, what: str) -> LinearLayout:
    R = R.transpose_outs(standard_out_dims(rank))
    if R.has_in_dim(BLOCK) and R.in_dim_size(BLOCK) > 1:
        raise CheckerError("synthesis covers one CTA (num-ctas = 1)", field=what)
    if R.in_dim_size(LANE) == 0:
        raise CheckerError("needs a register layout", field=what)
    return LinearLayout([(d, R.in_bases(d)) for d in R.in_dims if d != BLOCK], R.out_dim_sizes)


def _shared_of(order: Sequence[int], sizes) -> LinearLayout:
    return LinearLayout([(OFFSET, [sizes_unpack(sizes, v) for v in order])], sizes)


def _linear_encoding(order: Sequence[int], sizes) -> SharedLinearEncoding:
    """The shared_linear encoding of the ordered basis `order` (`_shared_of`'s offset bases, unpacked directly)."""
    return SharedLinearEncoding(tuple(sizes_unpack(sizes, v) for v in order))


def sizes_unpack(sizes, v: int) -> tuple[int, ...]:
    out = []
    for _, s in sizes:
        out.append(v & (s - 1))
        v >>= log2(s)
    return tuple(out)


def swizzled_candidates(shape: Sequence[int]):
    """Every distinct #ttg.swizzled_shared layout of the shape (vec, perPhase, maxPhase powers of two, every
    order), with its layout."""
    for entry in _swizzled_entries(shape):
        yield entry.get()


def _swizzled_parameters(shape: Sequence[int]):
    """(vec, perPhase, maxPhase, order) of every swizzled layout `swizzled_candidates` tries, in its order."""
    rank = len(shape)
    orders = list(itertools.permutations(range(rank))) if rank > 1 else [(0,)]
    for order in orders:
        cols = shape[order[0]] if rank > 1 else 1
        rows = shape[order[1]] if rank > 1 else 1
        for vec in [1 << i for i in range(log2(cols) + 1)]:
            for mp in [1 << i for i in range(log2(max(1, cols // vec)) + 1)]:
                for pp in [1 << i for i in range(log2(rows) + 1)]:
                    if mp == 1 and (vec, pp) != (1, 1):
                        continue                     # maxPhase 1: no swizzle, whatever vec and perPhase
                    yield vec, pp, mp, tuple(order)


class _SwizzledEntry:
    """One layout of `_swizzled_entries`: its packed columns (`LinearLayout.columns`) at once, its encoding and
    layout when first asked (`get`): the lazy search rules most of them out by their columns alone."""

    __slots__ = ("columns", "sizes", "independent", "_make", "_got")

    def __init__(self, columns: tuple[int, ...], sizes: Any, independent: bool,
                 make: Callable[[], tuple[Any, Any]]):
        self.columns, self.sizes = columns, sizes   # the layout's columns and out-dim sizes
        self.independent = independent          # the columns are known independent (the layout bijective)
        self._make: Callable[[], tuple[Any, Any]] = make
        self._got: tuple[Any, Any] | None = None

    def get(self) -> tuple[Any, Any]:
        """(encoding, layout)."""
        if self._got is None:
            self._got = self._make()
        return self._got


def _swizzled_entries(shape: Sequence[int]) -> list[_SwizzledEntry]:
    """`swizzled_candidates`, in its order, as `_SwizzledEntry` values.

    For a shape of rank >= 2, powers of two within `checker.limits` (every shape `synthesize` sees: a layout's
    out sizes), each layout comes from the closed form of swizzled_shared's lowering (the module docstring of
    `checker.encodings.swizzled_shared`: the identity bases of the columns, one base per row bit r with column
    (vec * ((r / perPhase) % maxPhase)) % numCols, the identity bases of order[2:], an empty block dim) instead of
    `lower`, which validates and builds the same value (no CGA; vec, perPhase, maxPhase >= 1 and a permutation
    always pass its checks). Every such layout of one shape has the same in-dims and out-dims, so two are equal
    iff their packed columns are: the columns, computed first, pick the distinct ones. The columns are
    independent: each row bit's column holds that row bit, which no other column has, so no sum of columns with
    one of them in it is 0, and the rest are distinct unit vectors. `tests/test_synthesis_layouts_identity.py`
    compares this with `lower` over many shapes."""
    try:
        dims = checked_shape(shape)
    except CheckerError:
        dims = ()
    if len(dims) < 2 or any(d & (d - 1) for d in dims):
        return _swizzled_lowered(shape)
    rank = len(dims)
    outs = tuple(zip(names(rank), dims))
    shifts = [sum(log2(d) for d in dims[:k]) for k in range(rank)]
    seen: set[tuple[int, ...]] = set()
    parts: dict[tuple[int, ...], tuple[Any, ...]] = {}    # order -> fixed columns, (r, r's bits) per row bit r
    out = []
    for vec, pp, mp, order in _swizzled_parameters(dims):
        col, row = order[0], order[1]
        num_cols, col_shift = dims[col], shifts[col]
        if order not in parts:
            head_cols = tuple(v << col_shift for v in powers_below(num_cols))
            tail_cols = tuple(v << shifts[d] for d in order[2:] for v in powers_below(dims[d]))
            parts[order] = (head_cols, tail_cols, [(r, r << shifts[row]) for r in powers_below(dims[row])])
        head_cols, tail_cols, row_bits = parts[order]
        columns = head_cols + tuple([bit | (((vec * ((r // pp) % mp)) % num_cols) << col_shift)
                                     for r, bit in row_bits]) + tail_cols
        if columns in seen:
            continue
        seen.add(columns)
        out.append(_SwizzledEntry(columns, outs, True, _swizzled_maker(vec, pp, mp, order, dims)))
    return out


def _swizzled_maker(vec: int, pp: int, mp: int, order: tuple[int, ...], dims: tuple[int, ...]):
    """Builds (encoding, layout) of one layout of `_swizzled_entries`, when called: the encoding's closed form
    (what `lower` gives once the encoding validates, which these parameters do)."""
    def make() -> tuple[SwizzledSharedEncoding, LinearLayout]:
        enc = SwizzledSharedEncoding(vec, pp, mp, order)
        return enc, enc.to_linear_layout(list(dims))
    return make


def _swizzled_lowered(shape: Sequence[int]) -> list[_SwizzledEntry]:
    """`_swizzled_entries` by `lower` itself (any shape)."""
    seen = set()
    out = []
    for vec, pp, mp, order in _swizzled_parameters(shape):
        enc = SwizzledSharedEncoding(vec, pp, mp, order)
        try:
            L = lower(enc, list(shape))
        except CheckerError:
            continue
        if L in seen:
            continue
        seen.add(L)
        out.append(_SwizzledEntry(L.columns, L.out_dim_sizes, False, _ready(enc, L)))
    return out


def nvmma_candidates(shape: Sequence[int], bits: int):
    for sw in (0, 32, 64, 128):
        for tr in (False, True):
            enc = NvmmaSharedEncoding(sw, tr, bits, rank=len(shape))
            try:
                yield enc, lower(enc, list(shape))
            except CheckerError:
                continue


PADDINGS = (1, 2, 4, 8, 16)


def padded_candidates(shape: Sequence[int], bits: int):
    """Identity offsets in every order, one (interval, padding) pair: intervals 2^i from 1 to the elements
    (in elements, Triton's unit), paddings 1..16 elements whose bytes stay <= 64."""
    rank = len(shape)
    total = 1
    for s in shape:
        total *= s
    for order in itertools.permutations(range(rank)):
        offs = tuple(tuple((1 << i) if k == d else 0 for k in range(rank))
                     for d in order for i in range(log2(shape[d])))
        for iv in [1 << i for i in range(log2(total) + 1)]:
            for pad in PADDINGS:
                if pad * bits // 8 > 64:
                    continue
                enc = PaddedSharedEncoding((iv,), (pad,), offs)
                try:
                    yield enc, lower(enc, list(shape))
                except CheckerError:
                    continue


class _LazyPool:
    """The candidates of one lazy search (`synthesize`), in the order the search meets them, each scored only
    as far as the search's questions need.

    Candidate i has a lower bound B_i on its total (store + load wavefronts): at first the sum of its sides'
    bounds (`synthesize`'s ``bounds``), then the sum of its sharper ones where it has them (``sharper(x)``,
    asked the first time the candidate may be <= x), then store + the load side's bound once its store side is
    scored, then its total once both are (+inf when a side cannot be scored: the eager search drops it).
    Bounds only rise. The candidates not fully scored wait in a heap by their bound: a question about x takes
    out those whose bound is <= x, one at a time, scores each as far as the question needs, and puts it back
    when its bound rose above x (a later question about x finds the heap's least bound above it at once). The
    answers are exact, so the search's choice does not depend on which candidates were scored first."""

    def __init__(self, side):
        self.side = side                              # (L, direction) -> SideFigures
        self.items: list[tuple[Any, str]] = []        # (() -> (encoding, layout), source)
        self.load_bound: list[int] = []
        self.bound: list[float] = []
        self.store: list[SideFigures | None] = []
        self.sharper: list[Any] = []                  # x -> sharper (store, load) bounds, None once asked
        self.waiting: list[tuple[float, int]] = []    # (bound, index) of every candidate not fully scored: a heap
        self.got: dict[int, Candidate | None] = {}    # fully scored: the candidate, None when it cannot be
        self.best: int | None = None                  # the least total scored

    def add(self, make, source: str, bounds: tuple[int, int], sharper=None) -> None:
        """A candidate: make() gives its (encoding, layout), asked only when its store side is scored."""
        i = len(self.items)
        self.items.append((make, source))
        self.load_bound.append(bounds[1])
        self.bound.append(bounds[0] + bounds[1])
        self.store.append(None)
        self.sharper.append(sharper)
        heapq.heappush(self.waiting, (self.bound[i], i))

    def _refine(self, i: int, x: float) -> None:
        """Scores candidate i as far as telling whether its total is <= x takes (its sharper bounds, then the
        store side)."""
        make, source = self.items[i]
        if self.sharper[i] is not None:
            store, load = self.sharper[i](x)
            self.sharper[i] = None
            self.load_bound[i] = max(self.load_bound[i], load)
            self.bound[i] = max(self.bound[i], store + load)
            if self.bound[i] > x:
                return
        enc, L = make()
        try:
            if self.store[i] is None:
                self.store[i] = self.side(L, "store")
                self.bound[i] = max(self.bound[i], self.store[i].wavefronts + self.load_bound[i])
                if self.bound[i] > x:
                    return
            got = Candidate(enc, L, self.store[i], self.side(L, "load"), source)
        except CheckerError:
            self.got[i], self.bound[i] = None, float("inf")
            return
        self.got[i], self.bound[i] = got, got.total
        if self.best is None or got.total < self.best:
            self.best = got.total

    def _step(self, x: float) -> bool:
        """Scores the waiting candidate of least bound as far as x needs; False when no bound is <= x."""
        if not self.waiting or self.waiting[0][0] > x:
            return False
        _, i = heapq.heappop(self.waiting)
        self._refine(i, x)
        if i not in self.got:
            heapq.heappush(self.waiting, (self.bound[i], i))
        return True

    def at_most(self, x: int) -> bool:
        """Whether the least total of the candidates so far is <= x (exactly: every candidate whose bound
        allows it is scored until one is)."""
        while self.best is None or self.best > x:
            if not self._step(x):
                return False
        return True

    def scored(self, x: int | None) -> list[Candidate]:
        """The scored candidates, in the order they came, after scoring every one whose bound is <= x (None:
        no limit), x falling to the least total seen: any other has a total above some candidate's, so it can
        neither be the search's choice nor tie it."""
        limit = float("inf") if x is None else x
        while self._step(limit if self.best is None else min(limit, self.best)):
            pass
        return [got for _, got in sorted(self.got.items()) if got is not None]


def _ready(enc: Any, L: Any) -> Callable[[], tuple[Any, Any]]:
    """A `_LazyPool` candidate's make() for an encoding and layout built already."""
    return lambda: (enc, L)


def synthesize(R_store: LinearLayout, R_load: LinearLayout, bits: int, hardware: Any = "sm90", *,
               store_access: str = "auto", load_access: str = "auto", family: str = "any",
               current: Any = None, seed: int = 0, budget: int = 400, at_current: bool = True) -> Synthesis:
    """The shared layout with the fewest store + load wavefronts (module docstring); `current` is the
    IR's shared encoding (scored and kept as a candidate). R_store, R_load: lowered register layouts of
    one shape. budget: how many constructed candidates to score at most. at_current=False: the figures at the
    IR layout's instructions (`Synthesis.at_current`) are not wanted, so a candidate whose store side alone,
    plus the load side's bound, already costs more than the best found so far is dropped before its load side is
    scored (it can neither win nor tie, and the search goes on exactly as it would have).

    With at_current off, family ``any`` and more than 2^EXHAUSTIVE_BITS elements the search is also lazy, with
    the same result: every candidate (swizzled, constructed, random) gets a cheap lower bound on its total
    (`VectorFigures` where it applies, else 0 + the load side's bound) and is scored only as far as the search's
    questions need (`_LazyPool`; where `VectorFigures` applies, its `least` first and its figure only when a
    question may need it). The eager search depends on the figures only through (1) whether the least
    total so far is <= x, for the x the construction loop and the "attained" test compare it with, and (2) the
    argmin of (total, source rank, store wavefronts) over every candidate, the earliest on a tie. (1) is answered
    exactly by scoring the candidates whose bound is <= x until one has a total <= x; for (2) every candidate
    whose bound is <= the least total known (the IR's layout included) is scored, and the others have a total
    above some candidate's, so they can neither win nor tie. The random draws and the constructions are the
    eager search's, so the candidates are too. Not lazy where `len(cands)` is printed (the exhaustive search and
    the families) or every candidate is wanted (at_current)."""
    if family not in FAMILIES:
        raise CheckerError(f"must be one of {list(FAMILIES)}, got {family!r}", field="family")
    hw = resolve(hardware)
    bits = sp.element_bits(bits)
    if bits < 8:
        raise CheckerError(f"a shared layout is synthesized for elements of 8 bits or more (Triton packs {bits}-bit "
                           "elements into bytes before they reach shared memory: give the packed type's bits)",
                           field="bits")
    if R_store.out_dim_sizes != R_load.out_dim_sizes and \
            dict(R_store.out_dim_sizes) != dict(R_load.out_dim_sizes):
        raise CheckerError(f"the store and load layouts cover different shapes ({dict(R_store.out_dim_sizes)}, "
                           f"{dict(R_load.out_dim_sizes)})", field="load")
    for name, R in (("store", R_store), ("load", R_load)):
        lanes = R.in_dim_size("lane") if "lane" in R.in_dims else 1
        if lanes != hw.warp_size:
            raise CheckerError(f"the {name} layout has {lanes} lanes per warp, but {hw.name} has {hw.warp_size}: a "
                               f"layout for another target's warps", field="hardware")
    rank = R_store.num_out_dims
    Rs, Rl = _std(R_store, rank, "store"), _std(R_load, rank, "load")
    sizes = Rs.out_dim_sizes
    shape = tuple(s for _, s in sizes)
    n = sum(log2(s) for s in shape)
    e = bits // 8
    c = log2(max(1, hw.banks * hw.bank_bytes // e))
    down = log2(hw.bank_bytes // e) if e < hw.bank_bytes else 0
    rng = random.Random(seed)

    opts_s = side_options(Rs, bits, "store", store_access, hw)
    opts_l = side_options(Rl, bits, "load", load_access, hw)
    side_bounds = (min(o.bound for o in opts_s), min(o.bound for o in opts_l))
    cands: list[Candidate] = []
    # the fewest wavefronts among `cands` so far (the IR's layout, scored apart, not counted): a candidate whose
    # store side plus the load side's bound exceeds it is dropped unscored when at_current is off (docstring)
    found: list[int] = []

    lazy = family == "any" and not at_current and n > EXHAUSTIVE_BITS
    sides = [VectorFigures(Rs, bits, "store", store_access, hw), VectorFigures(Rl, bits, "load", load_access, hw)]
    use_vector = lazy and any(f.applies for f in sides)

    def bounds(inverse: _OffsetInverse | None):
        """Lower bounds on (store, load) wavefronts under a layout L (its `_OffsetInverse`, None where
        `VectorFigures` applies to no side), and a callable giving sharper ones for a question about x (None:
        none): `VectorFigures` where it applies, its `least` (L's columns alone) first and its figures when the
        search asks (`_LazyPool`), else 0 for the store and the load side's bound (the one the pruning above
        takes)."""
        if inverse is None:
            return (0, side_bounds[1]), None

        least = inverse.least()
        first = (0 if least[0] is None else least[0], side_bounds[1] if least[1] is None else least[1])

        def sharper(x: float) -> tuple[int, int]:
            """The store side's figure, then the load side's unless the store's already exceeds x."""
            store = inverse.figure(0)
            store = first[0] if store is None else store
            if store + first[1] > x:
                return store, first[1]
            load = inverse.figure(1)
            return store, side_bounds[1] if load is None else load

        return first, sharper

    inverses: dict[Any, _OffsetInverse | None] = {}

    def layout_bounds(L):
        """`bounds` under the layout L. A layout met again (a construction's second attempt often gives its first
        one's order) shares its `_OffsetInverse`: its figures are functions of L, kept once solved."""
        if not use_vector:
            return bounds(None)
        if L not in inverses:
            inverses[L] = _OffsetInverse.of(L, sides)
        return bounds(inverses[L])

    def score(enc, L, source, prune: bool = not at_current) -> Candidate | None:
        try:
            store = side_figures(Rs, L, bits, "store", store_access, hw)
            if prune and found and store.wavefronts + side_bounds[1] > found[0]:
                return None
            got = Candidate(enc, L, store, side_figures(Rl, L, bits, "load", load_access, hw), source)
        except CheckerError:
            return None
        if source != "ir" and (not found or got.total < found[0]):
            found[:] = [got.total]
        return got

    cur = None
    if current is not None:
        cur = score(current, lower(current, list(shape)), "ir")
        if cur is None:
            raise CheckerError("the IR's shared layout cannot be scored for this pair", field="shared")
    pairs = sorted(((a.bound + b.bound, i, j, a, b) for i, a in enumerate(opts_s) for j, b in enumerate(opts_l)
                    if compatible(a, b)),
                   key=lambda t: (t[0], -t[3].vector_elems - t[4].vector_elems, t[1], t[2]))
    lb, _, _, a0, b0 = pairs[0]
    bound_pair = (a0.describe(), b0.describe())

    swizzled = _swizzled_entries(shape) if family == "any" else []
    columns = (_side_columns(Rs), _side_columns(Rl))
    pool = None
    if lazy:
        scored_sides: dict[tuple[Any, str], SideFigures] = {}

        def side(L, direction: str) -> SideFigures:
            """`side_figures` of one side, a function of L: kept for a layout the search meets again."""
            key = (L, direction)
            if key not in scored_sides:
                R, access = (Rs, store_access) if direction == "store" else (Rl, load_access)
                scored_sides[key] = side_figures(R, L, bits, direction, access, hw)
            return scored_sides[key]

        pool = _LazyPool(side)

    def reached(x: int) -> bool:
        """Whether the least total of the candidates so far is <= x."""
        return pool.at_most(x) if pool is not None else best_total is not None and best_total <= x

    if family == "any":
        for entry in swizzled:
            if pool is not None:               # the layout is built only if the pool scores it
                inverse = _OffsetInverse.of_columns(entry.columns, entry.sizes, sides, entry.independent) \
                    if use_vector else None
                pool.add(entry.get, "swizzled", *bounds(inverse))
                continue
            enc, L = entry.get()
            got = score(enc, L, "swizzled")
            if got is not None:
                cands.append(got)
        best_total = min((x.total for x in cands), default=None)
        tried = 0
        for total, _, _, a, b in pairs:
            if reached(lb):
                break
            if tried >= budget:
                break
            for prefix in _fill(a.prefix, b.prefix, limit=16):
                construction = _Construction(a, b, prefix, n, c, down, columns)
                for _attempt in range(2):
                    order = construction.order(rng)
                    tried += 1
                    if order is None:
                        break
                    enc = _linear_encoding(order, sizes)
                    L = lower(enc, list(shape))
                    if pool is not None:
                        pool.add(_ready(enc, L), "constructed", *layout_bounds(L))
                        got = None
                    else:
                        got = score(enc, L, "constructed")
                    if got is not None:
                        cands.append(got)
                        if best_total is None or got.total < best_total:
                            best_total = got.total
                    if reached(total):
                        break
                if tried >= budget or reached(total):
                    break
        argument = (f"lower bound {lb} = {bound_pair[0]} ({a0.bound}) + {bound_pair[1]} ({b0.bound}): every "
                    f"shared layout realizes one compatible pair of plans, and each side costs at least its "
                    f"phases times 2^max(0, rank of a phase - {c}) (a bank row holds 2^{c} elements)")
        fam_lb = lb
    else:
        gen = nvmma_candidates(shape, bits) if family == "nvmma" else padded_candidates(shape, bits)
        for enc, L in gen:
            got = score(enc, L, family)
            if got is not None:
                cands.append(got)
        if not cands:
            raise CheckerError(f"no {family} layout of the shape {list(shape)} can move this pair "
                               f"({bits}-bit elements)", field="family")
        fam_lb = min(x.total for x in cands)
        argument = (f"exhaustive over the {len(cands)} {family} layouts of the shape"
                    + (" (identity offsets in every order, one interval-padding pair: intervals 2^i, paddings "
                       f"{list(PADDINGS)} elements)" if family == "padded" else "")
                    + f"; the unrestricted lower bound is {lb}")
    if family == "any" and not reached(lb):
        # not attained: exact enumeration of every shared layout when the space is small (2^n elements,
        # n <= EXHAUSTIVE_BITS: |GL(n, 2)| layouts), else random layouts as further candidates
        exhaustive = n <= EXHAUSTIVE_BITS
        gen = _all_bases(n) if exhaustive else (_random_basis(n, rng) for _ in range(RANDOM_TRIES))
        for order in gen:
            enc = _linear_encoding(order, sizes)
            L = lower(enc, list(shape))
            if pool is not None:
                pool.add(_ready(enc, L), "constructed", *layout_bounds(L))
                continue
            got = score(enc, L, "constructed", prune=not exhaustive and not at_current)
            if got is not None:
                cands.append(got)
        if exhaustive and cands:
            fam_lb = min(x.total for x in cands)
            argument = (f"exhaustive over all {len(cands)} shared layouts of the {1 << n} elements (the rank "
                        f"bound, {lb}, is not attained here)")
    if pool is not None:                        # every candidate that may win or tie, in the eager order
        cands = pool.scored(cur.total if cur is not None else None)
    if cur is not None and (family == "any" or cur.encoding.kind == _family_kind(family)):
        cands.append(cur)
    if not cands:
        raise CheckerError("no shared layout could be scored for this pair", field="shared")
    rank_of = {"swizzled": 0, "nvmma": 0, "padded": 0, "ir": 1, "constructed": 2}
    best = min(cands, key=lambda x: (x.total, rank_of[x.source], x.store.wavefronts))
    if best.source == "constructed":            # printed as swizzled_shared when it is one
        best_columns = best.layout.columns       # equal layouts have equal columns: only those are built
        for entry in (swizzled if family == "any" else _swizzled_entries(shape)):
            if entry.columns == best_columns and entry.get()[1] == best.layout:
                enc, L = entry.get()
                best = Candidate(enc, L, best.store, best.load, "swizzled")
                break
    proven = best.total <= fam_lb
    syn = Synthesis(best, cur, fam_lb, side_bounds, bound_pair, proven, family, argument, bits=bits,
                    rank_bound=lb, shape=shape, hardware=hw.name if hw.name in _presets() else hw)
    if cur is not None and at_current:
        same = [x for x in cands if x.store.key == cur.store.key and x.load.key == cur.load.key]
        syn.at_current = min(same, key=lambda x: x.total) if same else cur
        syn.at_current_bound = min((a.bound + b.bound for _, _, _, a, b in pairs
                                    if _matches(a, cur.store, e) and _matches(b, cur.load, e)), default=None)
    if not proven:
        syn.notes.append(f"not proven optimal: the best found has {best.total} wavefronts, the bound is "
                         f"{fam_lb}")
    return syn


EXHAUSTIVE_BITS = 3
RANDOM_TRIES = 64


def _all_bases(n: int):
    """Every ordered basis of F2^n."""
    def rec(seq, span):
        if len(seq) == n:
            yield list(seq)
            return
        for v in range(1, 1 << n):
            if v not in span:
                yield from rec(seq + [v], span | {x ^ v for x in span})
    yield from rec([], frozenset([0]))


def _random_basis(n: int, rng: random.Random) -> list[int]:
    out: list[int] = []
    while len(out) < n:
        v = rng.randrange(1, 1 << n)
        if not f2.in_span(v, out):
            out.append(v)
    return out


def _family_kind(family: str) -> str:
    return {"nvmma": "nvmma_shared", "padded": "padded_shared"}.get(family, "")


def _presets():
    return PRESETS


def _matches(o: Option, fig: SideFigures, e: int) -> bool:
    if fig.instruction in ("stmatrix", "ldmatrix"):
        return o.kind == "matrix"
    if fig.instruction.endswith(".trans"):
        return o.kind == "matrix.trans"
    if fig.instruction == "ds_read_tr":
        return o.kind == "ds_read_tr"
    return o.kind == "vector" and o.vector_elems * e == fig.vector_bytes


def suggestion(R: LinearLayout, partner: LinearLayout, S, bits: int, hw: Any, direction: str,
               access: str = "auto", partner_access: str = "auto", current: Any = None) -> dict | None:
    """The synthesized layout for a TTGIR access and its partner (a local_store / local_load pair), as the
    ``suggestion`` detail of the bank_conflict_free record; None when nothing beats the IR's layout."""
    Rs, Rl = (R, partner) if direction == "store" else (partner, R)
    sa, la = (access, partner_access) if direction == "store" else (partner_access, access)
    syn = synthesize(Rs, Rl, bits, hw, store_access=sa, load_access=la, current=current, at_current=False)
    if not syn.improves:
        return None
    syn.verify(store_access=sa, load_access=la, R_store=Rs, R_load=Rl)
    return {"layout": syn.attribute(), "gluon": syn.gluon(), "wavefronts": syn.best.total,
            "before": syn.current.total, "store": syn.best.store.wavefronts, "load": syn.best.load.wavefronts,
            "lower_bound": syn.lower_bound, "proven": syn.proven}
