"""Checks of target-independent operations derived from TritonGPU IR.

- ``tt.dot_scaled``: ``scaled_dot`` (properties/scaled_dot.py: Triton's
  verifier, and the lowering's layout rules once the result has a matrix-core
  layout);
- ``ttg.local_gather`` / ``ttg.local_scatter``: ``local_gather``
  (properties/gather.py);
- ``tt.trans``, ``tt.reshape``, ``tt.join``, ``tt.split``, ``amdg.in_thread_transpose``, ``ttg.fp4_to_fp``,
  ``amdg.scaled_upcast_fp4``: ``data_movement``
  (properties/data_movement.py: no element leaves its thread);
- ``tt.reduce``, ``tt.scan``, ``tt.gather``: ``reduction`` (properties/reduction.py: the levels crossed
  along the axis, shuffles, redux, cross-warp rounds and scratch);
- ``tt.load``, ``tt.store``, ``tt.atomic_rmw``, ``tt.atomic_cas``: ``coalesced`` (properties/coalesced.py, a
  warning: the vector width Triton emits from the pointer's AxisInfo, checker/ttgir/axis_info.py, against the
  layout's, and the 32-byte sectors per warp request); the global side of ``ttg.async_copy_global_to_local`` and
  ``amdg.buffer_load_to_local`` too, after their shared-memory checks (checker/ttgir/ops_memory.py);
(``amdg.buffer_load`` / ``amdg.buffer_store`` get the same check from checker/ttgir/ops_amd.py.)

Registered when checker/ttgir/ops_nvidia.py is imported. A case the models do
not cover is skipped with its reason (`Builder.skip`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..syntax.ttgir import Operation, layout_tensors, split_top
from . import ops_memory  # noqa: F401  (registered first: a copy's shared-memory rule runs before copy_access)
from .builder import Builder, _compact, op_check

if TYPE_CHECKING:
    from ..hardware import Hardware
    from .axis_info import GlobalAccess

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




@op_check("ttg.local_gather", "ttg.local_scatter")
def local_gather(b: Builder, op: Operation) -> None:
    mems = [t for t in op.types if t.kind == "memdesc"]
    tensors = [t for t in op.types if t.kind == "tensor"]
    if len(mems) != 1 or mems[0].encoding is None or len(tensors) != 2:
        b.skip(op, f"{op.name} without a typed buffer, indices and values", "local_gather")
        return
    axis = op.axis
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


# ------------------------------------------------------------ ops that move data (or must not)

_ORDER = re.compile(r"\border\s*=\s*array<i32:\s*([\d,\s]+)>")
SHAPE_OPS = {"tt.trans": "trans", "tt.reshape": "reshape", "tt.join": "join", "tt.split": "split",
             "amdg.in_thread_transpose": "in_thread_transpose", "ttg.fp4_to_fp": "fp4_to_fp",
             "amdg.scaled_upcast_fp4": "fp4_to_fp"}     # (its scale has the result's layout: the verifier's inference)
# combiners NVIDIA's redux.sync takes (TargetInfo's matchReduxKind): 32-bit-or-narrower integers; f32 max / min
# on compute capability 100 only
_REDUX_INT = ("arith.addi", "arith.andi", "arith.ori", "arith.xori", "arith.minsi", "arith.minui", "arith.maxsi",
              "arith.maxui")
_REDUX_F32 = ("arith.maxnumf", "arith.maximumf", "arith.minnumf", "arith.minimumf")


@op_check(*SHAPE_OPS)
def shape_op(b: Builder, op: Operation) -> None:
    """`data_movement`: the result's layout is the operand's moved by the op (no data leaves its thread)."""
    kind = SHAPE_OPS[op.name]
    ins, outs = layout_tensors(op.operand_types), layout_tensors(op.result_types)
    if not ins or not outs:
        b.skip(op, f"{op.name} without typed operand and result tensors", "data_movement")
        return
    operand, result = ins[0], outs[0]
    if not (b.lowers(operand.encoding, operand.shape) and b.lowers(result.encoding, result.shape)):
        return
    params: tuple = (("kind", kind), ("operand_shape", list(operand.shape)))
    if kind == "reshape" and re.search(r"\ballow_reorder\b", op.text):   # the registers pass through
        params += (("allow_reorder", True),)
    if kind == "trans":
        m = _ORDER.search(op.text)
        if not m:
            b.skip(op, "tt.trans without an order attribute", "data_movement")
            return
        params += (("order", [int(x) for x in m.group(1).split(",") if x.strip()]),)
    if kind == "fp4_to_fp":
        axis = op.attributes.get("axis")
        if not isinstance(axis, int) or isinstance(axis, bool) or not 0 <= axis < len(operand.shape):
            b.skip(op, f"{op.name} without an axis attribute", "data_movement")
            return
        params += (("axis", axis),)
    what = f"{_compact(operand.encoding_text)} -> {_compact(result.encoding_text)}"
    b.add(op, "data_movement", what, [("operand", operand.encoding), ("result", result.encoding)], result.shape,
          dtype=result.element_type, params=params)


def _redux(b: Builder, op: Operation, ins) -> bool:
    """Whether Triton's NVIDIA lowering may use redux.sync for this reduction's full-warp steps."""
    m = re.fullmatch(r"cuda:(\d+)a?", b.m.target or "")
    if len(ins) != 1 or not m or int(m.group(1)) < 80:
        return False
    body = [o for o in b.held.get(id(op), ()) if o.name != "tt.reduce.return"]
    if len(body) != 1:
        return False
    bits, element = ins[0].element_bits or 0, ins[0].element_type
    if body[0].name in _REDUX_INT and element.startswith("i") and bits <= 32:
        return True
    return int(m.group(1)) == 100 and element == "f32" and body[0].name in _REDUX_F32


@op_check("tt.reduce", "tt.scan")
def reduce_or_scan(b: Builder, op: Operation) -> None:
    """`reduction`: the levels the op crosses along its axis, and what Triton's lowering spends on them."""
    ins = layout_tensors(op.operand_types)
    axis = op.axis
    if not ins or axis is None:
        b.skip(op, f"{op.name} without typed operands or its axis", "reduction")
        return
    first = ins[0]
    if not b.lowers(first.encoding, first.shape):
        return
    kind = "reduce" if op.name == "tt.reduce" else "scan"
    instructions = None
    if kind == "reduce" and b.hw is not None and b.hw.vendor == "nvidia":
        instructions = "redux" if _redux(b, op, ins) else "shfl"
    bits = [max(t.element_bits or 32, 8) for t in ins]
    b.add(op, "reduction", f"{_compact(first.encoding_text)} axis={axis}", [("layout", first.encoding)],
          first.shape, dtype=first.element_type,
          params=(("kind", kind), ("axis", axis), ("bits", bits), ("instructions", instructions)))


