"""Triton's own bank-conflict count: ``bank_conflicts(R, S, bits)`` as Triton 3.9's lowering computes it.

vec = Triton's largestVectorisation of cvt = R.invert_and_compose(S) (with the block dim, at most 128
bits); S's in-bits (offsets, then blocks) are reshaped into vector (vec elements), bank
(min(1024 / (vec * bits), total) elements: 32 banks of 32 bits) and segment (the rest); the lanes of
one wavefront are R's lane bases minus the top max(0, log2(max(1, vec * bits / 32)) + lane bits - 5);

    conflicts = 2^dim(span(segment bases) ∩ span(wavefront lanes)) - 1,

the dimension taken as Triton's intersectionBasis does (`triton_intersection_dim`: a plain set
intersection when every basis is a power of two). wavefronts = min_wavefronts * (conflicts + 1),
min_wavefronts = warps * instructions per warp * max(1, vec * bits / 32). Triton aborts on AMD targets
and when a split is not a power of two; those raise CheckerError.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ... import f2
from ...errors import CheckerError
from ...hardware import Hardware
from ...layout import LinearLayout, is_power_of_two
from .plan import (
    BLOCK,
    LANE,
    REG,
    WARP,
    Frame,
    dim_columns,
    drop_broadcast_registers,
    frame_columns,
    largest_vectorisation,
    triton_intersection_dim,
)

TRITON_BANK_BITS = 32 * 32  # Triton's model: 32 banks of 32 bits


@dataclass(frozen=True)
class TritonCount:
    """Triton's bank_conflicts, with the pieces it is computed from: conflicts = 2^dim(span(segment_bases)
    ∩ span(lane_bases)) - 1 (`triton_intersection_dim`), vec * bank * segment = S's offsets (blocks
    included), instructions_per_warp = registers / vec, phases = max(1, vec * bits / 32)."""

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
        """warps * instructions_per_warp * phases: Triton's wavefronts when conflict-free."""
        return self.warps * self.instructions_per_warp * self.phases


def triton_count(R: LinearLayout, S: LinearLayout, bits: int, hw: Hardware) -> TritonCount:
    """Triton 3.9's bank_conflicts(R, S, bits) on `hw` (R, S normalized): module docstring; CheckerError
    where Triton aborts."""
    return triton_count_columns(frame_columns(R, S), bits, hw, lambda: (R, S))


def triton_count_columns(fr: Frame, bits: int, hw: Hardware,
                         layouts: Callable[[], tuple[LinearLayout, LinearLayout]]) -> TritonCount:
    """`triton_count` from the columns of R and S (`frame_columns`); `layouts()` gives the normalized pair
    where the columns alone do not settle it (R's and S's block bases differ: `triton_count_layouts`).

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
        return triton_count_layouts(*layouts(), bits, hw)
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
    dim = triton_intersection_dim(seg, lanes)
    return TritonCount((1 << dim) - 1, vec, bank, segment, seg, lanes, (1 << n_regs) // vec, 1 << n_warps,
                       max(1, vec * bits // 32), bits)


def triton_count_layouts(R: LinearLayout, S: LinearLayout, bits: int, hw: Hardware) -> TritonCount:
    """`triton_count` through the layouts, step by step as Triton takes them (R, S normalized): R's
    broadcast registers dropped, each R basis replaced by its part in S's image (`_within_image`), cvt =
    that R inverted-and-composed with S, vec = `largest_vectorisation` (cvt, 128 / bits), then the split
    of S's columns against R's lane columns (module docstring). The reference `triton_count_columns`
    agrees with."""
    Rn, _ = drop_broadcast_registers(R)
    cvt = _within_image(Rn, S).invert_and_compose(S)
    vec, _ = largest_vectorisation(cvt, 128 // bits)
    return _triton_split(S.columns, dim_columns(R, LANE), vec, Rn.in_dim_size_log2(REG),
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
    s_cols = [c for d in S.in_dims if not (d == BLOCK and same_block) for c in dim_columns(S, d)]
    outside: list[int] = []
    parts = {}
    for d in r_dims:
        parts[d] = []
        for c in dim_columns(R, d):
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
