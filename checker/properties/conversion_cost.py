"""conversion_cost(src, dst, shape, dtype, hardware): what Triton's lowering of a convert_layout costs.

Triton 3.9 lowers ``convert_layout(x: src) -> dst`` in one of three ways
(``details["lowering"]``), read off the minimal conversion
(`triton_conversion.minimal_conversion`):

* ``register``: only registers move (or nothing does);
* ``shuffle``: data stays inside each warp and the register/lane permutation
  needs fewer than two mixed transpositions: ``shfl.sync`` (``ds_bpermute_b32`` on
  AMD, whose gfx950 / gfx1250 permlane swaps are counted as shuffles too). Inside each warp
  includes a source broadcast over the warps (or CTAs) the destination spreads
  over its lanes: the shuffle's source lane then depends on the warp
  (`triton_conversion.warp_lane_selection`, ``details["selected_lanes"]``).
  ``details["shuffles"]``: shfl.sync per warp, one per 32-bit register
  (elements packed up to 32 bits, at least the mixed-transposition register
  bits left unpacked; 64-bit elements two each), halved when a single mixed
  transposition is all that moves (`triton_conversion.WarpConversion.shuffles`);
* ``shared``: a round trip through a scratch buffer in shared memory.

The shared path, as Triton builds it (ConvertLayoutOpToLLVM on NVIDIA,
GenericSwizzling's optimalSwizzling, the allocation analysis' scratch size):

1. Registers that only repeat data (zero bases) are dropped from src and dst;
   elements narrower than 8 bits move as bytes.
2. Candidate instructions per side: ``st.shared``/``ld.shared`` (lanes 0, 1, 2
   address one 128-bit vector per lane), ``stmatrix``/``ldmatrix`` (elements of
   at most 32 bits; stmatrix from sm90, ldmatrix from sm75) and their ``.trans``
   forms (16-bit elements). For each (store, load) pair whose register and lane
   tiles line up (a 16-byte contiguous tile common to both sides: shared
   registers, then lanes mapped onto lanes, `_tile_for`), a scratch layout is
   built (`_swizzle`): the 16-byte vector, a *segment* chosen so that the lanes
   of one store and of one load fall in distinct segments where possible
   (`_segment`), the *bank* bits the complement, and the *reps*: segment bits
   that are registers in both src and dst are moved out, so the buffer holds one
   slice of the tile at a time and the round trip repeats (a barrier between).
   For a pair of matrix instructions that need more register bases to issue
   their .x2 / .x4 forms, as many segment bits as they miss (2) stay in the
   segment (from Triton 3.6, change ``cvt_matrix_keeps_vector_reps``; 3.5 moves
   them all to the reps, a smaller buffer and narrower matrix instructions).
   The pair with the fewest conflicts in Triton's own model (segment bases that
   are also tile bases) wins, ties to the most reps (the smallest buffer), then
   the first pair (store choices outer: shared, matrix, matrix.trans).
   Without any pair (no 16-byte vector common to both) the scratch layout is
   `_ldst_swizzle`'s: the widest common vector, padded to 32 bits with
   registers that are warps on the other side, or warps, and the bank bits
   reordered so the side that filled the word vectorizes further.
   On AMD (no matrix instructions: the common ConvertLayoutOpToLLVM) the
   scratch layout is always `_ldst_swizzle`'s, for the target's banks and lane
   phases (`ldst_target`; from Triton 3.9 without the bank reordering on the
   64-bank gfx950 / gfx1250, change ``ldst_banks_in_order_64``), and each side
   is scored as LLVM merges and pairs its accesses (`smem.plan.paired_plan`:
   ``ds_read2_b64``, ``ds_write2st64_b32``, ``ds_load_2addr_b64``, ...).
3. ``scratch_bytes`` = (scratch elements / reps / CTAs the scratch splits over) * element bytes (one
   CTA's buffer: a scratch broadcast over CTAs is whole in each; before Triton 3.8, change
   ``cvt_scratch_per_cta``, every CTA allocates the whole tensor's tile); ``barriers`` = 2 reps - 1, at the
   warp level (``sync: warp``, bar.warp.sync) when no element crosses warps and neither layout
   broadcasts over warps (Triton's isCvtDimSync), else ``bar.sync`` for the CTA.
4. Each side moves one slice per rep: st/ld.shared with the widest vector the
   slice allows (Triton's largestVectorisation), or the matrix instruction
   chosen in 2 (`smem.plan.matrix_plan`, Triton's lowerLdStMatrix).

Cost. Each side is scored by the hardware model of `bank_conflicts` (phases,
4-byte words per bank, calibrated on an H100): ``wavefronts`` and
``min_wavefronts`` per CTA over all reps, ``instructions`` per CTA (every warp
issues the same code, broadcast warps included). ``triton_conflicts`` is
Triton's own count for the chosen pair (its bankConflicts).

The property holds when both sides cost their minimum (``register`` and
``shuffle`` lowerings touch no shared memory and hold). Engines: F2 ranks the
word map of each side's phase (cost = 2^(rank W - rank b∘W)); Z3 searches two
accesses of one phase (same warp, instruction and rep, lanes in one group) at
different words of one bank. A witness is replayed on the tile's layouts
(`smem.witness.hardware_witness`: src or dst slice against the scratch slice).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from .. import f2, memo, smt
from ..errors import CheckerError, InternalError, LayoutError, NotModelled
from ..hardware import Hardware, resolve
from ..layout import LinearLayout, divide_right, log2
from ..verdict import DEFAULT_ENGINES, Engines
from ..versions import follows
from . import triton_conversion
from .operands import element_width, linear
from .result import EngineVerdict, Result, run_engines
from .smem.plan import (
    BLOCK,
    LANE,
    OFFSET,
    REG,
    WARP,
    Kind,
    Plan,
    drop_broadcast_registers,
    issued,
    matrix_plan,
    paired_plan,
    pairing_clause,
    permute_registers,
    quotient_block,
    scored_as_issued,
    vector_plan,
)
from .smem.witness import describe, hardware_witness, same_phase_bank_pair

VEC, BANK, SEGMENT, REPS = "vector", "bank", "segment", "reps"
LOWERINGS = ("register", "shuffle", "shared")
_SCRATCH_INS = (VEC, BANK, SEGMENT, BLOCK, REPS)


@dataclass(frozen=True)
class _Tile:
    """Triton's LocalMemOpTile: lanes that are contiguous in one 16-byte row, lanes that pick rows."""

    instruction: str
    contig: tuple[int, ...]
    addr: tuple[int, ...]


