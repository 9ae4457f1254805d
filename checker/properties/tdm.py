"""AMD Tensor Data Mover (gfx1250) copies into shared memory: ``amdg.async_tdm_copy_global_to_local``.

tdm_copy(shared, desc, block, bits): the buffer the TDM writes and the
``!tt.tensordesc`` block it moves agree, as Triton's verifier requires
(third_party/amd/lib/Dialect/TritonAMDGPU/IR/Dialect.cpp
``AsyncTDMCopyGlobalToLocalOp::verify``, ``verifyTDMBlockSize``):

    every block dim <= 65535
    the buffer layout is swizzled_shared without swizzling (maxPhase 1),
        padded_shared, or partitioned_shared around one of those two
    a padded_shared buffer: each (interval, padding) pair spans at least 2 dwords
        of interval and 1 dword of padding; a padded descriptor layout differing
        from it in both its intervals and its paddings is refused

and as the lowering builds the descriptor from the descriptor's own layout
(third_party/amd/lib/TritonAMDGPUToLLVM/LoadStoreOpToLLVM.cpp
``AsyncTDMCopyGlobalToLocalOpConversion``; TDMUtility.cpp
``createTDMDescriptor``, ``distributeTDMWarpsAlignToPartition``,
``fillTDMDescriptor``), when the descriptor has one:

    1 to 5 dims
    padded (directly or inside partitioned_shared): exactly one (interval,
        padding) pair; the interval in dwords a power of two
    the descriptor's group-1 fields: pad interval as log2(dwords) - 1 in 3 bits
        (2 to 256 dwords), pad amount as dwords - 1 in 7 bits (1 to 128 dwords);
        a larger value spills into the next field of the descriptor
    partitioned: the block divides into numPartitions * numGroups pieces along
        partitionDim

The padding (interval and amount in dwords) is reported.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..encodings.base import Encoding
from .result import Result

MAX_BLOCK = 65535


def _padded(enc: Encoding | None) -> Encoding | None:
    """The padded layout of `enc`: itself, or the inner layout of a partitioned one (Triton's getPaddedEncoding)."""
    if enc is None:
        return None
    if enc.kind == "padded_shared":
        return enc
    if enc.kind == "partitioned_shared" and enc.partition_layout.kind == "padded_shared":
        return enc.partition_layout
    return None


def tdm_copy(shared: Encoding, desc: Encoding | None, block: Sequence[int], bits: int) -> Result:
    """One TDM copy into a buffer of layout `shared` from a descriptor block `block` (module docstring)."""
    problems: list[str] = []
    details: dict = {"block": list(block)}
    for i, s in enumerate(block):
        if s > MAX_BLOCK:
            problems.append(f"TDM block dim {i} ({s}) exceeds the maximum {MAX_BLOCK}")
    kind = shared.kind
    if kind == "swizzled_shared" and shared.max_phase != 1:
        problems.append(f"TDM does not support swizzling (maxPhase {shared.max_phase})")
    elif kind == "partitioned_shared":
        inner = shared.partition_layout
        if inner.kind == "swizzled_shared" and inner.max_phase != 1:
            problems.append(f"TDM does not support swizzling in a partitioned layout (maxPhase {inner.max_phase})")
        elif inner.kind not in ("swizzled_shared", "padded_shared"):
            problems.append(f"a partitioned TDM buffer needs a swizzled_shared or padded_shared inner layout, "
                            f"got {inner.kind}")
    elif kind not in ("swizzled_shared", "padded_shared"):
        problems.append(f"the TDM buffer layout must be swizzled_shared, padded_shared or partitioned_shared, "
                        f"got {kind}")
    if kind == "padded_shared":
        dp = desc if desc is not None and desc.kind == "padded_shared" else None
        if dp is not None and dp.intervals != shared.intervals and dp.paddings != shared.paddings:
            problems.append(f"interval/padding mismatch between the descriptor {_pairs(dp)} and the buffer "
                            f"{_pairs(shared)}")
        for interval, padding in zip(shared.intervals, shared.paddings):
            if interval * bits // 32 < 2:
                problems.append(f"a TDM padding interval must span at least 2 dwords, got {interval} x {bits} bits")
            if padding * bits // 32 < 1:
                problems.append(f"a TDM padding amount must span at least 1 dword, got {padding} x {bits} bits")
    if desc is not None and not problems:
        problems += _lowering(desc, block, bits, details)
    ok = "TDM copy: buffer and descriptor layouts are ones Triton's TDM accepts"
    if "pad_interval_dwords" in details:
        ok += f" (padding {details['pad_amount_dwords']} dwords every {details['pad_interval_dwords']} dwords)"
    return Result("tdm_copy", "fails" if problems else "holds", {}, None, "; ".join(problems) if problems else ok,
                  details)


def _pairs(enc) -> str:
    return "[" + ", ".join(f"{i}:+{p}" for i, p in zip(enc.intervals, enc.paddings)) + "]"


def _lowering(desc: Encoding, block: Sequence[int], bits: int, details: dict) -> list[str]:
    out: list[str] = []
    if not 1 <= len(block) <= 5:
        out.append(f"TDM moves 1-D to 5-D blocks, got {len(block)} dims")
    padded = _padded(desc)
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
    if desc.kind == "partitioned_shared":
        pieces = desc.num_partitions * desc.num_groups
        d = desc.partition_dim
        if d < len(block) and block[d] % pieces:
            out.append(f"the block's dim {d} ({block[d]}) does not divide into {pieces} partition pieces")
    return out


def decide(ob) -> Result:
    p = ob.param
    return tdm_copy(ob.operand("shared"), ob.operand("desc"), p("block"), ob.dtype_bits)
