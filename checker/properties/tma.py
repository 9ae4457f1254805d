"""Tensor Memory Accelerator (TMA) copies: the shared layout and the box of a descriptor.

tma_copy(shared, desc, ...): the shared-memory buffer of a
``ttng.async_tma_copy_global_to_local`` / ``async_tma_copy_local_to_global`` /
``async_tma_reduce`` / ``async_tma_gather`` / ``async_tma_scatter`` and the
``!tt.tensordesc`` block it moves agree, as Triton's verifiers require
(lib/Dialect/TritonNvidiaGPU/IR/Ops.cpp ``verifyTMAEncoding``,
``verifyAsyncTMALoadOp``, ``verifyAsyncTMAStoreOp``, ``AsyncTMAGatherOp::verify``;
lib/Dialect/Triton/IR/Ops.cpp ``verifyDescriptorLoadStoreOp``):

    the buffer's layout is nvmma_shared
    the descriptor's block has an nvmma_shared layout with the same transposed,
        swizzlingByteWidth, elementBitWidth and fp4Padded
    not transposed
    a load (copy to local, gather) writes a mutable buffer
    stores, reductions, gathers and scatters: no fp4Padded
    block and buffer: one element type, one element count (copies, reductions)

and the box TMA moves, as Triton builds the descriptor
(include/triton/Dialect/TritonNvidiaGPU/Transforms/TMAUtilities.h
``getTMABlockShape``, lib/Dialect/TritonNvidiaGPU/Transforms/TMAUtilities.cpp
``getTMASwizzleMode``, ``createTMADesc``):

    box = the block per CTA, every dim clamped to 256; with swizzling s > 0 the
        contiguous dim must span at least s bytes (8s / bits elements) and the box
        takes exactly that many
    fp4Padded: swizzling 128 and a contiguous box of 128

An im2col descriptor (``!ttng.tensordesc_im2col``, Gluon's ``async_load_im2col``: the tensor read as
[pixels, channels] columns of a 3-D to 5-D activation) is verified as Ops.cpp ``verifyAsyncTMACoords`` and
``verifyTMAMode`` do, and its box is ``getTMABlockShapeIm2Col``'s (lib/Dialect/TritonGPU/IR/Dialect.cpp):

    only a copy to local memory takes one; its block is 2-D; 3 to 5 coordinates and 2 fewer offsets
    box = [pixelsPerColumn, channelsPerPixel]: the channels clamped to 256 and, swizzled, exactly 8s / bits;
        the pixels not clamped, at most 1024 (Triton 3.9 aborts past it: one message along the pixels)

The box (elements, innermost last) and its inner bytes are reported, and for copies and reductions the messages
the op is split into: the buffer per CTA over its packed box, dim by dim (LoadStoreOpToLLVM.cpp
``getMsgToPackedOffsetLayout``: one ``cp.async.bulk.tensor`` per message, issued by a warp each, so
ceil(messages / warps) instructions).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..encodings.base import Encoding
from ..encodings.cga import shape_per_cta
from ..errors import CheckerError
from .result import Result

LOADS = ("ttng.async_tma_copy_global_to_local", "ttng.async_tma_gather")
NO_FP4 = ("ttng.async_tma_copy_local_to_global", "ttng.async_tma_reduce", "ttng.async_tma_gather",
          "ttng.async_tma_scatter")
COUNTED = ("ttng.async_tma_copy_global_to_local", "ttng.async_tma_copy_local_to_global", "ttng.async_tma_reduce")


def tma_copy(shared: Encoding, desc: Encoding | None, op: str, shape: Sequence[int], block: Sequence[int],
             mem_type: str, block_type: str, mutable: bool, mode: str = "tiled", coords: int | None = None,
             offsets: int | None = None) -> Result:
    """The buffer (layout `shared`, shape `shape`) and the descriptor block (layout `desc`,
    shape `block`) of one TMA operation agree (module docstring). mode: "tiled" or "im2col" (the descriptor's);
    coords, offsets: how many the op gives (an im2col copy's, where read)."""
    problems: list[str] = []
    details: dict = {"block": list(block), "shape": list(shape), "mode": mode}
    im2col = mode == "im2col"
    if im2col:
        if op != "ttng.async_tma_copy_global_to_local":
            problems.append(f"{op} does not take an im2col descriptor (only a copy to local memory does)")
        if len(block) != 2:
            problems.append(f"an im2col block is 2-D [pixels, channels], got {list(block)}")
        if coords is not None and not 3 <= coords <= 5:
            problems.append(f"an im2col copy gives 3 to 5 coordinates (the whole tensor's), got {coords}")
        elif coords is not None and offsets is not None and offsets != coords - 2:
            problems.append(f"an im2col copy with {coords} coordinates gives {coords - 2} offsets, got {offsets}")
    if shared.kind != "nvmma_shared":
        problems.append(f"the shared buffer of a TMA copy must have an nvmma_shared layout, got {shared.kind}")
    elif desc is None or desc.kind != "nvmma_shared":
        problems.append("the descriptor's block must have an nvmma_shared layout like the buffer's, got "
                        + (desc.kind if desc is not None else "none"))
    else:
        fields = (("transposed", "transposed"), ("swizzlingByteWidth", "swizzling_byte_width"),
                  ("elementBitWidth", "element_bit_width"), ("fp4Padded", "fp4_padded"))
        diff = [f"{name} {getattr(desc, attr)} vs {getattr(shared, attr)}" for name, attr in fields
                if getattr(desc, attr) != getattr(shared, attr)]
        if diff:
            problems.append("the descriptor's layout must match the buffer's (descriptor vs buffer): "
                            + ", ".join(diff))
        if shared.transposed:
            problems.append("a TMA buffer layout must not be transposed")
        if shared.fp4_padded and op in NO_FP4:
            problems.append(f"{op} does not support fp4Padded buffers")
    if op in LOADS and not mutable:
        problems.append("a TMA load writes its buffer, which must be mutable")
    if op in COUNTED:
        if _signless(mem_type) != _signless(block_type):
            problems.append(f"element types differ: descriptor block {block_type}, buffer {mem_type}")
        n_block, n_mem = math.prod(block), math.prod(shape)
        if n_block != n_mem:
            problems.append(f"the descriptor block has {n_block} elements, the buffer {n_mem}")
    if desc is not None and desc.kind == "nvmma_shared" and not problems:
        try:
            box = desc.tma_block_shape(shape_per_cta(desc.cga_layout, block), False, im2col=im2col)
        except CheckerError as e:
            problems.append(f"the descriptor's box is invalid: {e.message}")
        else:
            inner = box[0] if desc.transposed else box[-1]
            details.update(box=list(box), inner_box_bytes=inner * desc.element_bit_width // 8,
                           swizzle_bytes=desc.swizzling_byte_width)
            if op in COUNTED:
                details["messages"] = _messages(shared, shape, im2col)
            if desc.fp4_padded and (desc.swizzling_byte_width != 128 or inner != 128):
                problems.append(f"fp4Padded needs 128-byte swizzling and a contiguous box of 128, got swizzling "
                                f"{desc.swizzling_byte_width} and {inner}")
    messages = f", {details['messages']} message(s)" if details.get("messages") is not None else ""
    ok = (f"TMA {'im2col ' if im2col else ''}box {details.get('box')} ({details.get('inner_box_bytes')} inner "
          f"bytes, swizzle {details.get('swizzle_bytes')}{messages}) matches the buffer layout")
    return Result("tma_copy", "fails" if problems else "holds", {}, None, "; ".join(problems) if problems else ok,
                  details)


def _messages(shared: Encoding, shape: Sequence[int], im2col: bool) -> int | None:
    """The messages a copy or reduction is split into: the buffer per CTA over its packed box, dim by dim
    (``getMsgToPackedOffsetLayout``, which reads the box off the buffer's type); None where that box is invalid."""
    per_cta = shape_per_cta(shared.cga_layout, shape)
    try:
        packed = shared.tma_block_shape(per_cta, True, im2col=im2col)
    except CheckerError:
        return None
    return math.prod(max(1, s // b) for s, b in zip(per_cta, packed))


def _signless(element_type: str | None) -> str | None:
    """An MLIR element type without its integer signedness (``si8``, ``ui8`` -> ``i8``): a descriptor's block
    keeps the sign of its pointer's type (``tl.make_tensor_descriptor`` of an ``*i32``: ``si32``, a Gluon
    descriptor argument of int8: ``si8``) and a buffer is signless; Triton compares the descriptor's signless
    block type (``getSignlessBlockType``) with the buffer's."""
    if element_type and element_type[:2] in ("si", "ui") and element_type[2:].isdigit():
        return element_type[1:]
    return element_type


def decide(ob) -> Result:
    p = ob.param
    return tma_copy(ob.operand("shared"), ob.operand("desc"), p("op"), ob.shape, p("block"), p("mem_type"),
                    p("block_type"), bool(p("mutable")), p("mode") or "tiled", p("coords"), p("offsets"))
