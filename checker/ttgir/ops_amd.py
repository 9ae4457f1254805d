"""Checks of AMD operations derived from TritonGPU IR.

- ``amdg.async_tdm_copy_global_to_local`` (gfx1250 Tensor Data Mover):
  ``tdm_copy`` (properties/tdm.py: Triton's verifier and the descriptor its
  lowering builds).

``amdg.buffer_load_to_local`` is registered in checker/ttgir/builder.py (its
shared-memory store's bank conflicts), so it has no registration here.
Registered when checker/ttgir/ops_nvidia.py is imported. A case the model does
not cover is skipped with its reason (`Builder.skip`).
"""

from __future__ import annotations

from ..syntax.ttgir import Operation
from .builder import Builder, _compact, op_check


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
