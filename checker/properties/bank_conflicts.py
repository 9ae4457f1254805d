"""bank_conflict_free(R, S, dtype_bits): moving a register tile through shared memory wastes no wavefront.

Setting. R is a register layout (register, lane, warp[, block]) -> tensor,
S a shared layout (offset[, block]) -> tensor, elements of ``dtype_bits``.
A store writes R's registers into S (``local_store``), a load reads S into
R (``local_load``). Register bases that are zero only repeat data and are
never re-accessed, so they are dropped first; then

    cvt = R.invert_and_compose(S): (register, lane, warp) -> offset

says where each register element lives (per CTA). Everything below is a
function of cvt, which is F2-linear.

Instruction (``access="auto"`` picks what Triton emits). Triton tries
``stmatrix``/``ldmatrix`` first, then the transposed forms, and otherwise
``st.shared``/``ld.shared``:

* matrix, not transposed (elements <= 32 bits): after a register
  permutation, the first log2(32/bits) register bits and lanes 0, 1 must map
  to consecutive offsets (one 16-byte row of an 8x8 b16 matrix) and every
  other basis must keep clear of those offset bits (Triton's ``divideLeft``);
* matrix, transposed (16-bit; 8-bit where the target has ``b8``): lanes 2,
  3, 4 must map to offsets 1, 2, 4 (8-bit: plus a register to 8) and every
  other basis must keep clear of them; the register(s) that pick the rows
  of one matrix are the ones with the fewest conflicts in Triton's own
  16-byte-row model (`_row_registers`), not simply R's first;
* ``.xN``: N = min(128/bits, registers) / registers per matrix;
* otherwise ``st/ld.shared`` with the largest v (elements, at most 16 bytes)
  such that v registers, after a permutation, map to offsets 0..v-1 and
  the rest keeps clear (Triton's ``largestVectorisation``).

Hardware model (default). Registers split into *phase* bits (vary inside one
phase: the vector, or the rows of one matrix), *select* bits (pick the
matrix inside one ``.xN`` instruction) and *instruction* bits; lanes split
into the hardware's lane groups for the access width (`Hardware.groups`,
cosets of a subspace V; all 32 lanes for matrix instructions). A phase is
then a coset of P = span(phase register bits, V) in the hardware index
space. Word addresses are ``(offset * bytes + sub) // bank_bytes``: linear
in the index bits (a shift, plus ``sub`` bits when an element spans several
words). With W the word map restricted to P and b the bank projection
(the low log2(banks) word bits), a phase touches an affine set of words
c + W(P), and each bank receives exactly 2^dim(W(P) ∩ ker b) of them, so

    cost of every phase = 2^(rank W - rank b∘W),
    wavefronts = cost * phases,  min_wavefronts = phases,
    conflicts (Triton's unit) = cost - 1.

The property holds iff cost = 1.

Triton's model (``model="triton"``, Triton's ``bank_conflicts``): vec from
``largestVectorisation`` on cvt (with the block dim); S's in-bits reshaped
into vector (vec), bank (min(1024/(vec*bits), total)) and segment; the
lanes of one wavefront are R's lane bases minus the top
max(0, log2(max(1, vec*bits/32)) + lane bits - 5); conflicts =
2^dim(span(segment) ∩ span(wavefront lanes)) - 1, where Triton takes the
dimension as a plain set intersection when every basis is a power of two
(a repeated segment basis then counts twice) and through null spaces
otherwise. Triton aborts on AMD targets and when a split size is not a
power of two; those raise CheckerError.

Engines. F2: the ranks above (and Triton's intersection). Z3: an exists-
query over bit-vectors, x and y in one phase (same warp, same instruction
and select bits, register bits differing only in phase bits, lanes in one
group), W(x) != W(y) with equal bank bits; unsat proves the property.
Triton's model: some nonzero tensor vector is both a segment combination
and a wavefront-lane combination.

Certificates of F2 ``holds`` (`checker.certificate`): the rank computation,
a row-echelon form E = T·b(W) of the phase's masked words with T unit lower
triangular, re-multiplied by the checker, each zero row of E a combination
that is zero on the full words too (``rank_preserved``: rank W = rank b∘W);
Triton's model: the same over segment + lane vectors, each zero row's
segment part zero (``trivial_intersection``). They certify the linear
algebra from the plan's word vectors on; the plan itself (instruction,
phase bits, word map) is the model both engines share.

Witness. Two accesses of one phase: register index (R's numbering), lane,
warp, element offset, byte address, 4-byte word; same bank, different words.
Replay recomputes R(index) = S(offset), the byte and word arithmetic, the
bank, and that both lie in the phase's lanes and registers, on integers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import f2
from ..errors import CheckerError, InternalError, LayoutError
from ..hardware import Hardware, coset_basis, resolve
from ..layout import LinearLayout, divide_left, is_power_of_two, log2
from ..padded import PaddedLayout
from ..versions import follows
from . import certify, frame
from .lds_pairs import Pairing, pair_mnemonic, pairing
from .result import Counterexample, EngineVerdict, Result, decide

REG, LANE, WARP, BLOCK, OFFSET, SUB = "register", "lane", "warp", "block", "offset", "sub"
ACCESSES = ("auto", "st.shared", "ld.shared", "stmatrix", "ldmatrix", "stmatrix.trans", "ldmatrix.trans",
            "ds_read_tr", "cp.async", "direct_to_lds", "fill_store")
MODELS = ("hardware", "triton")
DIRECTIONS = ("store", "load")
TRITON_BANK_BITS = 32 * 32  # Triton's model: 32 banks of 32 bits


def bank_conflict_free(R: LinearLayout, S: LinearLayout, dtype_bits: int, *, direction: str = "store",
                       access: str = "auto", model: str = "hardware", hardware: Any = "sm90",
                       engine: str = "both", timeout_ms: int | None = None, triton: bool = False) -> Result:
    """Does storing R into S (direction="store") or loading S into R ("load") cost
    only the conflict-free number of wavefronts? See the module docstring. triton: with the hardware
    model, also Triton's own count (``details["triton_conflicts"]``) and, where it differs, why (in the
    explanation); computed only on request (it is a second model run on the same access)."""
    if direction not in DIRECTIONS:
        raise CheckerError(f"must be one of {list(DIRECTIONS)}, got {direction!r}", field="direction")
    if access not in ACCESSES:
        raise CheckerError(f"must be one of {list(ACCESSES)}, got {access!r}", field="access")
    if model not in MODELS:
        raise CheckerError(f"must be one of {list(MODELS)}, got {model!r}", field="model")
    hw = resolve(hardware)
    if isinstance(S, PaddedLayout):  # padded shared memory: integer addresses, see padded_access
        from .padded_access import bank_conflict_free_padded
        return bank_conflict_free_padded(R, S, dtype_bits, direction, access, model, hw, engine, timeout_ms)
    if model == "triton":  # from the columns: normalize's checks, no intermediate layouts (`_frame`)
        fr = _frame(R, S)
    else:
        R, S = normalize(R, S)
    bits = _dtype_bits(dtype_bits)
    if access != "auto" and (direction == "load") != (access.startswith("ld") or access == "ds_read_tr"):
        raise CheckerError(f"{access} cannot {direction}", field="access")
    if model == "triton":
        if access not in ("auto", "st.shared", "ld.shared", "cp.async"):
            raise CheckerError(f"Triton's bank_conflicts scores ld/st.shared only, not {access}", field="access")
        return _decide_triton(_Normalized(R, S), fr, bits, direction, hw, engine, timeout_ms)
    return _decide_hardware(R, S, bits, direction, access, hw, engine, timeout_ms, triton)


# ------------------------------------------------------------------- inputs


def normalize(R: LinearLayout, S: LinearLayout) -> tuple[LinearLayout, LinearLayout]:
    """R over (register, lane, warp, block), S over (offset, block), same out-dims and sizes."""
    if (isinstance(R, LinearLayout) and isinstance(S, LinearLayout) and R.out_dim_sizes == S.out_dim_sizes
            and R.in_dims == _R_DIMS and S.in_dims == _S_DIMS):
        return R, S  # already in one frame, every in-dim present in order (what the lowerings give)
    for name, L, need, allowed in (("R", R, (REG, LANE), (REG, LANE, WARP, BLOCK)),
                                   ("S", S, (OFFSET,), (OFFSET, BLOCK))):
        if not isinstance(L, LinearLayout):
            raise CheckerError(f"expected a LinearLayout, got {type(L).__name__}", field=name)
        missing = [d for d in need if not L.has_in_dim(d)]
        extra = [d for d in L.in_dims if d not in allowed]
        if missing or extra:
            raise CheckerError(f"in-dims must include {list(need)} and lie within {list(allowed)}, "
                               f"got {list(L.in_dims)}", field=name)
    try:
        R, S = frame.align([R, S])
    except LayoutError as e:
        raise CheckerError(e.message, field="S") from None

    def full(L: LinearLayout, dims) -> LinearLayout:
        return LinearLayout([(d, L.in_bases(d) if L.has_in_dim(d) else ()) for d in dims], L.out_dim_sizes)

    return full(R, (REG, LANE, WARP, BLOCK)), full(S, (OFFSET, BLOCK))


class _Frame:
    """R's and S's matrix columns per in-dim, packed in the frame `normalize` brings them to (R's out-dims
    in R's order, each at the larger of the two sizes); a dim a layout lacks has no columns."""

    __slots__ = ("reg", "lane", "warp", "rblock", "offset", "sblock")

    def __init__(self, R: dict, S: dict, shifts: list[int], s_shifts: list[int]):
        self.reg = _pack(R.get(REG), shifts)
        self.lane = _pack(R.get(LANE), shifts)
        self.warp = _pack(R.get(WARP), shifts)
        self.rblock = _pack(R.get(BLOCK), shifts)
        self.offset = _pack(S.get(OFFSET), s_shifts)
        self.sblock = _pack(S.get(BLOCK), s_shifts)


_R_DIMS, _S_DIMS = (REG, LANE, WARP, BLOCK), (OFFSET, BLOCK)
_R_NEED, _R_ALLOWED, _S_NEED, _S_ALLOWED = {REG, LANE}, set(_R_DIMS), {OFFSET}, set(_S_DIMS)


def _pack(bases, shifts: list[int]) -> list[int]:
    """Bases (one component per out-dim; None: no dim) as packed columns, component k at bit shifts[k]."""
    if not bases:
        return []
    if len(shifts) == 2:
        a, b = shifts
        if not a:
            return [x | y << b for x, y in bases]
        return [x << a | y << b for x, y in bases]
    return [sum(c << s for c, s in zip(v, shifts)) for v in bases]


def _frame(R: LinearLayout, S: LinearLayout) -> _Frame:
    """`normalize`'s checks and errors, with the columns of its two layouts in place of the layouts."""
    for name, L, need, allowed, order in (("R", R, _R_NEED, _R_ALLOWED, _R_DIMS),
                                          ("S", S, _S_NEED, _S_ALLOWED, _S_DIMS)):
        if not isinstance(L, LinearLayout):
            raise CheckerError(f"expected a LinearLayout, got {type(L).__name__}", field=name)
        dims = L.in_dims
        if not need.issubset(dims) or not allowed.issuperset(dims):
            raise CheckerError(f"in-dims must include {[d for d in order if d in need]} and lie within "
                               f"{list(order)}, got {list(dims)}", field=name)
    r_outs, s_outs = R.out_dim_sizes, S.out_dim_sizes
    shift, shifts = 0, []
    if r_outs == s_outs:  # the common case: both already in one frame
        for _, size in r_outs:
            shifts.append(shift)
            shift += size.bit_length() - 1
        return _Frame(R.bases, S.bases, shifts, shifts)
    names = [n for n, _ in r_outs]
    if sorted(n for n, _ in s_outs) != sorted(names):
        raise CheckerError(f"layouts over different tensor dims cannot be compared: {names} vs "
                           f"{list(S.out_dims)}", field="S")
    s_size, at = dict(s_outs), {}
    for n, size in r_outs:
        at[n] = shift
        shift += log2(max(size, s_size[n]))
    return _Frame(R.bases, S.bases, [at[n] for n, _ in r_outs], [at[n] for n, _ in s_outs])


class _Normalized:
    """`normalize(R, S)`, computed on first use (a witness or the Z3 engine needs the layouts)."""

    def __init__(self, R: LinearLayout, S: LinearLayout):
        self._given, self._pair = (R, S), None

    def get(self) -> tuple[LinearLayout, LinearLayout]:
        if self._pair is None:
            self._pair = normalize(*self._given)
        return self._pair


def _dtype_bits(bits: Any) -> int:
    if isinstance(bits, bool) or not isinstance(bits, int) or not is_power_of_two(bits) or bits > 128:
        raise CheckerError(f"must be a power of two up to 128, got {bits!r}", field="dtype_bits")
    return bits


def drop_broadcast_registers(R: LinearLayout) -> tuple[LinearLayout, list[int]]:
    """R without zero register bases, and R's register bit behind each remaining one."""
    regs = R.in_bases(REG)
    keep = [i for i, b in enumerate(regs) if any(b)]
    return LinearLayout([(d, [regs[i] for i in keep] if d == REG else R.in_bases(d)) for d in R.in_dims],
                        R.out_dim_sizes), keep


def permute_registers(L: LinearLayout, perm) -> LinearLayout:
    """Register bit i of the result is register bit perm[i] of L (Triton's ColumnAction)."""
    regs = L.in_bases(REG)
    return LinearLayout([(d, [regs[p] for p in perm] if d == REG else L.in_bases(d)) for d in L.in_dims],
                        L.out_dim_sizes)


def _permute_lanes(L: LinearLayout, perm) -> LinearLayout:
    lanes = L.in_bases(LANE)
    return LinearLayout([(d, [lanes[p] for p in perm] if d == LANE else L.in_bases(d)) for d in L.in_dims],
                        L.out_dim_sizes)


def _register_perm_for(cvt: LinearLayout, tile: LinearLayout) -> list[int] | None:
    """Triton's regPermForDivide (left): bring registers equal to tile's register bases to the front."""
    regs = cvt.in_bases(REG)
    k = cvt.out_dim_index(OFFSET)
    used = [False] * len(regs)
    front = []
    for (t,) in tile.in_bases(REG):
        want = tuple(t if i == k else 0 for i in range(cvt.num_out_dims))
        j = next((j for j, b in enumerate(regs) if not used[j] and b == want), None)
        if j is None:
            return None
        used[j] = True
        front.append(j)
    return front + [j for j in range(len(regs)) if not used[j]]


def largest_vectorisation(cvt: LinearLayout, max_elems: int) -> tuple[int, list[int]]:
    """Triton's largestVectorisation: the largest v <= max_elems (halving) whose
    identity tile (v registers -> offsets 0..v-1) divides cvt on the left after
    a register permutation; returns v and the permutation."""
    v = max_elems
    while v >= 1:
        tile = LinearLayout.identity_1d(v, REG, OFFSET)
        perm = _register_perm_for(cvt, tile)
        if perm is not None and divide_left(permute_registers(cvt, perm), tile) is not None:
            return v, perm
        v //= 2
    raise InternalError("largest_vectorisation: a tile of one register always divides")


# ------------------------------------------------------------ Triton's model


@dataclass(frozen=True)
class TritonCount:
    """Triton's bank_conflicts, with the pieces it is computed from."""

    conflicts: int
    vec: int
    bank: int
    segment: int
    segment_bases: tuple[int, ...]      # packed tensor coordinates of S's segment bits
    lane_bases: tuple[int, ...]         # packed tensor coordinates of one wavefront's lanes
    instructions_per_warp: int
    warps: int
    phases: int                         # Triton's wavefronts per instruction when conflict-free
    bits: int

    @property
    def min_wavefronts(self) -> int:
        return self.warps * self.instructions_per_warp * self.phases


def triton_count(R: LinearLayout, S: LinearLayout, bits: int, hw: Hardware) -> TritonCount:
    """Triton 3.9's bank_conflicts(R, S, bits) on `hw` (R, S normalized)."""
    return _triton_count(_frame(R, S), bits, hw, lambda: (R, S))


def _triton_count(fr: _Frame, bits: int, hw: Hardware, layouts) -> TritonCount:
    """`triton_count` from the columns of R and S (`_frame`); `layouts()` gives the normalized pair where
    the columns alone do not settle it (R's and S's block bases differ: `_triton_count_layouts`).

    With equal block bases the block dim maps as the identity and stays out of the solve, and every step
    of the layout route reduces to one echelon basis of S's offset columns: R's columns (nonzero registers,
    lanes, warps, in that order) are reduced against it; one left over leaves S's image (`_within_image`:
    it joins the basis and its cvt column is 0), any other one's cvt column is its pivot-only combination
    of S's offset columns (the unique one, so the one `invert_and_compose` solves for). Those are
    the offset parts of cvt's columns, its block columns have none, so `largest_vectorisation`'s test
    for v reads: cvt registers equal to 1, 2, ..., v/2 exist (v within the offsets) and every other
    column leaves the low log2(v) offset bits clear."""
    if hw.vendor == "amd":
        raise CheckerError(f"Triton's bank_conflicts aborts on AMD targets (3.9 on {hw.triton_target or hw.name}: "
                           f"assertion 'inDim not found in layout')", field="hardware")
    if fr.rblock != fr.sblock:
        return _triton_count_layouts(*layouts(), bits, hw)
    offsets = fr.offset
    n_off = len(offsets)
    mask = (1 << n_off) - 1
    regs = [c for c in fr.reg if c]
    # one echelon basis (`f2._EchelonBasis`, inline): leading bit -> (vector, combination of the inserted
    # columns); S's offsets are inserted as columns 0.., R's columns outside the span after them
    by_lead: dict[int, tuple[int, int]] = {}
    get = by_lead.get
    for j, c in enumerate(offsets):
        combo = 1 << j
        while c:
            entry = get(c.bit_length() - 1)
            if entry is None:
                by_lead[c.bit_length() - 1] = (c, combo)
                break
            c ^= entry[0]
            combo ^= entry[1]
    cvt = []
    tag = 1 << n_off
    for c in (*regs, *fr.lane, *fr.warp):
        combo = 0
        while c:
            entry = get(c.bit_length() - 1)
            if entry is None:
                by_lead[c.bit_length() - 1] = (c, combo ^ tag)
                tag <<= 1
                break
            c ^= entry[0]
            combo ^= entry[1]
        cvt.append(0 if c else combo & mask)
    vec = _largest_vec(cvt, len(regs), 128 // bits)
    return _triton_split(fr.offset + fr.sblock, fr.lane, vec, len(regs), len(fr.warp), bits)


def _largest_vec(cvt: list[int], n_regs: int, max_elems: int) -> int:
    """`largest_vectorisation`'s v on cvt's offset columns (registers first, `n_regs` of them): the
    largest v whose low log2(v) offset bits only registers equal to 1, 2, ..., v/2 touch, one each."""
    v = max_elems
    while v > 1:
        low = v - 1
        hits = [(j, c) for j, c in enumerate(cvt) if c & low]
        if (len(hits) == low.bit_length() and all(j < n_regs for j, _ in hits)
                and {c for _, c in hits} == {1 << i for i in range(low.bit_length())}):
            return v
        v >>= 1
    return 1


def _triton_split(s_cols, lane_cols, vec: int, n_regs: int, n_warps: int, bits: int) -> TritonCount:
    """Triton's reshape of S's in-bits (`s_cols`, offsets then blocks) into vector, bank and segment, and
    the count against the lanes of one wavefront."""
    total = 1 << len(s_cols)
    bank = min(TRITON_BANK_BITS // (vec * bits), total)
    segment = total // (bank * vec) if bank else 0
    for name, n in (("vector", vec), ("bank", bank), ("segment", segment)):
        if not is_power_of_two(n):
            raise CheckerError(f"Triton's bank_conflicts aborts here: its {name} split of the {total} shared "
                               f"offsets is {n}, not a power of two (vector {vec} x bank "
                               f"{TRITON_BANK_BITS // (vec * bits)} elements of {bits} bits; Triton's "
                               f"reshapeIns assertion)", field="shape")
    k = (vec * bank).bit_length() - 1
    n_lanes = len(lane_cols)
    drop = max(0, (max(1, vec * bits // 32)).bit_length() - 1 + n_lanes - 5)
    if drop > n_lanes:
        raise CheckerError(f"Triton's bank_conflicts aborts here: it drops {drop} of {n_lanes} lane bits",
                           field="R")
    seg, lanes = tuple(s_cols[k:]), tuple(lane_cols[:n_lanes - drop])
    dim = _triton_intersection_dim(seg, lanes)
    return TritonCount((1 << dim) - 1, vec, bank, segment, seg, lanes, (1 << n_regs) // vec, 1 << n_warps,
                       max(1, vec * bits // 32), bits)


def _first_common(first, second) -> tuple[int, int, int] | None:
    """(v, x, y): v the first vector of ``f2.span_intersection(first, second)``, x and y its pivot-only
    combinations of `first` and of `second` (``f2.solve``'s); None where the spans meet only in 0.

    One echelon pass over first + second, each vector tagged with its position: the first vector of
    `second` that reduces to 0 with a part in `first` is the first column of span_intersection's kernel
    (vectors of `second` in the span of earlier ones of `second` reduce with no such part), and that part
    combines to v. Every inserted vector is a pivot of its own list, so both parts are pivot-only."""
    by_lead: dict[int, tuple[int, int]] = {}
    n = len(first)
    mask = (1 << n) - 1
    for i, c in enumerate((*first, *second)):
        combo = 1 << i
        while c:
            entry = by_lead.get(c.bit_length() - 1)
            if entry is None:
                break
            c ^= entry[0]
            combo ^= entry[1]
        if c:
            by_lead[c.bit_length() - 1] = (c, combo)
        elif i >= n and combo & mask:
            return f2.combine(first, combo & mask), combo & mask, combo >> n
    return None


def _triton_count_layouts(R: LinearLayout, S: LinearLayout, bits: int, hw: Hardware) -> TritonCount:
    """`triton_count` through the layouts, step by step as Triton takes them (R, S normalized)."""
    Rn, _ = drop_broadcast_registers(R)
    cvt = _within_image(Rn, S).invert_and_compose(S)
    vec, _ = largest_vectorisation(cvt, 128 // bits)
    return _triton_split(S.columns, _dim_columns(R, LANE), vec, Rn.in_dim_size_log2(REG),
                         R.in_dim_size_log2(WARP), bits)


def _within_image(R: LinearLayout, S: LinearLayout) -> LinearLayout:
    """R with each basis replaced by the part Triton's lstsq solves for.

    Triton row-reduces [S | R] (S's columns first; a block dim equal in both
    maps as the identity and stays out) and reads each R column off the rows
    of S's pivots. An R column is thereby written over S's pivot columns plus
    the earlier R columns that leave S's image; only its S part is solved
    for, and a column that leaves the image anew solves to 0.
    """
    same_block = R.sublayout([BLOCK], R.out_dims) == S.sublayout([BLOCK], S.out_dims)
    r_dims = [d for d in R.in_dims if not (d == BLOCK and same_block)]
    s_cols = [c for d in S.in_dims if not (d == BLOCK and same_block) for c in _dim_columns(S, d)]
    outside: list[int] = []
    parts = {}
    for d in r_dims:
        parts[d] = []
        for c in _dim_columns(R, d):
            sol = f2.solve(s_cols + outside, [c])
            if sol is None:
                outside.append(c)
                parts[d].append(0)
            else:
                parts[d].append(f2.combine(s_cols, sol[0] & ((1 << len(s_cols)) - 1)))
    if not outside:
        return R
    return LinearLayout([(d, [R.unpack_out(c) for c in parts[d]] if d in parts else R.in_bases(d))
                         for d in R.in_dims], R.out_dim_sizes)


def _triton_intersection_dim(b1, b2) -> int:
    """dim(span(b1) ∩ span(b2)) as Triton's intersectionBasis takes it: the plain set intersection where
    every vector is a power of two, else the dimension of the spans' intersection."""
    if all(b > 0 and not b & (b - 1) for b in (*b1, *b2)):  # powers of two
        wanted = set(b2)
        return sum(1 for b in b1 if b in wanted)
    return f2.rank(b1) + f2.rank(b2) - f2.rank((*b1, *b2))


def _dim_columns(L: LinearLayout, d: str) -> list[int]:
    start = 0
    for name, size in L.in_dim_sizes:
        if name == d:
            return list(L.columns[start:start + log2(size)])
        start += log2(size)
    return []


def _triton_witness(R: LinearLayout, S: LinearLayout, t: TritonCount, seg_mask: int, lane: int) -> Counterexample:
    """Lane 0 and lane `lane` (register 0, warp 0) hit offsets 0 and o: same Triton bank, different segment."""
    k = log2(t.vec) + log2(t.bank)
    flat = (seg_mask & ((1 << len(t.segment_bases)) - 1)) << k
    o = S.split_in(flat)
    zero = {d: 0 for d in R.in_dims}
    data = {"model": "triton", "lanes": [0, lane], "register": 0, "warp": 0,
            "offsets": [{d: 0 for d in S.in_dims}, o],
            "coordinates": [{n: 0 for n in R.out_dims}, R.apply({**zero, LANE: lane})],
            "bank": 0, "segments": [0, flat >> k], "vector": t.vec, "wavefront_lanes": 1 << len(t.lane_bases)}

    def check(d) -> bool:
        a, b = d["lanes"]
        if a != 0 or not 0 < b < d["wavefront_lanes"] or d["wavefront_lanes"] > R.in_dim_size(LANE):
            return False
        off = d["offsets"][1]
        j = S.join_in(off)
        if j == 0 or j & ((1 << k) - 1) or j >> k != d["segments"][1]:
            return False
        return (R.apply({**zero, LANE: b}) == S.apply(off) == d["coordinates"][1]
                and R.apply(zero) == S.apply(d["offsets"][0]) == d["coordinates"][0])

    return Counterexample("bank_conflict", data, check)


def _decide_triton(norm: _Normalized, fr: _Frame, bits, direction, hw, engine, timeout_ms) -> Result:
    t = _triton_count(fr, bits, hw, norm.get)
    vb = t.vec * bits // 8
    details = {"model": "triton", "hardware": hw.name, "direction": direction,
               "instruction": "st.shared" if direction == "store" else "ld.shared", "vector_bytes": vb,
               "conflicts": t.conflicts, "wavefronts": t.min_wavefronts * (t.conflicts + 1),
               "min_wavefronts": t.min_wavefronts, "vec": t.vec, "bank": t.bank, "segment": t.segment,
               "wavefront_lanes": 1 << len(t.lane_bases)}

    def f2_engine() -> EngineVerdict:
        # Triton's count is 0 exactly when the spans meet only in 0 (with every basis a power of two its
        # plain set intersection is empty only then); the certificate proves it independently
        common = _first_common(t.segment_bases, t.lane_bases) if t.conflicts else None
        if common is None:
            return EngineVerdict("f2", "holds", explanation=(
                f"Triton's model: no tensor vector is both a segment basis combination of S and a lane "
                f"combination of one {1 << len(t.lane_bases)}-lane wavefront (vector {t.vec} x {bits} bits)"),
                certificate=certify.trivial_intersection(t.segment_bases, t.lane_bases))
        _, seg, lane = common
        cx = _triton_witness(*norm.get(), t, seg, lane)
        return EngineVerdict("f2", "fails", counterexample=cx, explanation=(
            f"Triton's model: {t.conflicts} conflicts per wavefront; lane {lane} holds "
            f"{frame.show(cx.data['coordinates'][1])} at offset {frame.show(cx.data['offsets'][1])}, "
            f"the same bank as lane 0's offset 0 in another segment"))

    def z3_engine() -> EngineVerdict:
        from .. import smt
        ob = smt.Obligation("bank_conflicts.triton")
        R, S = norm.get()
        outs = S.out_dim_sizes
        seg = LinearLayout([("segment", [S.unpack_out(c) for c in t.segment_bases])], outs)
        lanes = LinearLayout([(LANE, [S.unpack_out(c) for c in t.lane_bases])], outs)
        a, b = ob.index(seg, "a"), ob.index(lanes, "b")
        va, vb_ = ob.image(seg, a), ob.image(lanes, b)
        ob.require(va == vb_, va != 0)
        def on_sat(values):
            cx = _triton_witness(R, S, t, values.get("a.segment", 0), values.get("b.lane", 0))
            return cx, f"z3 model: lane {cx.data['lanes'][1]} shares lane 0's bank"

        return smt.verdict(ob.solve(timeout_ms), holds="no segment/lane vector in common (unsat)", on_sat=on_sat)

    return decide("bank_conflict_free", engine, {"f2": f2_engine, "z3": z3_engine}, details=details,
                  certified=True)


# ------------------------------------------------------------ the hardware model


@dataclass(frozen=True)
class Plan:
    """How one side is issued: the instruction and the split of the hardware index bits.

    ``cvt`` maps (register, lane, warp) to offsets with its registers in issue
    order and its lanes the instruction's lanes; ``origin[j]`` is R's register
    bit behind cvt's register bit j. ``phase_regs`` vary inside a phase,
    ``select_regs`` pick the phase (the matrix) inside an instruction, every
    other register bit picks the instruction; ``groups`` are the lane groups
    of one instruction. ``source`` is set when the instruction's lanes and
    registers are not R's (AMD's transposed loads: a lane reads the row that
    several of R's lanes receive): for each cvt register bit, then each cvt
    lane bit, the (register, lane) of R it stands for (XOR-combined).
    """

    instruction: str
    direction: str
    bits: int
    vector_bytes: int
    matrices: int
    cvt: LinearLayout
    origin: tuple[int, ...]
    phase_regs: tuple[int, ...]
    select_regs: tuple[int, ...]
    groups: tuple[tuple[int, ...], ...]
    source: tuple[tuple[int, int], ...] | None = None
    pair: Pairing | None = None

    @property
    def instr_regs(self) -> tuple[int, ...]:
        fixed = set(self.phase_regs) | set(self.select_regs)
        return tuple(j for j in range(self.cvt.in_dim_size_log2(REG)) if j not in fixed)

    @property
    def phases_per_instruction(self) -> int:
        return len(self.groups) << len(self.select_regs)

    @property
    def instructions_per_warp(self) -> int:
        return 1 << len(self.instr_regs)

    def register(self, r: int) -> int:
        """R's register index for a register index of cvt (plans without `source`)."""
        return sum(1 << self.origin[j] for j in range(len(self.origin)) if r >> j & 1)

    def thread(self, r: int, lane: int) -> tuple[int, int]:
        """R's (register, lane) for cvt's register r and lane `lane`."""
        if self.source is None:
            return self.register(r), lane
        n = self.cvt.in_dim_size_log2(REG)
        reg = ln = 0
        for j, (a, b) in enumerate(self.source):
            if (r >> j if j < n else lane >> (j - n)) & 1:
                reg ^= a
                ln ^= b
        return reg, ln

    def registers(self, r: int, free: tuple[int, ...]) -> list[int]:
        """Register indices of every cvt register that differs from r only in bits `free`:
        R's numbering, or cvt's own when the plan has a `source`."""
        base = r & ~sum(1 << j for j in free)
        out = []
        for m in range(1 << len(free)):
            i = base | sum(1 << j for k, j in enumerate(free) if m >> k & 1)
            out.append(i if self.source is not None else self.register(i))
        return sorted(out)

    def mnemonic(self, hw: Hardware) -> str:
        """The instruction as its target's disassembly names it (SASS for NVIDIA, AMDGCN for AMD)."""
        store = self.direction == "store"
        vb = self.vector_bytes
        if self.matrices:
            trans = self.instruction.endswith(".trans")
            kind = ("STSM" if store else "LDSM") + (".8" if trans and self.bits == 8 else ".16")
            shape = "MT88" if trans else "M88"
            return f"{kind}.{shape}" + (f".{self.matrices}" if self.matrices > 1 else "")
        if hw.vendor == "amd":
            if self.pair is not None and self.pair.paired:
                return "+".join(pair_mnemonic(self.direction, vb, st64, hw) for st64 in sorted(self.pair.forms))
            return amd_mnemonic(self.instruction, vb, self.bits, hw)
        suffix = {1: ".U8", 2: ".U16", 4: "", 8: ".64", 16: ".128"}[vb]
        if self.instruction == "cp.async":
            return "LDGSTS" + suffix
        return ("STS" if store else "LDS") + suffix

    def asm(self, hw: Hardware) -> str:
        """The instruction in the vocabulary of Triton's emitted assembly, normalized the way
        `tools/asm_compare.py` normalizes PTX / AMDGCN: PTX ``ld.shared.b128``,
        ``ldmatrix.x4.trans``, ``cp.async.b128``; AMDGCN mnemonics as printed (`mnemonic`)."""
        if hw.vendor == "amd":
            return self.mnemonic(hw)
        if self.matrices:
            base = self.instruction.split(".")[0]
            trans = ".trans" if self.instruction.endswith(".trans") else ""
            return f"{base}.x{self.matrices}{trans}" + (".b8" if trans and self.bits == 8 else "")
        if self.instruction == "cp.async":
            return f"cp.async.b{self.vector_bytes * 8}"
        return f"{self.instruction}.b{self.vector_bytes * 8}"


def amd_generation(hw: Hardware) -> int:
    """The gfx major version of an AMD preset (9 for gfx942/gfx950, 11, 12); 9 when unknown."""
    import re
    m = re.search(r"gfx(\d+?)(\d\w)$", hw.triton_target or hw.name)
    return int(m.group(1)) if m else 9


def amd_mnemonic(instruction: str, vb: int, bits: int, hw: Hardware) -> str:
    """AMDGCN's name for an LDS access of `vb` bytes per lane (gfx9: ds_read/ds_write; gfx11 and
    later: ds_load/ds_store), a transposed read, or a direct-to-LDS load."""
    new = amd_generation(hw) >= 11
    if instruction == "ds_read_tr":
        if hw.has("tr_b128"):
            return f"ds_load_tr{bits}_b{vb * 8}"
        return f"ds_read_b{vb * 8}_tr_b{bits}"
    if instruction in ("cp.async", "direct_to_lds"):
        if new:
            return f"{'global' if instruction == 'cp.async' else 'buffer'}_load_async_to_lds_b{vb * 8}"
        dw = {4: "dword", 8: "dwordx2", 12: "dwordx3", 16: "dwordx4"}.get(vb, f"b{vb * 8}")
        return f"global_load_lds_{dw}" if instruction == "cp.async" else f"buffer_load_{dw}.lds"
    if instruction.startswith("st"):
        return f"ds_{'store' if new else 'write'}_b{vb * 8}"
    return f"ds_{'load' if new else 'read'}_{'u' if vb < 4 else 'b'}{vb * 8}"


def local_conversion(R: LinearLayout, S: LinearLayout, bits: int, hw: Hardware) -> tuple[LinearLayout, list[int]]:
    """The conversion R -> S within one CTA (R's broadcast registers dropped) and the R register behind
    each of its registers, after the checks every plan makes: element width, warp size, R's elements in
    S, one CTA."""
    if bits < 8 or bits // 8 > hw.max_vector_bytes:
        raise CheckerError(f"the hardware model covers elements of 8 to {hw.max_vector_bytes * 8} bits, "
                           f"got {bits}", field="dtype_bits")
    if R.in_dim_size(LANE) != hw.warp_size:
        raise CheckerError(f"R has {R.in_dim_size(LANE)} lanes; {hw.name} has warps of {hw.warp_size}", field="R")
    Rn, origin = drop_broadcast_registers(R)
    try:
        cvt = Rn.invert_and_compose(S)
    except LayoutError as e:
        raise CheckerError(f"R's elements are not all in S: {e.message}", field="S") from None
    local = cvt.quotient([BLOCK])
    if local is None:
        raise CheckerError("R and S spread over CTAs differently: distributed shared memory is not modeled",
                           field="S")
    return local, origin


def plan(R: LinearLayout, S: LinearLayout, bits: int, direction: str, access: str, hw: Hardware) -> Plan:
    """The instruction that moves R to/from S (R, S normalized) and its phase structure.

    ``access="auto"`` picks what Triton 3.9 emits for a local_load / local_store /
    local_alloc: on NVIDIA ``stmatrix``/``ldmatrix`` (lowerLdStMatrix), then the
    transposed forms, else ``st/ld.shared``; on AMD gfx950 / gfx1250 loads of 8/16-bit
    elements the transposed LDS reads first (TransLocalLoadOpConversion, which
    has the higher pattern benefit), else ``ds_read/ds_write``. ``cp.async`` and
    ``direct_to_lds`` are the asynchronous global-to-shared copies."""
    local, origin = local_conversion(R, S, bits, hw)
    matrix = "stmatrix" if direction == "store" else "ldmatrix"
    if access in (matrix, matrix + ".trans"):
        p = _matrix_plan(local, origin, bits, direction, access.endswith(".trans"), hw)
        if isinstance(p, str):
            raise CheckerError(f"{access} cannot move this layout pair: {p}", field="access")
        return p
    if access == "ds_read_tr":
        p = _trans_load_plan(local, origin, bits, R.in_dim_size(REG), hw)
        if isinstance(p, str):
            raise CheckerError(f"ds_read_tr cannot move this layout pair: {p}", field="access")
        return p
    if access in ("cp.async", "direct_to_lds"):
        return _async_plan(local, origin, bits, access, hw)
    if access == "fill_store":
        return _fill_plan(local, origin, bits, hw)
    if access == "auto":
        for trans in (False, True):
            p = _matrix_plan(local, origin, bits, direction, trans, hw)
            if not isinstance(p, str):
                return p
        if direction == "load":
            p = _trans_load_plan(local, origin, bits, R.in_dim_size(REG), hw)
            if not isinstance(p, str):
                return p
    p = _vector_plan(local, origin, bits, direction, hw)
    return _paired(p, hw) if hw.vendor == "amd" else p


def _paired(p: Plan, hw: Hardware, pad=None) -> Plan:
    """An AMD ds_read/ds_write plan as LLVM issues it (`lds_pairs`): where the accesses of every address
    register fuse two by two into ds_read2* / ds_write2* / ds_*_2addr*, the register combination that
    tells the two addresses of one instruction apart either joins the phase bits, with the target's
    pair groups for 2 x vector_bytes (`Hardware.pair_groups`: both addresses of a lane in one phase,
    gfx1250), or selects the pass inside the instruction (no pair rule: each address its own pass
    with the single access's groups, gfx942 / gfx950; docs/hardware.md says what is assumed).
    ``vector_bytes`` stays the width of one address. When that combination is
    several registers, the plan's register bit ``j`` (its lowest) is re-based onto it and ``source``
    records the R registers each plan register stands for. Unpaired plans come back with the reason
    in ``pair.unpaired``. ``pad``: a padded layout's offset -> slot map for the immediates
    (`padded_access.padded_plan`; `lds_pairs.address_registers`)."""
    lanes = [b[0] for b in p.cvt.in_bases(LANE)] + [b[0] for b in p.cvt.in_bases(WARP)]
    regs = [b[0] for b in p.cvt.in_bases(REG)]
    pr = pairing(regs, lanes, len(p.phase_regs), p.vector_bytes, p.bits // 8, pad)
    if not pr.paired:
        return Plan(**{**p.__dict__, "pair": pr})
    together = hw.pair_groups(2 * p.vector_bytes)
    j = (pr.delta & -pr.delta).bit_length() - 1
    if together is not None:  # both addresses of a lane in one phase: the pair register varies inside it
        fields = {**p.__dict__, "pair": pr, "phase_regs": p.phase_regs + (j,), "groups": together}
    else:  # each address its own pass: the pair register picks the pass inside the one instruction
        fields = {**p.__dict__, "pair": pr, "select_regs": (j,)}
    if pr.delta != 1 << j:
        both = f2.combine(regs, pr.delta)
        cvt = LinearLayout([(d, [(both,) if d == REG and i == j else b for i, b in enumerate(p.cvt.in_bases(d))])
                            for d in p.cvt.in_dims], p.cvt.out_dim_sizes)
        r_of = [1 << o for o in p.origin]
        r_of[j] = f2.combine([1 << o for o in p.origin], pr.delta)
        fields.update(cvt=cvt, source=tuple((r, 0) for r in r_of) + tuple(
            (0, 1 << i) for i in range(p.cvt.in_dim_size_log2(LANE))))
    return Plan(**fields)


def _vector_plan(cvt, origin, bits, direction, hw, name=None, max_bytes=None) -> Plan:
    v, perm = largest_vectorisation(cvt, max(1, min(128, (max_bytes or hw.max_vector_bytes) * 8) // bits))
    vb = v * bits // 8
    name = name or ("st.shared" if direction == "store" else "ld.shared")
    return Plan(name, direction, bits, vb, 0, permute_registers(cvt, perm), tuple(origin[p] for p in perm),
                tuple(range(log2(v))), (), hw.groups(direction, vb))


def _async_plan(cvt, origin, bits, access, hw) -> Plan:
    """A global-to-shared copy: the shared-memory write of cp.async (NVIDIA; Triton's lowerLdSt with
    the widest vector, at most 16 bytes: 4, 8 or 16 bytes) or of AMD's direct-to-LDS loads (the
    widest width the target's direct-to-LDS loads take, `Hardware.direct_to_lds`).

    The vector width Triton uses is also capped by the contiguity of the global pointers (axis
    analysis), which the IR does not carry; the widest vector the layouts allow is taken. Without
    LDS scattering (gfx942, gfx950) the hardware writes lane i of an instruction at base + i * width
    (Triton swizzles the global addresses instead), so the phases are of that flat row."""
    if hw.vendor != "amd":
        if access != "cp.async":
            raise CheckerError(f"{access} is an AMD instruction; {hw.name} has cp.async", field="access")
        return _vector_plan(cvt, origin, bits, "store", hw, name="cp.async")
    widths = [w for w in hw.direct_to_lds if w >= bits // 8]
    if not widths:
        raise CheckerError(f"{hw.name} has no direct-to-LDS load of {bits}-bit elements", field="access")
    v, perm = largest_vectorisation(cvt, max(1, max(widths) * 8 // bits))
    while v * bits // 8 not in widths and v > 1:
        v //= 2
    vb = v * bits // 8
    if vb not in widths:
        raise CheckerError(f"{hw.name}'s direct-to-LDS loads move {sorted(widths)} bytes per lane; this layout "
                           f"pair allows {vb}", field="access")
    work = permute_registers(cvt, perm)
    if not hw.has("lds_scatter"):
        lanes = [(v << i,) for i in range(work.in_dim_size_log2(LANE))]
        top = log2(v) + len(lanes)
        regs = [(1 << i,) for i in range(log2(v))] + [
            (1 << (top + i),) for i in range(work.in_dim_size_log2(REG) - log2(v))]
        width = top + len(regs) - log2(v)
        warps = [(1 << (width + i),) for i in range(work.in_dim_size_log2(WARP))]
        work = LinearLayout([(REG, regs), (LANE, lanes), (WARP, warps)],
                            [(OFFSET, 1 << (width + len(warps)))])
    return Plan(access, "store", bits, vb, 0, work, tuple(origin[p] for p in perm), tuple(range(log2(v))), (),
                hw.groups("store", vb))


def _fill_plan(cvt, origin, bits, hw) -> Plan:
    """The store that fills the masked elements of an AMD asynchronous copy with an ``other`` operand.

    Triton 3.9's AMD lowering of ``async_copy_global_to_local`` / ``buffer_load_to_local`` with
    ``other`` follows each direct-to-LDS load with a plain LDS store of the ``other`` values,
    predicated on the lane's mask being false: a vector of the copy's width (the same registers)
    at the lane's own element address (gfx9: the warp's base plus lane * width, plus the source
    swizzle's lane offset; gfx1250: the per-lane address), so ``ds_write_b128`` next to
    ``global_load_lds_dwordx4`` in the assembly. NVIDIA's cp.async takes no such store (``other``
    must be zero; cp.async zero-fills through its source size). Scored as ``st.shared`` of that
    width on the real addresses."""
    if hw.vendor != "amd":
        raise CheckerError(f"only AMD's asynchronous copies store their `other` values; {hw.name}'s cp.async "
                           f"zero-fills", field="access")
    width = _async_plan(cvt, origin, bits, "cp.async", hw).vector_bytes
    return _vector_plan(cvt, origin, bits, "store", hw, max_bytes=width)


def trans_load_params(bits: int, hw: Hardware) -> tuple[int, bool] | None:
    """Triton's queryLDSTransLoadParams: (bits one lane reads, needsDoubleB8Contiguity), or None.

    gfx950 (CDNA4, feature ``tr_b64``): ds_read_b64_tr_b16 / _b8, 64 bits; gfx1250 (``tr_b128``):
    ds_load_tr16_b128 for 16-bit elements, ds_load_tr8_b64 (double b8 contiguity) for 8-bit."""
    if bits not in (8, 16):
        return None
    if hw.has("tr_b64"):
        return 64, False
    if hw.has("tr_b128"):
        return (128, False) if bits == 16 else (64, True)
    return None


def _trans_load_plan(cvt, origin, bits, registers, hw) -> Plan | str:
    """Triton's TransLocalLoadOpConversion (AMD MemoryOpToLLVM.cpp), or why it declines.

    A tile of T = inst_bits / bits elements: cvt's first log2(T) lane bases must be the
    offsets 1, 2, ..., T/2 and no other basis may touch those offset bits (divideLeft);
    the layout needs at least T registers. Lane l of one instruction then reads T
    contiguous elements (inst_bits) at the address of the cvt index whose remaining
    lane and register bits are the bits of l, in Triton's fullTile order:
    CDNA4: the next log2(otherLanes) lanes (4 for 16-bit, 2 for 8-bit), then the
    first log2(T) registers, then the remaining lanes; gfx1250 16-bit: the registers,
    then the lanes; gfx1250 8-bit: two registers, one lane, one register, the rest.
    The tile's lanes are the T elements of one lane's read (they come back
    transposed)."""
    params = trans_load_params(bits, hw)
    if params is None:
        return f"{hw.name} has no transposed LDS read of {bits}-bit elements"
    inst_bits, double_b8 = params
    T = inst_bits // bits
    t = log2(T)
    if registers < T:
        return f"needs at least {T} registers per lane, the layout has {registers}"
    n = cvt.in_dim_size_log2(REG)
    if n < t:
        return f"needs {T} distinct registers per lane"
    lane_b = [b[0] for b in cvt.in_bases(LANE)]
    reg_b = [b[0] for b in cvt.in_bases(REG)]
    warp_b = [b[0] for b in cvt.in_bases(WARP)]
    if lane_b[:t] != [1 << i for i in range(t)] or any(b & (T - 1) for b in lane_b[t:] + reg_b + warp_b):
        return f"lanes 0..{t - 1} do not address {T} consecutive elements that no other basis touches"
    nl = len(lane_b)
    if double_b8:
        other = 1
        order = [("r", 0), ("r", 1), ("l", t), ("r", 2)] + [("l", i) for i in range(t + other, nl)]
    else:
        other = (2 if bits == 16 else 1) if hw.has("tr_b64") else 0
        order = ([("l", t + i) for i in range(other)] + [("r", i) for i in range(t)]
                 + [("l", i) for i in range(t + other, nl)])
    assert len(order) == nl
    image = {"r": reg_b, "l": lane_b}
    lanes = [(image[k][i],) for k, i in order]
    regs = [(lane_b[i],) for i in range(t)] + [(reg_b[i],) for i in range(t, n)]
    work = LinearLayout([(REG, regs), (LANE, lanes), (WARP, cvt.in_bases(WARP))], cvt.out_dim_sizes)
    source = tuple([(0, 1 << i) for i in range(t)] + [(1 << origin[i], 0) for i in range(t, n)]
                   + [((1 << origin[i], 0) if k == "r" else (0, 1 << i)) for k, i in order])
    return Plan("ds_read_tr", "load", bits, inst_bits // 8, 0, work, tuple(origin), tuple(range(t)), (),
                hw.groups("transpose", inst_bits // 8), source)


def _matrix_plan(cvt, origin, bits, direction, trans, hw) -> Plan | str:
    """Triton's lowerLdStMatrix decision, or why it declines.

    Not transposed: the first log2(32/bits) registers (after `_register_perm_for`) fill
    one lane's 32 bits, lanes 0, 1 the rest of a 16-byte row, lanes 2, 3, 4 pick the row;
    the next registers pick the matrix of an ``.xN`` (the registers keep R's order).
    Transposed: lanes 2, 3, 4 (and, for 8-bit, the register Triton brings to the front
    for offset 8) fill the 16-byte row; the rows of one 8x8 (b8: 16x16) matrix are picked
    by `_row_registers` (one register, two for the 8-bit load) and then lanes 0, 1; the
    registers left, in R's order, pick the matrix and then the instruction."""
    feature = "stmatrix" if direction == "store" else "ldmatrix"
    name = feature + (".trans" if trans else "")
    if not hw.has(feature):
        return f"{hw.name} has no {feature}"
    if cvt.in_dim_size(LANE) != 32:
        return "matrix instructions need 32 lanes"
    n = cvt.in_dim_size_log2(REG)
    if not trans:
        if bits > 32:
            return "elements wider than 32 bits"
        t = log2(32 // bits)
        tile = LinearLayout([(REG, [(1 << i,) for i in range(t)]), (LANE, [(1 << t,), (2 << t,)])],
                            [(OFFSET, 4 << t)])
        per_tile, work = t, cvt
    else:
        if not (bits == 16 or (bits == 8 and hw.has("b8"))):
            return "transposed forms move 16-bit elements" + (" (8-bit needs b8 support)" if bits == 8 else "")
        c = log2((16 if direction == "store" and bits == 8 else 32) // bits)
        o = log2(16 // bits)
        per_tile = c + o
        if n < per_tile:
            return f"needs at least {1 << per_tile} registers per lane, the layout has {1 << n}"
        work = _permute_lanes(cvt, [2, 3, 4, 0, 1])
        tile = LinearLayout([(REG, [(8 << i,) for i in range(o)]), (LANE, [(1,), (2,), (4,)])],
                            [(OFFSET, 8 << o)])
    perm_div = _register_perm_for(work, tile)
    if perm_div is None or divide_left(permute_registers(work, perm_div), tile) is None:
        if trans:
            return "lanes 2, 3, 4 do not address consecutive elements of one 16-byte row"
        return (f"the first {1 << per_tile} register(s) and lanes 0, 1 do not fill one 16-byte row "
                f"that no other basis touches")
    order = perm_div
    if trans:
        rows = (_row_registers(permute_registers(work, perm_div), perm_div, o, c, bits)
                if follows("matrix_trans_rows_scored") else _first_row_registers(perm_div, o, c))
        order = [perm_div[o + j] for j in rows] + [perm_div[k] for k in range(n) if k - o not in rows]
    matrices = min(128 // bits, 1 << n) >> per_tile
    phase_regs = tuple(range(per_tile))
    select = tuple(range(per_tile, per_tile + log2(matrices)))
    groups = (tuple(range(32)),)
    if per_tile + 5 + log2(bits // 8) > 7:  # 8-bit transposed load: 16x16 bytes, two 128-byte phases
        groups = (tuple(x for x in range(32) if not x & 2), tuple(x for x in range(32) if x & 2))
    return Plan(name, direction, bits, (1 << per_tile) * bits // 8 * matrices, matrices,
                permute_registers(cvt, order), tuple(origin[p] for p in order), phase_regs, select, groups)


def _row_registers(work: LinearLayout, perm: list[int], o: int, row_regs: int, bits: int) -> list[int]:
    """Which registers pick the rows of a transposed matrix instruction (Triton >= 3.9; before:
    `_first_row_registers`, `checker.versions` change ``matrix_trans_rows_scored``).

    Triton's lowerLdStMatrix (getLdStMatrixRowPermutation, NVIDIA Utility.cpp) takes `row_regs`
    registers (1; 2 for the 8-bit ldmatrix) out of the quotient by the 16-byte row tile and
    scores every ordered choice by its own bank model over one 128-byte phase: the phase is the
    chosen registers' rows and the first 3 - `row_regs` remaining lanes (R's lanes 0, 1), in
    16-byte rows; rows split into 8 banks (the low 3 bits of the row index) and segments (the
    rest), conflicts = 2^dim(span(segments) ∩ span(phase)) - 1, counted as Triton's
    intersectionBasis does (`_triton_intersection_dim`). Ties go to more chosen registers that
    lie inside one 32-bit word of R (R's register bit below log2(32/bits)), then more chosen
    registers at their own position (R's bit j for row bit j), then the first choice in
    order (i outer, j inner). Returns positions in the quotient's registers (work's register
    `o + position`); `perm` maps work's registers to R's."""
    k = work.out_dim_index(OFFSET)
    shift = 3 + o
    regs = [b[k] >> shift for b in work.in_bases(REG)[o:]]
    lanes = [b[k] >> shift for b in work.in_bases(LANE)[3:]]
    rows_total = work.out_dim_size_log2(OFFSET) - shift
    segments = [1 << i for i in range(min(3, rows_total), rows_total)]
    word = log2(32 // bits)
    best, best_cost = None, None
    for i in range(len(regs)):
        for j in (range(len(regs)) if row_regs == 2 else (None,)):
            if j == i:
                continue
            chosen = [i] if j is None else [i, j]
            phase = [regs[x] for x in chosen] + lanes[:3 - row_regs]
            source = [perm[o + x] for x in chosen]
            cost = (_triton_intersection_dim(segments, phase), -sum(s < word for s in source),
                    -sum(s == pos for pos, s in enumerate(source)))
            if best_cost is None or cost < best_cost:
                best, best_cost = chosen, cost
    return best


def _first_row_registers(perm: list[int], o: int, row_regs: int) -> list[int]:
    """Which registers pick the rows of a transposed matrix instruction (Triton 3.5 to 3.8).

    No choice is scored: the rows are the first `row_regs` registers of the quotient by the 16-byte
    row tile, in the order Triton divided in. That order is R's (broadcast registers dropped), except
    that Triton first moves the tile registers that address a row's second 8 bytes (8-bit only) to the
    front: permReg = [c, .., c+o-1, 0, .., c-1, c+o, .., n-1] with c = `row_regs`, o = log2(16/bits)
    (PR #7542). For 16-bit elements (o = 0) this is the quotient's first register. Returns positions in
    the quotient's registers, as `_row_registers` does; `perm` maps work's registers to R's."""
    c, n = row_regs, len(perm)
    pre = list(range(c, c + o)) + list(range(c)) + list(range(c + o, n))
    tile = set(perm[:o])
    quotient = perm[o:]
    return [quotient.index(r) for r in [r for r in pre if r not in tile][:c]]


@dataclass(frozen=True)
class WordMap:
    """Word addresses of a plan as a LinearLayout (register, lane, warp, sub) -> word."""

    layout: LinearLayout
    up: int     # log2(element bytes / bank bytes) when elements span several words
    down: int   # log2(bank bytes / element bytes) when several elements share a word


def word_map(p: Plan, hw: Hardware) -> WordMap:
    eb = p.bits // 8
    up = log2(eb // hw.bank_bytes) if eb > hw.bank_bytes else 0
    down = log2(hw.bank_bytes // eb) if eb < hw.bank_bytes else 0
    width = max(0, p.cvt.out_dim_size_log2(OFFSET) + up - down)

    def word(c: tuple[int, ...]) -> tuple[int]:
        return ((c[0] << up) >> down,)

    L = LinearLayout([(REG, [word(b) for b in p.cvt.in_bases(REG)]), (LANE, [word(b) for b in p.cvt.in_bases(LANE)]),
                      (WARP, [word(b) for b in p.cvt.in_bases(WARP)]), (SUB, [(1 << i,) for i in range(up)])],
                     [("word", 1 << max(width, up))])
    return WordMap(L, up, down)


def _free_bits(p: Plan, wm: WordMap) -> list[tuple[str, int, int]]:
    """The phase's free directions: (in-dim, value of that in-dim, word column)."""
    L = wm.layout
    out = [(REG, 1 << j, L.in_bases(REG)[j][0]) for j in p.phase_regs]
    lane_cols = [b[0] for b in L.in_bases(LANE)]
    for v in coset_basis(p.groups):
        out.append((LANE, v, f2.combine(lane_cols, v)))
    out += [(SUB, 1 << i, 1 << i) for i in range(wm.up)]
    return out


def _access(p: Plan, hw: Hardware, wm: WordMap, r: int, lane: int, warp: int, sub: int) -> dict[str, Any]:
    off = p.cvt.apply({REG: r, LANE: lane, WARP: warp})[OFFSET]
    byte = off * (p.bits // 8) + sub * hw.bank_bytes
    word = byte // hw.bank_bytes
    acc: dict[str, Any] = {"register": p.register(r) if p.source is None else r, "lane": lane, "warp": warp,
                           "offset": off, "byte_address": byte, "word": word, "bank": word % hw.banks}
    if p.source is not None:  # the instruction's lane and register, and the element of R it delivers
        reg, ln = p.thread(r, lane)
        acc["thread"] = {"register": reg, "lane": ln}
    return acc


def access_index(p: Plan, acc: dict) -> dict[str, int] | None:
    """R's index (register, lane, warp, block 0) behind a witness's access: its recorded thread, or its own
    register and lane where none is recorded; None where the recorded thread is not the plan's."""
    th = acc.get("thread", {"register": acc["register"], "lane": acc["lane"]})
    if "thread" in acc and p.thread(acc["register"], acc["lane"]) != (th["register"], th["lane"]):
        return None
    return {REG: th["register"], LANE: th["lane"], WARP: acc["warp"], BLOCK: 0}


def _hw_witness(R, S, p: Plan, hw: Hardware, wm: WordMap, x: dict[str, int], y: dict[str, int]) -> Counterexample:
    a = _access(p, hw, wm, x.get(REG, 0), x.get(LANE, 0), x.get(WARP, 0), x.get(SUB, 0))
    b = _access(p, hw, wm, y.get(REG, 0), y.get(LANE, 0), y.get(WARP, 0), y.get(SUB, 0))
    r = x.get(REG, 0)
    group = next(g for g in p.groups if a["lane"] in g)
    data = {"model": "hardware", "hardware": hw.name, "instruction": p.instruction, "mnemonic": p.mnemonic(hw),
            "warp": a["warp"],
            "instruction_registers": p.registers(r, p.phase_regs + p.select_regs),
            "phase": {"lanes": list(group), "registers": p.registers(r, p.phase_regs)},
            "accesses": [{k: v for k, v in acc.items() if k != "bank"} for acc in (a, b)], "bank": a["bank"]}
    eb, W = p.bits // 8, hw.bank_bytes

    def check(d) -> bool:
        ph = d["phase"]
        if not set(ph["registers"]) <= set(d["instruction_registers"]):
            return False
        for acc in d["accesses"]:
            idx = access_index(p, acc)
            if idx is None:
                return False
            if R.apply({k: idx[k] for k in R.in_dims}) != S.apply({OFFSET: acc["offset"], BLOCK: 0}):
                return False
            start = acc["offset"] * eb
            if not start <= acc["byte_address"] < start + max(eb, 1) or acc["byte_address"] // W != acc["word"]:
                return False
            if acc["word"] % hw.banks != d["bank"] or acc["warp"] != d["warp"]:
                return False
            if acc["lane"] not in ph["lanes"] or acc["register"] not in ph["registers"]:
                return False
        return d["accesses"][0]["word"] != d["accesses"][1]["word"]

    return Counterexample("bank_conflict", data, check)


def _describe(cx: Counterexample) -> str:
    d = cx.data
    a, b = d["accesses"]
    verb = "reads" if d["instruction"].startswith("ld") or d["instruction"] == "ds_read_tr" else "writes"
    return (f"{d['mnemonic']} of warp {d['warp']} (registers {d['instruction_registers']}), phase of lanes "
            f"{_ranges(d['phase']['lanes'])}: lane {a['lane']} register {a['register']} {verb} byte "
            f"{a['byte_address']} (word {a['word']}) and lane {b['lane']} register {b['register']} {verb} byte "
            f"{b['byte_address']} (word {b['word']}), both in bank {d['bank']}")


def _ranges(xs) -> str:
    xs = sorted(xs)
    out, start = [], xs[0]
    for prev, cur in zip(xs, xs[1:] + [None]):
        if cur != prev + 1:
            out.append(f"{start}-{prev}" if prev > start else f"{start}")
            start = cur
    return ",".join(out)


def _decide_hardware(R, S, bits, direction, access, hw, engine, timeout_ms, triton: bool = False) -> Result:
    p = plan(R, S, bits, direction, access, hw)
    wm = word_map(p, hw)
    free = _free_bits(p, wm)
    words = [c for _, _, c in free]
    mask = hw.banks - 1
    log_cost = f2.rank(words) - f2.rank([w & mask for w in words])
    cost = 1 << log_cost
    phases = (p.phases_per_instruction * p.instructions_per_warp) << p.cvt.in_dim_size_log2(WARP)
    details = {"model": "hardware", "hardware": hw.name, "direction": direction, "instruction": p.instruction,
               "mnemonic": p.mnemonic(hw), "asm": p.asm(hw), "vector_bytes": p.vector_bytes,
               "matrices": p.matrices,
               "instructions_per_warp": p.instructions_per_warp,
               "phases_per_instruction": p.phases_per_instruction, "cost_per_phase": cost,
               "conflicts": cost - 1, "wavefronts": cost * phases, "min_wavefronts": phases}
    paired = p.pair is not None and p.pair.paired
    if paired:
        details["pair"] = pair_details(p)
    summary = (f"{p.mnemonic(hw)} ({p.instruction}, {p.vector_bytes} B per lane"
               f"{' at each of two addresses' if paired else ''}), "
               f"{p.instructions_per_warp} per warp, {p.phases_per_instruction} phase(s) each: "
               f"{cost * phases} wavefronts for {phases} phases")
    note = _triton_note(R, S, bits, hw, p, cost - 1, details) if triton else ""

    def f2_engine() -> EngineVerdict:
        if cost == 1:
            return EngineVerdict("f2", "holds", explanation=(
                f"{summary}; every phase touches at most one word per bank{note}"),
                certificate=certify.rank_preserved(words, mask))
        kernel = f2.nullspace([w & mask for w in words])
        k = next(v for v in kernel if f2.combine(words, v))
        y: dict[str, int] = {}
        for i, (d, val, _) in enumerate(free):
            if k >> i & 1:
                y[d] = y.get(d, 0) ^ val
        cx = _hw_witness(R, S, p, hw, wm, {}, y)
        return EngineVerdict("f2", "fails", counterexample=cx, explanation=(
            f"{summary}: each phase touches up to {cost} distinct words in one bank "
            f"(conflicts {cost - 1}); e.g. {_describe(cx)}{note}"))

    def z3_engine() -> EngineVerdict:
        from .. import smt
        L = wm.layout
        ob = smt.Obligation("bank_conflicts.hardware")
        same_phase_bank_pair(ob, L, p, mask)
        def on_sat(values):
            cx = _hw_witness(R, S, p, hw, wm, {d: values.get(f"a.{d}", 0) for d in L.in_dims},
                             {d: values.get(f"b.{d}", 0) for d in L.in_dims})
            return cx, f"z3 model: {_describe(cx)}"

        return smt.verdict(ob.solve(timeout_ms), holds="no two accesses of one phase share a bank (unsat)",
                           on_sat=on_sat)

    return decide("bank_conflict_free", engine, {"f2": f2_engine, "z3": z3_engine}, details=details,
                  certified=True)


def pair_details(p: Plan) -> dict[str, Any]:
    """A paired plan's figures: the registers (R's numbering, XOR-combined) whose two values one
    instruction moves, the byte distance of the two addresses of a lane, and the instructions'
    offset0/offset1 fields (units of the element, or of 64 elements for the stride-64 forms)."""
    j = p.select_regs[0] if p.select_regs else p.phase_regs[-1]
    delta = p.cvt.in_bases(REG)[j][0] * (p.bits // 8)
    register = p.source[j][0] if p.source is not None else 1 << p.origin[j]
    return {"register": register, "address_bytes": delta, "stride64": p.pair.stride64,
            "addresses_served": "apart" if p.select_regs else "together",
            "offsets": [list(f[:2]) for f in sorted(set(p.pair.fields))], "element_bytes": p.pair.element_bytes}


def same_phase_bank_pair(ob, L: LinearLayout, p: Plan, mask: int) -> tuple[dict, dict]:
    """Two indices x, y of the word map L posed to `ob`: accesses of one phase of plan p (same fixed
    registers, lanes of one group, same warp) at distinct words whose bank bits (`mask`) agree."""
    from .. import smt
    x, y = ob.index(L, "a"), ob.index(L, "b")
    fixed = (1 << L.in_dim_size_log2(REG)) - 1 - sum(1 << j for j in p.phase_regs)
    if REG in x and fixed:
        ob.require((x[REG] ^ y[REG]) & fixed == 0)
    if LANE in x:
        group = _group_of_zero(p)
        m = 0
        for v in group:
            m |= v
        if len(set(group)) == 1 << bin(m).count("1"):  # every lane below m's bits: x ^ y leaves the others clear
            other = (L.in_dim_size(LANE) - 1) & ~m
            if other:
                ob.require((x[LANE] ^ y[LANE]) & other == 0)
        else:
            ob.require(smt.any_of(*[(x[LANE] ^ y[LANE]) == v for v in group]))
    if WARP in x:
        ob.require(x[WARP] == y[WARP])
    wa, wb = ob.image(L, x), ob.image(L, y)
    ob.require(wa != wb, (wa ^ wb) & mask == 0)
    return x, y


def _group_of_zero(p: Plan) -> tuple[int, ...]:
    return next(g for g in p.groups if 0 in g)


def _triton_note(R, S, bits, hw, p: Plan, conflicts: int, details: dict) -> str:
    """Triton's own number for this side, and why it differs from the hardware's."""
    try:
        t = triton_count(R, S, bits, hw)
    except CheckerError as e:
        details["triton_conflicts"] = None
        return f" (Triton's bank_conflicts cannot score this: {e.message})" if hw.vendor == "nvidia" else ""
    details["triton_conflicts"] = t.conflicts
    if t.conflicts == conflicts:
        return ""
    if p.instruction.endswith(".trans"):
        why = f"it scores {p.instruction} as a plain {'load' if p.direction == 'load' else 'store'}"
    elif p.matrices:
        why = f"it scores {p.instruction} as {'ld' if p.direction == 'load' else 'st'}.shared"
    elif bits < 32 and p.vector_bytes < hw.bank_bytes:
        why = (f"it counts one bank per {bits}-bit element, while the banks are {hw.bank_bytes} bytes wide "
               f"and two words in one bank conflict even when the elements differ")
    else:
        why = "its wavefront and bank split differ from the hardware's here"
    return (f"; the models differ: Triton's bank_conflicts says {t.conflicts}, the hardware {conflicts} "
            f"({why})")
