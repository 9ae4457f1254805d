"""Checks of target-independent operations derived from TritonGPU IR.

- ``tt.dot_scaled``: ``scaled_dot`` (properties/scaled_dot.py: Triton's
  verifier, and the lowering's layout rules once the result has a matrix-core
  layout);
- ``ttg.local_gather`` / ``ttg.local_scatter``: ``local_gather``
  (properties/gather.py).

Registered when checker/ttgir_ops_nvidia.py is imported. A case the models do
not cover is skipped with its reason (`Builder.skip`).
"""

from __future__ import annotations

import re

from .syntax.ttgir import Operation, split_top
from .ttgir_checks import Builder, _compact, op_check

_SCALED = re.compile(r"\btt\.dot_scaled\s+(.*?)\s+lhs\s*=\s*(\w+)\s+rhs\s*=\s*(\w+)")


@op_check("tt.dot_scaled")
def dot_scaled(b: Builder, op: Operation) -> None:
    m = _SCALED.search(op.text)
    if not m:
        b.skip(op, "tt.dot_scaled not in its custom form (operands and lhs/rhs formats not read)", "scaled_dot")
        return
    parts = split_top(m.group(1))
    if len(parts) != 3:
        b.skip(op, "tt.dot_scaled whose operand list is not read", "scaled_dot")
        return
    has_a, has_b = (bool(re.search(r"\bscale\b", p)) for p in parts[:2])
    want = 2 + has_a + has_b
    tensors = [t for t in op.operand_types if t.kind == "tensor"]
    results = [t for t in op.result_types if t.kind == "tensor"]
    if len(tensors) != want or len(results) != 1:
        b.skip(op, "tt.dot_scaled whose types do not match its operands (scales and types counted apart)", "scaled_dot")
        return
    it = iter(tensors)
    a = next(it)
    a_scale = next(it) if has_a else None
    bb = next(it)
    b_scale = next(it) if has_b else None
    d = results[0]
    roles = [("a", a.encoding), ("b", bb.encoding), ("acc", d.encoding)]
    if a_scale is not None:
        roles.append(("a_scale", a_scale.encoding))
    if b_scale is not None:
        roles.append(("b_scale", b_scale.encoding))
    roles = [(r, e) for r, e in roles if e is not None]
    attrs = op.attributes
    what = f"{m.group(2)}x{m.group(3)}" + (f" -> {_compact(d.encoding_text)}" if d.encoding_text else "")
    b.add(op, "scaled_dot", what, roles, d.shape, dtype=d.element_type,
          params=(("a_shape", list(a.shape)), ("b_shape", list(bb.shape)),
                  ("a_scale_shape", list(a_scale.shape) if a_scale is not None else None),
                  ("b_scale_shape", list(b_scale.shape) if b_scale is not None else None),
                  ("lhs", m.group(2)), ("rhs", m.group(3)),
                  ("lhs_k_pack", attrs.get("lhs_k_pack", True) is not False),
                  ("rhs_k_pack", attrs.get("rhs_k_pack", True) is not False)))


_AXIS = re.compile(r"\baxis\s*=\s*(\d+)")


@op_check("ttg.local_gather", "ttg.local_scatter")
def local_gather(b: Builder, op: Operation) -> None:
    mems = [t for t in op.types if t.kind == "memdesc"]
    tensors = [t for t in op.types if t.kind == "tensor"]
    if len(mems) != 1 or mems[0].encoding is None or len(tensors) != 2:
        b.skip(op, f"{op.name} without a typed buffer, indices and values", "local_gather")
        return
    axis = op.attributes.get("axis")
    if not isinstance(axis, int):
        m = _AXIS.search(op.text)
        axis = int(m.group(1)) if m else None
    if axis is None:
        b.skip(op, f"{op.name} without its axis", "local_gather")
        return
    mem = mems[0]
    indices, values = tensors       # gather: src, indices -> result; scatter: dst, indices, values
    roles = [("shared", mem.encoding)] + [(r, t.encoding) for r, t in (("indices", indices), ("reg", values))
                                          if t.encoding is not None]
    what = f"{_compact(mem.encoding_text)} axis={axis}"
    b.add(op, "local_gather", what, roles, values.shape, dtype=values.element_type,
          params=(("op", op.name), ("mem_shape", list(mem.shape)), ("index_shape", list(indices.shape)),
                  ("axis", axis), ("mem_type", mem.element_type), ("index_type", indices.element_type)))