_SHARED = _Tile("shared", (), (0, 1, 2))
_MATRIX = _Tile("matrix", (0, 1), (2, 3, 4))
_MATRIX_T = _Tile("matrix.trans", (2, 3, 4), (0, 1))


# ----------------------------------------------------------------- GF(2) as Triton orders it


def _pivots(rows: list[int], dim: int) -> set[int]:
    return {(r & -r).bit_length() - 1 for r in f2.rref(rows, dim)}


def _nullspace(vectors: list[int], dim: int) -> list[int]:
    """The vectors x with <v, x> = 0 for every v, one per free column (increasing), as Triton lists them."""
    rows = f2.rref(vectors, dim)
    piv = {(r & -r).bit_length() - 1: r for r in rows}
    out = []
    for col in range(dim):
        if col in piv:
            continue
        x = 1 << col
        for p, r in piv.items():
            if r >> col & 1:
                x ^= 1 << p
        out.append(x)
    return out


def _intersection(b1: list[int], b2: list[int], dim: int) -> list[int]:
    """Triton's intersectionBasis: b1's order when every basis is a power of two, else a null-space basis."""
    if all(b and not b & (b - 1) for b in (*b1, *b2)):
        s2 = set(b2)
        return [b for b in b1 if b and b in s2]
    return _nullspace(_nullspace(b1, dim) + _nullspace(b2, dim), dim)


def _complement(basis: list[int], dim: int) -> list[int]:
    piv = _pivots(basis, dim)
    return [1 << i for i in range(dim) if i not in piv]


def _flat(L: LinearLayout, d: str) -> list[int]:
    return [b[0] for b in L.in_bases(d)] if L.has_in_dim(d) else []


# ----------------------------------------------------------------- the scratch layout


def _segment(bank_src, bank_dst, block, dim, n) -> list[int]:
    """Triton's computeSegment: unit bases neither side's bank tile uses, then pairs mixing them."""
    ss = (set(bank_src) | set(block)) - {0}
    sd = (set(bank_dst) | set(block)) - {0}
    seg = [1 << b for b in range(dim) if (1 << b) not in ss and (1 << b) not in sd]
    if len(seg) >= n:
        return seg[:n]
    A, B = sorted(ss - sd), sorted(sd - ss)
    if len(A) > len(B):
        A, B = B, A
    k = min(max(0, n - len(A) - len(seg)), len(A))
    seg += [A[i] ^ B[i] for i in range(k, len(A))] + A[:k] + B[:k]
    return seg[:n]