@op_check("tt.gather")
def gather(b: Builder, op: Operation) -> None:
    """`reduction` (kind gather): whether the gather stays in each warp, else its shared-memory scratch."""
    ts = layout_tensors(op.operand_types)
    axis = op.axis
    if len(ts) < 2 or axis is None:
        b.skip(op, "tt.gather without typed source and indices or its axis", "reduction")
        return
    src, idx = ts[0], ts[1]
    if not (b.lowers(src.encoding, src.shape) and b.lowers(idx.encoding, idx.shape)):
        return
    b.add(op, "reduction", f"{_compact(src.encoding_text)} axis={axis}",
          [("layout", src.encoding), ("index", idx.encoding)], src.shape, dtype=src.element_type,
          params=(("kind", "gather"), ("axis", axis), ("bits", [src.element_bits or 32]),
                  ("index_shape", list(idx.shape)), ("instructions", None)))


# ------------------------------------------------------------ global memory (issue 30)


def global_access(b: Builder, op: Operation) -> None:
    """`coalesced` (a warning): the vector Triton's lowering emits for this global access, from the pointer's
    AxisInfo (checker.ttgir.axis_info), against what its layout allows, and the 32-byte sectors each warp request
    touches (properties/coalesced.py). A scalar access, a tensor descriptor or an unread form is skipped."""
    from .axis_info import access_of
    if b.hw is None:
        b.skip(op, "no hardware target (give --hardware)", "coalesced")
        return
    acc = access_of(op, b.axis_analysis)
    if isinstance(acc, str):
        b.skip(op, acc, "coalesced")
        return
    t = acc.ptr_type
    if t.encoding is None or not b.lowers(t.encoding, t.shape):
        return
    if acc.mask is not None and len(acc.mask.constancy) != len(t.shape):
        b.skip(op, f"its mask has rank {len(acc.mask.constancy)}, its pointer {len(t.shape)}", "coalesced")
        return
    strides = None if acc.strides is None else [s if isinstance(s, int) else None for s in acc.strides]
    params = (("kind", acc.kind), ("contiguity", list(acc.ptr.contiguity)),
              ("divisibility", list(acc.ptr.divisibility)),
              ("mask_constancy", list(acc.mask.constancy) if acc.mask is not None else None),
              ("strides_bytes", strides), ("buffer", acc.buffer),
              ("base_divisibility_bytes", acc.base_divisibility_bytes), ("contiguity_hint", acc.contiguity_hint))
    operands = [("layout", t.encoding)]
    if acc.kind == "copy":
        mem = acc.shared
        if mem is None or mem.encoding is None or not mem.encoding.is_shared:
            b.skip(op, f"{op.name} without a typed shared destination", "coalesced")
            return
        from ..syntax.ttgir import layout_shape
        operands.append(("shared", mem.encoding))
        params += (("shared_shape", list(layout_shape(mem))),
                   ("access", "cp.async" if op.name == "ttg.async_copy_global_to_local" else "direct_to_lds"))
    if not acc.l1_cached:
        params += (("l1_cached", False),)
    if strides is None and max(acc.ptr.constancy) > 1:    # not affine, but equal over runs (x // 784)
        params += (("constancy", list(acc.ptr.constancy)),)
    if acc.kind == "atomic":
        params += (("atomic_vec", atomic_vector_cap(b.hw, acc)), ("atomic", acc.atomic),
                   ("atomic_word", atomic_word_instruction(b.hw, acc)))
    b.add(op, "coalesced", f"{_compact(t.encoding_text)} {'x'.join(map(str, t.shape))}", operands,
          t.shape, severity="warning", bits=acc.bits, params=params)


