"""Checks of NVIDIA (Hopper / Blackwell) operations derived from TritonGPU IR.

Each registration (`op_check`) turns one operation into static checks, each a
rule of Triton's own verifier or lowering (named in the property's module):

- ``ttng.tmem_load`` / ``ttng.tmem_store`` / ``ttng.tmem_alloc`` with a value:
  ``tmem_access`` (a tcgen05.ld/st message moves the register layout;
  properties/tmem_access.py), and for every distinct TMEM memdesc its layout is
  ``surjective`` onto its allocation shape;
- ``ttng.tc_gen5_mma`` / ``ttng.tc_gen5_mma_scaled``: ``mma_operands``
  (properties/mma_operands.py);
- TMA copies, gathers, scatters and reductions: ``tma_copy`` (properties/tma.py);
- ``ttng.tmem_subslice``: ``tmem_subslice``; ``ttng.tmem_copy``: ``tmem_copy``
  (properties/tmem_views.py).

Importing this module also registers the checks of checker/ttgir/ops_common.py
(``tt.dot_scaled``, ``ttg.local_gather`` / ``ttg.local_scatter``) and
checker/ttgir/ops_amd.py (``amdg.async_tdm_copy_global_to_local``).

A case the models do not cover is skipped with its reason (`Builder.skip`).
"""

from __future__ import annotations

import re

from ..syntax.ttgir import Operation, TypeRef
from ..versions import active, follows
from .builder import Builder, _compact, layout_shape, op_check

TMEM = "tensor_memory"


def _is_tmem(t: TypeRef) -> bool:
    return t.kind == "memdesc" and (t.memory_space or "").endswith(TMEM)


def _maxnreg(b: Builder) -> int:
    """Triton's getContextualMaxNReg at module level: 256, or the module's ``ttg.maxnreg``."""
    v = b.m.attributes.get("ttg.maxnreg")
    try:
        return min(256, int(v)) if v is not None else 256
    except (TypeError, ValueError):
        return 256


def _tmem_layout_checks(b: Builder, op: Operation, mem: TypeRef) -> None:
    """Every distinct TMEM (encoding, allocation shape): the layout covers every element."""
    shape = layout_shape(mem)
    key = ("tmem_surjective", mem.encoding, tuple(shape))
    if key in b.seen or not b.lowers(mem.encoding, shape):
        return
    b.seen.add(key)
    b.add(op, "surjective", f"{_compact(mem.encoding_text)} {'x'.join(map(str, shape))}",
          [("layout", mem.encoding)], shape)


@op_check("ttng.tmem_load", "ttng.tmem_store", "ttng.tmem_alloc")
def tmem_register_access(b: Builder, op: Operation) -> None:
    mems = [t for t in op.types if _is_tmem(t)]
    regs = [t for t in op.types if t.kind == "tensor"]
    if len(mems) != 1:
        b.skip(op, f"{op.name} without one tensor-memory memdesc type", "tmem_access")
        return
    mem = mems[0]
    if mem.encoding is None:
        b.skip(op, f"{op.name} whose tensor-memory encoding is not read", "tmem_access")
        return
    _tmem_layout_checks(b, op, mem)
    if not regs:
        return                                  # tmem_alloc without a value
    reg = regs[0]
    if reg.encoding is None:
        return                                  # Triton checks nothing without an encoding
    if mem.encoding.kind not in ("tensor_memory_encoding", "tensor_memory_scales_encoding"):
        return                                  # Triton's verifier rejects it; well_formed reports the kind
    bits = mem.element_bits
    if not bits:
        b.skip(op, f"{op.name} with element type {mem.element_type}", "tmem_access")
        return
    shape, alloc = list(reg.shape), layout_shape(mem)
    if len(shape) != 2 or not (b.lowers(reg.encoding, shape) and b.lowers(mem.encoding, alloc)):
        return
    scales = mem.encoding.kind == "tensor_memory_scales_encoding"
    what = f"{_compact(reg.encoding_text)} <-> {_compact(mem.encoding_text)}"
    b.add(op, "tmem_access", what, [("reg", reg.encoding), ("tmem", mem.encoding)], shape,
          dtype=mem.element_type, bits=bits,
          params=(("mem_shape", alloc), ("scales", scales), ("maxnreg", _maxnreg(b))))


