"""Checks of AMD operations derived from TritonGPU IR.

- ``amdg.async_tdm_copy_global_to_local``, ``amdg.async_tdm_copy_local_to_global``,
  ``amdg.async_tdm_gather`` and ``amdg.async_tdm_scatter`` (gfx1250 Tensor Data Mover): ``tdm_copy``
  (properties/tdm.py: each Triton release's verifier and the descriptor its lowering builds; the op
  parameter says store, gather or scatter; gather and scatter read their row-index tensor's shape,
  element type and layout); ``amdg.async_tdm_fused_copy_global_to_local`` (Triton 3.9: 2 to 4 loads, each
  by the warps of its ``warp_used_hints`` entry) one ``tdm_copy`` (op fused_load) over all its members;
- ``amdg.buffer_load`` / ``amdg.buffer_store``: ``coalesced`` (properties/coalesced.py, a warning: the
  vector width of Triton's AMD buffer lowering, third_party/amd/lib/TritonAMDGPUToLLVM/LoadStoreOpToLLVM.cpp
  ``BufferLoadOpConversion`` / ``BufferStoreOpConversion`` with ``LLVM::AMD::getVectorSize(ptr, offset)`` of
  TritonAMDGPUToLLVM/Utility.cpp: the offsets' AxisInfo contiguity and divisibility along the offsets
  layout's order[0], capped by its contiguous elements per thread, the scalar base's divisibility in elements,
  128 bits, raised to the op's ``contiguity`` attribute, then capped by the mask's constancy; issued as
  ``buffer_load_dword[xN]`` / ``_ushort`` / ``_ubyte`` ... by BufferOpsEmitter.cpp); ``amdg.buffer_atomic_rmw``
  too (``BufferAtomicRMWOpConversion``: pairs of f16 / bf16, else one element), and ``amdg.buffer_atomic_cas``
  (``BufferAtomicCASOpConversion``: one element at a time);

``amdg.buffer_load_to_local`` is registered in checker/ttgir/ops_memory.py (its
shared-memory store's bank conflicts); checker/ttgir/ops_common.py adds the
``coalesced`` check of its global side, so it has no registration here.
Registered when checker/ttgir/ops_nvidia.py is imported. A case the model does
not cover is skipped with its reason (`Builder.skip`).
"""

from __future__ import annotations

import re

from ..syntax.ttgir import Operation
from .builder import Builder, _compact, op_check
from .ops_common import global_access


@op_check("amdg.async_tdm_copy_global_to_local")
def tdm_copy(b: Builder, op: Operation) -> None:
    """`tdm_copy` of a TDM load: the descriptor it reads and the buffer it writes (its ``warp_used_hint`` too)."""
    descs = [t for t in op.types if t.kind == "tensordesc"]
    bufs = [t for t in op.result_types if t.kind == "memdesc"]
    hint = op.attributes.get("warp_used_hint")
    extra = (("num_warps", _num_warps(b, op)), ("warp_used_hint", hint & _U32)) if isinstance(hint, int) else ()
    _tdm(b, op, "load", descs, bufs, extra)


_HINTS = re.compile(r"array<i32:\s*([-\d,\s]*)>")
_U32 = 0xFFFFFFFF           # an i32 hint as the verifier reads it (uint32_t: 0x80000000 prints as -2147483648)


@op_check("amdg.async_tdm_fused_copy_global_to_local")
def tdm_fused_load(b: Builder, op: Operation) -> None:
    """`tdm_copy` (op fused_load) of a fused TDM load: its descriptors (operands), destination buffers (the
    types after ``->``) and ``warp_used_hints = array<i32: ...>``, member by member."""
    descs = [t for t in op.types if t.kind == "tensordesc"]
    bufs = [t for t in op.result_types if t.kind == "memdesc"]
    m = _HINTS.fullmatch(str(op.attributes.get("warp_used_hints", "")).strip())
    if not descs or not bufs or m is None:
        b.skip(op, f"{op.name} without typed descriptors, buffers and warp_used_hints", "tdm_copy")
        return
    for t in bufs:
        if t.encoding is None or not t.element_bits:
            b.skip(op, f"{op.name} with a buffer that is not modelled ({t.unsupported or t.encoding_text} "
                   f"{t.element_type})", "tdm_copy")
            return
    hints = [int(h) & _U32 for h in m.group(1).replace(",", " ").split()]
    operands, members = [], []
    for k, (desc, buf) in enumerate(zip(descs, bufs)):
        operands += [(f"shared{k}", buf.encoding)] + ([(f"desc{k}", desc.encoding)] if desc.encoding else [])
        members.append((list(desc.shape), buf.element_bits, list(buf.shape)))
    what = ", ".join(f"{_compact(t.encoding_text)} {'x'.join(map(str, t.shape))}" for t in bufs)
    params = (("op", "fused_load"), ("members", members), ("warp_used_hints", hints),
              ("num_warps", _num_warps(b, op)))
    if len(descs) != len(bufs):
        params += (("descriptors", len(descs)), ("destinations", len(bufs)))
    b.add(op, "tdm_copy", what, operands, bufs[0].shape, params=params)