def atomic_vector_cap(hw: Hardware, acc: GlobalAccess) -> int | None:
    """The elements one atomic instruction of a lane covers at most (None: no cap of its own, the vector of a
    load). NVIDIA (third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/LoadStoreOpToLLVM.cpp,
    ``AtomicRMWOpConversion``: ``supportsVectorized`` with ``TargetInfo::supportVectorizedAtomics``): an fadd of
    f16 / bf16 / f32 on compute capability 90 and later is vectorized (``atom.global.v4.f32``); any other
    rmw packs f16 pairs (``f16x2``) and is scalar otherwise; ``AtomicCASOpConversion`` is scalar. AMD
    (third_party/amd/lib/TritonAMDGPUToLLVM/LoadStoreOpToLLVM.cpp, ``AtomicRMWOpConversion``): f16 / bf16 in
    pairs, others scalar; CAS scalar."""
    if acc.atomic == "cas":
        return 1
    half = acc.element in ("f16", "bf16")
    if hw.vendor == "nvidia":
        m = re.search(r"(\d+)", hw.name or "")
        if acc.atomic == "fadd" and acc.element in ("f16", "bf16", "f32") and m and int(m.group(1)) >= 90:
            return None
        return 2 if acc.element == "f16" else 1
    return 2 if half else 1


def atomic_word_instruction(hw: Hardware, acc: GlobalAccess) -> str | None:
    """The instruction a 16-bit atomic of one element is done with when the target has none of its own: it
    works on the 32-bit word holding the element (4 bytes a lane). AMD (``AtomicRMWOpConversion``): an fadd of
    f16 / bf16 on CDNA3 / CDNA4 (gfx942, gfx950: ``supportsGlobalAtomicF16PackedAndDpp``) pairs neighbouring
    lanes' elements (DPP) into ``global_atomic_pk_add_f16``; elsewhere LLVM expands it into a compare-and-swap
    loop on the word (``global_atomic_cmpswap``); NVIDIA: a bf16 atomic below compute capability 90 (LLVM's
    ``atomicrmw``, no ``atom...bf16`` there) becomes ``atom.global.cas.b32`` in a loop (both seen in Triton 3.9's
    assembly). None where the element is not 16-bit or the target has the 16-bit atomic (a buffer atomic
    always pairs)."""
    if acc.element not in ("f16", "bf16") or acc.atomic == "cas" or acc.buffer:
        return None
    if hw.vendor == "nvidia":
        m = re.search(r"(\d+)", hw.name or "")
        return "atom.global.cas.b32 (loop)" if acc.element == "bf16" and m and int(m.group(1)) < 90 else None
    gen = re.search(r"gfx(\d+?)(\d\w)$", hw.name or "")
    if acc.atomic == "fadd" and hw.name in ("gfx942", "gfx950"):
        return f"global_atomic_pk_add_{acc.element} (lane pairs)"
    return "global_atomic_cmpswap" + ("_b32" if gen and int(gen.group(1)) >= 11 else "") + " (loop)"


@op_check("tt.load", "tt.store", "tt.atomic_rmw", "tt.atomic_cas")
def load_store(b: Builder, op: Operation) -> None:
    """`coalesced` of a global load, store or atomic (`global_access`)."""
    global_access(b, op)


@op_check("ttg.async_copy_global_to_local", "amdg.buffer_load_to_local")
def copy_access(b: Builder, op: Operation) -> None:
    """`coalesced` of the global side of a global-to-shared copy (``ttg.async_copy_global_to_local``:
    cp.async / AMD's global_load_lds; ``amdg.buffer_load_to_local``): `global_access`. It runs after the copy's
    shared-memory rule (`ops_memory`, imported above so that it is registered first)."""
    global_access(b, op)
