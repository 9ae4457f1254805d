"""Tensor memory (TMEM) accesses: which ``tcgen05.ld`` / ``tcgen05.st`` message moves a register layout.

tmem_access(reg, mem, shape, mem_shape, bits, scales, maxnreg): the register
layout of a ``ttng.tmem_load`` result, a ``ttng.tmem_store`` source or a
``ttng.tmem_alloc`` initial value can be moved to or from the TMEM layout by
one of the ``tcgen05.ld/st`` messages. This is Triton's own rule, the one its
verifier applies (``verifyTMEMOperand`` -> ``isDistributedLayoutTMemCompatible``
in lib/Dialect/TritonNvidiaGPU/IR/Ops.cpp and Dialect.cpp), which calls
``computeTMemLdStEncodingInfo`` / ``lowerTMemLdSt`` of
lib/Dialect/TritonNvidiaGPU/IR/TensorMemoryUtils.cpp:

    cvt = reg^-1 . mem                  register, lane, warp, block -> row, col, block
    cvt must be trivial over block      (the same CGA layout; Triton >= 3.8)
    Triton <= 3.7 (change ``tmem_block_in_dim``): mem has no block in-dim, its CGA's bases are its last
        col bases (the CTAs' columns); cvt keeps the register block and the lowering applies it at
        block 0 on each CTA's own TMEM. Dropping it is right when the block bases move only the CTAs'
        columns and no other basis touches them (Triton only asks that they miss the message's tile)
    reg warp bases 0, 1 = mem row bases 5, 6   (warps 1, 2 hold rows 32, 64)
    broadcast registers (zero bases) are dropped
    elements under 32 bits: packed (contiguous registers along col, up to 32 bits),
        else unpacked (16 bits: one element per 32-bit column), else padded
    32 bits: the first message among 32x32b, 16x256b, 16x64b, 16x128b whose tile
        (registers, 32 lanes, warps 1, 2 -> rows 32, 64) starts the cvt after a
        register permutation and does not overlap its remaining bases; else
        16x32bx2, whose second half sits at the cvt's lane-16 basis (a zero
        offset is only allowed for scales)

The message (``32x32b``, ``16x64b``, ``16x128b``, ``16x256b``, ``16x32bx2``)
and the registers per message are reported in the details; a layout no message
moves is what Triton's verifier rejects (``failed to lower TMEM load/store``).

``maxnreg`` is Triton's contextual register limit (``getContextualMaxNReg``:
256, or the module's ``ttg.maxnreg``); it only bounds the vector width.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..encodings import lower
from ..encodings.base import Encoding
from ..errors import CheckerError
from ..layout import LayoutError, LinearLayout, divide_left
from ..versions import follows, require_modelled
from .result import Result

REG, LANE, WARP, BLOCK, ROW, COL = "register", "lane", "warp", "block", "row", "col"
ATOMS = ("32x32b", "16x256b", "16x64b", "16x128b")     # Triton's order of trial
PAIRED = "16x32bx2"


class _Fail(Exception):
    pass


def _static(problems: list[str], ok: str, details: dict) -> Result:
    return Result("tmem_access", "fails" if problems else "holds", {}, None,
                  "; ".join(problems) if problems else ok, details)


def tile_layout(atom: str, unpacked: bool = False, with_warp: bool = True) -> LinearLayout:
    """The registers and lanes of one warp that a message moves -> (row, col) (Triton's getTileLayout)."""
    tile = LinearLayout([(REG, []), (LANE, [])], [(ROW, 1), (COL, 1)])
    if unpacked:
        tile = tile * LinearLayout.zeros_1d(1, REG, COL, 2)
    if atom == "32x32b":
        tile = tile * LinearLayout.identity_1d(32, LANE, ROW)
    elif atom == PAIRED:
        tile = tile * LinearLayout.identity_1d(16, LANE, ROW)
    elif atom == "16x64b":
        tile = tile * LinearLayout.from_bases([(LANE, [(8, 0), (0, 1), (1, 0), (2, 0), (4, 0)])], [ROW, COL])
    elif atom == "16x128b":
        tile = (tile * LinearLayout.identity_1d(4, LANE, COL) * LinearLayout.identity_1d(8, LANE, ROW)
                * LinearLayout.identity_1d(2, REG, ROW))
    elif atom == "16x256b":
        tile = (tile * LinearLayout.identity_1d(2, REG, COL) * LinearLayout.identity_1d(4, LANE, COL)
                * LinearLayout.identity_1d(8, LANE, ROW) * LinearLayout.identity_1d(2, REG, ROW))
    else:
        raise ValueError(f"unknown TMEM message {atom}")
    if with_warp:
        ins = [(d, list(tile.in_bases(d))) for d in tile.in_dims] + [(WARP, [(32, 0), (64, 0)])]
        tile = LinearLayout(ins, [(ROW, 128), (COL, tile.out_dim_size(COL))])
    return tile


def _with_regs(L: LinearLayout, order: Sequence[int]) -> LinearLayout:
    """L with its register bases taken in `order` (Triton's ColumnAction on registers)."""
    regs = L.in_bases(REG)
    return LinearLayout([(d, [regs[i] for i in order] if d == REG else list(L.in_bases(d))) for d in L.in_dims],
                        list(L.out_dim_sizes))


def _vector(L: LinearLayout, o: str, b: tuple) -> dict:
    return dict(zip(L.out_dims, b)).get(o, 0)


def _reg_perm_for_divide(A: LinearLayout, B: LinearLayout) -> list[int] | None:
    """Registers of A reordered so that B's register bases come first (regPermForDivide, left)."""
    a_regs = [tuple(_vector(A, o, b) for o in A.out_dims) for b in A.in_bases(REG)]
    used = [False] * len(a_regs)
    order = []
    for b in B.in_bases(REG):
        want = tuple(_vector(B, o, b) for o in A.out_dims)
        for j, a in enumerate(a_regs):
            if not used[j] and a == want:
                used[j] = True
                order.append(j)
                break
        else:
            return None
    return order + [j for j in range(len(a_regs)) if not used[j]]


def _reps(cvt: LinearLayout, tile: LinearLayout) -> LinearLayout | None:
    """cvt with the tile's leading bases zeroed, when the tile starts cvt and no other basis
    touches the tile's bits (Triton's getReps)."""
    mask = {o: 0 for o in cvt.out_dims}
    for d in tile.in_dims:
        for b in tile.in_bases(d):
            for o in tile.out_dims:
                mask[o] |= _vector(tile, o, b)
    ins = []
    for d in cvt.in_dims:
        bases = cvt.in_bases(d)
        n_tile = tile.in_dim_size_log2(d) if tile.has_in_dim(d) else 0
        if n_tile > len(bases):
            return None
        for i in range(n_tile):
            if any(_vector(cvt, o, bases[i]) != _vector(tile, o, tile.in_bases(d)[i]) for o in cvt.out_dims):
                return None
        for b in bases[n_tile:]:
            if any(_vector(cvt, o, b) & mask[o] for o in cvt.out_dims):
                return None
        ins.append((d, [(0,) * len(cvt.out_dims)] * n_tile + list(bases[n_tile:])))
    return LinearLayout(ins, list(cvt.out_dim_sizes))


def _vec(cvt: LinearLayout, tile: LinearLayout, maxnreg: int):
    """(reps, registers per message) of the widest message of this tile (Triton's getVec), or None."""
    max_reg = maxnreg // 2
    if maxnreg == 256 and cvt.in_dim_size(REG) > max_reg:
        max_reg //= 2
    max_vec = max_reg // tile.in_dim_size(REG)
    i, reps = 1, None
    while i <= max_vec:
        vec_tile = tile * LinearLayout.identity_1d(i, REG, COL)
        order = _reg_perm_for_divide(cvt, vec_tile)
        if order is None:
            break
        r = _reps(_with_regs(cvt, order), vec_tile)
        if r is None:
            break
        reps = r
        i *= 2
    if i == 1:
        return None
    return reps, (i // 2) * tile.in_dim_size(REG)


def lower_tmem_ld_st(cvt: LinearLayout, maxnreg: int, bits: int, scales: bool, unpacked: bool = False) -> dict:
    """The message that moves cvt (register, lane, warp -> row, col), as Triton's lowerTMemLdSt
    finds it: {"message", "registers_per_message", "unpacked", "vec", "padding"}; raises _Fail."""
    regs = cvt.in_bases(REG)
    keep = [i for i, b in enumerate(regs) if any(b)]
    if len(keep) != len(regs):
        info = lower_tmem_ld_st(_with_regs(cvt, keep), maxnreg, bits, scales, unpacked)
        info["broadcast_registers"] = len(regs) - len(keep)
        return info
    if bits < 32:
        quot, best, contig = None, 1, 1
        while bits * contig <= 32:
            q = divide_left(cvt, LinearLayout.identity_1d(contig, REG, COL))
            if q is None:
                break
            quot, best = q, contig
            contig *= 2
        padding = False
        wide = bits
        pair = divide_left(cvt, LinearLayout.zeros_1d(1, REG, COL, 32 // bits) * LinearLayout.identity_1d(2, REG, COL))
        if best > 1:
            unpacked, wide = False, bits * best
        elif bits == 16 and pair is not None:
            unpacked, quot, wide = True, pair, 32
        else:
            q = divide_left(cvt, LinearLayout.zeros_1d(1, REG, COL, 32 // bits))
            if q is None:
                raise _Fail("the TMEM layout is neither packed nor unpacked for this register layout")
            unpacked, quot, padding, wide = bits == 16, q, True, 32
        if unpacked:
            quot = LinearLayout.zeros_1d(1, REG, COL, 32 // bits) * quot
        info = lower_tmem_ld_st(quot, maxnreg, wide, scales, unpacked)
        if best > 1:
            info["vec"] = best
        if unpacked:
            info["unpacked"] = True
        if padding:
            info["padding"] = True
        return info
    if bits != 32:
        raise _Fail(f"{bits}-bit elements (TMEM messages move 32-bit columns)")
    for atom in ATOMS:
        found = _vec(cvt, tile_layout(atom, unpacked), maxnreg)
        if found is not None:
            return {"message": atom, "registers_per_message": found[1], "unpacked": unpacked, "vec": 1,
                    "padding": False}
    found = _vec(cvt, tile_layout(PAIRED, unpacked), maxnreg)
    if found is None:
        raise _Fail("no tcgen05.ld/st message (32x32b, 16x256b, 16x64b, 16x128b, 16x32bx2) matches the "
                    "register layout")
    reps, n = found
    b = reps.in_bases(LANE)[4]
    offset = (_vector(reps, ROW, b) << 16) | _vector(reps, COL, b)
    if offset == 0 and not scales:
        raise _Fail("16x32bx2 with a zero second-half offset (the register layout repeats lanes 0-15 on lanes "
                    "16-31), which Triton supports for scales only")
    return {"message": PAIRED, "registers_per_message": n, "unpacked": unpacked, "vec": 1, "padding": False,
            "second_half_offset": offset}


def _drop_block(cvt: LinearLayout, mem: LinearLayout, cta_col_bases: int) -> LinearLayout:
    """Triton <= 3.7's cvt without its block in-dim (module docstring: the TMEM layout has no block in-dim,
    its last `cta_col_bases` col bases are the CTAs'), or raises _Fail when a CTA's data is not in its own TMEM."""
    if not cvt.has_in_dim(BLOCK):
        return cvt
    per_cta = mem.in_dim_size(COL) >> cta_col_bases       # the columns of one CTA's TMEM
    cta_bits = (mem.in_dim_size(COL) - 1) & ~(per_cta - 1)
    for b in cvt.in_bases(BLOCK):
        row, col = _vector(cvt, ROW, b), _vector(cvt, COL, b)
        if row or col & ~cta_bits or any(_vector(cvt, o, b) for o in cvt.out_dims if o not in (ROW, COL)):
            raise _Fail(f"the register and TMEM layouts have different CGA layouts: a block basis of the "
                        f"register layout moves to TMEM row {row}, col {col}, not to another CTA's columns "
                        f"(col >= {per_cta}; Triton <= 3.7 drops the block and addresses each CTA's own TMEM)")
    for d in cvt.in_dims:
        for b in cvt.in_bases(d) if d != BLOCK else ():
            if _vector(cvt, COL, b) & cta_bits:
                raise _Fail(f"the register and TMEM layouts have different CGA layouts: a {d} basis of the "
                            f"register layout moves to TMEM col {_vector(cvt, COL, b)}, in another CTA's "
                            f"columns (col >= {per_cta})")
    return cvt.sublayout([d for d in cvt.in_dims if d != BLOCK], [o for o in cvt.out_dims if o != BLOCK])


def tmem_message(reg: LinearLayout, mem: LinearLayout, bits: int, scales: bool, maxnreg: int = 256,
                 cta_col_bases: int | None = None) -> dict:
    """computeTMemLdStEncodingInfo: the message info, or raises _Fail with the broken rule. `cta_col_bases`:
    None for Triton >= 3.8 (mem has a block in-dim), else Triton <= 3.7's count of mem's CTA col bases."""
    try:
        cvt = reg.invert_and_compose(mem)
    except LayoutError as e:
        raise _Fail(f"the register layout holds elements the TMEM layout does not ({e})") from None
    if cta_col_bases is not None:
        cvt = _drop_block(cvt, mem, cta_col_bases)
    elif cvt.has_in_dim(BLOCK):
        q = cvt.quotient([BLOCK]) if cvt.has_out_dim(BLOCK) else None
        if q is None:
            raise _Fail("the register and TMEM layouts have different CGA layouts")
        cvt = q
    warp = reg.in_bases(WARP) if reg.has_in_dim(WARP) else ()
    rows = mem.in_bases(ROW)
    if len(warp) < 2 or len(rows) < 7:
        raise _Fail(f"TMEM accesses need at least 4 warps and 128 rows; the register layout has "
                    f"{1 << len(warp)} warps")
    if warp[0] != rows[5] or warp[1] != rows[6]:
        raise _Fail(f"warps 1, 2 must hold TMEM rows 32, 64: warp bases {list(warp[0])}, {list(warp[1])} "
                    f"but rows 32, 64 are {list(rows[5])}, {list(rows[6])}")
    ins = []
    for d in cvt.in_dims:
        bases = list(cvt.in_bases(d))
        if d == WARP:
            vec = {ROW: 32}, {ROW: 64}
            bases[0], bases[1] = (tuple(vec[0].get(o, 0) for o in cvt.out_dims),
                                  tuple(vec[1].get(o, 0) for o in cvt.out_dims))
        ins.append((d, bases))
    cvt = LinearLayout(ins, list(cvt.out_dim_sizes)).transpose_outs([ROW, COL])
    return lower_tmem_ld_st(cvt, maxnreg, bits, scales)


def tmem_access(reg: Encoding, mem: Encoding, shape: Sequence[int], mem_shape: Sequence[int], bits: int,
                scales: bool = False, maxnreg: int = 256) -> Result:
    """A tcgen05.ld/st message moves `reg` (at `shape`) to or from `mem` (at its allocation
    shape `mem_shape`): module docstring. Triton 3.5's access to a scales layout is not modelled
    (`checker.versions.GAPS`)."""
    if scales:
        require_modelled("tmem_scales_access")
    R, M = lower(reg, shape), lower(mem, mem_shape)
    details = {"shape": list(shape), "mem_shape": list(mem_shape), "element_bits": bits, "maxnreg": maxnreg}
    try:
        cta = None if follows("tmem_block_in_dim") else len(getattr(mem, "cga_layout", ()))
        info = tmem_message(R, M, bits, scales, maxnreg, cta)
    except _Fail as e:
        return _static([f"no tcgen05.ld/st message moves this register layout: {e}"], "", details)
    except LayoutError as e:
        raise CheckerError(f"TMEM access not modelled: {e}") from None
    details.update(info)
    how = f"tcgen05 message {info['message']}, {info['registers_per_message']} registers per message"
    return _static([], how, details)


def decide(ob) -> Result:
    """The registry's decide: one TTGIR check of a tcgen05.ld/st (its register and tensor-memory operands)."""
    p = ob.param
    return tmem_access(ob.operand("reg"), ob.operand("tmem"), ob.shape, p("mem_shape"), ob.dtype_bits,
                       scales=bool(p("scales")), maxnreg=p("maxnreg") or 256)