# ------------------------------------------------------------------ tcgen05.mma

_SCALE_ATTR = re.compile(r"\blhs\s*=\s*(\w+)\s+rhs\s*=\s*(\w+)")


@op_check("ttng.tc_gen5_mma", "ttng.tc_gen5_mma_scaled")
def tcgen05_mma(b: Builder, op: Operation) -> None:
    mems = [t for t in op.operand_types if t.kind == "memdesc"]
    scaled = op.name.endswith("_scaled")
    if len(mems) < (5 if scaled else 3) or any(t.encoding is None for t in mems[:3]):
        b.skip(op, f"{op.name} without typed A, B and D operands", "mma_operands")
        return
    a, bb, d = mems[:3]
    lhs = rhs = None
    if scaled:
        m = _SCALE_ATTR.search(op.text)
        if not m:
            b.skip(op, f"{op.name} without lhs/rhs element types", "mma_operands")
            return
        lhs, rhs = m.group(1), m.group(2)
    for ref in (a, bb, d):
        if not b.lowers(ref.encoding, layout_shape(ref)):
            return                          # well_formed reports the layout
    two_ctas = bool(re.search(r"\btwo_ctas\b", op.text))
    params = (("a_shape", list(a.shape)), ("b_shape", list(bb.shape)), ("a_alloc", layout_shape(a)),
              ("b_alloc", layout_shape(bb)), ("d_alloc", layout_shape(d)), ("a_type", a.element_type),
              ("b_type", bb.element_type), ("d_type", d.element_type), ("two_ctas", two_ctas),
              ("scaled", scaled), ("lhs", lhs), ("rhs", rhs))
    b.add(op, "mma_operands", "", [("a", a.encoding), ("b", bb.encoding), ("acc", d.encoding)], d.shape,
          params=params)


# ------------------------------------------------------------------ TMA

TMA_OPS = ("ttng.async_tma_copy_global_to_local", "ttng.async_tma_copy_local_to_global", "ttng.async_tma_reduce",
           "ttng.async_tma_gather", "ttng.async_tma_scatter")


def _descriptor(b: Builder, op: Operation) -> TypeRef | None:
    """The tensor descriptor's block type: among the op's types, else at the descriptor's definition."""
    for t in op.types:
        if t.kind == "tensordesc":
            return t
    if op.operands:
        d = b.defining_op(op.operands[0])
        for t in (d.result_types if d is not None else []):
            if t.kind == "tensordesc":
                return t
    return None


_IM2COL_PLACES = re.compile(r"\[([^\[\]]*)\]\s*offsets\s*=\s*\[([^\[\]]*)\]")     # %d[coords] offsets = [...]


@op_check(*TMA_OPS)
def tma(b: Builder, op: Operation) -> None:
    desc = _descriptor(b, op)
    bufs = [t for t in op.result_types if t.kind == "memdesc" and t.element_type != "i64"] or \
        [t for t in op.operand_types if t.kind == "memdesc" and t.element_type != "i64"]   # barriers are i64
    if desc is None or len(bufs) != 1 or bufs[0].encoding is None:
        b.skip(op, f"{op.name} without a typed descriptor and buffer", "tma_copy")
        return
    buf = bufs[0]
    operands = [("shared", buf.encoding)] + ([("desc", desc.encoding)] if desc.encoding is not None else [])
    what = f"{_compact(buf.encoding_text)} {'x'.join(map(str, buf.shape))}"
    params: tuple = (("op", op.name), ("block", list(desc.shape)), ("mem_type", buf.element_type),
                     ("block_type", desc.element_type), ("mutable", buf.mutable))
    if "tensordesc_im2col" in op.text:
        places = _IM2COL_PLACES.search(op.text)
        counts = [len([v for v in g.split(",") if v.strip()]) for g in places.groups()] if places else [None, None]
        params += (("mode", "im2col"), ("coords", counts[0]), ("offsets", counts[1]))
    b.add(op, "tma_copy", what, operands, buf.shape, params=params)


