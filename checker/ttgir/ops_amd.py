"""Checks of AMD operations derived from TritonGPU IR.

- ``amdg.async_tdm_copy_global_to_local`` (gfx1250 Tensor Data Mover):
  ``tdm_copy`` (properties/tdm.py: Triton's verifier and the descriptor its
  lowering builds);
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

from ..syntax.ttgir import Operation
from .builder import Builder, _compact, op_check
from .ops_common import global_access


@op_check("amdg.async_tdm_copy_global_to_local")
def tdm_copy(b: Builder, op: Operation) -> None:
    descs = [t for t in op.types if t.kind == "tensordesc"]
    bufs = [t for t in op.result_types if t.kind == "memdesc"]
    if len(descs) != 1 or len(bufs) != 1 or bufs[0].encoding is None:
        b.skip(op, f"{op.name} without a typed descriptor and buffer", "tdm_copy")
        return
    desc, buf = descs[0], bufs[0]
    bits = buf.element_bits
    if not bits:
        b.skip(op, f"{op.name} with element type {buf.element_type}", "tdm_copy")
        return
    operands = [("shared", buf.encoding)] + ([("desc", desc.encoding)] if desc.encoding is not None else [])
    what = f"{_compact(buf.encoding_text)} {'x'.join(map(str, buf.shape))}"
    b.add(op, "tdm_copy", what, operands, buf.shape, dtype=buf.element_type, bits=bits,
          params=(("block", list(desc.shape)),))


@op_check("amdg.buffer_load", "amdg.buffer_store", "amdg.buffer_atomic_rmw", "amdg.buffer_atomic_cas")
def buffer_access(b: Builder, op: Operation) -> None:
    """`coalesced` of an AMD buffer load, store or atomic (ops_common.global_access with the buffer figures of
    `checker.ttgir.axis_info.access_of`; ``BufferAtomicRMWOpConversion`` in LoadStoreOpToLLVM.cpp: f16 / bf16 in
    pairs, 32- and 64-bit elements one at a time; ``BufferAtomicCASOpConversion``: one element at a time, the
    ``buffer_atomic_cmpswap`` of 32- and 64-bit elements)."""
    global_access(b, op)
