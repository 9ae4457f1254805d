"""coalesced(L, bits, access): a global load or store is as wide as its layout allows and touches the fewest
32-byte sectors for the bytes each warp moves.

Setting. A ``tt.load`` / ``tt.store`` of a tensor of pointers in layout L (register, lane, warp, block) ->
coordinates, elements of ``bits``. The address of the element at coordinate c is

    addr(c) = base + sum_d c_d * stride_d            (bytes; stride_d = element strides x element bytes)

**The vector Triton emits** (NVIDIA: LoadStoreOpToLLVM.cpp, ``LoadStoreConversionBase::getVectorSize`` and
``ModuleAxisInfoAnalysis::getContiguity`` / ``getAlignment`` / ``getMaskAlignment`` in AxisInfo.cpp; AMD:
``LLVM::AMD::getVectorSize`` in TritonAMDGPUToLLVM/Utility.cpp). With o = order[0] of L (the dims in the order
the register bases first move along them; ``LinearEncodingAttr::getOrder``) and cpt = the layout's contiguous
elements per thread along o (``getContigPerThread``: the leading register bases 1, 2, 4, ... along o):

    alignment = min(max(divisibility_o / element bytes, 1), contiguity_o)          (the pointer's AxisInfo)
    vec       = min(128 / bits, cpt, alignment)           then   min(vec, constancy_o of the mask) if masked

An AMD buffer op reads the offsets' AxisInfo (in elements, no division) capped by cpt, and its scalar base's
divisibility / element bytes; its own ``contiguity`` attribute can raise vec. Each vector of vec elements
is one instruction per thread: NVIDIA ``ld.global[.vN].bW`` with W = min(vec x bits, max(32, bits)) and
N = vec x bits / W; AMD ``global_load_dword[xN]`` / ``buffer_load_*`` of vec x bits / 8 bytes.
The layout *allows* ``layout_vec = min(128 / bits, cpt)``.

Other global accesses (``kind``; `_vec_from` gives each lowering's order of steps):

- ``copy``, the global side of a global-to-shared copy (``ttg.async_copy_global_to_local``: NVIDIA's
  ``AsyncCopyGlobalToLocalOpConversion`` in LoadStoreOpToLLVM.cpp, ``cp.async.{ca,cg}.shared.global`` of 4, 8
  or 16 bytes; AMD's in third_party/amd/.../LoadStoreOpToLLVM.cpp, ``global_load_lds_dword[xN]`` /
  ``global_load_async_to_lds_bN``; ``amdg.buffer_load_to_local``: ``BufferLoadToLocalOpConversion``,
  ``buffer_load_dword ... lds``): the pointer's vector and the mask, raised to the op's ``contiguity``, capped
  at 128 bits and at the run of a thread's registers the shared layout stores at consecutive offsets
  (``shared``, from the bank check's plan of the same copy: ``lowerLdSt``'s largest vectorisation);
- ``atomic`` (``tt.atomic_rmw`` / ``tt.atomic_cas`` / ``amdg.buffer_atomic_rmw``): the load's vector capped by
  the atomic's own width (``atomic``: 1 for scalar atomics, 2 for packed f16 pairs; none for NVIDIA's vectorized
  fadd of f16 / bf16 / f32 on compute capability 90+, ``atom.global.v4.f32``); the layout allows that cap
  at most, so a scalar atomic is never a narrow vector, only its sectors are judged.

**Requests and sectors** (NVIDIA L1TEX: one warp instruction is one request; a request is served in 32-byte
sectors). Each warp issues one request per vector of its threads: the register index runs over the vector
starts 0, vec, 2 vec, ... skipping the starts Triton skips (``getCanonicalIndex`` with the register free
variables: repeated registers are not loaded twice; before Triton 3.9 a store issues the repeats too, and
ptxas merges only the repeated loads: `stores_skip_repeated_registers`); for a store, a copy or an atomic, a
warp whose every lane is a repeat of another warp's (free warp bits) is predicated off and issues no request.
The sectors of a request are the distinct addr // 32 over its lanes' bytes; its minimum is ceil(distinct lane
addresses x vector bytes / 32).

**The property** holds iff vec = layout_vec and every request touches its minimum number of sectors; for a
load cached in L1 whose threads hold runs of two vectors, contiguous in memory, iff every such run of a warp
(its two requests together) touches the minimum for its bytes (`whole_runs`: the second request reads the rest
of the first one's sectors from L1; measured free on an H100).

It fails with a witness: ``narrow_vector`` (vec, layout_vec and the figure that limits it: the pointer's
contiguity along o, its divisibility, the mask's constancy), or ``split_sectors`` (a warp and register
start, its lanes' addresses, sectors and minimum), and where it can say one, ``details.suggestion``.

Engines. F2 (enumeration in the "f2" slot, as `aligned`'s padded case): cpt read off the register bases, every
request's lanes enumerated, the first request above its minimum the witness. Z3: the largest W with
L(register = r) = r along o for every r < W (unsat of its negation; sat at 2W) is cpt, and one query asks for
a warp and a vector start (free bits pinned as above) whose lanes' distinct sector numbers exceed
ceil(distinct addresses x vector bytes / 32) -- unsat proves every request minimal. Both
witnesses are replayed on the concrete addresses.

Assumptions (docs/coalescing.md): the base is at ``base_offset_bytes`` from a 32-byte boundary (0: aligned;
cudaMalloc gives 256 bytes); an unknown stride (a runtime argument) is counted as ``UNKNOWN_STRIDE_BYTES``
(rows far apart and sector-aligned: the best the hint allows; the vector width uses what the IR proves);
every lane is active (no mask); one CTA (block 0). AMD waves are counted in the same 32-byte sectors
(not measured on AMD hardware).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .. import smt
from ..errors import CheckerError
from ..hardware import Hardware, resolve
from ..layout import LinearLayout, log2
from ..verdict import DEFAULT_ENGINES, Engines
from .operands import element_width, linear
from .result import Counterexample, EngineVerdict, Result, run_engines

NAME = "coalesced"
SECTOR_BYTES = 32
MAX_VECTOR_BITS = 128
UNKNOWN_STRIDE_BYTES = 1 << 20
SECTOR_BITS = log2(SECTOR_BYTES)   # the Z3 engine's split addresses are read modulo a sector (`_z3_sectors`)
REG, LANE, WARP, BLOCK = "register", "lane", "warp", "block"


# ------------------------------------------------------------------------- the layout's share


def layout_order(L: LinearLayout) -> list[int]:
    """Dims by the first register basis that moves along each, then the rest from rank-1 down
    (LinearEncodingAttr::getOrder; zero bases skipped)."""
    rank = len(L.out_dims)
    order: list[int] = []
    for b in L.in_bases(REG) if L.has_in_dim(REG) else ():
        nz = next((k for k, c in enumerate(b) if c), None)
        if nz is not None and nz not in order:
            order.append(nz)
    return order + [d for d in range(rank - 1, -1, -1) if d not in order]


def contig_per_thread(L: LinearLayout) -> list[int]:
    """Elements each thread holds contiguously along each dim (LinearEncodingAttr::getContigPerThread): walking
    the dims in `layout_order`, the register bases while they are 1, 2, 4, ... along that dim alone."""
    rank = len(L.out_dims)
    bases = list(L.in_bases(REG)) if L.has_in_dim(REG) else []
    contig = [1] * rank
    i = 0
    for d in layout_order(L):
        while i < len(bases) and list(bases[i]) == [contig[d] if k == d else 0 for k in range(rank)]:
            contig[d] *= 2
            i += 1
    return contig


@dataclass(frozen=True)
class Vector:
    """The vector Triton emits for one access, and what limits it."""

    vec: int                     # elements per instruction per thread
    layout_vec: int              # what the layout allows: min(128 / bits, cpt)
    order0: int
    cpt: int
    limits: dict                 # figure -> its value (elements): layout, contiguity, alignment, mask, ...
    limited_by: list             # the figures below layout_vec
    rule: str = "load"           # how the lowering combines them (`_vec_from`)


# the figures of `Vector.limits` applied after the minimum of the others, each at its step of the lowering
_STEPS = ("mask", "contiguity_hint", "shared", "atomic")
KINDS = ("load", "store", "copy", "atomic")


def _vec_from(limits: dict, rule: str) -> int:
    """The vector the lowering of `rule` builds from `limits` (elements): the minimum of the pointer's figures
    (contiguity, alignment, base alignment, layout, 128 bits), then

    - ``load`` (tt.load / tt.store / tt.atomic_*): the mask's constancy, then the atomic's own cap;
    - ``buffer`` (amdg.buffer_load / buffer_store, LoadStoreOpToLLVM.cpp ``BufferLoadOpConversion``): raised to
      the op's ``contiguity`` attribute, then the mask;
    - ``copy`` (ttg.async_copy_global_to_local, amdg.buffer_load_to_local: NVIDIA's
      ``AsyncCopyGlobalToLocalOpConversion``, AMD's and ``BufferLoadToLocalOpConversion``): the mask, raised to
      the ``contiguity`` attribute, 128 bits, then the run the shared layout takes (``lowerLdSt``'s
      largest vectorisation of registers onto consecutive shared offsets)."""
    vec = min(v for k, v in limits.items() if k not in _STEPS)
    if rule == "buffer" and limits.get("contiguity_hint"):
        vec = max(vec, limits["contiguity_hint"])
    if "mask" in limits:
        vec = min(vec, limits["mask"])
    if rule == "copy":
        if limits.get("contiguity_hint"):
            vec = max(vec, limits["contiguity_hint"])
        vec = min(vec, limits["bits"], limits.get("shared", vec))
    if "atomic" in limits:
        vec = min(vec, limits["atomic"])
    return max(1, vec)


def vector_width(L: LinearLayout, bits: int, *, contiguity: Sequence[int], divisibility: Sequence[int],
                 mask_alignment: int | None = None, buffer: bool = False,
                 base_divisibility_bytes: int | None = None, contiguity_hint: int = 0,
                 rule: str | None = None, shared_vec: int | None = None, atomic_vec: int | None = None) -> Vector:
    """The vector width of a global access (module docstring). `divisibility` is in bytes for a pointer
    tensor, in elements for a buffer op's offsets (`buffer`). `rule` (`_vec_from`): ``load`` (default),
    ``buffer`` (default when `buffer`), ``copy``; `shared_vec`: the elements the shared layout of a copy takes
    in one vector; `atomic_vec`: an atomic's cap (1: scalar atomics, 2: a packed f16x2 pair, None: none)."""
    order0 = layout_order(L)[0]
    cpt = contig_per_thread(L)[order0]
    eb = max(1, bits // 8)
    cap = max(1, MAX_VECTOR_BITS // bits)
    rule = rule or ("buffer" if buffer else "load")
    limits: dict[str, int] = {"bits": cap, "layout": cpt}
    if buffer:
        limits["contiguity"] = contiguity[order0]
        limits["alignment"] = divisibility[order0]
        limits["base_alignment"] = max(1, (base_divisibility_bytes or 1) // eb)
    else:
        limits["contiguity"] = contiguity[order0]
        limits["alignment"] = max(1, divisibility[order0] // eb)
    if contiguity_hint and rule in ("buffer", "copy"):
        limits["contiguity_hint"] = contiguity_hint
    if mask_alignment is not None:
        limits["mask"] = max(1, mask_alignment)
    if shared_vec is not None and rule == "copy":
        limits["shared"] = max(1, shared_vec)
    if atomic_vec is not None:
        limits["atomic"] = max(1, atomic_vec)
    vec = _vec_from(limits, rule)
    layout_vec = min(cap, cpt, limits.get("atomic", cap))
    limited = [k for k, v in limits.items() if k not in ("bits", "layout", "contiguity_hint", "atomic")
               and v < layout_vec]
    return Vector(vec, layout_vec, order0, cpt, limits, limited, rule)


def amd_generation(target: str | None) -> int:
    """The gfx major version of an AMD target name (gfx942 -> 9, gfx1250 -> 12; 9 when unknown)."""
    m = re.search(r"gfx(\d+?)(\d\w)$", target or "")
    return int(m.group(1)) if m else 9


def instruction(vendor: str, kind: str, bits: int, vec: int, buffer: bool = False, target: str | None = None,
                packed: bool = False) -> str:
    """The instruction one vector is issued as: NVIDIA's PTX (``ld.global.v4.b32``, ``cp.async.cg.shared.global
    16`` with its cp-size, ``atom.global.v4.b32`` / ``atom.global.f16x2``), AMD's GCN (``global_load_dwordx4``,
    ``buffer_store_short``; gfx11 and later ``global_load_b128``, ``buffer_load_u16``; copies
    ``global_load_lds_dwordx4`` / ``global_load_async_to_lds_b128``; atomics ``global_atomic_b32``,
    ``global_atomic_pk_b16x2``). `target`: the hardware's name (AMD generation)."""
    nbits = max(8, bits)
    total = nbits * vec
    nbytes = total // 8
    if vendor == "nvidia":
        if kind == "copy":
            return f"cp.async.{'cg' if nbytes == 16 else 'ca'}.shared.global {nbytes}"
        if kind == "atomic":
            if packed:
                return "atom.global.f16x2"
            return "atom.global" + (f".v{vec}" if vec > 1 else "") + f".b{nbits}"
        width = min(total, max(32, nbits))
        words = max(1, total // width)
        return f"{'ld' if kind == 'load' else 'st'}.global" + (f".v{words}" if words > 1 else "") + f".b{width}"
    new = amd_generation(target) >= 11
    base = "buffer_" if buffer else "global_"
    if kind == "atomic":
        return base + ("atomic_pk_b16x2" if packed else f"atomic_b{total}")
    if kind == "copy":
        if new:
            return f"{base}load_async_to_lds_b{total}"
        dw = {1: "ubyte", 2: "ushort", 4: "dword", 8: "dwordx2", 12: "dwordx3", 16: "dwordx4"}.get(nbytes, f"b{total}")
        return f"global_load_lds_{dw}" if not buffer else f"buffer_load_{dw} lds"
    prefix = base + kind + "_"
    if new:
        return prefix + (f"u{total}" if kind == "load" and nbytes < 4 else f"b{total}")
    name = {1: "byte", 2: "short", 4: "dword", 8: "dwordx2", 12: "dwordx3", 16: "dwordx4"}.get(nbytes, f"b{total}")
    if kind == "load" and nbytes in (1, 2):
        name = "u" + name
    return prefix + name


# ------------------------------------------------------------------------- requests and sectors


def _stride_bytes(s: Any) -> int:
    return UNKNOWN_STRIDE_BYTES if s is None or not isinstance(s, int) else s


@dataclass(frozen=True)
class Request:
    """One warp instruction: the warp, its register start, each lane's (first byte) address."""

    warp: int
    register: int
    addresses: tuple[int, ...]
    sectors: int
    min_sectors: int


class Plan:
    """Every request of one access by one CTA (`requests`), with the figures a probe reads. With
    ``instruction_vec`` below ``vec`` (`whole_runs`), a "request" here is the instruction_vec-element requests of
    one warp that read its threads' runs of vec elements, taken together."""

    def __init__(self, L: LinearLayout, bits: int, vec: int, strides_bytes: Sequence[int], kind: str,
                 base_offset_bytes: int = 0, instruction_vec: int | None = None):
        self.L, self.bits, self.vec, self.kind = L, bits, vec, kind
        self.instruction_vec = instruction_vec or vec     # < vec: each "request" is a run of vec / this vectors
        self.strides = [int(s) for s in strides_bytes]
        self.base = base_offset_bytes
        self.vector_bytes = max(8, bits) * vec // 8
        self.element_bytes = max(1, bits // 8)
        free = L.get_free_variable_masks()
        # repeated registers: loads, copies (removeBroadcastedRegs) and atomics (getCanonicalIndex) skip them
        self.reg_free = free.get(REG, 0) if kind != "store" or stores_skip_repeated_registers() else 0
        # a warp repeating another's data: stores, copies and atomics predicate it off (the redundant-thread
        # predicate); a load's data is still needed there
        self.warp_free = free.get(WARP, 0) if kind != "load" else 0
        self.regs = L.in_dim_size(REG) if L.has_in_dim(REG) else 1
        self.lanes = L.in_dim_size(LANE) if L.has_in_dim(LANE) else 1
        self.warps = L.in_dim_size(WARP) if L.has_in_dim(WARP) else 1

    def _columns(self, d: str) -> list[list[int]]:
        """Per out-dim, its coordinate at every value of in-dim d alone (the others 0): a layout is linear, so
        an index's coordinates are the XOR of its in-dims' (cached per plan). Built by doubling: the values
        with bit k set are those below 2^k XORed with basis k (what `LinearLayout.apply` computes)."""
        cache: dict[str, list[list[int]]] = self.__dict__.setdefault("_coordinates", {})
        columns = cache.get(d)
        if columns is None:
            bases = self.L.in_bases(d) if self.L.has_in_dim(d) else ()
            columns = cache[d] = []
            for k in range(self.L.num_out_dims):
                col = [0]
                for b in bases:
                    c = b[k]
                    col += [x ^ c for x in col]
                columns.append(col)
        return columns

    def _table(self, d: str) -> list[tuple[int, ...]]:
        """The coordinates of every value of in-dim d alone (`_columns`, row by row; cached per plan)."""
        cache = self.__dict__.setdefault("_tables", {})
        table = cache.get(d)
        if table is None:
            columns = self._columns(d)
            table = cache[d] = list(zip(*columns)) if columns else [()] * self._size(d)
        return table

    def _size(self, d: str) -> int:
        return self.L.in_dim_size(d) if self.L.has_in_dim(d) else 1

    def _offsets(self, d: str) -> list[int]:
        """Per value of in-dim d alone, its address offset sum_k c_k * stride_k (`_columns`, dim by dim)."""
        offsets = [0] * self._size(d)
        for col, s in zip(self._columns(d), self.strides):
            if s:
                offsets = [o + c * s for o, c in zip(offsets, col)]
        return offsets

    def _basis_bits(self, d: str, skip: int = 0) -> list[int]:
        """Per out-dim, the coordinate bits in-dim d's bases (from basis `skip` on) set: their OR."""
        acc = [0] * self.L.num_out_dims
        if self.L.has_in_dim(d):
            for b in self.L.in_bases(d)[skip:]:
                acc = [m | c for m, c in zip(acc, b)]
        return acc

    def _lane_parts(self) -> tuple[list[int], list[int]]:
        """Per dim, the coordinate bits some lane sets (the OR of the lane bases); per lane, its address
        offset sum_d c_d * stride_d (cached per plan). Where a request's register-and-warp coordinate r_d
        shares no bit with the lanes' in every dim, r_d ^ c_d = r_d + c_d: lane i's address is A + B_i."""
        parts = self.__dict__.get("_lanes")
        if parts is None:
            parts = self.__dict__["_lanes"] = (self._basis_bits(LANE), self._offsets(LANE))
        return parts

    def address(self, register: int, lane: int, warp: int) -> int:
        r, ln, w = self._table(REG)[register], self._table(LANE)[lane], self._table(WARP)[warp]
        return self.base + sum((a ^ b ^ c) * s for a, b, c, s in zip(r, ln, w, self.strides))

    def starts(self) -> list[int]:
        """The register starts Triton issues (repeated registers skipped)."""
        return [r for r in range(0, self.regs, self.vec) if (r & self.reg_free) == 0]

    def issuing_warps(self) -> list[int]:
        return [w for w in range(self.warps) if (w & self.warp_free) == 0]

    def request(self, warp: int, register: int) -> Request:
        """The request of one warp at one register start: `address` of every lane (the register's and the
        warp's coordinates XORed once, then each lane's), and its sectors (`_count`)."""
        r, w = self._table(REG)[register], self._table(WARP)[warp]
        rw = [a ^ b for a, b in zip(r, w)]
        return Request(warp, register, self._lane_addresses(rw), *self._count(rw))

    def _lane_addresses(self, rw: Sequence[int]) -> tuple[int, ...]:
        """Every lane's address at the register-and-warp coordinates rw: base + sum_d (rw_d ^ c_d) * stride_d,
        which is A + B_i where rw shares no bit with the lanes' (`_split`)."""
        shift = self._split(rw)
        if shift is not None:
            return tuple([shift + b for b in self._lane_parts()[1]])
        base, strides = self.base, self.strides
        return tuple(base + sum((a ^ c) * s for a, c, s in zip(rw, lane, strides)) for lane in self._table(LANE))

    def _split(self, rw: Sequence[int]) -> int | None:
        """A = base + sum_d rw_d * stride_d, when the register-and-warp coordinates rw share no coordinate bit
        with the lanes' in any dim (`_lane_parts`: lane i's address is then A + B_i); else None."""
        masks, _ = self._lane_parts()
        if any([a & m for a, m in zip(rw, masks)]):
            return None
        return self.base + sum([a * s for a, s in zip(rw, self.strides)])

    def _count(self, rw: Sequence[int]) -> tuple[int, int]:
        """(sectors, min_sectors) of the request at the register-and-warp coordinates rw: by A's residue where
        the address splits (`_split`, `_residue_count`); else over the lanes' addresses."""
        shift = self._split(rw)
        if shift is not None:
            return self._residue_count(shift)
        addrs, vb = self._lane_addresses(rw), self.vector_bytes
        return sectors_of(addrs, vb), min_sectors_of(addrs, vb)

    def _residue_count(self, shift: int) -> tuple[int, int]:
        """(sectors, min_sectors) of the request whose lane i's address is shift + B_i (`_lane_parts`). They
        depend on shift only through shift mod 32 (adding 32 k to every address moves every sector by k):
        counted once per residue (cached per plan)."""
        counts: dict[int, tuple[int, int]] = self.__dict__.setdefault("_counts", {})
        count = counts.get(shift % SECTOR_BYTES)
        if count is None:
            addrs, vb = [shift + b for b in self._lane_parts()[1]], self.vector_bytes
            count = counts[shift % SECTOR_BYTES] = (sectors_of(addrs, vb), min_sectors_of(addrs, vb))
        return count

    def _split_shifts(self, starts: Sequence[int], warps: Sequence[int]) -> tuple[list[int], list[int]] | None:
        """Per register start and per issuing warp, its share of A (`_residue_count`): sum_d r_d * stride_d,
        and base + sum_d w_d * stride_d; when, per dim, the bits the starts' bases (those from vec on: a start
        is a multiple of vec), the warps' and the lanes' set are pairwise disjoint. Then every request's
        r_d ^ w_d = r_d + w_d shares no bit with the lanes', and its A is the start's share plus the warp's;
        else None."""
        masks, _ = self._lane_parts()
        start_bits, warp_bits = self._basis_bits(REG, log2(self.vec)), self._basis_bits(WARP)
        if any([(a & b) | (a & m) | (b & m) for a, b, m in zip(start_bits, warp_bits, masks)]):
            return None
        register_offsets, warp_offsets = self._offsets(REG), self._offsets(WARP)
        return [register_offsets[r] for r in starts], [self.base + warp_offsets[w] for w in warps]

    def counts(self) -> list[tuple[int, int, int, int]]:
        """(warp, register start, sectors, min_sectors) of every request, in `requests`' order, without the
        lanes' addresses (made once per plan: the F2 engine and the details both read them)."""
        cache = self.__dict__.get("_tally")
        if cache is None:
            starts, warps = self.starts(), self.issuing_warps()
            split = self._split_shifts(starts, warps)
            if split is not None:
                start_shares, warp_shares = split
                cache = [(w, r, *self._residue_count(ws + rs))
                         for w, ws in zip(warps, warp_shares) for r, rs in zip(starts, start_shares)]
            else:
                regs, warp_rows = self._table(REG), self._table(WARP)
                cache = [(w, r, *self._count([a ^ b for a, b in zip(regs[r], warp_rows[w])]))
                         for w in warps for r in starts]
            self.__dict__["_tally"] = cache
        return cache

    def requests(self) -> list[Request]:
        """Every request, warp by warp, register start by register start, with its lanes' addresses."""
        return [self.request(w, r) for w, r, _, _ in self.counts()]


def whole_runs(v: Vector, plan: Plan, kind: str, l1_cached: bool) -> bool:
    """Whether the sectors of this access are judged per run of a thread rather than per request: a load that
    leaves its lines in L1 (`l1_cached`), whose threads hold runs of two vectors (cpt = 2 vec elements along
    dim o, contiguous in memory: o's stride is one element). It reads each run as two requests, each touching up
    to twice its minimum of sectors, and the second request reads the rest of each sector the first touched, from
    L1: the sectors fetched from memory are those of the whole runs. Triton's Coalesce pass (CoalesceUtils.cpp
    ``buildCoalescedEncoding``) lays loads out this way on purpose (it caps a thread's run at 128 bits for stores
    only: "for loads ... the gaps won't matter due to the L1 cache").

    Measured on an H100 (Triton 3.6, Gluon: tools/split_runs_timing.py, stored in
    tools/coalescing_probe/split_runs/): f32 sums and copies with 8-element runs (two vectors) ran within 3.3%
    of 4-element ones (0.988x to 1.032x) at 1 GiB, 64 MiB and 16 MiB; with 16-element runs (four vectors, four
    times the 128-byte lines per request) up to 8% slower once the data sits in L2 (1.080x), so runs of more
    vectors stay judged per request. The L1 figures (what Nsight Compute's l1tex sector counters measure) stay
    in ``details``; the runs' own are ``details.runs``. Not measured on AMD, where the same rule is applied."""
    return _cached_runs(v, plan, kind, l1_cached) and v.cpt == 2 * v.vec


def _cached_runs(v: Vector, plan: Plan, kind: str, l1_cached: bool) -> bool:
    """A load cached in L1, at the layout's full vector, whose threads hold runs of several vectors contiguous in
    memory (o's stride is one element): what `whole_runs` and `_long_runs_fetched_once` look at."""
    return (kind == "load" and l1_cached and v.cpt > v.vec == v.layout_vec
            and plan.strides[v.order0] == plan.element_bytes)


def _run_plan(v: Vector, plan: Plan) -> Plan:
    """`plan` with each thread's whole run (cpt elements) as one "request" of its warp."""
    return Plan(plan.L, plan.bits, v.cpt, plan.strides, plan.kind, plan.base, instruction_vec=v.vec)


def _runs_figure(run_plan: Plan) -> dict:
    """``details.runs``: a run plan's elements, bytes, sectors and their minimum."""
    counts = run_plan.counts()
    return {"elements": run_plan.vec, "bytes": run_plan.vector_bytes, "sectors": sum([c[2] for c in counts]),
            "min_sectors": sum([c[3] for c in counts])}


def _long_runs_fetched_once(v: Vector, plan: Plan, kind: str, l1_cached: bool) -> dict | None:
    """For a cached load whose threads' contiguous runs are more than two vectors (which `whole_runs` leaves judged
    per request): the runs' figures (as ``details.runs``) when the whole runs touch their minimum of sectors, i.e.
    every sector a request half-uses is the rest of the same warp's other requests (enumerated: a note on a
    failing check, not a verdict); else None."""
    if not (_cached_runs(v, plan, kind, l1_cached) and v.cpt > 2 * v.vec):
        return None
    runs = _runs_figure(_run_plan(v, plan))
    return runs if runs["sectors"] == runs["min_sectors"] else None


def stores_skip_repeated_registers() -> bool:
    """Whether the active Triton's store lowering skips the registers that repeat another (register free
    variables): Triton 3.9 does (its PTX has one ``st.global`` per distinct vector); 3.5 to 3.8 store every
    vector start, repeats included, and ptxas keeps the repeated stores (measured on an H100 and an H200, Triton 3.6:
    tools/coalescing_probe.py's ``f32_reg_broadcast`` issues 8 store requests, not 4). Their repeated
    *loads* are in the PTX too, but ptxas merges loads of the same address, so loads skip repeats in every
    version (the same case: 4 ``LDG`` per warp)."""
    from ..versions import follows
    return follows("stores_skip_repeated_registers")


def sectors_of(addresses: Sequence[int], vector_bytes: int) -> int:
    """Distinct 32-byte sectors the lanes' vectors touch."""
    if vector_bytes <= SECTOR_BYTES + 1:         # a vector spans its first and last byte's sectors alone
        last = vector_bytes - 1
        return len({a // SECTOR_BYTES for a in addresses} | {(a + last) // SECTOR_BYTES for a in addresses})
    return len({s for a in addresses for s in range(a // SECTOR_BYTES, (a + vector_bytes - 1) // SECTOR_BYTES + 1)})


def min_sectors_of(addresses: Sequence[int], vector_bytes: int) -> int:
    """The fewest sectors that can hold the bytes the lanes move (distinct vectors x their bytes)."""
    return -(-len(set(addresses)) * vector_bytes // SECTOR_BYTES)


def probe(layout: LinearLayout, dtype_bits: int, strides: Sequence[int | None], *, vec: int | None = None,
          kind: str = "load", base_offset_bytes: int = 0) -> dict:
    """The predicted requests and sectors of one global access per CTA, for a measurement to compare with
    (Nsight Compute's ``l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum`` and ``..._sectors_...``): strides in
    elements per dim (None: unknown, counted as `UNKNOWN_STRIDE_BYTES`), vec the vector width (default the
    layout's: min(128 / bits, contiguous elements per thread)). Returns ``requests``, ``sectors``,
    ``min_sectors``, ``instruction_vector_bytes`` and ``per_request`` (warp, register, sectors, min)."""
    eb = max(1, dtype_bits // 8)
    if vec is None:
        vec = min(max(1, MAX_VECTOR_BITS // dtype_bits), contig_per_thread(layout)[layout_order(layout)[0]])
    p = Plan(layout, dtype_bits, vec, [s * eb if isinstance(s, int) else UNKNOWN_STRIDE_BYTES for s in strides],
             kind, base_offset_bytes)
    reqs = list(p.requests())
    return {"requests": len(reqs), "sectors": sum(r.sectors for r in reqs),
            "min_sectors": sum(r.min_sectors for r in reqs), "instruction_vector_bytes": p.vector_bytes,
            "per_request": [(r.warp, r.register, r.sectors, r.min_sectors) for r in reqs]}


# ------------------------------------------------------------------------- engines


def _f2(L: LinearLayout, v: Vector, plan: Plan | None, broadcast: bool = False) -> EngineVerdict:
    cpt = contig_per_thread(L)[v.order0]
    if cpt != v.cpt:
        return EngineVerdict("f2", "unknown", explanation="internal: contiguity walk disagrees")
    if v.vec < v.layout_vec and not broadcast:
        cx = _narrow_witness(L, v)
        return EngineVerdict("f2", "fails", counterexample=cx, explanation=_narrow_text(v))
    if plan is None:
        return EngineVerdict("f2", "holds", explanation=f"{v.vec}-element vectors, the layout's most")
    for warp, register, sectors, least in plan.counts():
        if sectors > least:
            req = plan.request(warp, register)
            cx = _split_witness(plan, req)
            return EngineVerdict("f2", "fails", counterexample=cx, explanation=_split_text(plan, req))
    return EngineVerdict("f2", "holds", explanation="full vectors; every request touches its minimum sectors")


def _z3_layout_vec(L: LinearLayout, order0: int, cap: int, guess: int = 1) -> tuple[int, str | None]:
    """The largest W (a power of two, at most cap and the registers) such that every register r < W holds
    r along order0 alone: proved by Z3 (unsat for W, sat for 2W). What W claims is monotone (the registers
    below W include those below W / 2: unsat at W is unsat at every power of two below it), so the walk up
    from 1 may start at the largest power of two T <= min(`guess`, cap) once T is unsat: a right guess (the
    F2 walk's cpt) leaves one unsat query and at most one sat; a wrong one (sat at T) walks up from 1."""
    regs = L.in_dim_size(REG) if L.has_in_dim(REG) else 1
    shifts, acc = [], 0
    for _, size in L.out_dim_sizes:
        shifts.append(acc)
        acc += log2(size)

    def holds(w: int) -> str:
        if w == 1:
            return "unsat"
        if w > regs or log2(dict(L.out_dim_sizes)[L.out_dims[order0]]) < log2(w):
            return "sat"
        ob = smt.Obligation(NAME + ".cpt")
        r = ob.var("r", log2(w))
        full = smt.widen(r, max(1, log2(regs))) if log2(regs) > log2(w) else r
        image = ob.image(L, {REG: full})
        width = max(1, L.total_out_size_log2)
        want = smt.widen(r, width) << shifts[order0] if width > log2(w) else r << shifts[order0]
        ob.require(image != want)
        return ob.solve().status

    w = 1
    start = 1 << (max(1, min(guess, cap)).bit_length() - 1)
    if start > 1:
        s = holds(start)
        if s == "unknown":
            return w, f"{smt.solver_name()} gave up on the layout's contiguous registers"
        if s == "unsat":
            w = start
    while w < cap:
        s = holds(w * 2)
        if s == "unknown":
            return w, f"{smt.solver_name()} gave up on the layout's contiguous registers"
        if s != "unsat":
            break
        w *= 2
    return w, None


def _z3(L: LinearLayout, v: Vector, plan: Plan | None, broadcast: bool = False) -> EngineVerdict:
    cap = min(v.limits["bits"], v.limits.get("atomic", v.limits["bits"]))      # an atomic's own cap too
    w, gave_up = _z3_layout_vec(L, v.order0, cap, v.cpt)
    if gave_up:
        return EngineVerdict("z3", "unknown", explanation=gave_up)
    layout_vec = min(cap, w)
    if min(v.vec, layout_vec) < layout_vec and not broadcast:
        return EngineVerdict("z3", "fails", counterexample=_narrow_witness(L, v),
                             explanation=f"{smt.solver_name()}: registers 0..{w - 1} run along dim{v.order0}, "
                                         f"the access uses {v.vec}")
    if plan is None:
        return EngineVerdict("z3", "holds", explanation=f"registers 0..{w - 1} run along dim{v.order0} (unsat)")
    return _z3_sectors(plan)


def _z3_sectors(p: Plan) -> EngineVerdict:
    L = p.L
    lane_offsets = _lane_offsets(p)
    # counting over pairs of lanes goes to the tactic at once (`smt.Obligation`); split addresses are a few tests
    ob = smt.Obligation(NAME, counting=lane_offsets is None)
    reg_bits, vec_bits = log2(p.regs), log2(p.vec)
    warp_bits, lane_bits = log2(p.warps), log2(p.lanes)
    # split addresses need only A modulo a sector (the residue r below); others are written at a width that holds
    # every address (its span) as a non-negative number, with room to spare
    if lane_offsets is not None:
        width = SECTOR_BITS
    else:
        span = sum(abs(s) * (size - 1) for s, (_, size) in zip(p.strides, L.out_dim_sizes)) + abs(p.base) + \
            p.vector_bytes + SECTOR_BYTES
        width = max(16, span.bit_length() + 2)
    index: dict[str, Any] = {}
    if reg_bits > vec_bits:
        g = ob.var("g", reg_bits - vec_bits)
        index[REG] = smt.widen(g, reg_bits) << vec_bits
        pinned = (p.reg_free >> vec_bits)
        if pinned:
            ob.require(g & pinned == 0)
    if warp_bits:
        wv = ob.var("w", warp_bits)
        index[WARP] = wv
        if p.warp_free:
            ob.require(wv & p.warp_free == 0)
    shifts, acc = [], 0
    for _, size in L.out_dim_sizes:
        shifts.append(acc)
        acc += log2(size)
    crossing = not _aligned_statically(p)

    def address(lane: int | None) -> Any:
        """The byte address at this lane (None: lane 0's, the symbolic part A of a split address)."""
        ix = dict(index)
        if lane_bits:
            ix[LANE] = smt.const(lane or 0, lane_bits)
        packed = ob.image(L, ix)
        addr = smt.const(p.base, width)
        for k, (s, (_, size)) in enumerate(zip(p.strides, L.out_dim_sizes)):
            b = log2(size)
            if not b or not s:
                continue
            low = min(b, width)         # modulo 2^width only the coordinate's low bits count
            coord = smt.widen(smt.extract(shifts[k] + low - 1, shifts[k], packed), width)
            addr = addr + coord * s
        return addr
    # the counters' width: room for 32 x (at most two sectors per lane) and for distinct lanes x vector bytes + 32
    cw = max((2 * p.lanes * SECTOR_BYTES).bit_length(), (p.lanes * p.vector_bytes + SECTOR_BYTES).bit_length()) + 1
    one, zero = f"(_ bv1 {cw})", f"(_ bv0 {cw})"

    def count(certain: int, parts: list[str]) -> Any:
        """certain + the terms `parts`, as a counter."""
        if not parts:
            return smt.const(certain, cw)
        return smt.Term(f"(bvadd (_ bv{certain} {cw}) {' '.join(parts)})", cw)

    if lane_offsets is not None:
        # lane i's address is A + B_i (`_lane_offsets`), A a term of the request's registers and warp, and the
        # sector number floor((A + o) / 32) of a term grows with its offset o: over the distinct offsets in
        # increasing order, the sectors are the first one and each change between neighbours. Neighbours a sector
        # or more apart change for certain; neighbours o < o' closer than that (d = o' - o) change exactly when
        # (A + o) mod 32 + d >= 32, and (A + o) mod 32 = (r + o) mod 32 with r = A mod 32. So the count is
        # 1 + certain + sum over the near pairs of [(r + o) mod 32 >= 32 - d], a function of the 5 bits r alone
        # (`a` below, A's value modulo 32), and pairs alike in (o mod 32, d) are one test counted that many times.
        # The distinct addresses are the distinct start offsets.
        shared = ob.var("a", width)
        ob.require(shared == address(None) - lane_offsets[0])
        offsets = lane_offsets + ([b + p.vector_bytes - 1 for b in lane_offsets] if crossing else [])
        rising = sorted(set(offsets))
        near: dict[tuple[int, int], int] = {}
        certain = 1
        for prev, o in zip(rising, rising[1:]):
            if o - prev >= SECTOR_BYTES:
                certain += 1
            else:
                key = (prev % SECTOR_BYTES, o - prev)
                near[key] = near.get(key, 0) + 1
        tests = [f"(ite (bvuge (bvadd {shared.text} (_ bv{c} {width})) (_ bv{SECTOR_BYTES - d} {width})) "
                 f"(_ bv{m} {cw}) {zero})" for (c, d), m in sorted(near.items())]
        n_sectors = count(certain, tests)
        n_addrs = smt.const(len(set(lane_offsets)), cw)
        opening, closing = "", ""                   # no let: the tests read `a` alone
    else:
        # any two terms may meet: a term is new when it differs from every earlier one (a request of 64 lanes
        # compares 2,016 pairs). The terms are written as SMT-LIB2 text directly (the text `smt.Term`'s operators
        # give), each lane's address and each sector number bound once by a ``let`` (the text stays linear, and
        # no equation is left for the solver to substitute)
        mod = 1 << width
        shift_text = f"(_ bv{log2(SECTOR_BYTES)} {width})"
        last_text = f"(_ bv{(p.vector_bytes - 1) % mod} {width})"
        lane_values, starts, ends = [], [], []
        for ln in range(p.lanes):
            named = f"?a{ln}"
            lane_values.append(f"({named} {address(ln).text})")
            starts.append(named)
            ends.append(f"(bvadd {named} {last_text})")
        terms = starts + (ends if crossing else [])
        sector_values = [f"(?s{k} (bvashr {t} {shift_text}))" for k, t in enumerate(terms)]

        def new_terms(texts: list[str]) -> Any:
            return count(1, [f"(ite (and {' '.join(f'(distinct {t} {u})' for u in texts[:i])}) {one} {zero})"
                             if i > 1 else f"(ite (distinct {t} {texts[0]}) {one} {zero})"
                             for i, t in enumerate(texts) if i])
        n_sectors = new_terms([f"?s{k}" for k in range(len(terms))])
        n_addrs = new_terms(starts)
        opening, closing = f"(let ({' '.join(lane_values)}) (let ({' '.join(sector_values)}) ", "))"
    bound = smt.negate(smt.ult(n_sectors * SECTOR_BYTES, n_addrs * p.vector_bytes + SECTOR_BYTES))
    ob.require(smt.Term(opening + bound.text + closing, None))

    def on_sat(values):
        warp = values.get("w", 0)
        reg = values.get("g", 0) << vec_bits
        req = p.request(warp, reg)
        return _split_witness(p, req), smt.solver_name() + " model: " + _split_text(p, req)

    return smt.verdict(ob.solve(), holds="no request touches more than its minimum sectors (unsat)",
                       on_sat=on_sat)


def _lane_offsets(p: Plan) -> list[int] | None:
    """Per lane, the byte offset B_i such that lane i's address in every request is A(register, warp) + B_i,
    when it is so; else None. It is so when, in every dim, the coordinate bits the lane bases set and those the
    issuing registers' and warps' bases set are disjoint: then the XOR of their coordinates is their sum, and the
    address (a sum of coordinates times strides) splits into the two parts. Two lanes' addresses then differ by
    the constant B_i - B_j in every request: they are equal exactly when the offsets are, and their 32-byte
    sectors differ whenever the offsets are 32 or more apart (the Z3 engine tests only neighbouring offsets
    closer than that, on A modulo a sector)."""
    lanes, offsets = p._lane_parts()                     # the lane bases' bits per dim, sum_d c_d * stride_d
    rest = [a | b for a, b in zip(p._basis_bits(REG, log2(p.vec)), p._basis_bits(WARP))]
    if any(a & b for a, b in zip(lanes, rest)):
        return None
    return list(offsets)


def _aligned_statically(p: Plan) -> bool:
    """Every lane's vector starts at a multiple of its bytes (so lies inside one sector)."""
    vb = p.vector_bytes
    if vb == 1:
        return True
    if p.base % vb:
        return False
    cols = []
    for d in (REG, LANE, WARP):
        if p.L.has_in_dim(d):
            for i, b in enumerate(p.L.in_bases(d)):
                if d == REG and i < log2(p.vec):
                    continue
                cols.append(sum(c * s for c, s in zip(b, p.strides)))
    return all(c % vb == 0 for c in cols)


# ------------------------------------------------------------------------- witnesses


def _narrow_witness(L: LinearLayout, v: Vector) -> Counterexample:
    data = {"vec": v.vec, "layout_vec": v.layout_vec, "order0": v.order0, "contig_per_thread": v.cpt,
            "limits": dict(v.limits), "limited_by": list(v.limited_by)}

    data["rule"] = v.rule

    def replay(d) -> bool:
        cpt = contig_per_thread(L)[layout_order(L)[0]]
        lim = dict(d["limits"])
        vec = _vec_from(lim, d["rule"])
        return cpt == d["contig_per_thread"] and vec == d["vec"] < \
            min(lim["bits"], cpt, lim.get("atomic", lim["bits"])) == d["layout_vec"]
    return Counterexample("narrow_vector", data, replay)


def _split_witness(p: Plan, req: Request) -> Counterexample:
    lanes = [{"lane": ln, "address": a, "sector": a // SECTOR_BYTES} for ln, a in enumerate(req.addresses)]
    data = {"warp": req.warp, "register": req.register, "vector_bytes": p.vector_bytes, "lanes": lanes,
            "sectors": req.sectors, "min_sectors": req.min_sectors}

    def replay(d) -> bool:
        addrs = [p.address(d["register"], x["lane"], d["warp"]) for x in d["lanes"]]
        return addrs == [x["address"] for x in d["lanes"]] and \
            sectors_of(addrs, d["vector_bytes"]) == d["sectors"] > min_sectors_of(addrs, d["vector_bytes"]) \
            == d["min_sectors"]
    return Counterexample("split_sectors", data, replay)


def _narrow_text(v: Vector) -> str:
    why = {"contiguity": f"the addresses run contiguously over only {v.limits.get('contiguity')} element(s) along "
                         f"dim{v.order0}",
           "alignment": f"the pointer is provably aligned to only {v.limits.get('alignment')} element(s) along "
                        f"dim{v.order0} (its divisibility)",
           "base_alignment": f"the buffer base is aligned to only {v.limits.get('base_alignment')} element(s)",
           "mask": f"the mask is constant over only {v.limits.get('mask')} element(s) along dim{v.order0}",
           "shared": f"the shared layout takes only {v.limits.get('shared')} consecutive element(s) of a thread "
                     f"(its contiguous run)"}
    reasons = "; ".join(why[k] for k in v.limited_by if k in why) or "the hint"
    return f"{v.vec}-element vectors where the layout allows {v.layout_vec} along dim{v.order0}: {reasons}"


def _split_text(p: Plan, req: Request) -> str:
    """The request in words, with lane 0 and the first lane in another sector, and how far apart they are (a
    distance of `UNKNOWN_STRIDE_BYTES` or more is a stride known only at run time)."""
    a = req.addresses
    other = next((ln for ln in range(1, len(a)) if a[ln] // SECTOR_BYTES != a[0] // SECTOR_BYTES), None)
    what = f"request at register {req.register} touches" if p.instruction_vec == p.vec else \
        (f"{p.vec // p.instruction_vec} requests at registers {req.register}-{req.register + p.vec - 1} (its "
         f"threads' {p.vector_bytes}-byte runs) touch")
    text = (f"warp {req.warp}'s {what} {req.sectors} sectors for {len(set(a)) * p.vector_bytes} bytes (minimum "
            f"{req.min_sectors})")
    if other is None:
        return text
    gap = abs(a[other] - a[0])
    apart = "a runtime stride apart" if gap >= UNKNOWN_STRIDE_BYTES else f"{gap} bytes apart"
    return text + f": lanes 0 and {other} are {apart}"


def suggestion(v: Vector, contiguity: Sequence[int], bits: int, shape: Sequence[int],
               split: bool, buffer: bool = False) -> str | None:
    """The change that gives full vectors and minimal sectors, where one can be said."""
    contiguous = max(range(len(contiguity)), key=lambda d: (contiguity[d], d))
    cap = max(1, MAX_VECTOR_BITS // bits)
    eb = max(1, bits // 8)
    if contiguity[contiguous] > 1 and (contiguous != v.order0 or split) and contiguous != v.order0:
        spt = min(cap, contiguity[contiguous], shape[contiguous])
        return (f"the addresses are contiguous along dim{contiguous}, the layout's order starts with dim{v.order0}: "
                f"a layout with order[0] = {contiguous} and sizePerThread[{contiguous}] = {spt} (e.g. "
                f"ttg.convert_layout before the access, or let Triton's coalesce pass choose it)")
    if "alignment" in v.limited_by:
        want = v.layout_vec * (1 if buffer else eb)
        return (f"prove {want}-{'element' if buffer else 'byte'} alignment of the pointer along dim{v.order0}: "
                f"`tl.multiple_of` on the offsets / strides (a stride argument divisible by {v.layout_vec}), "
                f"or a base pointer with tt.divisibility >= {v.layout_vec * eb}")
    if "contiguity" in v.limited_by:
        return (f"if the offsets are contiguous in runs of {v.layout_vec} along dim{v.order0}, say so with "
                f"`tl.max_contiguous(offs, {v.layout_vec})` (and `tl.multiple_of`)")
    if "shared" in v.limited_by:
        return (f"a shared layout whose contiguous run (vec, order[0] = {v.order0}) takes {v.layout_vec} elements "
                f"of a thread")
    if "mask" in v.limited_by:
        return (f"mask whole vectors: a bound that is a multiple of {v.layout_vec} along dim{v.order0} "
                f"(`tl.multiple_of` on it), or no mask on full tiles")
    if split:
        return "lanes of a warp should take consecutive vectors along the contiguous dim (a coalesced layout)"
    return None


# ------------------------------------------------------------------------- the property


def coalesced(L: LinearLayout, bits: int, *, contiguity: Sequence[int], divisibility: Sequence[int],
              strides_bytes: Sequence[Any] | None, hardware: Hardware | str = "sm90", kind: str = "load",
              mask_alignment: int | None = None, buffer: bool = False, base_divisibility_bytes: int | None = None,
              contiguity_hint: int = 0, base_offset_bytes: int = 0, engines: Engines = DEFAULT_ENGINES,
              rule: str | None = None, shared_vec: int | None = None, atomic_vec: int | None = None,
              atomic_word: str | None = None, l1_cached: bool = True,
              constancy: Sequence[int] | None = None) -> Result:
    """Is the access as wide as the layout allows, and does every warp request touch its minimum sectors
    (module docstring)? `strides_bytes`: bytes per coordinate step per dim (an int, or None / `Unknown`:
    a runtime stride), None when the address is not affine (then only the vector is judged). `kind`: ``load``,
    ``store``, ``copy`` (a global-to-shared copy: cp.async, direct-to-LDS) or ``atomic``; `rule`,
    `shared_vec`, `atomic_vec`: `vector_width`; `atomic_word`: the instruction a one-element 16-bit atomic is
    done with on the 32-bit word that holds it (a packed add of lane pairs, a compare-and-swap loop), where the
    target has no 16-bit atomic: the instruction then moves 4 bytes a lane (``details.atomic_word``);
    `l1_cached`: a load leaves its lines in L1 (False: ``ld.global.cg``, volatile; `whole_runs`); `constancy`:
    the pointer's AxisInfo constancy per dim, where its address is no affine form (``x // 784``): constant over
    at least the layout's vector along o, it is read as a broadcast (a narrower vector wastes nothing)."""
    hw = resolve(hardware)
    if kind not in KINDS:
        raise CheckerError(f"must be one of {', '.join(KINDS)}, got {kind!r}", field="kind")
    if rule not in (None, "load", "buffer", "copy"):
        raise CheckerError(f"must be 'load', 'buffer' or 'copy', got {rule!r}", field="rule")
    rank = len(L.out_dims)
    for name, vals in (("contiguity", contiguity), ("divisibility", divisibility)):
        if len(vals) != rank or any(not isinstance(x, int) or x < 1 for x in vals):
            raise CheckerError(f"needs {rank} positive integers (one per dim), got {list(vals)}", field=name)
    if strides_bytes is not None and len(strides_bytes) != rank:
        raise CheckerError(f"needs {rank} strides, got {list(strides_bytes)}", field="strides")
    if not L.has_in_dim(REG) or not L.has_in_dim(LANE):
        raise CheckerError("a distributed layout (register and lane in-dims) is needed", field="layout")
    v = vector_width(L, bits, contiguity=contiguity, divisibility=divisibility, mask_alignment=mask_alignment,
                     buffer=buffer, base_divisibility_bytes=base_divisibility_bytes, contiguity_hint=contiguity_hint,
                     rule=rule or ("copy" if kind == "copy" else None), shared_vec=shared_vec, atomic_vec=atomic_vec)
    plan = judged = None
    if strides_bytes is not None:
        plan = judged = Plan(L, bits, v.vec, [_stride_bytes(s) for s in strides_bytes], kind, base_offset_bytes)
        if whole_runs(v, plan, kind, l1_cached):
            judged = _run_plan(v, plan)
    details: dict[str, Any] = {
        "instruction": instruction(hw.vendor, kind, bits, v.vec, buffer, hw.name,
                                   packed=kind == "atomic" and atomic_vec == 2 and v.vec == 2),
        "vector_bytes": max(8, bits) * v.vec // 8,
        "vec": v.vec, "layout_vec": v.layout_vec, "order0": v.order0, "contig_per_thread": v.cpt,
        "limits": dict(v.limits), "access": kind}
    if kind == "atomic" and atomic_word and v.vec == 1 and bits == 16:
        details.update({"instruction": atomic_word, "vector_bytes": 4, "atomic_word": True})
    if plan is not None:
        counts = plan.counts()
        details.update({"requests": len(counts), "sectors": sum([c[2] for c in counts]),
                        "min_sectors": sum([c[3] for c in counts]),
                        "strides_bytes": [s if isinstance(s, int) else None for s in strides_bytes]})
    else:
        details.update({"requests": None, "sectors": None, "min_sectors": None})
    if judged is not plan:
        details["runs"] = _runs_figure(judged)
    # a pointer that does not move along the layout's contiguous dim (a splat, a broadcast: stride 0) reads one
    # address there whatever the vector: a narrower one wastes nothing, only the sectors are judged
    broadcast = strides_bytes is not None and strides_bytes[v.order0] == 0
    constant_run = constancy[v.order0] if constancy is not None and len(constancy) == rank else 1
    if constant_run >= v.layout_vec > 1:
        broadcast = True
    if broadcast:
        details["broadcast"] = True
    r = run_engines(NAME, engines, {"f2": lambda: _f2(L, v, judged, broadcast),
                                   "z3": lambda: _z3(L, v, judged, broadcast)}, details=details)
    if r.fails:
        split = r.counterexample is not None and r.counterexample.kind == "split_sectors"
        shape = [s for _, s in L.out_dim_sizes]
        s = suggestion(v, contiguity, bits, shape, split, buffer)
        long_runs = split and plan is not None and _long_runs_fetched_once(v, plan, kind, l1_cached)
        if long_runs:
            cap = max(1, MAX_VECTOR_BITS // bits)
            r.details["runs"] = long_runs
            r.explanation += (f"; but each thread's {v.cpt}-element run along dim{v.order0} is {v.cpt // v.vec} "
                              f"vectors, and together they fetch each sector once ({long_runs['sectors']}, the "
                              f"minimum): the rest are L1 hits (on an H100, such loads ran as fast from DRAM and up "
                              f"to 8% slower from L2 than runs of one or two vectors)")
            s = (f"at most {2 * cap} elements a thread along dim{v.order0} (sizePerThread[{v.order0}] <= {2 * cap}: "
                 f"runs of two vectors are read whole)")
        if s:
            r.details["suggestion"] = s
    elif r.holds:
        sect = f"; {details['sectors']} sectors in {details['requests']} requests, the minimum" \
            if plan is not None else "; sectors not counted (the address is not affine in the coordinates)"
        if "runs" in details and details["sectors"] > details["min_sectors"]:
            runs = details["runs"]
            sect = (f"; each thread's {v.cpt}-element run along dim{v.order0} is two vectors: the "
                    f"{details['requests']} requests touch {details['sectors']} L1 sectors where "
                    f"{details['min_sectors']} would do, and each run's second vector reads the rest of the "
                    f"sectors its first touched, from L1, so the runs fetch {runs['sectors']} sectors, the minimum")
        width = (f"the pointer does not move along dim{v.order0} (a broadcast): {v.vec}-element vectors read it all"
                 if broadcast and v.vec < v.layout_vec else f"{v.vec}-element vectors, the layout's most")
        if broadcast and v.vec < v.layout_vec and constant_run > 1:
            width = (f"the pointer is the same over runs of {constant_run} elements along dim{v.order0} (its AxisInfo "
                     f"constancy; a broadcast): {v.vec}-element vectors read it all")
        r.explanation = f"{details['instruction']}: {width}{sect}"
    return r


def judge(layout, shape=None, dtype_bits=None, *, contiguity: Sequence[int] | None = None,
          divisibility: Sequence[int] | None = None, strides: Sequence[int | None] | None = None,
          hardware: Any = "sm90", access: str = "load", mask_alignment: int | None = None,
          base_offset_bytes: int = 0, l1_cached: bool = True, engines: Engines = DEFAULT_ENGINES) -> Result:
    """A layout, or an encoding lowered at `shape`, accessed through a pointer tensor whose ``strides`` are in
    elements per coordinate step (default row-major contiguous; None for a dim: an unknown runtime stride).
    ``contiguity`` defaults to the dim's size where its stride is 1, else 1; ``divisibility`` (bytes) to 16
    everywhere (Triton's hint on a pointer argument); `dtype_bits`: a name or a number of bits."""
    if dtype_bits is None:
        raise CheckerError("the element type (a name or a number of bits) is needed", field="dtype_bits")
    bits = element_width(dtype_bits, field="dtype_bits")
    L = linear(layout, shape)
    dims = [s for _, s in L.out_dim_sizes]
    if strides is None:
        strides = [1] * len(dims)
        for k in range(len(dims) - 2, -1, -1):
            strides[k] = strides[k + 1] * dims[k + 1]
    if len(strides) != len(dims):
        raise CheckerError(f"needs {len(dims)} strides, got {list(strides)}", field="strides")
    if contiguity is None:
        contiguity = [dims[k] if strides[k] == 1 else 1 for k in range(len(dims))]
    if divisibility is None:
        divisibility = [16] * len(dims)
    eb = max(1, bits // 8)
    return coalesced(L, bits, contiguity=list(contiguity), divisibility=list(divisibility),
                     strides_bytes=[s * eb if isinstance(s, int) else None for s in strides], hardware=hardware,
                     kind=access, mask_alignment=mask_alignment, base_offset_bytes=base_offset_bytes,
                     l1_cached=l1_cached, engines=engines)


def decide(check, engines: Engines) -> Result:
    """A spec check (no ``kind``): its ``layout`` accessed through a pointer tensor, params ``direction``
    (load or store), ``strides``, ``contiguity``, ``divisibility``, ``mask_alignment`` and ``l1_cached`` as `judge`
    takes them.
    A TTGIR check: the pointer's (or offsets') encoding at the check's shape; params ``kind``,
    ``contiguity``, ``divisibility``, ``mask_constancy`` (the mask's AxisInfo constancy: its entry at the
    layout's order[0] is Triton's getMaskAlignment), ``strides_bytes``, ``buffer``,
    ``base_divisibility_bytes``, ``contiguity_hint``; a copy's ``shared`` operand with ``shared_shape`` and
    ``access`` (cp.async / direct_to_lds: `copy_shared_vec`); an atomic's ``atomic_vec`` and ``atomic_word``;
    ``l1_cached`` false for a load that bypasses L1 (`checker.ttgir.axis_info.caches_in_l1`; absent: cached);
    ``constancy``, the pointer's AxisInfo constancy where its address has no affine form."""
    from ..encodings import lower
    p = check.param
    if p("kind") is None:
        return judge(check.operand("layout"), check.shape, check.dtype_bits, strides=p("strides"),
                     contiguity=p("contiguity"), divisibility=p("divisibility"), hardware=check.hardware,
                     access=p("direction"), mask_alignment=p("mask_alignment"),
                     l1_cached=p("l1_cached") is not False, engines=engines)
    strides = p("strides_bytes")
    L = lower(check.operand("layout"), check.shape)
    mask = p("mask_constancy")
    mask_alignment = p("mask_alignment") if mask is None else max(1, mask[layout_order(L)[0]])
    shared_vec = p("shared_vec")
    if shared_vec is None and p("kind") == "copy" and check.operand("shared") is not None:
        shared_vec = copy_shared_vec(L, check.operand("shared"), p("shared_shape") or check.shape,
                                     check.dtype_bits or 32, check.hardware, p("access") or "cp.async")
    return coalesced(L, check.dtype_bits or 32,
                     contiguity=list(p("contiguity")), divisibility=list(p("divisibility")),
                     strides_bytes=list(strides) if strides is not None else None, hardware=check.hardware,
                     kind=p("kind"), mask_alignment=mask_alignment, buffer=bool(p("buffer")),
                     base_divisibility_bytes=p("base_divisibility_bytes"), contiguity_hint=p("contiguity_hint") or 0,
                     engines=engines, shared_vec=shared_vec, atomic_vec=p("atomic_vec"),
                     atomic_word=p("atomic_word"), l1_cached=p("l1_cached") is not False,
                     constancy=p("constancy"))


def pointer_vector(L: LinearLayout, bits: int, *, contiguity: Sequence[int], divisibility: Sequence[int],
                   mask_constancy: Sequence[int] | None = None, buffer: bool = False,
                   base_divisibility_bytes: int | None = None, contiguity_hint: int = 0) -> int:
    """The elements a lane of a global-to-shared copy moves at most as its global side allows (`vector_width`'s
    ``copy`` rule without the shared layout's cap): the pointer's AxisInfo contiguity and alignment along the
    layout's order[0], the mask's constancy there (getMaskAlignment), raised to the op's contiguity hint, at most
    128 bits. The shared-memory write can be no wider (`smem.plan.async_plan`'s max_vector)."""
    mask = None if mask_constancy is None else max(1, mask_constancy[layout_order(L)[0]])
    return vector_width(L, bits, contiguity=contiguity, divisibility=divisibility, mask_alignment=mask, buffer=buffer,
                        base_divisibility_bytes=base_divisibility_bytes, contiguity_hint=contiguity_hint,
                        rule="copy").vec


def copy_shared_vec(L: LinearLayout, shared, shape, bits: int, hardware, access: str) -> int | None:
    """The elements one vector of a global-to-shared copy writes to consecutive shared offsets, as the layouts
    allow (the shared-memory plan of the bank check: ``lowerLdSt``'s largest vectorisation, at most 16 bytes on
    NVIDIA's cp.async, the widths the target's direct-to-LDS loads take on AMD); None where the shared layout
    does not lower as a linear layout (a padded one: not capped here)."""
    from ..encodings import lower
    from .smem.plan import async_plan, local_conversion
    hw = resolve(hardware)
    S = lower(shared, list(shape))
    if not isinstance(S, LinearLayout):
        return None
    try:
        cvt, origin = local_conversion(L, S, bits, hw)
        return max(1, async_plan(cvt, origin, bits, access, hw).vector_bytes * 8 // max(8, bits))
    except CheckerError:
        return None