# ------------------------------------------------------------------ TMEM views and copies

def _int_attribute(op: Operation, name: str) -> int | None:
    """An integer attribute of the op's attr-dict (``{offset = 128 : i32}``), None when it has none."""
    value = op.attributes.get(name)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    m = re.search(rf"\{{[^}}]*\b{name}\s*=\s*(-?\d+)", op.text)
    return int(m.group(1)) if m else None


@op_check("ttng.tmem_subslice")
def tmem_subslice(b: Builder, op: Operation) -> None:
    """A TMEM view: from Triton 3.9 ``{offset, dim}`` (dim 1 when left out), before it ``{N}`` (the column);
    change ``tmem_subslice_offset_dim``."""
    mems = [t for t in op.types if t.kind == "memdesc"]
    if len(mems) != 2 or any(t.encoding is None for t in mems):
        b.skip(op, "ttng.tmem_subslice without two typed memdescs", "tmem_subslice")
        return
    src, dst = mems
    if follows("tmem_subslice_offset_dim"):
        n, dim = _int_attribute(op, "offset"), _int_attribute(op, "dim")
        if n is None:
            b.skip(op, f"ttng.tmem_subslice without its offset (Triton {active()} writes {{offset, dim}}; "
                       "{N} is Triton 3.8's)", "tmem_subslice")
            return
        dim = 1 if dim is None else dim
        what = f"{_compact(src.encoding_text)} offset={n}" + (f" dim={dim}" if dim != 1 else "")
        place: tuple = (("offset", n), ("dim", dim))
    else:
        n = _int_attribute(op, "N")
        if n is None:
            b.skip(op, f"ttng.tmem_subslice without its N offset (Triton {active()} writes {{N}}; "
                       "{offset, dim} is Triton 3.9's)", "tmem_subslice")
            return
        what = f"{_compact(src.encoding_text)} N={n}"
        place = (("n", n),)
    src_alloc, dst_alloc = list(src.alloc_shape or src.shape), list(dst.alloc_shape or dst.shape)
    b.add(op, "tmem_subslice", what, [("src", src.encoding), ("dst", dst.encoding)], dst.shape,
          dtype=dst.element_type, bits=dst.element_bits,
          params=place + (("source_shape", list(src.shape)), ("source_alloc", src_alloc), ("alloc", dst_alloc),
                          ("source_type", src.element_type)))


@op_check("ttng.tmem_copy")
def tmem_copy(b: Builder, op: Operation) -> None:
    mems = [t for t in op.operand_types if t.kind == "memdesc"]
    if len(mems) < 2 or any(t.encoding is None for t in mems[:2]):
        b.skip(op, "ttng.tmem_copy without typed source and destination", "tmem_copy")
        return
    src, dst = mems[:2]
    if not _is_tmem(dst):
        b.skip(op, "ttng.tmem_copy whose destination is not in tensor memory", "tmem_copy")
        return
    what = f"{_compact(src.encoding_text)} -> {_compact(dst.encoding_text)}"     # layouts that do not lower:
    b.add(op, "tmem_copy", what, [("shared", src.encoding), ("tmem", dst.encoding)], dst.shape,
          dtype=src.element_type, bits=src.element_bits,
          params=(("source_shape", list(src.shape)), ("source_alloc", layout_shape(src)),
                  ("alloc", layout_shape(dst)), ("source_in_shared", not _is_tmem(src)), ("mutable", dst.mutable)))

