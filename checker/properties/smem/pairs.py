"""Which AMD LDS accesses LLVM issues as one paired instruction (ds_read2*, ds_write2*, ds_load_2addr*).

Where it happens. Triton lowers a local_load / local_store / local_alloc to one vector access per
group of registers (`checker.properties.smem.plan.vector_plan`). The AMDGPU back end's SILoadStoreOptimizer then
fuses two 4- or 8-byte DS accesses of a lane into one instruction that carries two addresses:

    ds_read2_b32 / ds_read2_b64 / ds_write2_b32 / ds_write2_b64      addr + offset{0,1} x E
    ds_read2st64_b32 / _b64, ds_write2st64_b32 / _b64                  addr + offset{0,1} x 64 x E

(gfx11 and later: ds_load_2addr_b32 / _b64, ds_load_2addr_stride64_b32 / _b64, ds_store_2addr_*),
E the element size (4 or 8 bytes), offset0 and offset1 8-bit fields.

The rule, as the pass states it (LLVM's SILoadStoreOptimizer.cpp; read in the ROCm/llvm-project
mirror, ``offsetsCanBeCombined``, ``collectMergeableInsts``, ``optimizeInstsWithSameBaseAddr``):

1. candidates are ds_read_b32/b64 and ds_write_b32/b64 (never the 8/16-bit or 96/128-bit forms) of one
   basic block with the same address register, collected until an instruction with ordered memory
   references or unmodelled side effects;
2. each list (one per address register and opcode) is sorted by its immediate offset and walked in
   order: the current access and the next one are fused when their offsets allow it and the later one can
   move next to the earlier, the walk then goes on after the pair; otherwise it moves on by one access. A load
   moves past loads; a store does not move past a store it may alias: one at another address register (LLVM
   cannot tell the two XOR-formed addresses apart). Triton issues a plan's accesses with its additive registers
   inside (``lowerLdSt``: the loop over the additive registers' constants is the inner one, the XOR-formed
   registers' combinations the outer), so two stores of one address register told apart by a register that is
   not additive have the other address registers' stores between them and stay single (`issue_order`; tl_dot_f16_ta
   on gfx1100 / gfx1201 and a bf16 64x128x64 matmul's A tile on gfx942: every ds_write_b64 single where the pairs
   were scored);
3. two byte offsets o0 < o1, both multiples of E, in units of E (e0, e1), are fused as
   * the stride-64 form when e0 and e1 are multiples of 64 and e/64 fits in 8 bits;
   * the plain form when e0 and e1 fit in 8 bits;
   * the stride-64 form on a shifted base register when e1 - e0 is a multiple of 64 below 256 x 64;
   * the plain form on a shifted base register when e1 - e0 fits in 8 bits;
   * not at all otherwise.

Which accesses share an address register is Triton's doing (``lowerLdSt``, lib/Conversion/
TritonGPUToLLVM/Utility.cpp; ``actionAdditiveStrides``, lib/Tools/LayoutUtils.cpp): after the vector
tile, a register whose offset is disjoint from every offset bit the lanes and warps can set (or equal
to one lane/warp offset) is *additive*: its offset is added as a constant, which LLVM folds into the
instruction's immediate. Every other register is XORed into the lane's base, a new address register.
So one address register serves the 2^a accesses of the a additive registers, at the constants
XOR-combined from their offsets; every combination of the other registers has its own.

Padded layouts (``padded_shared``, `padded_access.padded_plan`): Triton pads the XOR-formed offset and each
additive constant apart (``lowerLdSt``: "`actionAdditiveStrides` forces `regIdxAddI8` and `offset` to be
bitwise disjoint, so we can calculate their padding contributions separately", ``regIdxAddI8 =
applyPadding(regIdxAddI8, paddingShifts)``). So the immediate is phys(c), phys(o) = o + sum_k (o >> log2 I_k)
<< log2 P_k, not c: a shift distributes over a disjoint OR, so phys(a | b) = phys(a) + phys(b). The padding
thus moves the offset fields, may change the form (a register 256 fp16 elements away: 512 bytes, st64;
with a pad of 4 per 256, 520 bytes, plain) or forbid the pair (a pad of 2: 516 bytes, not a multiple of 8).
Corpus: the 22 padded accesses LLVM pairs (gl_views_padded, gl_rt_padded_f32, gl_mfma16_padded,
tl_dot_fp8_tb / tl_dot_fp8e5 on gfx1250) score exactly the emitted paired instruction. The XOR part outside
the lanes' bits is folded as phys(x) too (the identity holds; no padded access of the corpus has such a part,
so this fold is assumed for padded layouts as seen for linear ones).

Before that pass, LLVM's load/store vectorizer merges a lane's adjacent accesses of one address register into one
wider access where it proves it aligned (two 8-byte accesses: ds_write_b128); `plan._merged` takes those first.

This module simulates step 2 and 3 on those constants (`address_registers` also folds the part of an
XOR outside the lanes' and warps' bits into the immediate, as LLVM does). The pairing is regular when every
access of every address register is fused, and the two accesses of every pair differ in the same register
combination (`Pairing.delta`). The bank model then takes that combination either inside one phase or as the
pass of the instruction, per target (`plan.paired_plan`, docs/hardware.md). When some accesses stay single, or
the pairs differ in different registers, the plan is a mix (`pairing` says why in `Pairing.unpaired`, the pairs
made in `Pairing.fields` and `Pairing.pair_deltas`, the singles in `Pairing.singles`), named as LLVM emits it
(``ds_read2_b32+ds_read_b32``) and scored kind by kind (`plan.mix_groups`: as its single accesses where a pair
costs its two single passes, gfx942 / gfx950; single accesses and the pairs of each register combination apart
on gfx1250).

Loops of one block (Triton 3.9's LLVM: change ``lds_reads_single_for_mma``). A paired read gives its two values
one wide register, so every instruction that uses either waits for both. SILoadStoreOptimizer therefore leaves two
DS_READs single when they sit in a loop whose body is one basic block, each of them feeds some MFMA/WMMA of that
block (directly: bitcasts and the packing of an operand vector aside) and the two together feed every MFMA/WMMA
of it. Measured on that LLVM (hand-written loops on gfx942, gfx950, gfx1250): a third MFMA fed by neither read,
a read that feeds no MFMA, a VALU op between a read and its MFMA, or a second block in the loop (a branch) each
bring the pair back; Triton 3.8's LLVM pairs them all. The TTGIR reader decides when a ``ttg.local_load`` is
such a read (`checker.ttgir.mma_feed`: a loop body without branching ops, every dot of it reading the
load's result) and passes how many of the result's low register bits one instruction reads together;
`kept_single_for_mma` then finds the pairs whose two reads cover every instruction. In the corpus: the mxfp4
scales of ``tt.dot_scaled`` on gfx1250 (two ds_load_b32 where ds_load_2addr_stride64_b32 was scored), in the
loop only: the epilogue's copy of the same read, outside any loop, pairs.

Assumptions (no AMD GPU measured):

* the immediates are Triton's constants plus, where the TTGIR reader knows it (``base_bytes``), the constant
  part of the buffer's address: its allocation's offset in the kernel's shared memory (Triton's placement,
  `checker.ttgir.allocation`) and a constant buffer index's bytes, which LLVM folds into them; where the fields
  then overflow 8 bits, LLVM shifts the base register and the difference picks the form (`combine_offsets`: a
  one-warp gfx1100 store at offset 2048 is two stride-64 pairs where its local offsets were one of each). A
  pointer through a loop's phi (a multi-buffered iter_arg) keeps the allocation's offset in its register: no
  constant part. Elsewhere (Triton's affine offset of a memdesc subslice, a function's or partition's argument)
  the constant part is taken as zero;
* LLVM keeps Triton's additive constants as immediates. It may instead fold an additive constant into
  the XOR of another address register when it proves the bits disjoint (InstCombine): those accesses
  then stay single (tl_dot_f16 on gfx942: one pair and six singles where eight loads were scored as
  four pairs: the base through a phi, `address_registers`' ``phi_base``, now modelled for Triton 3.9).
  tools/asm_compare.py reports the rows still left so apart. One more such case, found in library kernels
  (Triton 3.9.0's LLVM), is not modelled: a read sunk into a loop. LLVM's IR sink pass moves loads used only
  inside the next loop into its preheader, but not their addresses when another access of the block shares
  them, so each read arrives with an address register of its own (flash-attention's ROCm backward on gfx942: a
  dot operand read before an inner loop, reading the buffer another read of the block reads; found by editing
  its IR until the pair came back).

Reads sunk into a masked store's branch (modelled: `sunk_apart`; measured on Triton 3.9.0 and 3.8.0). A conversion
whose result feeds a masked ``tt.store`` (on AMD a branch per run of store vectors with one predicate), directly or
through register arithmetic, has the reads whose values reach only the first branch moved into it, away from their
pair partners: each side is paired on its own (`checker.ttgir.store_branch` finds the registers; FlagGems'
``t_copy_2d_kernel``, a 64x64 f16 transpose on gfx1250: 4 ``ds_load_2addr_b32`` and 8 ``ds_load_b32``, the 4 reads
of the first vector in its branch).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...hardware import Hardware

PAIRABLE_BYTES = (4, 8)


@dataclass(frozen=True)
class Pairing:
    """The paired issue of a vector plan. ``delta``: the plan's register bits (a mask over its
    registers in issue order) whose values one paired instruction moves together, 0 when the plan is
    not paired (``unpaired`` says why); ``fields``: each paired instruction's ``(offset0, offset1,
    stride64)`` (units of E, or of 64 E when stride64); ``additive``: the registers Triton adds as
    constants; ``singles``: where LLVM pairs some accesses and leaves others single (delta 0: the plan is
    scored as single accesses, `fields` the pairs it does make), how many stay single; ``pair_deltas``: where the
    pairing is not regular (delta 0) but LLVM fuses some pairs, each fused pair's register combination (aligned with
    `fields`): `checker.properties.smem.plan.mix_groups` scores each kind of instruction apart."""

    element_bytes: int
    delta: int
    fields: tuple[tuple[int, int, bool], ...]
    additive: tuple[int, ...]
    unpaired: str = ""
    singles: int = 0
    pair_deltas: tuple[int, ...] = ()

    @property
    def paired(self) -> bool:
        return self.delta != 0

    @property
    def stride64(self) -> bool:
        return bool(self.fields) and self.fields[0][2]

    @property
    def forms(self) -> frozenset[bool]:
        return frozenset(f[2] for f in self.fields)


def additive_registers(cvt_regs: list[int], lane_offsets: list[int], vector_bits: int) -> list[int]:
    """The registers Triton adds as constants (``actionAdditiveStrides``): past the vector tile, the
    ones whose offset shares no bit with any lane/warp offset, or equals one of them."""
    span = 0
    for o in lane_offsets:
        span |= o
    tile = set(lane_offsets)
    return [j for j in range(vector_bits, len(cvt_regs)) if not cvt_regs[j] & span or cvt_regs[j] in tile]


def combine_offsets(e0: int, e1: int) -> tuple[int, int, bool] | None:
    """LLVM's fusion of two DS accesses at element offsets e0 < e1: (offset0, offset1, stride64) as the
    instruction encodes them, or None (module docstring, rule 3)."""
    if e0 == e1:
        return None
    if e0 % 64 == 0 and e1 % 64 == 0 and e0 // 64 < 256 and e1 // 64 < 256:
        return e0 // 64, e1 // 64, True
    if e0 < 256 and e1 < 256:
        return e0, e1, False
    d = e1 - e0
    if d % 64 == 0 and d // 64 < 256:
        base = _most_aligned(max(0, e1 - 255 * 64), e0) | (e0 & 63)
        return (e0 - base) // 64, (e1 - base) // 64, True
    if d < 256:
        base = _most_aligned(max(0, e1 - 255), e0)
        return e0 - base, e1 - base, False
    return None


def _most_aligned(lo: int, hi: int) -> int:
    """The value in [lo, hi] with the most trailing zero bits (lo <= hi)."""
    if lo == 0:
        return 0
    bit = 1 << (hi.bit_length() - 1)
    while bit:
        v = hi & ~(bit - 1)
        if v >= lo:
            return v
        bit >>= 1
    return hi


def fuse(offsets: list[tuple[int, int]], apart: Callable[[int, int], bool] | None = None
         ) -> tuple[list[tuple[int, int, tuple[int, int, bool]]], list[int]]:
    """LLVM's walk over one address register's accesses: ``offsets`` are (access id, element offset);
    returns the pairs (id, id, fields) and the ids left single (module docstring, rule 2). ``apart(a, b)``: the
    two accesses cannot be brought together (a store between them they may alias)."""
    order = sorted(offsets, key=lambda t: t[1])
    pairs, single, i = [], [], 0
    while i < len(order):
        if i + 1 < len(order):
            fields = combine_offsets(order[i][1], order[i + 1][1])
            if fields is not None and apart is not None and apart(order[i][0], order[i + 1][0]):
                fields = None
            if fields is not None:
                pairs.append((order[i][0], order[i + 1][0], fields))
                i += 2
                continue
        single.append(order[i][0])
        i += 1
    return pairs, single


def address_registers(cvt_regs: list[int], lane_offsets: list[int], vector_bits: int,
                      pad: Callable[[int], int] | None = None, lane_bits: int | None = None,
                      phi_base: bool = False) -> dict[Any, list[tuple[int, int]]]:
    """The plan's accesses by address register: {XOR part: [(register index, immediate offset)]}
    (offsets in elements; register index over the plan's registers, vector bits 0).

    Triton adds the additive registers' offsets (`additive_registers`) and XORs the others' into the
    lane's base. Of that XOR, the bits no lane or warp offset can set are known zero in the base, so
    the base XOR them is the base plus them: LLVM folds them into the immediate as well (seen in the
    corpus: tl_dot_f16 on gfx942, B operand, registers at offsets 8, 16 and 2064 elements: the
    accesses two apart in the last two registers share an address register, 2048 elements apart).
    What is left of the XOR, the part within the lanes' and warps' bits, names the address register.

    ``pad``: a padded layout's offset -> slot map (``checker.padded.phys``, elements), None for a linear
    layout. Triton pads the XOR-formed offset and each additive constant apart (``lowerLdSt``:
    ``regIdxAddI8 = applyPadding(regIdxAddI8, paddingShifts)``, the constant bitwise disjoint from the
    base), and phys(a | b) = phys(a) + phys(b) for disjoint a, b (a shift distributes over a disjoint OR).
    So the immediate is pad(additive part) + pad(XOR part outside the lanes' and warps' bits): the slot
    distance between the access and its address register's base.

    Broadcast lanes (``lane_bits``: how many of `lane_offsets` are lanes; Triton 3.9.0's LLVM, found by editing
    its IR until the pair came back): where the lanes' and warps' offsets are one shift of the thread id with
    holes at lanes that repeat data (`shift_holes`), LLVM builds the base as (tid << s) & M, M without the
    holes; an immediate that sets every hole overwrites all the bits the mask clears, so InstCombine drops the
    mask for that access, whose address, (tid << s) | imm, is a register of its own. OpenAI triton_kernels' MX
    scale reads on gfx950 (8x256 i8, lanes 4 and 5 broadcast, holes at 64 and 128): the reads at 192, 704,
    1216 and 1728 stay single ds_read_b32 and the others pair.

    A base through a phi (``phi_base``; Triton 3.9.0's LLVM, found by editing its IR): LLVM splits the XOR's
    part outside the lanes' bits off into the immediate (SeparateConstOffsetFromGEP) only where it proves those
    bits zero in the base, and it cannot see through a phi. Where the lanes' offset of a read after a loop comes
    through one (GVN merging it with the same read's in a loop that may not run), an XOR that has bits inside the
    lanes' span keeps its outside part: each such access has an address register of its own (tl_dot_f16's
    epilogue on gfx942, amd_rotating_shared: of the B read's four pairs only the one without lane bits, 0 and
    0x1000, is fused). An XOR entirely outside the span was made an OR before the phi existed and still folds."""
    span = 0
    for o in lane_offsets:
        span |= o
    holes = shift_holes(lane_offsets, lane_bits) if pad is None and lane_bits is not None else 0
    front = set(additive_registers(cvt_regs, lane_offsets, vector_bits))
    out: dict[Any, list[tuple[int, int]]] = {}
    for m in range(0, 1 << len(cvt_regs), 1 << vector_bits):
        add = xor = 0
        for j in range(vector_bits, len(cvt_regs)):
            if m >> j & 1:
                if j in front:
                    add ^= cvt_regs[j]
                else:
                    xor ^= cvt_regs[j]
        imm = add ^ (xor & ~span) if pad is None else pad(add) + pad(xor & ~span)
        key: Any = ("own", m) if holes and imm & holes == holes else xor & span
        if phi_base and pad is None and xor & span and xor & ~span:
            key, imm = ("xor", xor), add
        out.setdefault(key, []).append((m, imm))
    return out


def shift_holes(lane_offsets: list[int], lane_bits: int) -> int:
    """The holes of a lane and warp map that is one shift of the thread id: where every non-zero offset i (the
    `lane_bits` lanes', then the warps') is 2^(i+s) for one s, the positions 2^(i+s) of the lanes whose offset is
    0 (they repeat another lane's data); 0 where the map is no such shift or no lane repeats. A warp that repeats
    makes no hole: the warp id enters the address only through the warps that move it. Nor do holes above every
    non-zero offset count (the top lanes repeat, no warp above them): the mask is then the low run of bits, which
    LLVM writes as (tid & m) << s, and an immediate setting the holes does not undo it (Triton 3.9.0's AMDGCN: a
    128x4 i8 scale read on gfx950 with one warp, lane 5 repeated, is two ds_read2_b32)."""
    nonzero = [(i, o) for i, o in enumerate(lane_offsets) if o]
    if not nonzero or any(o & (o - 1) for _, o in nonzero):
        return 0
    s = nonzero[0][1].bit_length() - 1 - nonzero[0][0]
    if s < 0 or any(o != 1 << (i + s) for i, o in nonzero):
        return 0
    holes = sum(1 << (i + s) for i, o in enumerate(lane_offsets[:lane_bits]) if not o)
    return holes if holes & ~-(1 << nonzero[-1][1].bit_length()) else 0


def issue_order(n_regs: int, vector_bits: int, additive: tuple[int, ...]) -> list[int]:
    """The plan's register bits in the order of Triton's issue loops, lowest first: the vector's, the additive
    registers' (the inner loop), then the others (``lowerLdSt`` after ``actionAdditiveStrides``, which keeps each
    group's order). An access's position in the issue is its register index read in that bit order."""
    rest = [j for j in range(vector_bits, n_regs) if j not in additive]
    return list(range(vector_bits)) + [j for j in range(vector_bits, n_regs) if j in additive] + rest


def pairing(cvt_regs: list[int], lane_offsets: list[int], vector_bits: int, element_bytes: int,
            elem_bytes: int, pad: Callable[[int], int] | None = None, stores: bool = False,
            lane_bits: int | None = None, phi_base: bool = False, base_bytes: int = 0,
            sunk: Callable[[int], bool] | None = None) -> Pairing:
    """How LLVM issues a vector plan's accesses of `element_bytes` per lane (4 or 8; elements of
    `elem_bytes`): ``cvt_regs`` are the plan's register offsets in order (the first
    `vector_bits` are the vector), ``lane_offsets`` the lane and warp offsets (elements); ``pad``: a
    padded layout's offset -> slot map, which the immediates go through (`address_registers`); ``stores``: the
    accesses are stores, which do not move past the other address registers' stores (module docstring, rule 2);
    ``lane_bits``: how many of `lane_offsets` are lanes (`address_registers`' broadcast lanes); ``phi_base``: the
    lanes' offset reaches the accesses through a phi (`address_registers`); ``base_bytes``: the constant part of
    the buffer's address (its allocation's offset in the kernel's shared memory, and a constant buffer index's),
    which LLVM folds into every immediate: the fields are the instruction's, and where they do not fit, LLVM's
    shifted base decides the form (`combine_offsets`); ``sunk(m)``: access m (its register index) is a read LLVM
    moves into another block than the rest (`sunk_apart`): the two groups are paired apart."""
    add = tuple(additive_registers(cvt_regs, lane_offsets, vector_bits))
    if element_bytes not in PAIRABLE_BYTES:
        return Pairing(element_bytes, 0, (), add, f"{element_bytes}-byte accesses are not paired")
    by_register = address_registers(cvt_regs, lane_offsets, vector_bits, pad, lane_bits, phi_base)
    if sunk is not None:
        by_register = sunk_apart(by_register, sunk)
    if all(len(v) == 1 for v in by_register.values()):
        return Pairing(element_bytes, 0, (), add, "every access has its own address register")
    apart = _stores_between(by_register, issue_order(len(cvt_regs), vector_bits, add)) if stores else None
    pairs, single = [], []
    for accesses in by_register.values():
        scaled = []
        for m, off in accesses:
            if off * elem_bytes % element_bytes:
                return Pairing(element_bytes, 0, (), add, "an offset is not a multiple of the access width")
            scaled.append((m, off * elem_bytes // element_bytes + base_bytes // element_bytes))
        p, s = fuse(scaled, apart)
        pairs += p
        single += s
    fields, deltas = tuple(f for _, _, f in pairs), tuple(a ^ b for a, b, _ in pairs)
    if single:
        return Pairing(element_bytes, 0, fields, add,
                       f"{len(single)} of {len(single) + 2 * len(pairs)} accesses stay single", len(single), deltas)
    if len(set(deltas)) != 1:
        return Pairing(element_bytes, 0, fields, add, "the pairs differ in different registers", 0, deltas)
    return Pairing(element_bytes, deltas[0], fields, add)


def sunk_apart(by_register: dict[Any, list[tuple[int, int]]], sunk: Callable[[int], bool]
               ) -> dict[Any, list[tuple[int, int]]]:
    """The accesses by address register and by block: SILoadStoreOptimizer pairs the accesses of one basic block, so
    where LLVM sinks some reads into a branch (``sunk(m)``: access m is one of them; a conversion's reads that feed
    only a masked store's first branch, `checker.ttgir.store_branch`), an address register's reads that stay and
    those that move are two lists, each walked on its own (module docstring, rule 2)."""
    out: dict[Any, list[tuple[int, int]]] = {}
    for key, accesses in by_register.items():
        for m, off in accesses:
            out.setdefault((key, sunk(m)), []).append((m, off))
    return out


def _stores_between(by_register: dict[Any, list[tuple[int, int]]], order: list[int]) -> Callable[[int, int], bool]:
    """apart(a, b) for stores: some store of another address register is issued between accesses a and b."""
    position = {}
    register_of = {}
    for key, accesses in by_register.items():
        for m, _ in accesses:
            position[m] = sum(1 << k for k, j in enumerate(order) if m >> j & 1)
            register_of[m] = key
    issued = sorted(position, key=position.__getitem__)
    index = {m: i for i, m in enumerate(issued)}

    def apart(a: int, b: int) -> bool:
        lo, hi = sorted((index[a], index[b]))
        return any(register_of[issued[i]] != register_of[a] for i in range(lo + 1, hi))
    return apart


MMA_LOOP_SINGLE = ("LLVM keeps the pairs single: their two reads feed every MFMA/WMMA of a loop of one block "
                   "(change lds_reads_single_for_mma)")


def kept_single_for_mma(registers: list[int], vector_bits: int, delta: int, group_bits: int) -> bool:
    """Whether every pair of a paired read stays two single reads in a loop of one block whose every MFMA/WMMA
    reads this value (module docstring, "Loops of one block"). ``registers[i]``: the value's register index (R's
    numbering) behind the plan's register index i, its lowest `vector_bits` the access's vector; the pairs are the
    accesses m and m ^ `delta`; an instruction reads the registers r that agree in r >> `group_bits`. A pair stays
    single when its two accesses hold a register of every instruction's group (each of them holds some, being part
    of the value every instruction reads from): true when every pair does (where only some do, the plan is scored
    as fused, a case none of the measured kernels has)."""
    groups = {r >> group_bits for r in registers}
    low = delta & -delta
    for m in range(0, len(registers), 1 << vector_bits):
        if m & low:
            continue                              # the pair's other access: counted with m ^ delta
        covered = {registers[i | v] >> group_bits for i in (m, m ^ delta) for v in range(1 << vector_bits)}
        if covered != groups:
            return False
    return True


def pair_mnemonic(direction: str, element_bytes: int, stride64: bool, hw: Hardware) -> str:
    """AMDGCN's name of a paired LDS access (gfx9: ds_read2[st64]_bN / ds_write2[st64]_bN; gfx11 and
    later: ds_load_2addr[_stride64]_bN / ds_store_2addr[_stride64]_bN)."""
    bits = element_bytes * 8
    if amd_generation(hw) >= 11:
        op = "load" if direction == "load" else "store"
        return f"ds_{op}_2addr{'_stride64' if stride64 else ''}_b{bits}"
    op = "read2" if direction == "load" else "write2"
    return f"ds_{op}{'st64' if stride64 else ''}_b{bits}"


def amd_generation(hw: Hardware) -> int:
    """The gfx major version of an AMD preset (9 for gfx942/gfx950, 11, 12); 9 when unknown: the
    leading digits of the target's ``gfxNNN`` name minus its last two characters."""
    m = re.search(r"gfx(\d+?)(\d\w)$", hw.triton_target or hw.name)
    return int(m.group(1)) if m else 9