def _num_warps(b: Builder, op: Operation) -> int | None:
    """The warps the op runs with, as Triton's verifier looks them up (a warp_specialize partition's own)."""
    warps = b.warps_of(op)
    return warps[0] if len(warps) == 1 else None


@op_check("amdg.async_tdm_copy_local_to_global")
def tdm_store(b: Builder, op: Operation) -> None:
    """`tdm_copy` (op store) of a TDM store: the buffer it reads and the descriptor it writes through."""
    _tdm(b, op, "store", [t for t in op.types if t.kind == "tensordesc"], _buffer(op))


def _buffer(op: Operation) -> list:
    """The shared buffer of a TDM store, gather or scatter: the first memdesc its signature names (its optional
    LDS barrier, ``barrier = %b``, is written after it: ``: !ttg.memdesc<64x64xf32, ...>, !ttg.memdesc<1xi64,
    ...> -> !tt.tensordesc<...>``)."""
    return [t for t in op.operand_types if t.kind == "memdesc"][:1]


@op_check("amdg.async_tdm_gather", "amdg.async_tdm_scatter")
def tdm_gather_scatter(b: Builder, op: Operation) -> None:
    """`tdm_copy` (op gather / scatter): the descriptor, the buffer and the row-index tensor (its shape,
    element type and layout: the lane-broadcast and block rules and the instruction count read its
    LinearLayout)."""
    kind = "gather" if op.name.endswith("gather") else "scatter"
    idx = [t for t in op.types if t.kind == "tensor"]
    if len(idx) != 1:
        b.skip(op, f"{op.name} without a typed row-index tensor", "tdm_copy")
        return
    t = idx[0]
    if t.encoding is None and t.encoding_text:
        b.skip(op, f"{op.name} with an index layout that is not modelled ({t.unsupported or t.encoding_text})",
               "tdm_copy")
        return
    extra = (("index_shape", list(t.shape)), ("index_bits", t.element_bits or 0), ("num_ctas", b.m.num_ctas or 1))
    _tdm(b, op, kind, [x for x in op.types if x.kind == "tensordesc"], _buffer(op), extra, index=t.encoding)


def _tdm(b: Builder, op: Operation, kind: str, descs, bufs, extra=(), index=None) -> None:
    """Add one `tdm_copy` check (`kind`: load, store, gather, scatter) or skip it with its reason."""
    if len(descs) != 1 or len(bufs) != 1 or bufs[0].encoding is None:
        b.skip(op, f"{op.name} without a typed descriptor and buffer", "tdm_copy")
        return
    desc, buf = descs[0], bufs[0]
    bits = buf.element_bits
    if not bits:
        b.skip(op, f"{op.name} with element type {buf.element_type}", "tdm_copy")
        return
    operands = [("shared", buf.encoding)] + ([("desc", desc.encoding)] if desc.encoding is not None else []) + \
        ([("index", index)] if index is not None else [])
    what = f"{_compact(buf.encoding_text)} {'x'.join(map(str, buf.shape))}"
    params = (("block", list(desc.shape)),) + ((("op", kind),) if kind != "load" else ()) + tuple(extra)
    b.add(op, "tdm_copy", what, operands, buf.shape, dtype=buf.element_type, bits=bits, params=params)


@op_check("amdg.buffer_load", "amdg.buffer_store", "amdg.buffer_atomic_rmw", "amdg.buffer_atomic_cas")
def buffer_access(b: Builder, op: Operation) -> None:
    """`coalesced` of an AMD buffer load, store or atomic (ops_common.global_access with the buffer figures of
    `checker.ttgir.axis_info.access_of`; ``BufferAtomicRMWOpConversion`` in LoadStoreOpToLLVM.cpp: f16 / bf16 in
    pairs, 32- and 64-bit elements one at a time; ``BufferAtomicCASOpConversion``: one element at a time, the
    ``buffer_atomic_cmpswap`` of 32- and 64-bit elements)."""
    global_access(b, op)