def _swizzle(src, dst, bits, vbasis, tile_src, tile_dst, block, leave_reps,
             segment: int = 1024) -> dict[str, list[int]]:
    """Triton's optimalSwizzling with a given vector and tiles (flat src/dst): the scratch bases per in-dim; a
    segment (the vector times the bank bases) covers `segment` bits (`LdSt.segment`)."""
    dim = src.total_out_size_log2
    nz_block = [b for b in block if b]
    bank_src, bank_dst = list(vbasis) + list(tile_src), list(vbasis) + list(tile_dst)
    n_bank = min(log2(segment // ((1 << len(vbasis)) * bits)), dim - len(vbasis) - len(nz_block))
    n_seg = dim - n_bank - len(vbasis) - len(nz_block)
    seg = _segment(bank_src, bank_dst, nz_block, dim, n_seg)
    bank = _complement(list(vbasis) + seg + nz_block, dim)
    regs_src, regs_dst = set(_flat(src, REG)), set(_flat(dst, REG))
    kept, reps = [], []
    for s in seg:
        if s in regs_src and s in regs_dst:
            if leave_reps > 0:
                leave_reps -= 1
                kept.append(s)
            else:
                reps.append(s)
        else:
            kept.append(s)
    return {VEC: list(vbasis), BANK: bank, SEGMENT: kept, BLOCK: list(block), REPS: reps}


def _tile_for(a, b, n_reg_a, n_reg_b, lanes_a, lanes_b, cvts: dict | None = None) -> list[int] | None:
    """Triton's optimalSwizzlingTile: the 16-byte tile both sides' instructions move, or None. ``cvts``
    keeps b.invert_and_compose(a) by (id(a), id(b)) across the tile pairs of one `optimal_swizzling`
    (they ask for the same two conversions, one per orientation)."""
    if n_reg_a < n_reg_b:
        return _tile_for(b, a, n_reg_b, n_reg_a, lanes_b, lanes_a, cvts)
    dim = a.total_out_size_log2
    cvt = cvts.get((id(a), id(b))) if cvts is not None else None
    if cvt is None:
        cvt = b.invert_and_compose(a)
        if cvts is not None:
            cvts[id(a), id(b)] = cvt
    v = _intersection(_flat(a, REG), _flat(b, REG), dim)
    if len(v) < n_reg_b:
        return None
    v = v[:n_reg_b]
    la, lb = _flat(a, LANE), _flat(b, LANE)
    tile_a, tile_b = [la[i] for i in lanes_a], [lb[i] for i in lanes_b]
    if 0 in tile_a or 0 in tile_b:
        return None
    for i in range(n_reg_a - n_reg_b):
        if cvt.basis(LANE, lanes_b[i], REG) == 0:
            return None
    tail = lanes_b[len(lanes_b) - len(lanes_a):] if lanes_a else ()
    for ia, ib in zip(lanes_a, tail):
        if cvt.basis(LANE, ib, LANE) != 1 << ia:
            return None
    return v + tile_b


def _row_tile(t: _Tile, regs, lanes, vbasis) -> list[int] | None:
    """Triton's getTile: 3 - len(addr) registers outside the vector, then the addressing lanes."""
    need = 3 - len(t.addr)
    out = [r for r in regs if r not in vbasis][:need]
    if len(out) < need:
        return None
    return out + [lanes[i] for i in t.addr]


def _conflicts(seg: list[int], tile: list[int], dim: int) -> int:
    return (1 << len(_intersection(seg, tile, dim))) - 1


def _ldst_swizzle(src, dst, bits, target: LdSt | None = None) -> tuple[dict[str, list[int]], int, int]:
    """Triton's optimalSwizzlingLdSt (flat src/dst) for `target` (default: 32 banks, Triton 3.7's phases): scratch
    bases, and Triton's (store, load) conflicts."""
    target = target or LdSt()
    dim = src.total_out_size_log2
    reg_src, reg_dst = _flat(src, REG), _flat(dst, REG)
    lane_src, lane_dst = _flat(src, LANE), _flat(dst, LANE)
    block = _flat(src, BLOCK)
    v = _intersection(reg_src, reg_dst, dim)[:log2(128 // bits)]
    src_fills = None
    if (1 << len(v)) * bits < 32:
        per_bank = log2(32 // bits)
        warp_src = [w for w in _flat(src, WARP) if w]
        warp_dst = [w for w in _flat(dst, WARP) if w]
        src_warp = _intersection([r for r in reg_src if r not in v], warp_dst, dim)
        dst_warp = _intersection([r for r in reg_dst if r not in v], warp_src, dim)
        if len(src_warp) == len(dst_warp) and src_warp:
            src_fills = min(src_warp) < min(dst_warp)
        else:
            src_fills = len(src_warp) > len(dst_warp)
        v = v + (src_warp if src_fills else dst_warp)
        if len(v) < per_bank:
            v = v + _intersection(warp_src, warp_dst, dim)
        i = 0
        while len(v) < per_bank and (i < len(warp_src) or i < len(warp_dst)):
            if i < len(warp_src) and warp_src[i] not in v:
                v.append(warp_src[i])
            if len(v) < per_bank and i < len(warp_dst) and warp_dst[i] not in v and warp_dst[i] not in block:
                v.append(warp_dst[i])
            i += 1
        v = v[:per_bank]
    vec_bits = (1 << len(v)) * bits
    log_vec = log2(max(1, vec_bits // 32))
    tile_src = target.phase_lanes(lane_src, log_vec, target.store_lanes_128 if vec_bits == 128 else ())
    tile_dst = target.phase_lanes(lane_dst, log_vec, target.load_lanes_128 if vec_bits == 128 else ())
    sm = _swizzle(src, dst, bits, v, tile_src, tile_dst, block, 0, target.segment)
    if log_vec < 2 and target.reorder_banks:
        banks = sm[BANK]
        in_src = [i for i, r in enumerate(banks) if r in reg_src]
        in_dst = [i for i, r in enumerate(banks) if r in reg_dst]
        if src_fills is None:
            order = in_src if len(in_src) > len(in_dst) else in_dst
        else:
            order = in_src if src_fills else in_dst
        order = order + [i for i in range(len(banks)) if i not in order]
        sm[BANK] = [banks[i] for i in order]
    # Triton's bankConflictsLdSt: the lanes of one phase of each side against the segment
    return sm, _conflicts(sm[SEGMENT], tile_src, dim), _conflicts(sm[SEGMENT], tile_dst, dim)


def _tiles(hw: Hardware, bits: int, cross_cta: bool) -> tuple[list[_Tile], list[_Tile]]:
    """Triton's getSrcDstTiles: the store and load instructions a scratch round trip may use."""
    src, dst = [_SHARED], [_SHARED]
    if bits <= 32:
        if hw.has("stmatrix"):
            src.append(_MATRIX)
        if not cross_cta and hw.has("ldmatrix"):
            dst.append(_MATRIX)
    if bits == 16:
        if hw.has("stmatrix"):
            src.append(_MATRIX_T)
        if not cross_cta and hw.has("ldmatrix"):
            dst.append(_MATRIX_T)
    return src, dst


@dataclass(frozen=True)
class Scratch:
    """The scratch layout Triton picks, with the instructions chosen for it."""

    layout: LinearLayout                # (vector, bank, segment, block, reps) -> tensor
    store: str                          # "shared" | "matrix" | "matrix.trans"
    load: str
    triton_conflicts: tuple[int, int]   # Triton's own (store, load) count for this layout

    @property
    def reps(self) -> int:
        return self.layout.in_dim_size(REPS)


def optimal_swizzling(src: LinearLayout, dst: LinearLayout, bits: int, hw: Hardware) -> Scratch:
    """Triton's optimalSwizzling(src, dst, srcTiles, dstTiles) on broadcast-free src and dst, once per run
    (`checker.memo`: the kernel's shared-memory budget and the conversion's cost both ask)."""
    return memo.shared("conversion_cost.optimal_swizzling", (src, dst, bits, hw),
                       lambda: _optimal_swizzling(src, dst, bits, hw))


def _optimal_swizzling(src: LinearLayout, dst: LinearLayout, bits: int, hw: Hardware) -> Scratch:
    sf, df = src.flatten_outs(), dst.flatten_outs()
    if hw.vendor != "nvidia":
        # AMD's lowering has no matrix tiles: the common ConvertLayoutOpToLLVM swizzles for ld/st alone, for the
        # target's banks and lane phases (the allocation's `scratch_elements` asks the same function)
        sm, write, read = _ldst_swizzle(sf, df, bits, ldst_target(hw))
        return Scratch(_scratch_layout(sm, src), "shared", "shared", (write, read))
    dim = sf.total_out_size_log2
    cross = not _trivial_over_block(dst.invert_and_compose(src))
    src_tiles, dst_tiles = _tiles(hw, bits, cross)
    total = log2(128 // bits)
    reg_src, reg_dst, lane_src, lane_dst = _flat(sf, REG), _flat(df, REG), _flat(sf, LANE), _flat(df, LANE)
    block = list(dict.fromkeys(_flat(sf, BLOCK)))
    best = None
    cvts: dict = {}
    for ts in src_tiles:
        for td in dst_tiles:
            v = _tile_for(sf, df, total - len(ts.contig), total - len(td.contig), ts.contig, td.contig, cvts)
            if v is None:
                continue
            tile_s, tile_d = _row_tile(ts, reg_src, lane_src, v), _row_tile(td, reg_dst, lane_dst, v)
            if tile_s is None or tile_d is None:
                continue
            leave = min(len(ts.contig) + len(ts.addr) - 3, len(td.contig) + len(td.addr) - 3) \
                if follows("cvt_matrix_keeps_vector_reps") else 0
            sm = _swizzle(sf, df, bits, v, tile_s, tile_d, block, leave)
            write, read = _conflicts(sm[SEGMENT], tile_s, dim), _conflicts(sm[SEGMENT], tile_d, dim)
            key = (read + write, -(1 << len(sm[REPS])))
            if best is None or key < best[0]:
                best = (key, sm, ts.instruction, td.instruction, (write, read))
    if best is None:
        sm, write, read = _ldst_swizzle(sf, df, bits)
        best = (None, sm, "shared", "shared", (write, read))
    _, sm, st, ld, tc = best
    return Scratch(_scratch_layout(sm, src), st, ld, tc)


def _scratch_layout(sm: dict[str, list[int]], src: LinearLayout) -> LinearLayout:
    """The scratch bases `sm` (flat offsets per scratch in-dim) as a layout onto src's out-dims."""
    flat = LinearLayout([(d, [(b,) for b in sm[d]]) for d in _SCRATCH_INS],
                        [(src.out_dims[0], src.total_out_size)], require_surjective=True)
    return flat.reshape_outs(list(src.out_dim_sizes))


@dataclass(frozen=True)
class LdSt:
    """What Triton's ld/st-only swizzle (optimalSwizzlingLdSt) asks of the target (TargetInfo's
    getSharedMemoryBanks and getSharedLdStTiles): a segment of `segment` bits (its banks x 32); with `phases`
    (Triton 3.8+, change ``swizzle_spans_target_banks``) the lanes one phase of an access serves are its first
    lane bases but log2(vector words) + log2(lanes) - log2(banks) of them (a 64-lane wave on 32 banks: one lane
    basis fewer than before), else all but log2(vector words); a 128-bit load serves the lane bases
    `load_lanes_128` in one phase (ds_read_b128's order) where given, and a 128-bit store `store_lanes_128`
    (Triton 3.9's sizing of a reduction's rounds gives that order to the store side: `reduction_target`).
    `reorder_banks`: a vector of fewer than 64 bits puts the bank bases that are registers of one side first, so
    that side's accesses widen over them; Triton 3.9 keeps them in order on 64-bank targets (change
    ``ldst_banks_in_order_64``)."""

    segment: int = 1024
    phases: bool = False
    load_lanes_128: tuple[int, ...] = ()
    reorder_banks: bool = True
    store_lanes_128: tuple[int, ...] = ()

    def phase_lanes(self, lanes: list[int], log_vec: int, order: tuple[int, ...] = ()) -> list[int]:
        """The lane bases of `lanes` one phase of an access of 2^log_vec words serves."""
        if order:
            return [lanes[i] for i in order]
        drop = max(0, log_vec + len(lanes) - log2(self.segment // 32)) if self.phases else log_vec
        return lanes[:len(lanes) - drop]


# The lane bases ds_read_b128 serves in one phase (Triton's AMD TargetInfo::getSharedLdStTiles for 128-bit
# vectors: lanes 0, 1, 4 of gfx942's 64 over 32 banks, 0, 1, 3, 4 on gfx950's 64 banks); gfx1250 and the stores
# take the first lanes (a reduction's rounds in Triton 3.9 the other way round: `reduction_target`). Measured: with
# them every scratch size of 176 AMD corpus modules, 1,401 AMD modules of five Triton libraries and 27 conversions
# equals Triton 3.9.0's metadata.shared.
_LOAD_LANES_128 = {"gfx942": (0, 1, 4), "gfx950": (0, 1, 3, 4)}


def ldst_target(hardware: Any = None) -> LdSt:
    """`LdSt` of `hardware` (a `Hardware` or its name; None: 32 banks) under the Triton version in force: its
    banks x 32 bits per segment (1024 on NVIDIA and gfx942, 2048 on gfx950's and gfx1250's 64 banks); before
    Triton 3.8 (change ``swizzle_spans_target_banks``) every target's is 32 banks' with the old phases. Measured:
    the cross-warp rounds of a 16x1024 i32 reduce over 4 warps take 128 bytes on gfx942 and 256 on gfx950 and
    gfx1250 (Triton 3.8.0 and 3.9.0), a 16x4 i32 conversion of 4 warps' columns into lanes too (128 on gfx950 in
    Triton 3.6.0)."""
    if hardware is None or not follows("swizzle_spans_target_banks"):
        return LdSt()
    hw = resolve(hardware)
    return LdSt(hw.banks * hw.bank_bytes * 8, True, _LOAD_LANES_128.get(hw.name, ()),
                hw.banks <= 32 or not follows("ldst_banks_in_order_64"))


def reduction_target(hardware: Any = None) -> LdSt:
    """`ldst_target` as Triton sizes a reduction's cross-warp rounds with it: from Triton 3.9 (change
    ``reduce_round_store_lanes``) the round's 128-bit *store* takes ds_read_b128's lane order and its load the
    first lanes, the other way round from a convert_layout's. Measured on random tt.reduce modules of 64-lane
    waves through Triton's own allocation (gfx942 and gfx950, 8- to 32-bit, 2 to 16 warps): 800 of 800 sizes
    under Triton 3.9.0 with this order (795 with the conversion's), 300 of 300 under 3.8.0 with the
    conversion's."""
    t = ldst_target(hardware)
    if not t.load_lanes_128 or not follows("reduce_round_store_lanes"):
        return t
    return replace(t, load_lanes_128=(), store_lanes_128=t.load_lanes_128)


def scratch_elements(src: LinearLayout, dst: LinearLayout, bits: int, hardware: Any = None,
                     target: LdSt | None = None) -> int:
    """The elements of scratch Triton's allocation analysis gives a conversion src -> dst through shared memory
    (getNumScratchElemsSwizzledCvt): the swizzled tile of the broadcast-free layouts over its reps and over
    the CTAs src splits the tensor over (the bank order does not change it). With a target, the tile is the
    lowering's (`optimal_swizzling`: the matrix instructions' on NVIDIA, the ld/st-only swizzle's on AMD);
    without (reductions: ``hardware`` None) the ld/st-only swizzle's (optimalSwizzlingLdSt) for 32 banks, or
    for `target` where given (a reduction's rounds: `ldst_target`)."""
    s, _ = drop_broadcast_registers(_full(src))
    d, _ = drop_broadcast_registers(_full(dst))
    hw = resolve(hardware) if hardware is not None else None
    if hw is not None and target is None:
        reps = optimal_swizzling(s, d, bits, hw).reps
    else:
        t = target if target is not None else ldst_target(hw)
        reps = 1 << len(_ldst_swizzle(s.flatten_outs(), d.flatten_outs(), bits, t)[0][REPS])
    ctas = 1 << sum(1 for b in s.in_bases(BLOCK) if any(b)) if follows("cvt_scratch_per_cta") else 1
    return s.total_out_size // (reps * ctas)


def _trivial_over_block(L: LinearLayout) -> bool:
    if not L.has_in_dim(BLOCK) or L.in_dim_size(BLOCK) == 1:
        return all(not any(b) for b in L.in_bases(BLOCK)) if L.has_in_dim(BLOCK) else True
    return L.is_trivial_over([BLOCK])


# ----------------------------------------------------------------- one side of the round trip


@dataclass
class Side:
    """One side (store or load) of the round trip: the instruction and what it costs per CTA. ``kinds``: the
    instructions LLVM issues, by kind (one for a plan issued as it is; a mix of paired and single reads on a
    target whose pairs serve both addresses in one phase, `smem.plan.mix_groups`); ``cost`` their worst."""

    direction: str
    plan: Plan
    reps: int
    warps: int
    kinds: list[Kind] = field(repr=False)
    mask: int = 0
    tile: LinearLayout | None = field(default=None, repr=False)      # the distributed slice (reg, lane, warp, block)
    scratch: LinearLayout | None = field(default=None, repr=False)   # the scratch slice (offset, block)

    @property
    def cost(self) -> int:
        """Wavefronts per phase of its worst kind (1: conflict-free)."""
        return max(k.cost for k in self.kinds)

    @property
    def instructions_per_warp(self) -> int:
        return sum(k.count for k in self.kinds) * self.reps

    @property
    def instructions(self) -> int:
        return self.instructions_per_warp * self.warps

    @property
    def min_wavefronts(self) -> int:
        return sum(k.plan.phases_per_instruction * k.count for k in self.kinds) * self.reps * self.warps

    @property
    def wavefronts(self) -> int:
        return sum(k.cost * k.plan.phases_per_instruction * k.count for k in self.kinds) * self.reps * self.warps

    def to_dict(self, hw: Hardware, triton_conflicts: int) -> dict[str, Any]:
        p = self.plan
        out = {"instruction": p.instruction, "asm": p.asm(hw), "mnemonic": p.mnemonic(hw),
               "vector_bytes": p.vector_bytes, "matrices": p.matrices,
               "instructions": self.instructions, "instructions_per_warp": self.instructions_per_warp,
               "phases_per_instruction": p.phases_per_instruction, "wavefronts": self.wavefronts,
               "min_wavefronts": self.min_wavefronts, "conflicts": self.cost - 1,
               "triton_conflicts": triton_conflicts}
        if p.pair is not None and p.pair.fields and not p.pair.paired:
            out["pairs_fused"] = len(p.pair.fields)
        if scored_as_issued(p, self.kinds):
            out["issued"] = [k.to_dict(hw, self.reps) for k in self.kinds]
        return out


def _side(direction: str, L: LinearLayout, scratch: LinearLayout, instruction: str, bits: int,
          hw: Hardware, sunk: frozenset[int] | None = None) -> Side:
    """L (broadcast-free) moved to/from the scratch: Triton's per-rep cvt, the instruction's plan, the cost.
    ``sunk``: L's registers whose reads LLVM sinks into a masked store's first branch (`lower_conversion`); taken
    where the round trip is one rep (with more, a barrier precedes each rep's reads: only the last rep's could
    move, which one plan for every rep does not describe)."""
    reps = scratch.in_dim_size(REPS)
    total = L.invert_and_compose(scratch)
    want = [tuple((1 << i) if o == REPS else 0 for o in total.out_dims) for i in range(log2(reps))]
    regs = list(total.in_bases(REG))
    used, back = set(), []
    for w in want:
        j = next((j for j, b in enumerate(regs) if j not in used and b == w), None)
        if j is None:
            raise InternalError(f"conversion_cost: the reps of the scratch layout are not registers of the {direction}")
        used.add(j)
        back.append(j)
    perm = [j for j in range(len(regs)) if j not in used] + back
    total = permute_registers(total, perm)
    cvt = _divide_reps(total, reps)
    if cvt is None:
        raise InternalError("conversion_cost: the reps do not divide the conversion on the right")
    n_block = cvt.in_dim_size(BLOCK)
    cvt = cvt.reshape_outs([(OFFSET, cvt.total_out_size // n_block), (BLOCK, n_block)])
    local = quotient_block(cvt)     # (register, lane, warp) -> offset
    if local is None:
        raise NotModelled("conversion_cost: a round trip through another CTA's shared memory is not modelled")
    origin = tuple(range(local.in_dim_size_log2(REG)))
    if instruction == "shared":     # AMD: as LLVM merges and pairs the lane's accesses (`paired_plan`)
        p = vector_plan(local, origin, bits, direction, hw)
        if hw.vendor == "amd":
            to_L = [1 << perm[j] for j in range(len(origin))]      # plan register bit j is L's bit perm[j]
            moved = None if sunk is None or reps != 1 else frozenset(
                i for i in range(1 << len(origin)) if f2.combine(to_L, i) in sunk)
            p = paired_plan(p, hw, sunk_registers=moved)
    else:
        p = matrix_plan(local, origin, bits, direction, instruction.endswith(".trans"), hw)
        if isinstance(p, str):
            raise InternalError(f"conversion_cost: Triton picked {instruction} for the {direction} but its "
                                f"lowering declines: {p}")
    mask = hw.banks - 1
    kinds = issued(p, hw)
    # the slices one rep moves, in tensor coordinates (the witness replays on them)
    tile = permute_registers(L, perm[:len(regs) - len(back)])
    flat = scratch.sublayout([VEC, BANK, SEGMENT, BLOCK], scratch.out_dims)
    nb = scratch.in_dim_size(BLOCK)
    sl = flat.reshape_ins([(OFFSET, flat.total_in_size // nb), (BLOCK, nb)])
    if tile.invert_and_compose(sl) != cvt:
        raise InternalError(f"conversion_cost: the {direction} slice does not reproduce Triton's per-rep map")
    return Side(direction, p, reps, local.in_dim_size(WARP), kinds, mask, tile, sl)


def _divide_reps(total: LinearLayout, reps: int) -> LinearLayout | None:
    """divide_right(total, the identity of reps registers onto the reps dim), for total whose last
    log2(reps) registers map to the reps unit vectors (`_side` puts them there): when no other basis has a
    reps component, the quotient is total without those registers, the reps dim at size 1 (so tile * reps
    gives total back). Anything else goes through `divide_right` (which raises or declines as it does)."""
    n = log2(reps)
    k = total.out_dim_index(REPS)
    ins = total.bases
    keep = len(ins[REG]) - n
    if total.in_dims[:1] != (REG,) or any(b[k] for d, bs in ins.items() for b in (bs[:keep] if d == REG else bs)):
        return divide_right(total, LinearLayout.identity_1d(reps, REG, REPS))
    return LinearLayout._of([(d, bs[:keep] if d == REG else bs) for d, bs in ins.items()],
                            [(o, 1 if o == REPS else size) for o, size in total.out_dim_sizes])


def _witness(side: Side, kind: Kind, hw: Hardware, x: dict, y: dict):
    return hardware_witness(side.tile, side.scratch, kind.plan, hw, kind.wm, x, y)


def _f2_side(side: Side, hw: Hardware):
    """None when the side is conflict-free, else a witness (two accesses of one phase, one bank) of its first
    conflicting kind of instruction."""
    kind = next((k for k in side.kinds if k.cost > 1), None)
    if kind is None:
        return None
    return _witness(side, kind, hw, {}, kind.conflict(side.mask))


def _z3_side(side: Side, kind: Kind):
    """The Z3 query of `bank_conflicts`' hardware model on one kind of this side's instructions: (answer, the
    word map's layout)."""
    L = kind.wm.layout
    ob = smt.Obligation(f"conversion_cost.{side.direction}")
    same_phase_bank_pair(ob, L, kind.plan, side.mask)
    return ob.solve(), L


# ----------------------------------------------------------------- the whole conversion


@dataclass
class Lowering:
    """How Triton lowers one conversion, and what its shared-memory sides cost."""

    lowering: str                       # register | shuffle | shared
    triton_lowering: str                # triton_conversion.lowering's finer name
    bits: int
    hardware: Hardware
    scratch: Scratch | None = None
    scratch_bytes: int = 0
    store: Side | None = None
    load: Side | None = None
    mixed_transpositions: int | None = None
    sync: str = "cta"                   # the barrier between the sides: "warp" (bar.warp.sync) or "cta" (bar.sync)
    shuffles: int = 0                   # shfl.sync per warp (the shuffle lowering)
    selected_lanes: dict = field(default_factory=dict)  # shuffle: source lane bits read through warp / block bits
    sunk: list[int] | None = None       # dst registers whose reads LLVM sinks into a masked store's first branch

    @property
    def barriers(self) -> int:
        """Barriers the round trip issues: one after each store, one before each next rep."""
        return 2 * self.scratch.reps - 1 if self.scratch is not None else 0

    @property
    def minimal(self) -> bool:
        return all(s.cost == 1 for s in (self.store, self.load) if s is not None)

    def details(self) -> dict[str, Any]:
        d: dict[str, Any] = {"hardware": self.hardware.name, "lowering": self.lowering,
                             "triton_lowering": self.triton_lowering, "dtype_bits": self.bits,
                             "scratch_bytes": self.scratch_bytes,
                             "scratch_layout": self.scratch.layout.to_dict() if self.scratch else None}
        if self.mixed_transpositions is not None:
            d["mixed_transpositions"] = self.mixed_transpositions
        if self.lowering == "shuffle":
            d["shuffles"] = self.shuffles
            d["selected_lanes"] = self.selected_lanes
        if self.scratch is not None:
            d["reps"] = self.scratch.reps
            d["barriers"], d["sync"] = self.barriers, self.sync
            d["store"] = self.store.to_dict(self.hardware, self.scratch.triton_conflicts[0])
            d["load"] = self.load.to_dict(self.hardware, self.scratch.triton_conflicts[1])
            d["wavefronts"] = self.store.wavefronts + self.load.wavefronts
            d["min_wavefronts"] = self.store.min_wavefronts + self.load.min_wavefronts
        return d

    def summary(self) -> str:
        if self.lowering == "register":
            return "registers only (no shared memory)"
        if self.lowering == "shuffle":
            return f"warp shuffles: {self.shuffles} shfl.sync per warp (no shared memory)"
        s, ld = self.store, self.load
        sunk = "" if self.sunk is None else (
            f"; LLVM moves the reads of dst registers {_ranges(self.sunk)} (the masked store's first branch) into "
            f"that branch, where they pair apart from the others")
        clauses = "".join(pairing_clause(side.plan, {}, scored_as_issued(side.plan, side.kinds)) for side in (s, ld))
        return (f"through {self.scratch_bytes} B of scratch x{self.scratch.reps} rep(s): "
                f"{s.plan.mnemonic(self.hardware)} {s.instructions} per CTA, {s.wavefronts} wavefronts "
                f"(min {s.min_wavefronts}); {ld.plan.mnemonic(self.hardware)} {ld.instructions} per CTA, "
                f"{ld.wavefronts} wavefronts (min {ld.min_wavefronts}){sunk}{clauses}")


def _ranges(registers: list[int]) -> str:
    """Sorted register indices as runs: 0-7, 16-23."""
    runs: list[list[int]] = []
    for r in sorted(registers):
        if runs and r == runs[-1][1] + 1:
            runs[-1][1] = r
        else:
            runs.append([r, r])
    return ", ".join(f"{a}-{b}" if b > a else str(a) for a, b in runs)


def _sunk_registers(given: Any, kept: list[int], registers: int) -> frozenset[int]:
    """The broadcast-free registers (bit j standing for dst's register bit kept[j]) among dst's `given` ones."""
    if not isinstance(given, (list, tuple, set, frozenset)) or not all(
            isinstance(r, int) and not isinstance(r, bool) and 0 <= r < registers for r in given):
        raise CheckerError(f"must be a list of dst's register indices (0 to {registers - 1})", field="sunk_registers")
    wanted, to_dst = set(given), [1 << b for b in kept]
    return frozenset(k for k in range(1 << len(kept)) if f2.combine(to_dst, k) in wanted)


def _full(L: LinearLayout) -> LinearLayout:
    return LinearLayout([(d, L.in_bases(d) if L.has_in_dim(d) else ()) for d in (REG, LANE, WARP, BLOCK)],
                        L.out_dim_sizes)


def lower_conversion(src: LinearLayout, dst: LinearLayout, bits: int, hardware: Any = "sm90",
                     sunk_registers: Any = None) -> Lowering:
    """What Triton 3.9 emits for convert_layout src -> dst of `bits`-bit elements (module docstring).
    ``sunk_registers``: dst's registers (indices of its register dim) whose reads LLVM sinks into the first branch
    of the masked store the result feeds on AMD (`checker.ttgir.store_branch`): the load side pairs them apart
    (`smem.pairs.sunk_apart`)."""
    hw = resolve(hardware)
    if isinstance(bits, bool) or not isinstance(bits, int) or bits < 1 or bits > 64 or bits & (bits - 1):
        raise CheckerError(f"must be a power of two up to 64, got {bits!r}", field="dtype_bits")
    for name, L in (("src", src), ("dst", dst)):
        if not isinstance(L, LinearLayout) or not L.has_in_dim(REG) or not L.has_in_dim(LANE):
            raise CheckerError("expected a distributed LinearLayout (register, lane, warp, block)", field=name)
    if src.out_dim_sizes != dst.out_dim_sizes:
        raise CheckerError(f"src and dst cover different shapes: {dict(src.out_dim_sizes)} vs "
                           f"{dict(dst.out_dim_sizes)}", field="dst")
    src, dst = _full(src), _full(dst)
    try:
        comp = triton_conversion.minimal_conversion(src, dst)
    except LayoutError as e:
        raise CheckerError(f"dst needs elements src does not hold: {e.message}", field="dst") from None
    cls, wc = triton_conversion.classify_in_warp(src, dst, comp)
    mixed = None if wc is None else wc.mixed
    tl = triton_conversion.lowering(comp, cls)
    if tl in ("none", "register_permutation"):
        return Lowering("register", tl, bits, hw, mixed_transpositions=mixed)
    if tl == "warp_shuffle":
        return Lowering("shuffle", tl, bits, hw, mixed_transpositions=mixed, shuffles=wc.shuffles(bits),
                        selected_lanes={d: [j for j in lanes if j >= 0] for d, lanes in wc.selection
                                        if any(j >= 0 for j in lanes)})
    if tl == "distributed_shared_memory":
        raise NotModelled("conversion_cost: a conversion between CTAs (distributed shared memory) is not modelled")
    work = max(bits, 8)         # sub-byte elements (i1 masks, fp4) go through shared memory as bytes
    if src.in_dim_size(LANE) != hw.warp_size:
        raise CheckerError(f"src has {src.in_dim_size(LANE)} lanes; {hw.name} has warps of {hw.warp_size}",
                           field="src")
    s, _ = drop_broadcast_registers(src)
    d, kept = drop_broadcast_registers(dst)
    sunk = None if sunk_registers is None else _sunk_registers(sunk_registers, kept, dst.in_dim_size(REG))
    sc = optimal_swizzling(s, d, work, hw)
    # one CTA's buffer: the scratch layout spans the tensor, split over the CTAs by its non-zero block
    # bases (a tensor broadcast over CTAs is whole in each); Triton allocates per CTA
    split = 1 << sum(1 for b in sc.layout.in_bases(BLOCK) if any(b)) if follows("cvt_scratch_per_cta") else 1
    size = sc.layout.total_out_size // sc.reps // split * work // 8
    store = _side("store", s, sc.layout, sc.store, work, hw)
    load = _side("load", d, sc.layout, sc.load, work, hw, sunk)
    # Triton's isCvtDimSync: a warp-level barrier when no data crosses warps and neither side broadcasts over them
    comp = dst.invert_and_compose(src)
    warp_sync = (_trivial_over_block(comp) and comp.is_trivial_over([WARP])
                 and src.get_free_variable_masks()[WARP] == 0 and dst.get_free_variable_masks()[WARP] == 0)
    return Lowering("shared", tl, bits, hw, sc, size, store, load, mixed, "warp" if warp_sync else "cta",
                    sunk=sorted(sunk_registers) if sunk is not None and load.reps == 1 and load.plan.pair is not None
                    else None)


def sunk_changes_pairs(src: LinearLayout, dst: LinearLayout, bits: int, hardware: Any, sunk_registers: Any) -> bool:
    """Whether `lower_conversion`'s ``sunk_registers`` change how LLVM pairs the load side's reads (the TTGIR
    reader gives the parameter only then, so that every other conversion of the pair keeps sharing its proofs);
    False where the conversion is no round trip Triton lowers here."""
    try:
        plain = lower_conversion(src, dst, bits, hardware).load
        if plain is None or plain.plan.pair is None or not plain.plan.pair.fields:
            return False            # nothing fused: sinking moves no read out of a pair
        return lower_conversion(src, dst, bits, hardware, sunk_registers).load.plan.pair != plain.plan.pair
    except (CheckerError, NotModelled):
        return False


# ----------------------------------------------------------------- the property


def conversion_cost(src: LinearLayout, dst: LinearLayout, dtype_bits: int, *, hardware: Any = "sm90",
                    engines: Engines = DEFAULT_ENGINES, sunk_registers: Any = None) -> Result:
    """How Triton lowers convert_layout src -> dst and what it costs; holds when every shared-memory side
    costs its conflict-free wavefronts (module docstring). ``sunk_registers``: `lower_conversion`'s."""
    lw = lower_conversion(src, dst, dtype_bits, hardware, sunk_registers)
    hw = lw.hardware
    details = lw.details()
    sides = [s for s in (lw.store, lw.load) if s is not None]
    summary = lw.summary()

    def f2_engine() -> EngineVerdict:
        for s in sides:
            cx = _f2_side(s, hw)
            if cx is not None:
                return EngineVerdict("f2", "fails", counterexample=cx, explanation=(
                    f"{summary}; the {s.direction} costs {s.wavefronts} wavefronts where {s.min_wavefronts} "
                    f"would do ({s.cost}-way conflict); e.g. {describe(cx)}"))
        return EngineVerdict("f2", "holds", explanation=summary + (
            "; both sides cost their minimum" if sides else ""))

    def z3_engine() -> EngineVerdict:
        for s, kind in [(side, kind) for side in sides for kind in side.kinds]:
            answer, L = _z3_side(s, kind)
            if answer.status == "unknown":
                return EngineVerdict("z3", "unknown", explanation=f"z3 gave up on the {s.direction}")
            if answer.status == "sat":
                def on_sat(values, s=s, kind=kind, L=L):
                    cx = _witness(s, kind, hw, {d: values.get(f"a.{d}", 0) for d in L.in_dims},
                                  {d: values.get(f"b.{d}", 0) for d in L.in_dims})
                    return cx, f"{smt.solver_name()} model ({s.direction}): {describe(cx)}"
                return smt.verdict(answer, holds="", on_sat=on_sat)
        return EngineVerdict("z3", "holds", explanation="no two accesses of one phase share a bank on either "
                             "side (unsat)" if sides else "no shared memory")

    return run_engines("conversion_cost", engines, {"f2": f2_engine, "z3": z3_engine}, details=details)


def judge(src, dst, shape=None, dtype=None, *, hardware: Any = "sm90", engines: Engines = DEFAULT_ENGINES,
          sunk_registers: Any = None) -> Result:
    """The two distributed layouts, or encodings lowered at `shape`; `dtype`: a name or a number of bits."""
    return conversion_cost(linear(src, shape, "src"), linear(dst, shape, "dst"), element_width(dtype),
                           hardware=hardware, engines=engines, sunk_registers=sunk_registers)


def decide(check, engines: Engines) -> Result:
    """A spec's or a TTGIR op's check (`checker.registry`): operands ``src`` and ``dst``, its element type and
    target; param ``sunk_registers`` (the TTGIR reader's: dst's registers whose reads LLVM sinks into a masked
    store's first branch, `checker.ttgir.store_branch`)."""
    return judge(check.operand("src"), check.operand("dst"), check.shape, check.dtype_bits, hardware=check.hardware,
                 engines=engines, sunk_registers=check.param("sunk_registers"))
