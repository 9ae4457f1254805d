"""The access plan of a shared-memory access: which lanes and registers form one instruction and one
phase, and which 4-byte words (banks) they touch.

Frame. R is a register layout (register, lane, warp[, block]) -> tensor, S a shared layout
(offset[, block]) -> tensor; `normalize` brings both to one frame (same out-dims in R's order, every
in-dim present). R's zero register bases only repeat data and are dropped first
(`drop_broadcast_registers`); then cvt = R.invert_and_compose(S): (register, lane, warp) -> offset,
per CTA (`local_conversion`), F2-linear.

Instruction (`plan`). ``access="auto"`` picks what Triton 3.9 emits: on NVIDIA
``stmatrix``/``ldmatrix`` (`matrix_plan`), then the transposed forms, else ``st/ld.shared`` with the
largest vector v such that v registers map to offsets 0..v-1 and every other basis keeps clear of
those offset bits (`largest_vectorisation`, `vector_plan`); on AMD gfx950/gfx1250 loads of 8/16-bit
elements the transposed LDS reads first (`trans_load_plan`), and ds_read/ds_write pairs as LLVM fuses
them (`paired_plan`, `checker.properties.smem.pairs`).

Phases (`Plan`). Registers split into phase bits (vary inside one phase), select bits (pick the matrix
or the pass inside one instruction) and instruction bits; lanes into the hardware's lane groups for the
access width (`Hardware.groups`: cosets of a subspace V). A phase is a coset of P = span(phase
register bits, V).

Words (`word_map`). word(x) = (offset(x) * bytes + sub * bank_bytes) // bank_bytes, linear in the index
bits: a shift of cvt, plus ``sub`` bits when an element spans several words; bank(x) = word(x) mod
banks (the low log2(banks) word bits). `free_bits` lists the directions of P with their word columns:
the columns whose ranks give a phase's cost, 2^(rank W - rank b∘W).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ... import f2, memo
from ...errors import CheckerError, InternalError, LayoutError
from ...hardware import Hardware, coset_basis
from ...layout import LinearLayout, divide_left, is_power_of_two, log2
from ...versions import follows
from .. import frame
from .pairs import MMA_LOOP_SINGLE, Pairing, amd_generation, kept_single_for_mma, pair_mnemonic, pairing

REG, LANE, WARP, BLOCK, OFFSET, SUB = "register", "lane", "warp", "block", "offset", "sub"
ACCESSES = ("auto", "st.shared", "ld.shared", "stmatrix", "ldmatrix", "stmatrix.trans", "ldmatrix.trans",
            "ds_read_tr", "cp.async", "direct_to_lds", "fill_store")
DIRECTIONS = ("store", "load")
"""A plan's in-dims (R's register, lane, warp, block; S's offset; a word's ``sub``), the instructions
`plan` takes (``access``) and its directions (store: R -> S, load: S -> R)."""


def normalize(R: LinearLayout, S: LinearLayout) -> tuple[LinearLayout, LinearLayout]:
    """R over (register, lane, warp, block), S over (offset, block), same out-dims and sizes: the frame
    `frame.align` gives (R's out-dim order, each dim at the larger size), a missing in-dim of size 1."""
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


class Frame:
    """R's and S's matrix columns per in-dim, packed in the frame `normalize` brings them to (R's out-dims
    in R's order, each at the larger of the two sizes): column j of in-dim d is the integer
    sum_k basis_j[k] << shift_k; a dim a layout lacks has no columns."""

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


def frame_columns(R: LinearLayout, S: LinearLayout) -> Frame:
    """`normalize`'s checks and errors, with the columns of its two layouts in place of the layouts
    (`Frame`: out-dim k at bit shift_k = sum over earlier dims of log2 max(size in R, size in S))."""
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
        return Frame(R.bases, S.bases, shifts, shifts)
    names = [n for n, _ in r_outs]
    if sorted(n for n, _ in s_outs) != sorted(names):
        raise CheckerError(f"layouts over different tensor dims cannot be compared: {names} vs "
                           f"{list(S.out_dims)}", field="S")
    s_size, at = dict(s_outs), {}
    for n, size in r_outs:
        at[n] = shift
        shift += log2(max(size, s_size[n]))
    return Frame(R.bases, S.bases, [at[n] for n, _ in r_outs], [at[n] for n, _ in s_outs])


def element_bits(bits: Any) -> int:
    """The element width, checked: an int (not a bool) 2^k with 2^k <= 128, else CheckerError on
    ``dtype_bits``."""
    if isinstance(bits, bool) or not isinstance(bits, int) or not is_power_of_two(bits) or bits > 128:
        raise CheckerError(f"must be a power of two up to 128, got {bits!r}", field="dtype_bits")
    return bits


def drop_broadcast_registers(R: LinearLayout) -> tuple[LinearLayout, list[int]]:
    """R without zero register bases, and R's register bit behind each remaining one: keep = [i : R(2^i
    in register) != 0], register bit j of the result is R's bit keep[j]."""
    regs = R.in_bases(REG)
    keep = [i for i, b in enumerate(regs) if any(b)]
    if len(keep) == len(regs):  # nothing to drop: R itself
        return R, keep
    # R's own bases, a subset of them: no re-check of what R's construction checked
    return LinearLayout._of([(d, [regs[i] for i in keep] if d == REG else bs) for d, bs in R.bases.items()],
                            R.out_dim_sizes), keep


def permute_registers(L: LinearLayout, perm) -> LinearLayout:
    """Register bit i of the result is register bit perm[i] of L (Triton's ColumnAction)."""
    return _permute(L, REG, perm)


def _permute_lanes(L: LinearLayout, perm) -> LinearLayout:
    return _permute(L, LANE, perm)


def _permute(L: LinearLayout, dim: str, perm) -> LinearLayout:
    """L with basis i of in-dim `dim` taken from its basis perm[i]: L's own bases reordered (a permutation
    of a valid layout's bases is valid, so they are not checked again); L itself for the identity."""
    if all(i == p for i, p in enumerate(perm)) and len(perm) == L.in_dim_size_log2(dim):
        return L
    moved = L.in_bases(dim)
    return LinearLayout._of([(d, [moved[p] for p in perm] if d == dim else bs) for d, bs in L.bases.items()],
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
    direct = cvt.out_dims == (OFFSET,) and cvt.in_dims[:1] == (REG,)
    while v >= 1:
        tile = LinearLayout.identity_1d(v, REG, OFFSET)
        perm = _register_perm_for(cvt, tile)
        if perm is not None and (_divides_as_vector(cvt, perm, v) if direct
                                 else divide_left(permute_registers(cvt, perm), tile) is not None):
            return v, perm
        v //= 2
    raise InternalError("largest_vectorisation: a tile of one register always divides")


def _divides_as_vector(cvt: LinearLayout, perm: list[int], v: int) -> bool:
    """divide_left(permute_registers(cvt, perm), identity tile of v registers) is not None, for cvt
    (register, ...) -> offset whose registers perm[:log2 v] map to 1, 2, .., v/2 (`_register_perm_for`'s
    front): the tile divides exactly when the offsets reach v and every other basis leaves the low log2 v
    offset bits clear (the quotient's bases are then the others shifted down by log2 v, and tile * quotient
    gives cvt back)."""
    if cvt.out_dim_size(OFFSET) < v:
        return False
    low = v - 1
    front = set(perm[:log2(v)])
    for d, bs in cvt.bases.items():
        for i, (b,) in enumerate(bs):
            if b & low and not (d == REG and i in front):
                return False
    return True


def triton_intersection_dim(b1, b2) -> int:
    """dim(span(b1) ∩ span(b2)) as Triton's intersectionBasis takes it: |b1 ∩ b2| (as lists: a repeated
    vector of b1 counts twice) where every vector is a power of two, else rank b1 + rank b2 -
    rank(b1 ∪ b2)."""
    if all(b > 0 and not b & (b - 1) for b in (*b1, *b2)):  # powers of two
        wanted = set(b2)
        return sum(1 for b in b1 if b in wanted)
    return f2.rank(b1) + f2.rank(b2) - f2.rank((*b1, *b2))


def dim_columns(L: LinearLayout, d: str) -> list[int]:
    """L's packed columns (images of the unit vectors) of in-dim d, in bit order; [] when L lacks d."""
    start = 0
    for name, size in L.in_dim_sizes:
        if name == d:
            return list(L.columns[start:start + log2(size)])
        start += log2(size)
    return []


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
    merged: int = 0             # the width (bytes) of the accesses LLVM's vectorizer merged into this vector; 0: none

    @property
    def instr_regs(self) -> tuple[int, ...]:
        """The register bits that pick the instruction: every cvt register bit neither phase nor select."""
        fixed = set(self.phase_regs) | set(self.select_regs)
        return tuple(j for j in range(self.cvt.in_dim_size_log2(REG)) if j not in fixed)

    @property
    def phases_per_instruction(self) -> int:
        """|groups| * 2^|select_regs|: one phase per lane group and per select value."""
        return len(self.groups) << len(self.select_regs)

    @property
    def instructions_per_warp(self) -> int:
        """2^|instr_regs|."""
        return 1 << len(self.instr_regs)

    def register(self, r: int) -> int:
        """R's register index for a register index r of cvt (plans without `source`):
        sum over set bits j of r of 2^origin[j]."""
        return sum(1 << self.origin[j] for j in range(len(self.origin)) if r >> j & 1)

    def thread(self, r: int, lane: int) -> tuple[int, int]:
        """R's (register, lane) for cvt's register r and lane `lane`: (register(r), lane), or with a
        `source` the XOR of source[j] over the set bits j of (r, then lane)."""
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
            single = amd_mnemonic(self.instruction, vb, self.bits, hw)
            if self.pair is not None and self.pair.fields:
                # LLVM fuses some accesses (or all, along different registers): the mix it issues is named, its
                # cost is `mix_groups`'
                return "+".join([pair_mnemonic(self.direction, vb, st64, hw) for st64 in sorted(self.pair.forms)]
                                + ([single] if self.pair.singles else []))
            return single
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


def local_conversion(R: LinearLayout, S: LinearLayout, bits: int, hw: Hardware) -> tuple[LinearLayout, tuple[int, ...]]:
    """The conversion R -> S within one CTA (R's broadcast registers dropped) and the R register behind
    each of its registers, after the checks every plan makes: element width, warp size, R's elements in
    S, one CTA. cvt = drop_broadcast_registers(R).invert_and_compose(S), quotiented by the block dim:
    (register, lane, warp) -> offset, F2-linear. Once per run (`checker.memo`): a buffer's bank check, its
    access plans and the kernel's coalescing ask for the same pairs."""
    return memo.shared("smem.local_conversion", (R, S, bits, hw), lambda: _local_conversion(R, S, bits, hw))


def _local_conversion(R: LinearLayout, S: LinearLayout, bits: int,
                      hw: Hardware) -> tuple[LinearLayout, tuple[int, ...]]:
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
    local = quotient_block(cvt)
    if local is None:
        raise CheckerError("R and S spread over CTAs differently: distributed shared memory is not modeled",
                           field="S")
    return local, tuple(origin)


def quotient_block(cvt: LinearLayout) -> LinearLayout | None:
    """cvt.quotient([BLOCK]), read off the bases where cvt is (register, lane, warp, block) -> (offset,
    block), the frame `local_conversion` gives: trivial over the block dim exactly when the block bases are
    the unit vectors of the block out-dim (as many as its bits) and no other basis touches it; the quotient
    is then the offset parts of the register, lane and warp bases. Other frames go through `quotient`."""
    if cvt.in_dims != _R_DIMS or cvt.out_dims != _S_DIMS:
        return cvt.quotient([BLOCK])
    ins = cvt.bases
    blocks = ins[BLOCK]
    if cvt.out_dim_size_log2(BLOCK) != len(blocks) or any(b != (0, 1 << i) for i, b in enumerate(blocks)):
        return None
    local = []
    for d in (REG, LANE, WARP):
        bs = ins[d]
        if any(b[1] for b in bs):
            return None
        local.append((d, [(b[0],) for b in bs]))
    return LinearLayout._of(local, [(OFFSET, cvt.out_dim_size(OFFSET))])


def plan(R: LinearLayout, S: LinearLayout, bits: int, direction: str, access: str, hw: Hardware,
         max_vector: int | None = None, mma_feed: int | None = None, offset_phi: bool = False,
         base_bytes: int = 0) -> Plan:
    """The instruction that moves R to/from S (R, S normalized) and its phase structure.

    ``access="auto"`` picks what Triton 3.9 emits for a local_load / local_store /
    local_alloc: on NVIDIA ``stmatrix``/``ldmatrix`` (lowerLdStMatrix), then the
    transposed forms, else ``st/ld.shared``; on AMD gfx950 / gfx1250 loads of 8/16-bit
    elements the transposed LDS reads first (TransLocalLoadOpConversion, which
    has the higher pattern benefit), else ``ds_read/ds_write``. ``cp.async`` and
    ``direct_to_lds`` are the asynchronous global-to-shared copies; ``fill_store`` AMD's store of an
    asynchronous copy's ``other`` values. The phases of the result are the cosets of span(phase register
    bits, the lane group of lane 0) (module docstring). Once per run (`checker.memo`): a buffer's bank checks,
    its data movement and its access checks ask for the same sides. ``max_vector``: an asynchronous copy's
    vector as its global pointer allows it (`async_plan`); ``mma_feed``: an AMD read that feeds every MFMA/WMMA of
    a loop of one block; ``offset_phi``: an AMD access whose lanes' offset comes through a phi; ``base_bytes``:
    the constant part of an AMD access's address, in its immediates (`paired_plan`)."""
    return memo.shared("smem.plan", (R, S, bits, direction, access, hw, max_vector, mma_feed, offset_phi, base_bytes),
                       lambda: _plan(R, S, bits, direction, access, hw, max_vector, mma_feed, offset_phi, base_bytes))


def _plan(R: LinearLayout, S: LinearLayout, bits: int, direction: str, access: str, hw: Hardware,
          max_vector: int | None = None, mma_feed: int | None = None, offset_phi: bool = False,
          base_bytes: int = 0) -> Plan:
    local, origin = local_conversion(R, S, bits, hw)
    matrix = "stmatrix" if direction == "store" else "ldmatrix"
    if access in (matrix, matrix + ".trans"):
        p = matrix_plan(local, origin, bits, direction, access.endswith(".trans"), hw)
        if isinstance(p, str):
            raise CheckerError(f"{access} cannot move this layout pair: {p}", field="access")
        return p
    if access == "ds_read_tr":
        p = trans_load_plan(local, origin, bits, R.in_dim_size(REG), hw)
        if isinstance(p, str):
            raise CheckerError(f"ds_read_tr cannot move this layout pair: {p}", field="access")
        return p
    if access in ("cp.async", "direct_to_lds"):
        return async_plan(local, origin, bits, access, hw, max_vector)
    if access == "fill_store":
        return _fill_plan(local, origin, bits, hw, max_vector)
    if access == "auto":
        for trans in (False, True):
            p = matrix_plan(local, origin, bits, direction, trans, hw)
            if not isinstance(p, str):
                return p
        if direction == "load":
            p = trans_load_plan(local, origin, bits, R.in_dim_size(REG), hw)
            if not isinstance(p, str):
                return p
    p = vector_plan(local, origin, bits, direction, hw)
    return paired_plan(p, hw, mma_feed=mma_feed, lane_holes=True, offset_phi=offset_phi, base_bytes=base_bytes) \
        if hw.vendor == "amd" else p


MERGED_BYTES = 16   # the widest LDS access LLVM merges a lane's adjacent accesses into (ds_read/write_b128)


def _merged(p: Plan, pr: Pairing, regs: list[int], hw: Hardware, pad) -> Plan | None:
    """The plan as LLVM's load/store vectorizer leaves it before any pairing, where it merges every pair (docs/
    hardware.md, measured on gfx942, gfx950 and gfx1250): each pair is two adjacent accesses (offset1 = offset0 + 1,
    offset0 even: aligned to its width, the buffer's start being 16-byte aligned, as `pairs` assumes) told apart by one
    register, whose offset is the vector's width, and the two make at most MERGED_BYTES. Two 8-byte accesses become
    one ds_write_b128, two 4-byte ones a ds_write_b64, which may pair or merge again: the plan of the wider vector,
    that register moved right after the vector's, whose offsets are then 1, 2, .., the new width / 2 elements (every
    unit one aligned block: its halves may come swapped, where the lanes' swizzle XORs the register's bit, as LLVM
    stores them). None where the pairs are not all such (SILoadStoreOptimizer pairs them: `paired_plan`); padded
    layouts are left to the pairing (not measured)."""
    n, v = len(regs), len(p.phase_regs)
    j = (pr.delta & -pr.delta).bit_length() - 1
    if pad is not None or pr.delta != 1 << j or j < v or p.phase_regs != tuple(range(v)) or p.select_regs \
            or p.source is not None or 2 * p.vector_bytes > MERGED_BYTES or regs[j] != 1 << v \
            or sorted(regs[:v]) != [1 << i for i in range(v)] \
            or not all(not st64 and o1 == o0 + 1 and o0 % 2 == 0 for o0, o1, st64 in pr.fields):
        return None
    perm = list(range(v)) + [j] + [k for k in range(v, n) if k != j]
    wider = 2 * p.vector_bytes
    return Plan(**{**p.__dict__, "vector_bytes": wider, "cvt": permute_registers(p.cvt, perm),
                   "origin": tuple(p.origin[k] for k in perm), "phase_regs": tuple(range(v + 1)),
                   "groups": hw.groups(p.direction, wider), "pair": None, "merged": p.merged or p.vector_bytes})


def _blocks(p: Plan, offsets: list[int]) -> list[int]:
    """Offsets of a merged plan (`_merged`) as the aligned vector blocks they address (the bits below the vector's
    width cleared: inside a block they only reorder its elements)."""
    return [o & -(1 << len(p.phase_regs)) for o in offsets]


def paired_plan(p: Plan, hw: Hardware, pad=None, mma_feed: int | None = None, lane_holes: bool = False,
                offset_phi: bool = False, base_bytes: int = 0, sunk_registers: frozenset[int] | None = None) -> Plan:
    """An AMD ds_read/ds_write plan as LLVM issues it (`pairs`): where the accesses of every address
    register fuse two by two into ds_read2* / ds_write2* / ds_*_2addr*, the register combination that
    tells the two addresses of one instruction apart either joins the phase bits, with the target's
    pair groups for 2 x vector_bytes (`Hardware.pair_groups`: both addresses of a lane in one phase,
    gfx1250), or selects the pass inside the instruction (no pair rule: each address its own pass
    with the single access's groups, gfx942 / gfx950; docs/hardware.md says what is assumed).
    ``vector_bytes`` stays the width of one address. When that combination is
    several registers, the plan's register bit ``j`` (its lowest) is re-based onto it and ``source``
    records the R registers each plan register stands for. Unpaired plans come back with the reason
    in ``pair.unpaired``. ``pad``: a padded layout's offset -> slot map for the immediates
    (`checker.properties.padded_access.padded_plan`; `pairs.address_registers`). ``mma_feed``: the read's
    registers feed every MFMA/WMMA of a loop of one basic block, each instruction reading the registers that agree
    above their lowest ``mma_feed`` bits; the pairs whose two reads reach every such instruction stay single
    (`pairs.kept_single_for_mma`). ``lane_holes``: the addresses are lowerLdSt's (a local_load / local_store),
    whose broadcast lanes give some accesses an address register of their own on 64-lane waves
    (`pairs.address_registers`; measured on gfx950); a conversion's scratch, addressed otherwise, pairs them
    (fbgemm's jagged attention on gfx1250), and so do RDNA's 32-lane waves (tl_dot_fp32_ieee's operand, its lane
    halves repeated, on gfx1100 / gfx1201: every pair fused). ``offset_phi``: the lanes' offset reaches the
    accesses through a phi, so LLVM folds no XOR that has lane bits into the immediate (`pairs.address_registers`'
    ``phi_base``). ``base_bytes``: the constant part of the address, which LLVM folds into the immediates
    (`pairs.pairing`). ``sunk_registers``: R's registers (`Plan.register`) whose reads LLVM sinks into a branch, away
    from the others (`checker.ttgir.store_branch`): a read all of whose registers are there is paired only with
    such reads (`pairs.sunk_apart`)."""
    lanes, regs = _pair_offsets(p)
    v = len(p.phase_regs)
    sunk = None if sunk_registers is None or p.direction != "load" else \
        (lambda m: all(p.register(m | i) in sunk_registers for i in range(1 << v)))
    pr = pairing(regs, lanes, v, p.vector_bytes, p.bits // 8, pad, p.direction == "store",
                 p.cvt.in_dim_size_log2(LANE) if lane_holes and hw.warp_size == 64 else None, offset_phi, base_bytes,
                 sunk)
    if not pr.paired:
        return Plan(**{**p.__dict__, "pair": pr})
    merged = _merged(p, pr, regs, hw, pad)
    if merged is not None:
        return paired_plan(merged, hw, pad, mma_feed, lane_holes, offset_phi, base_bytes, sunk_registers)
    if mma_feed is not None and p.direction == "load" and follows("lds_reads_single_for_mma") \
            and kept_single_for_mma([p.register(i) for i in range(1 << len(regs))], len(p.phase_regs), pr.delta,
                                    mma_feed):
        return Plan(**{**p.__dict__, "pair": Pairing(pr.element_bytes, 0, (), pr.additive, MMA_LOOP_SINGLE)})
    return _fused(p, pr, hw)


def _pair_offsets(p: Plan) -> tuple[list[int], list[int]]:
    """The lane and warp offsets, and the register offsets, `pairs.pairing` reads of a plan: a merged access is the
    aligned block its vector spans, so the registers above its vector and the lanes address blocks."""
    lanes = [b[0] for b in p.cvt.in_bases(LANE)] + [b[0] for b in p.cvt.in_bases(WARP)]
    regs = [b[0] for b in p.cvt.in_bases(REG)]
    if p.merged:
        lanes, regs = _blocks(p, lanes), regs[:len(p.phase_regs)] + _blocks(p, regs[len(p.phase_regs):])
    return lanes, regs


def _fused(p: Plan, pr: Pairing, hw: Hardware) -> Plan:
    """The plan p (of single accesses) with every access fused with the one `pr.delta` away (`paired_plan`)."""
    regs = _pair_offsets(p)[1]
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


def mix_groups(p: Plan, hw: Hardware) -> list[tuple[Plan, int]]:
    """The instructions LLVM issues for a plan, by kind, each kind a plan of its own whose every instruction costs
    the same (its phases and words are one coset structure): [(plan, instructions per warp)]. A plan is one kind,
    its own count; so is a mix of paired and single accesses (`Pairing.fields` without a regular pairing) where a
    pair costs its two single passes (no pair rule for its width: gfx942 / gfx950), counted as its single
    accesses. Where a pair serves both addresses in one phase (gfx1250), a mix is its single accesses and, per
    register combination its pairs differ in (`Pairing.pair_deltas`), the plan of those pairs (`_fused`), each
    with the number LLVM issues."""
    pr = p.pair
    if pr is None or pr.paired or not pr.fields or hw.pair_groups(2 * p.vector_bytes) is None or p.source:
        return [(p, p.instructions_per_warp)]
    single = Plan(**{**p.__dict__, "pair": None})
    out = [(single, pr.singles)] if pr.singles else []
    for delta in sorted(set(pr.pair_deltas)):
        fused = Pairing(pr.element_bytes, delta, tuple(f for f, d in zip(pr.fields, pr.pair_deltas) if d == delta),
                        pr.additive)
        out.append((_fused(single, fused, hw), pr.pair_deltas.count(delta)))
    return out


def vector_plan(cvt, origin, bits, direction, hw, name=None, max_bytes=None) -> Plan:
    """``st/ld.shared`` (or `name`) of the widest vector v = `largest_vectorisation` (cvt, min(128,
    8 * max_bytes) / bits), max_bytes the target's widest access unless given: v * bits / 8 bytes per
    lane, its log2(v) (permuted) registers the phase bits, the lane groups `Hardware.groups` for that
    width."""
    v, perm = largest_vectorisation(cvt, max(1, min(128, (max_bytes or hw.max_vector_bytes) * 8) // bits))
    vb = v * bits // 8
    name = name or ("st.shared" if direction == "store" else "ld.shared")
    return Plan(name, direction, bits, vb, 0, permute_registers(cvt, perm), tuple(origin[p] for p in perm),
                tuple(range(log2(v))), (), hw.groups(direction, vb))


def async_plan(cvt, origin, bits, access, hw, max_vector: int | None = None) -> Plan:
    """A global-to-shared copy: the shared-memory write of cp.async (NVIDIA; Triton's lowerLdSt with
    the widest vector, at most 16 bytes: 4, 8 or 16 bytes) or of AMD's direct-to-LDS loads (the
    widest width the target's direct-to-LDS loads take, `Hardware.direct_to_lds`).

    The vector is also capped by what the global pointer allows, ``max_vector`` elements: the lowering
    (NVIDIA's and AMD's AsyncCopyGlobalToLocalOpConversion, AMD's BufferLoadToLocalOpConversion) takes the
    pointer's AxisInfo contiguity and alignment, the mask's, raised to the op's contiguity hint, as the most
    it moves per lane (`checker.properties.coalesced.pointer_vector`; the TTGIR check's ``vector``
    parameter). None: the widest vector the layouts allow. A cap under 4 bytes on NVIDIA is no copy Triton
    lowers (cp.async moves 4, 8 or 16 bytes). Without LDS scattering (gfx942, gfx950) the hardware writes
    lane i of an instruction at base + i * width (Triton swizzles the global addresses instead), so the
    phases are of that flat row: cvt is rebuilt with lane i at offset i * v, the vector registers at 0..v-1
    and the other registers and warps above. v = the largest `largest_vectorisation` width whose v * bits / 8
    bytes the target's copy takes; the phase bits are its log2(v) registers."""
    cap_bytes = None if max_vector is None else max(1, max_vector) * bits // 8
    if hw.vendor != "amd":
        if access != "cp.async":
            raise CheckerError(f"{access} is an AMD instruction; {hw.name} has cp.async", field="access")
        if cap_bytes is not None and cap_bytes < 4:
            raise CheckerError(f"cp.async moves 4, 8 or 16 bytes a lane; the global pointer allows {cap_bytes} "
                               f"(Triton does not lower this copy)", field="vector")
        return vector_plan(cvt, origin, bits, "store", hw, name="cp.async", max_bytes=cap_bytes)
    widths = [w for w in hw.direct_to_lds if w >= bits // 8 and (cap_bytes is None or w <= cap_bytes)]
    if not widths:
        if cap_bytes is not None and any(w >= bits // 8 for w in hw.direct_to_lds):
            raise CheckerError(f"{hw.name}'s direct-to-LDS loads move {sorted(hw.direct_to_lds)} bytes per lane; "
                               f"the global pointer allows {cap_bytes} (Triton does not lower this copy)",
                               field="vector")
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


def _fill_plan(cvt, origin, bits, hw, max_vector: int | None = None) -> Plan:
    """The store that fills the masked elements of an AMD asynchronous copy with an ``other`` operand.

    Triton 3.9's AMD lowering of ``async_copy_global_to_local`` / ``buffer_load_to_local`` with
    ``other`` follows each direct-to-LDS load with a plain LDS store of the ``other`` values,
    predicated on the lane's mask being false: a vector of the copy's width (the same registers)
    at the lane's own element address (gfx9: the warp's base plus lane * width, plus the source
    swizzle's lane offset; gfx1250: the per-lane address; `max_vector`: the copy's cap, `async_plan`), so
    ``ds_write_b128`` next to
    ``global_load_lds_dwordx4`` in the assembly. NVIDIA's cp.async takes no such store (``other``
    must be zero; cp.async zero-fills through its source size). Scored as ``st.shared`` of that
    width on the real addresses."""
    if hw.vendor != "amd":
        raise CheckerError(f"only AMD's asynchronous copies store their `other` values; {hw.name}'s cp.async "
                           f"zero-fills", field="access")
    width = async_plan(cvt, origin, bits, "cp.async", hw, max_vector).vector_bytes
    return vector_plan(cvt, origin, bits, "store", hw, max_bytes=width)


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


def trans_load_plan(cvt, origin, bits, registers, hw) -> Plan | str:
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


def matrix_plan(cvt, origin, bits, direction, trans, hw) -> Plan | str:
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
    intersectionBasis does (`triton_intersection_dim`). Ties go to more chosen registers that
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
            cost = (triton_intersection_dim(segments, phase), -sum(s < word for s in source),
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
    """Word addresses of a plan as a LinearLayout (register, lane, warp, sub) -> word:
    word = ((offset << up) >> down) XOR sub, i.e. (offset * element bytes + sub * bank bytes) // bank
    bytes; bank = word mod banks."""

    layout: LinearLayout
    up: int     # log2(element bytes / bank bytes) when elements span several words
    down: int   # log2(bank bytes / element bytes) when several elements share a word


def word_map(p: Plan, hw: Hardware) -> WordMap:
    """The `WordMap` of plan p on hw: each cvt column c becomes (c << up) >> down, with up = log2(element
    bytes / bank bytes) sub bits when an element spans several words, down = log2(bank bytes / element
    bytes) when several elements share one (the low offset bits then pick a byte inside the word)."""
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


def free_bits(p: Plan, wm: WordMap) -> list[tuple[str, int, int]]:
    """The phase's free directions: (in-dim, value of that in-dim, word column): the phase registers,
    a basis of lane 0's group (`coset_basis`), the sub bits. With W these word columns and b the low
    log2(banks) bits, a phase costs 2^(rank W - rank b∘W) wavefronts (each bank receives that many
    distinct words)."""
    L = wm.layout
    out = [(REG, 1 << j, L.in_bases(REG)[j][0]) for j in p.phase_regs]
    lane_cols = [b[0] for b in L.in_bases(LANE)]
    for v in coset_basis(p.groups):
        out.append((LANE, v, f2.combine(lane_cols, v)))
    out += [(SUB, 1 << i, 1 << i) for i in range(wm.up)]
    return out


@dataclass(frozen=True)
class Kind:
    """One kind of instruction of a plan as LLVM issues it (`mix_groups`): its plan, how many per warp, its word
    map and the phase's free directions (`free_bits`), and the words one phase's bank-equal accesses touch at most,
    ``cost`` = 2^(rank W - rank b∘W) (1: conflict-free)."""

    plan: Plan
    count: int
    wm: WordMap
    free: list[tuple[str, int, int]]
    cost: int

    @property
    def words(self) -> list[int]:
        return [c for _, _, c in self.free]

    def conflict(self, mask: int) -> dict[str, int]:
        """A direction inside one phase (in-dim -> value, `free_bits`' directions combined) that keeps the bank
        (the word's bits under `mask`) and changes the word: two accesses of a phase that conflict, from lane 0's
        first. Only for a kind that conflicts (cost > 1): a null vector of b∘W outside the null space of W."""
        words = self.words
        k = next(v for v in f2.nullspace([w & mask for w in words]) if f2.combine(words, v))
        y: dict[str, int] = {}
        for i, (d, val, _) in enumerate(self.free):
            if k >> i & 1:
                y[d] = y.get(d, 0) ^ val
        return y

    def phases(self, warps: int = 1) -> int:
        """Its phases over `warps` warps (count x phases per instruction x warps)."""
        return self.plan.phases_per_instruction * self.count * warps

    def to_dict(self, hw: Hardware, reps: int = 1) -> dict[str, Any]:
        return {"mnemonic": self.plan.mnemonic(hw), "instructions_per_warp": self.count * reps,
                "phases_per_instruction": self.plan.phases_per_instruction, "conflicts": self.cost - 1}


def issued(p: Plan, hw: Hardware) -> list[Kind]:
    """The kinds of instruction LLVM issues for plan p (`mix_groups`), each with its word map and cost (`free_bits`'
    count)."""
    mask = hw.banks - 1
    out = []
    for q, count in mix_groups(p, hw):
        wm = word_map(q, hw)
        free = free_bits(q, wm)
        words = [c for _, _, c in free]
        out.append(Kind(q, count, wm, free, 1 << (f2.rank(words) - f2.rank([w & mask for w in words]))))
    return out


def scored_as_issued(p: Plan, kinds: list[Kind]) -> bool:
    """Whether `issued` scores p otherwise than as the plan itself (a mix on a target whose pairs serve both
    addresses in one phase)."""
    return len(kinds) > 1 or kinds[0].plan is not p


def pairing_clause(p: Plan, details: dict, scored_as_issued: bool = False) -> str:
    """Where LLVM keeps a read's pairs single for the MFMA/WMMA of a loop of one block (`smem.pairs.
    MMA_LOOP_SINGLE`): sets ``details["kept_single"]`` and gives the explanation's clause; where it fuses some
    accesses and not others, or all along different registers (`Pairing.fields` of a pairing that is not regular):
    ``details["pairs_fused"]`` and its clause, which says how the figures count them: as the single accesses (a
    pair costing its two passes), or with `scored_as_issued` each instruction as LLVM issues it (`mix_groups`);
    else nothing."""
    if p.pair is not None and p.pair.fields and not p.pair.paired:
        fused = len(p.pair.fields)
        details["pairs_fused"] = fused
        left = f" and leaves {p.pair.singles} single" if p.pair.singles else ""
        how = "each instruction as LLVM issues it" if scored_as_issued else "the figures count single accesses"
        return (f"; LLVM fuses {fused} pair(s) of these accesses into paired instructions{left} "
                f"({p.pair.unpaired}); {how}")
    if p.pair is None or p.pair.unpaired != MMA_LOOP_SINGLE:
        return ""
    details["kept_single"] = "mma_loop"
    return ("; single reads where LLVM would otherwise pair them: each pair's two reads feed every MFMA/WMMA of "
            "this loop of one block, so Triton 3.9's LLVM keeps them apart")


def pair_details(p: Plan) -> dict[str, Any]:
    """A paired plan's figures: the registers (R's numbering, XOR-combined) whose two values one
    instruction moves, the byte distance of the two addresses of a lane, and the instructions'
    offset0/offset1 fields (units of the element, or of 64 elements for the stride-64 forms)."""
    j = p.select_regs[0] if p.select_regs else p.phase_regs[-1]
    offset = p.cvt.in_bases(REG)[j][0]
    delta = (_blocks(p, [offset])[0] if p.merged else offset) * (p.bits // 8)
    register = p.source[j][0] if p.source is not None else 1 << p.origin[j]
    return {"register": register, "address_bytes": delta, "stride64": p.pair.stride64,
            "addresses_served": "apart" if p.select_regs else "together",
            "offsets": [list(f[:2]) for f in sorted(set(p.pair.fields))], "element_bytes": p.pair.element_bytes}
