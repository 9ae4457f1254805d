"""Shared-memory gathers and scatters: ``ttg.local_gather`` / ``ttg.local_scatter``.

local_gather(shared, indices, values, ...): the buffer, the index tensor and
the gathered (or scattered) values agree, as Triton's verifiers require
(lib/Dialect/TritonGPU/IR/Ops.cpp ``LocalGatherOp::verify`` /
``LocalScatterOp::verify``):

    the buffer has a shared encoding
    the indices are integers
    values (the result of a gather, the stored values of a scatter) have the
        indices' shape and the indices' layout (one encoding)
    buffer and indices have one rank; the axis is below it
    values and buffer have one element type

and as its lowering requires (lib/Conversion/TritonGPUToLLVM/MemoryOpToLLVM.cpp
``LocalGatherOpConversion`` / ``LocalScatterOpConversion``: a
``partitioned_shared`` buffer is not lowered; ``lowerLocalScGt`` addresses
every element through the inverse of the buffer's layout, so the layout must
be invertible, which the memdesc's own ``invertible`` check proves).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..encodings.base import Encoding
from .result import Result


def _is_int(t: str) -> bool:
    return t.startswith("i") and t[1:].isdigit()


def local_gather(shared: Encoding, indices: Encoding | None, values: Encoding | None, op: str,
                 mem_shape: Sequence[int], index_shape: Sequence[int], value_shape: Sequence[int], axis: int,
                 mem_type: str, index_type: str, value_type: str) -> Result:
    """The operands of one local_gather / local_scatter agree (module docstring)."""
    problems: list[str] = []
    what = "result" if op.endswith("gather") else "values"
    details: dict = {"axis": axis, "shape": list(value_shape)}
    if not shared.is_shared:
        problems.append(f"the buffer must have a shared memory encoding, got {shared.kind}")
    elif shared.kind == "partitioned_shared":
        problems.append(f"Triton does not lower {op} of a partitioned_shared buffer "
                        "(MemoryOpToLLVM.cpp: not yet supported)")
    if not _is_int(index_type):
        problems.append(f"the indices must have an integer element type, got {index_type}")
    if list(value_shape) != list(index_shape):
        problems.append(f"the {what} shape {list(value_shape)} must match the indices shape {list(index_shape)}")
    if len(mem_shape) != len(index_shape):
        problems.append(f"the buffer (rank {len(mem_shape)}) and the indices (rank {len(index_shape)}) "
                        "must have the same rank")
    if not 0 <= axis < len(mem_shape):
        problems.append(f"axis {axis} is out of bounds for the buffer's rank {len(mem_shape)}")
    if value_type != mem_type:
        problems.append(f"the {what} element type {value_type} must match the buffer's {mem_type}")
    if indices != values:
        problems.append(f"the indices and the {what} must have the same layout, got "
                        f"{getattr(indices, 'kind', None)} and {getattr(values, 'kind', None)}")
    ok = f"{op}: buffer, indices and {what} agree (shape {list(value_shape)}, axis {axis})"
    return Result("local_gather", "fails" if problems else "holds", {}, None,
                  "; ".join(problems) if problems else ok, details)


def decide(ob) -> Result:
    p = ob.param
    return local_gather(ob.operand("shared"), ob.operand("indices"), ob.operand("reg"), p("op"), p("mem_shape"),
                        p("index_shape"), ob.shape, p("axis"), p("mem_type"), p("index_type"), ob.dtype)
