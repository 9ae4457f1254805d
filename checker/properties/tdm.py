"""AMD Tensor Data Mover (gfx1250) copies between a ``!tt.tensordesc`` block and shared memory.

One property, ``tdm_copy(shared, desc, block, bits, op=...)``, for the four TDM ops: ``load``
(``amdg.async_tdm_copy_global_to_local``), ``store`` (``amdg.async_tdm_copy_local_to_global``),
``gather`` (``amdg.async_tdm_gather``: rows picked by an index tensor into shared memory) and
``scatter`` (``amdg.async_tdm_scatter``: shared memory out to the rows an index tensor picks); and
``tdm_fused_load(members, hints)`` (op ``fused_load``) for ``amdg.async_tdm_fused_copy_global_to_local``,
2 to 4 loads in one op, each member loaded by the warps of its hint. The
rules are those of Triton's verifier (third_party/amd/lib/Dialect/TritonAMDGPU/IR/Dialect.cpp: the
op's ``verify``, ``verifyTDMBlockSize``, the layout-consistency check) as each release decides them
(every rule below was put to the verifiers of the Triton 3.7.0, 3.8.0 and 3.9.0 wheels with small
modules: tests/properties/test_tdm_versions.py), then the limits of the lowering that builds the
descriptor (third_party/amd/lib/TritonAMDGPUToLLVM/LoadStoreOpToLLVM.cpp ``AsyncTDM*OpConversion``;
TDMUtility.cpp ``fillTDMDescriptor``, ``emitTDMGatherScatter``).

Every op (``verifyTDMBlockSize`` and the swizzling test):

    every block dim <= 65535
    a swizzled_shared buffer has maxPhase 1 (TDM writes rows as they are)

load (``AsyncTDMCopyGlobalToLocalOp::verify``):

    the buffer is swizzled_shared, padded_shared, or partitioned_shared around one of those
        (its inner swizzled_shared unswizzled)
    a padded_shared buffer: each (interval, padding) pair spans at least 2 dwords of interval and
        1 dword of padding: interval * bits / 32 >= 2, padding * bits / 32 >= 1
    warp_used_hint (3.8 on, change ``tdm_warp_used_hint``; ``validateWarpUsedHint``): num_warps a
        power of two below 32; the hint h != 0, inside num_warps' bits, K = popcount(h) a power of two,
        and axis-aligned: the bits that vary over the active warps, OR_w (w XOR lsb(h)), number log2 K;
        a partitioned buffer needs numPartitions * numGroups to divide K

store (``AsyncTDMCopyLocalToGlobalOp::verify``):

    the buffer is swizzled_shared or padded_shared
    padded (3.7 on, change ``tdm_store_padding``; refused before): one interval, equal to the innermost
        dim of the block per CTA (shapePerCTA(block)[-1])

gather and scatter (``AsyncTDMGatherOp::verify``, ``AsyncTDMScatterOp::verify``):

    a 2-D block; the buffer swizzled_shared or padded_shared
    the index tensor (src_row_indices / dst_row_indices) 1-D, i16 or i32, its length a power of two
    3.8 on (change ``tdm_gather_scatter_padding``; before, a padded buffer is refused): gather takes
        one (interval, padding) pair whose interval divides block[-1]; scatter one interval equal to
        block[-1]
    3.8 on (change ``tdm_gather_layout_rules``): elements of at least 8 bits; gather only:
        the buffer's order row-major (order[0] = rank - 1), and where the index tensor has a layout,
        every lane basis a free variable (each lane of a warp holds the same indices: the TDM
        instruction reads them from scalar registers) and, the index and the buffer layouts both with
        a block basis or both without, their block -> dim0 bases equal (the CTA holding an index row
        holds that buffer row)

fused load (Triton 3.9 on; ``AsyncTDMFusedCopyGlobalToLocalOp::verify``; older releases have no such op):

    2 to 4 members; as many descriptors as destinations as warp_used_hints
    every member a load as above (its hint the load's warp_used_hint, so validateWarpUsedHint and the
        partitioned rule hold per member), each problem named by its member
    one rank for all the descriptors
    the hints pairwise disjoint (warps no member names stay idle: allowed)
    (Triton 3.9.0 compares no element types: it verifies and lowers an f16 descriptor into an f32 buffer,
    fused or not; a later source refuses a member whose descriptor and buffer element widths differ)

layout consistency (3.8 on, change ``tdm_layout_consistency``, every op; ``verifyTDMLayoutConsistency``),
where the descriptor has a layout:

    padded desc and buffer: the same intervals and paddings (the shape bases may differ)
    otherwise the same attribute; 3.9 on (change ``tdm_rank_reducing_layout``) a swizzled desc
        block [1, ..., 1] + buffer shape also matches a buffer whose layout is the desc's with those
        k leading unit dims dropped (order without dims < k, renumbered; the CGA bases without their
        first k components)
    (before 3.8 nothing is compared: the 3.7 verifier reads only the buffer's layout; no released
    verifier refuses a padded desc only when both its intervals and paddings differ)

The lowering, as it builds the descriptor from the descriptor's layout (load, store) or the buffer's
(gather, scatter), when there is one:

    1 to 5 dims
    padded (directly or inside partitioned_shared): exactly one (interval, padding) pair; the interval
        in dwords a power of two
    the descriptor's group-1 fields: pad interval as log2(dwords) - 1 in 3 bits (2 to 256 dwords),
        pad amount as dwords - 1 in 7 bits (1 to 128 dwords); a larger value spills into the next field
    partitioned (load): the block divides into numPartitions * numGroups pieces along partitionDim
    scatter with more than one CTA is refused ("TDM scatter does not support multi-CTA"); so is a
        multi-CTA gather before 3.8 (change ``tdm_gather_layout_rules``)
    gather/scatter: each warp issues its distinct index registers (broadcast registers removed) in
        instructions of at most 8 i32 or 16 i16 indices, fewer where fewer are consecutive in registers
        (``emitTDMGatherScatter``: ceil(n / min(8 or 16, getNumConsecutiveInOut)))

The padding (interval and amount in dwords) and, for gather/scatter, the index figures are reported.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ..encodings import lower
from ..encodings.base import Encoding, order_by_first_appearance
from ..encodings.cga import shape_per_cta
from ..layout import LinearLayout
from ..versions import TritonVersion, active, follows
from .result import Result

MAX_BLOCK = 65535
OPS = ("load", "store", "gather", "scatter")


def _padded(enc: Encoding | None) -> Encoding | None:
    """The padded layout of `enc`: itself, or the inner layout of a partitioned one (Triton's getPaddedEncoding)."""
    if enc is None:
        return None
    if enc.kind == "padded_shared":
        return enc
    if enc.kind == "partitioned_shared" and enc.partition_layout.kind == "padded_shared":
        return enc.partition_layout
    return None


def tdm_copy(shared: Encoding, desc: Encoding | None, block: Sequence[int], bits: int, *, op: str = "load",
             buffer_shape: Sequence[int] | None = None, index: Encoding | None = None,
             index_shape: Sequence[int] | None = None, index_bits: int | None = None, num_ctas: int = 1,
             num_warps: int | None = None, warp_used_hint: int | None = None) -> Result:
    """One TDM `op` between a buffer of layout `shared` (shape `buffer_shape`, the block's when None) and a
    descriptor block `block` of `bits`-bit elements (module docstring); gather and scatter take the index
    tensor's layout `index` (None: it has none), shape and element bits."""
    if op not in OPS:
        raise ValueError(f"op must be one of {OPS}, got {op!r}")
    problems, details = _copy_problems(shared, desc, block, bits, op, buffer_shape, index, index_shape, index_bits,
                                       num_ctas, num_warps, warp_used_hint)
    ok = f"TDM {_NAMES[op]}: buffer and descriptor layouts are ones Triton's TDM accepts"
    if "pad_interval_dwords" in details:
        ok += f" ({_padding(details)})"
    return Result("tdm_copy", "fails" if problems else "holds", {}, None, "; ".join(problems) if problems else ok,
                  details)


def _padding(details: dict) -> str:
    return f"padding {details['pad_amount_dwords']} dwords every {details['pad_interval_dwords']} dwords"


@dataclasses.dataclass(frozen=True)
class Member:
    """One (descriptor, destination) pair of a fused TDM load: the buffer's layout, shape and element bits, the
    descriptor's layout (None: it has none) and block."""

    shared: Encoding
    desc: Encoding | None
    block: tuple[int, ...]
    bits: int
    buffer_shape: tuple[int, ...]


FUSED_FIRST = TritonVersion(3, 9)


def tdm_fused_load(members: Sequence[Member], hints: Sequence[int], *, num_warps: int | None = None,
                   descriptors: int | None = None, destinations: int | None = None) -> Result:
    """One ``amdg.async_tdm_fused_copy_global_to_local`` (module docstring): `members` in order, one
    ``warp_used_hint`` per member in `hints`. `descriptors` and `destinations` count the op's descriptors and
    buffers where they differ (`members` then pairs the first ones); the descriptors count the members."""
    if active() < FUSED_FIRST:
        return Result("tdm_copy", "fails", {}, None, f"Triton {active()} has no fused TDM load "
                      f"(amdg.async_tdm_fused_copy_global_to_local is Triton {FUSED_FIRST}'s)", {})
    n = len(members) if descriptors is None else descriptors
    problems: list[str] = []
    if not 2 <= n <= 4:
        problems.append(f"a fused TDM load takes 2 to 4 members, got {n}")
    if destinations is not None and destinations != n:
        problems.append(f"a fused TDM load needs as many descriptors as destinations, got {n} and {destinations}")
    if len(hints) != n:
        problems.append(f"a fused TDM load needs one warp_used_hint per member, got {len(hints)} for {n}")
    ranks = [len(m.block) for m in members]
    if len(set(ranks)) > 1:
        problems.append(f"the members' descriptors must have one rank, got {ranks}")
    figures: list[dict] = []
    for k, (m, hint) in enumerate(zip(members, hints)):
        own, details = _copy_problems(m.shared, m.desc, m.block, m.bits, "load", m.buffer_shape, None, None, None,
                                      1, num_warps, hint)
        problems += [f"member {k}: {p}" for p in own]
        figures.append({"warp_used_hint": hint, **details})
    for j in range(len(figures)):
        for k in range(j):
            common = hints[j] & hints[k]
            if common:
                problems.append(f"members {k} and {j} share warps (warp_used_hint {hints[k]:#x} and {hints[j]:#x}, "
                                f"both {common:#x}): the hints must be pairwise disjoint")
    ok = (f"TDM fused load of {n} members on disjoint warps ({', '.join(f'{h:#x}' for h in hints)}): each buffer "
          "and descriptor layout is one Triton's TDM accepts")
    padded = [f"member {k} {_padding(d)}" for k, d in enumerate(figures) if "pad_interval_dwords" in d]
    if padded:
        ok += f" ({'; '.join(padded)})"
    return Result("tdm_copy", "fails" if problems else "holds", {}, None, "; ".join(problems) if problems else ok,
                  {"members": figures})


def _copy_problems(shared: Encoding, desc: Encoding | None, block: Sequence[int], bits: int, op: str,
                   buffer_shape: Sequence[int] | None, index: Encoding | None, index_shape: Sequence[int] | None,
                   index_bits: int | None, num_ctas: int, num_warps: int | None,
                   warp_used_hint: int | None) -> tuple[list[str], dict]:
    """What the verifier and the lowering refuse of one TDM `op` (`tdm_copy`'s arguments), and its figures."""
    problems: list[str] = []
    details: dict = {"block": list(block)}
    shape = list(buffer_shape) if buffer_shape is not None else list(block)
    if op in ("gather", "scatter") and len(block) != 2:
        problems.append(f"TDM {op} moves 2-D blocks only, got {len(block)} dims")
    for i, s in enumerate(block):
        if s > MAX_BLOCK:
            problems.append(f"TDM block dim {i} ({s}) exceeds the maximum {MAX_BLOCK}")
    kind = shared.kind
    problems += _buffer_kind(op, shared)
    if op == "load" and kind == "padded_shared":
        for interval, padding in zip(shared.intervals, shared.paddings):
            if interval * bits // 32 < 2:
                problems.append(f"a TDM padding interval must span at least 2 dwords, got {interval} x {bits} bits")
            if padding * bits // 32 < 1:
                problems.append(f"a TDM padding amount must span at least 1 dword, got {padding} x {bits} bits")
    if op == "load" and warp_used_hint is not None and follows("tdm_warp_used_hint"):
        problems += _warp_used_hint(warp_used_hint, num_warps, shared)
    if kind == "padded_shared" and op != "load":
        problems += _store_side_padding(op, shared, block)
    if op in ("gather", "scatter"):
        problems += _gather_scatter(op, shared, shape, bits, index, index_shape, index_bits, details)
    if desc is not None and not problems and follows("tdm_layout_consistency"):
        problems += _consistency(desc, block, shared, shape)
    if not problems:
        problems += _lowering(op, shared if op in ("gather", "scatter") else desc, block, bits, num_ctas, details)
    return problems, details


_NAMES = {"load": "copy", "store": "store", "gather": "gather", "scatter": "scatter"}


def _buffer_kind(op: str, shared: Encoding) -> list[str]:
    """The buffer layouts the op's verifier takes; a swizzled one must not swizzle."""
    kind = shared.kind
    if kind == "swizzled_shared" and shared.max_phase != 1:
        return [f"TDM does not support swizzling (maxPhase {shared.max_phase})"]
    if kind == "partitioned_shared" and op == "load":
        inner = shared.partition_layout
        if inner.kind == "swizzled_shared" and inner.max_phase != 1:
            return [f"TDM does not support swizzling in a partitioned layout (maxPhase {inner.max_phase})"]
        if inner.kind not in ("swizzled_shared", "padded_shared"):
            return [f"a partitioned TDM buffer needs a swizzled_shared or padded_shared inner layout, got {inner.kind}"]
        return []
    if kind not in ("swizzled_shared", "padded_shared"):
        if op == "load":
            return [f"the TDM buffer layout must be swizzled_shared, padded_shared or partitioned_shared, got {kind}"]
        return [f"the TDM {op} buffer layout must be swizzled_shared or padded_shared, got {kind}"]
    return []


def _store_side_padding(op: str, shared: Encoding, block: Sequence[int]) -> list[str]:
    """A padded buffer of a store, gather or scatter (module docstring)."""
    pairs = _pairs(shared)
    if op == "store" and not follows("tdm_store_padding"):
        return [f"a TDM store does not support a padded buffer {pairs}"]
    if op in ("gather", "scatter") and not follows("tdm_gather_scatter_padding"):
        return [f"a TDM {op} does not support a padded buffer {pairs}"]
    if op == "gather":
        if len(shared.intervals) != 1:
            return [f"a TDM gather takes one (interval, padding) pair, got {pairs}"]
        if block[-1] % shared.intervals[0]:
            return [f"a TDM gather's padding interval ({shared.intervals[0]}) must divide the block's innermost dim "
                    f"({block[-1]})"]
        return []
    if len(shared.intervals) != 1:
        return [f"a TDM {op} takes a single padding interval, got {pairs}"]
    inner = shape_per_cta(shared.cga_layout, block)[-1] if op == "store" else block[-1]
    if shared.intervals[0] != inner:
        return [f"a padded TDM {op} needs the padding interval ({shared.intervals[0]}) to equal the block's innermost "
                f"dim{' per CTA' if op == 'store' else ''} ({inner})"]
    return []


def _warp_used_hint(hint: int, num_warps: int | None, shared: Encoding) -> list[str]:
    """``validateWarpUsedHint`` and the partitioned rule (module docstring)."""
    if num_warps is not None:
        if num_warps & (num_warps - 1):
            return [f"warp_used_hint needs a power-of-two num_warps, got {num_warps}"]
        if num_warps >= 32:
            return [f"warp_used_hint needs num_warps below 32, got {num_warps}"]
        if hint == 0:
            return ["warp_used_hint must select at least one warp"]
        if hint >> num_warps:
            return [f"warp_used_hint {hint:#x} selects warps beyond num_warps = {num_warps}"]
        k = bin(hint).count("1")
        if k & (k - 1):
            return [f"warp_used_hint {hint:#x} selects {k} warps, not a power of two"]
        low = (hint & -hint).bit_length() - 1
        support = 0
        for w in range(hint.bit_length()):
            if hint >> w & 1:
                support |= w ^ low
        if bin(support).count("1") != k.bit_length() - 1:
            return [f"warp_used_hint {hint:#x} is not axis-aligned: its {k} warps differ in "
                    f"{bin(support).count('1')} warp-id bits, not log2({k})"]
    if shared.kind == "partitioned_shared":
        pieces = shared.num_partitions * shared.num_groups
        k = bin(hint).count("1")
        if k % pieces:
            return [f"warp_used_hint selects {k} warps, which the partitioned buffer's {pieces} pieces do not divide "
                    "(one TDM instruction per hinted copy)"]
    return []


def _gather_scatter(op: str, shared: Encoding, shape: Sequence[int], bits: int, index: Encoding | None,
                    index_shape: Sequence[int] | None, index_bits: int | None, details: dict) -> list[str]:
    """The index tensor and the buffer of a gather or scatter (module docstring)."""
    out: list[str] = []
    role = "src_row_indices" if op == "gather" else "dst_row_indices"
    if follows("tdm_gather_layout_rules") and bits < 8:
        out.append(f"a TDM {op} needs elements of at least 8 bits, got {bits}")
    if index_shape is None:
        return out
    if len(index_shape) != 1:
        return out + [f"{role} must be 1-D, got shape {list(index_shape)}"]
    n = index_shape[0]
    details["indices"] = n
    if index_bits not in (16, 32):
        out.append(f"{role} must be i16 or i32, got {index_bits}-bit integers")
    if n & (n - 1) or n == 0:
        out.append(f"{role} must hold a power-of-two count of indices, got {n}")
    if op != "gather" or not follows("tdm_gather_layout_rules") or out or \
            shared.kind not in ("swizzled_shared", "padded_shared"):
        return out
    order = _order_of(shared)
    if order[0] != len(order) - 1:
        out.append(f"a TDM gather needs a row-major buffer (order[0] = {len(order) - 1}), got order {list(order)}")
    if index is None or out:
        return out
    ll = lower(index, [n])
    lanes = ll.in_dim_size_log2("lane") if ll.has_in_dim("lane") else 0
    free = ll.get_free_variable_masks().get("lane", 0)
    if free != (1 << lanes) - 1:
        out.append(f"the gather's index layout spreads indices over the lanes of a warp (lane bases "
                   f"{[b[0] for b in ll.in_bases('lane')]}); TDM needs every lane of a warp to hold the same indices")
        return out
    sl = lower(shared, list(shape))
    sl = getattr(sl, "linear", sl)
    ib = ll.in_bases("block") if ll.has_in_dim("block") else ()
    sb = sl.in_bases("block") if sl.has_in_dim("block") else ()
    if bool(ib) != bool(sb):
        out.append(f"the gather's index layout and buffer layout must both have block bases or neither "
                   f"(index {len(ib)}, buffer {len(sb)})")
    elif ib and [b[0] for b in ib] != [b[0] for b in sb]:
        out.append(f"the gather's index rows and buffer rows sit in different CTAs: block -> row bases "
                   f"{[b[0] for b in ib]} (index) vs {[b[0] for b in sb]} (buffer)")
    return out


def _order_of(enc: Encoding) -> list[int]:
    """The buffer's order (Triton's getOrder): a swizzled layout's own; a padded layout's dims by first
    appearance in its offset bases."""
    if enc.kind == "padded_shared":
        return order_by_first_appearance(enc.offset_bases, enc.rank)
    return list(enc.order)


def _consistency(desc: Encoding, block: Sequence[int], shared: Encoding, shape: Sequence[int]) -> list[str]:
    """``verifyTDMLayoutConsistency``: the buffer describes the descriptor's layout (module docstring)."""
    if desc.kind == "padded_shared" and shared.kind == "padded_shared":
        if (desc.intervals, desc.paddings) == (shared.intervals, shared.paddings):
            return []
    elif desc == shared:
        return []
    elif follows("tdm_rank_reducing_layout") and desc.kind == shared.kind == "swizzled_shared" \
            and _drop_leading_units(desc, block, shape) == shared:
        return []
    what = _pairs(desc) + " vs " + _pairs(shared) if desc.kind == shared.kind == "padded_shared" else \
        f"{desc.kind} vs {shared.kind}" if desc.kind != shared.kind else "their parameters differ"
    return [f"the descriptor's layout and the buffer's must describe the same physical layout ({what})"]


def _drop_leading_units(desc: Encoding, block: Sequence[int], shape: Sequence[int]) -> Encoding | None:
    """The swizzled desc layout with the k leading unit dims of a rank-reducing access dropped (None: none)."""
    k = len(block) - len(shape)
    if k <= 0 or any(d != 1 for d in block[:k]) or list(block[k:]) != list(shape):
        return None
    cga = desc.cga_layout
    if any(any(b[:k]) for b in cga):
        return None
    return dataclasses.replace(desc, order=tuple(o - k for o in desc.order if o >= k),
                               cga_layout=tuple(tuple(b[k:]) for b in cga))


def _pairs(enc) -> str:
    return "[" + ", ".join(f"{i}:+{p}" for i, p in zip(enc.intervals, enc.paddings)) + "]"


def _lowering(op: str, layout: Encoding | None, block: Sequence[int], bits: int, num_ctas: int,
              details: dict) -> list[str]:
    out: list[str] = []
    if op == "scatter" and num_ctas > 1:
        out.append(f"the TDM scatter lowering refuses more than one CTA (num-ctas {num_ctas})")
    if op == "gather" and num_ctas > 1 and not follows("tdm_gather_layout_rules"):
        out.append(f"the TDM gather lowering refuses more than one CTA (num-ctas {num_ctas})")
    if layout is None:
        return out
    if not 1 <= len(block) <= 5:
        out.append(f"TDM moves 1-D to 5-D blocks, got {len(block)} dims")
    padded = _padded(layout)
    if padded is not None:
        if len(padded.intervals) != 1 or len(padded.paddings) != 1:
            out.append(f"the TDM lowering takes exactly one (interval, padding) pair, got {_pairs(padded)}")
        else:
            iv, pd = padded.intervals[0] * bits // 32, padded.paddings[0] * bits // 32
            details.update(pad_interval_dwords=iv, pad_amount_dwords=pd)
            if iv > 0 and pd > 0:
                if iv & (iv - 1):
                    out.append(f"the TDM pad interval must be a power of two in dwords, got {iv}")
                elif not 2 <= iv <= 256:
                    out.append(f"the TDM pad interval field holds 2 to 256 dwords (log2 - 1 in 3 bits), got {iv}")
                if pd > 128:
                    out.append(f"the TDM pad amount field holds 1 to 128 dwords (dwords - 1 in 7 bits), got {pd}")
    if layout.kind == "partitioned_shared":
        pieces = layout.num_partitions * layout.num_groups
        d = layout.partition_dim
        if d < len(block) and block[d] % pieces:
            out.append(f"the block's dim {d} ({block[d]}) does not divide into {pieces} partition pieces")
    return out


def index_instructions(index: Encoding, n: int, index_bits: int) -> dict[str, int]:
    """How a warp issues a gather's or scatter's indices (``emitTDMGatherScatter``): its distinct index
    registers (the broadcast ones, zero register bases, removed), at most 8 i32 or 16 i16 indices per
    instruction and no more than the count consecutive in registers: ceil(registers / per instruction)."""
    ll = lower(index, [n])
    regs = [b for b in ll.in_bases("register") if any(b)] if ll.has_in_dim("register") else []
    compact = LinearLayout({d: (regs if d == "register" else ll.in_bases(d)) for d in ll.in_dims},
                           list(ll.out_dim_sizes))
    per = min(8 if index_bits == 32 else 16, compact.get_num_consecutive_in_out() if regs else 1)
    count = 1 << len(regs)
    return {"index_registers": count, "indices_per_instruction": per, "instructions_per_warp": -(-count // per)}


def decide(ob) -> Result:
    p = ob.param
    op = p("op") or "load"
    if op == "fused_load":
        members = [Member(ob.operand(f"shared{k}"), ob.operand(f"desc{k}"), tuple(block), bits, tuple(shape))
                   for k, (block, bits, shape) in enumerate(p("members"))]
        return tdm_fused_load(members, p("warp_used_hints"), num_warps=p("num_warps"), descriptors=p("descriptors"),
                              destinations=p("destinations"))
    index = ob.operand("index")
    r = tdm_copy(ob.operand("shared"), ob.operand("desc"), p("block"), ob.dtype_bits, op=op,
                 buffer_shape=p("buffer_shape") or ob.shape, index=index, index_shape=p("index_shape"),
                 index_bits=p("index_bits"), num_ctas=p("num_ctas") or 1, num_warps=p("num_warps"),
                 warp_used_hint=p("warp_used_hint"))
    if r.holds and index is not None and p("index_bits") in (16, 32):
        figures = index_instructions(index, p("index_shape")[0], p("index_bits"))
        r.details.update(figures)
        r.explanation += (f"; each warp issues {figures['index_registers']} index register(s) in "
                          f"{figures['instructions_per_warp']} instruction(s) of at most "
                          f"{figures['indices_per_instruction']}")
    return r
