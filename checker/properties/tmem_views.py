"""Tensor-memory views and copies: ``ttng.tmem_subslice`` and ``ttng.tmem_copy`` (Blackwell).

tmem_subslice(src, dst, ...): a column window of a TMEM buffer, as Triton's
verifier requires (lib/Dialect/TritonNvidiaGPU/IR/Ops.cpp
``TMEMSubSliceOp::verify``):

    source and result: tensor_memory_encoding, one encoding, one element type,
        one allocation shape, rank 2 (blockM, CGA layout, colStride equal)
    the result keeps the source's rows (dim 0)
    the offset N is a multiple of the result's width (N & (width - 1) = 0)
        and lies inside the source (N < source width)

That is Triton 3.8's op, ``{N}``. Before 3.8 (change ``tmem_subslice_tile_rules``, #7777) the verifier
asks only for a 128xN or 64xN source and the source's blockM, CTA split and column stride in the
result (a result with a narrower blockN, an offset off the width: accepted); the check adds that the
window lies inside the source's columns (a window past them is a defect whatever the verifier says) and
leaves a view that is not 2-D or changes the rows not modelled. From Triton 3.9 the op is ``{offset, dim}``
(dim 1 when left out; change ``tmem_subslice_offset_dim``) and its verifier asks:

    source and result: tensor memory, one encoding, one element type, one
        allocation shape, one rank, 2 or 3; 0 <= dim < rank; the result's dims
        powers of two (its memdesc type)
    the result keeps the source's size in every other dim
    0 <= offset and offset + result[dim] <= source[dim]
    a slice of a 3-D view along dim 0 (its buffers) needs nothing more; else,
        on the 2-D tile (the leading buffer dim dropped) and its layout L at the
        allocation's shape:
      an offset that is not a multiple of the width w = result[dim] is one
        whose changing bits stay inside the tile: with f the lowest set bit of
        the offset and l the highest bit of offset XOR (offset + w - 1), some
        run of l - f + 1 consecutive bases of L's row or col in-dim is
        e_dim << f, e_dim << (f + 1), ... (nothing on the other dim)
      no block basis of L reaches past w along dim (not sliced across CTAs)
      L^-1(offset along dim) has a TMEM column whose bits are a multiple of 32

The TMEM address the view starts at is reported as Triton's lowering computes
it (lib/Dialect/TritonNvidiaGPU/IR/Dialect.cpp ``getTMemSubSliceOffset``: the
pseudo-inverse of the allocation's layout applied to the offset (3.8: (0, N)),
its column scaled by the element bits / 32).

tmem_copy(shared, tmem, ...): a ``tcgen05.cp`` from shared memory into TMEM,
as Triton's verifier requires (``TMEMCopyOp::verify``):

    the source is in shared memory; source and destination shapes are equal;
        the destination is mutable
    the source layout is aligned to at least 16 bytes (Triton's getAlignment:
        16, nvmma_shared 128 * maxPhase, shared_linear its alignment)
    tmem^-1 . shared is trivial over block (the same CGA layout)
    an nvmma_shared source is neither transposed nor fp4Padded
    into tensor_memory_scales_encoding: an nvmma_shared source is not swizzled
    otherwise: the destination is tensor_memory_encoding with blockM = 128, an
        nvmma_shared source is swizzled, and the element type is 32 bits wide

What Triton checks only while lowering (the tcgen05.cp atom and the shared
memory descriptor, ``getTMemCopyAtom`` / ``DotOpMmaSmemLoader`` in
third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/TensorMemoryToLLVM.cpp) is not
modelled here.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..encodings import lower
from ..encodings.base import Encoding
from ..errors import CheckerError, NotModelled
from ..layout import LayoutError
from ..versions import active, follows
from .result import Result

TMEM = "tensor_memory_encoding"
SCALES = "tensor_memory_scales_encoding"


def _result(prop: str, problems: list[str], ok: str, details: dict) -> Result:
    return Result(prop, "fails" if problems else "holds", {}, None, "; ".join(problems) if problems else ok,
                  details)


def tmem_subslice(src: Encoding, dst: Encoding, src_shape: Sequence[int], dst_shape: Sequence[int],
                  src_alloc: Sequence[int], dst_alloc: Sequence[int], src_type: str, dst_type: str, n: int,
                  bits: int | None = None) -> Result:
    """The subslice of `src_shape` at column `n` with type `dst_shape` is one Triton accepts (module docstring)."""
    problems: list[str] = []
    details: dict = {"offset": n, "source_shape": list(src_shape), "shape": list(dst_shape)}
    tile_rules = follows("tmem_subslice_tile_rules")
    if src.kind != TMEM:
        problems.append(f"the source must be a tensor_memory_encoding buffer, got {src.kind}")
    if dst.kind != TMEM:
        problems.append(f"the result must be a tensor_memory_encoding buffer, got {dst.kind}")
    if not problems:
        diff = [f"{name} {getattr(dst, attr)} vs {getattr(src, attr)}"
                for name, attr in (("blockM", "block_m"), ("CGALayout", "cga_layout"), ("colStride", "col_stride"))
                if getattr(dst, attr) != getattr(src, attr)]
        if diff:
            problems.append("the result must keep the source's blockM, CGA layout and colStride (result vs source): "
                            + ", ".join(diff))
        elif tile_rules and src != dst:
            problems.append("the source and the result must have the same encoding")
        if not tile_rules and src.block_m not in (64, 128):
            problems.append(f"the source must have a 128xN or 64xN layout, got blockM = {src.block_m}")
    if tile_rules and src_type != dst_type:
        problems.append(f"element types differ: source {src_type}, result {dst_type}")
    if tile_rules and list(src_alloc) != list(dst_alloc):
        problems.append(f"the result's allocation shape {list(dst_alloc)} is not the source's {list(src_alloc)}")
    if len(src_shape) != 2 or len(dst_shape) != 2 or dst_shape[0] != src_shape[0]:
        if not tile_rules:          # Triton < 3.8 accepts these views; where they address is not modelled
            raise NotModelled(f"Triton {active()}'s tmem_subslice of {list(src_shape)} as {list(dst_shape)} (not "
                              "the source's rows, or not 2-D) is not modelled")
        if len(src_shape) != 2 or len(dst_shape) != 2:
            problems.append(f"source and result must be rank 2: {list(src_shape)}, {list(dst_shape)}")
            return _result("tmem_subslice", problems, "", details)
        problems.append(f"the result must keep the source's {src_shape[0]} rows, got {dst_shape[0]}")
    if tile_rules and n & (dst_shape[1] - 1):
        problems.append(f"the offset N = {n} is not a multiple of the result's width {dst_shape[1]}")
    if tile_rules and n >= src_shape[1]:
        problems.append(f"the offset N = {n} is not inside the source's {src_shape[1]} columns")
    if not tile_rules and (n < 0 or n + dst_shape[1] > src_shape[1]):
        # Triton < 3.8's verifier lets it through: the window runs past the buffer's columns, a defect all the same
        problems.append(f"the window N = {n} + width {dst_shape[1]} runs past the source's {src_shape[1]} columns")
    if not problems and bits:
        try:
            inv = lower(src, list(src_alloc)).pseudoinvert()
            rc = inv.apply([(d, 0 if i < len(inv.in_dims) - 1 else n) for i, d in enumerate(inv.in_dims)])
            details.update(tmem_row=rc.get("row", 0), tmem_col=rc.get("col", 0) * bits // 32)
        except (CheckerError, LayoutError):
            pass
    ok = f"the subslice at column {n} keeps the source's TMEM layout"
    if "tmem_col" in details:
        ok += f" (TMEM row {details['tmem_row']}, 32-bit column {details['tmem_col']})"
    return _result("tmem_subslice", problems, ok, details)


def tmem_subslice_along(src: Encoding, dst: Encoding, src_shape: Sequence[int], dst_shape: Sequence[int],
                        src_alloc: Sequence[int], dst_alloc: Sequence[int], src_type: str, dst_type: str, offset: int,
                        dim: int, bits: int | None = None) -> Result:
    """Triton 3.9's ``ttng.tmem_subslice {offset, dim}``: the view of `src_shape` at `offset` along `dim` with
    type `dst_shape` is one Triton accepts (module docstring)."""
    problems: list[str] = []
    details: dict = {"offset": offset, "dim": dim, "source_shape": list(src_shape), "shape": list(dst_shape)}
    for what, enc in (("source", src), ("result", dst)):
        if enc.kind not in (TMEM, SCALES):
            problems.append(f"the {what} must be a tensor memory buffer, got {enc.kind}")
    if not problems and src != dst:
        problems.append("the source and the result must have the same encoding")
    if src_type != dst_type:
        problems.append(f"element types differ: source {src_type}, result {dst_type}")
    if list(src_alloc) != list(dst_alloc):
        problems.append(f"the result's allocation shape {list(dst_alloc)} is not the source's {list(src_alloc)}")
    odd = [n for n in dst_shape if n <= 0 or n & (n - 1)]
    if odd:
        problems.append(f"the result's shape {list(dst_shape)} must have power-of-2 dims (Triton's memdesc type)")
    rank = len(src_shape)
    if rank != len(dst_shape) or rank not in (2, 3):
        problems.append(f"source and result must both be rank 2 or 3: {list(src_shape)}, {list(dst_shape)}")
        return _result("tmem_subslice", problems, "", details)
    if not 0 <= dim < rank:
        problems.append(f"the slice dim {dim} is not a dim of the rank-{rank} view")
        return _result("tmem_subslice", problems, "", details)
    kept = [k for k in range(rank) if k != dim and dst_shape[k] != src_shape[k]]
    if kept:
        problems.append(f"the result must keep the source's size in every dim but {dim}: "
                        + ", ".join(f"dim {k}: {dst_shape[k]} vs {src_shape[k]}" for k in kept))
    width = dst_shape[dim]
    if offset < 0 or offset + width > src_shape[dim]:
        problems.append(f"the offset {offset} + width {width} is not inside the source's {src_shape[dim]} along "
                        f"dim {dim}")
    if problems or (rank == 3 and dim == 0):
        ok = f"the view of buffers {offset}..{offset + width - 1} keeps the source's TMEM layout"
        return _result("tmem_subslice", problems, ok, details)
    tile_dim = dim - (rank - 2)
    try:
        L = lower(src, list(src_alloc)[rank - 2:])
    except (CheckerError, LayoutError) as e:
        raise CheckerError(f"the source's TMEM layout does not lower: {getattr(e, 'message', e)}") from None
    if offset & (width - 1):
        first = (offset & -offset).bit_length() - 1
        last = (offset ^ (offset + width - 1)).bit_length() - 1
        run = [[1 << (first + k) if d == tile_dim else 0 for d in range(2)] for k in range(last - first + 1)]
        if not any(_has_run([list(b) for b in L.in_bases(d)], run) for d in ("row", "col") if L.has_in_dim(d)):
            problems.append(f"the offset {offset} is not a multiple of the width {width}, and the bits it changes "
                            f"({first}..{last} along dim {dim}) are not consecutive bases of one TMEM dim "
                            "(the split offset touches the tile)")
    if L.has_in_dim("block") and any(b[tile_dim] >= width for b in L.in_bases("block")):
        problems.append(f"the view would cut across CTAs: a block basis moves {width} or more along dim {dim}")
    if not problems:
        rc = L.pseudoinvert().apply([(d, offset if i == tile_dim else 0) for i, d in enumerate(L.out_dims)])
        col_bits = rc.get("col", 0) * (bits or 32)
        details.update(tmem_row=rc.get("row", 0), tmem_col=col_bits // 32)
        if bits and col_bits % 32:
            problems.append(f"the offset {offset} starts at TMEM column {rc.get('col', 0)} of {bits}-bit elements, "
                            "not on a 32-bit column")
    ok = f"the view at offset {offset} along dim {dim} keeps the source's TMEM layout"
    if "tmem_col" in details and bits:
        ok += f" (TMEM row {details['tmem_row']}, 32-bit column {details['tmem_col']})"
    return _result("tmem_subslice", problems, ok, details)


def _has_run(bases: list[list[int]], run: list[list[int]]) -> bool:
    """Whether `run` appears as consecutive entries of `bases`."""
    return any(bases[k:k + len(run)] == run for k in range(len(bases) - len(run) + 1))


def tmem_copy(shared: Encoding, tmem: Encoding, src_shape: Sequence[int], dst_shape: Sequence[int],
              src_alloc: Sequence[int], dst_alloc: Sequence[int], bits: int | None, src_in_shared: bool,
              dst_mutable: bool) -> Result:
    """One ``ttng.tmem_copy`` from `shared` into `tmem` is one Triton accepts (module docstring)."""
    problems: list[str] = []
    details: dict = {"shape": list(dst_shape)}
    if not src_in_shared or not shared.is_shared:
        problems.append("the source must be a shared memory buffer")
        return _result("tmem_copy", problems, "", details)
    if list(src_shape) != list(dst_shape):
        problems.append(f"the source shape {list(src_shape)} must match the destination shape {list(dst_shape)}")
    if not dst_mutable:
        problems.append("the destination must be mutable (cannot copy into an immutable alloc)")
    align = shared.alignment()
    details["alignment_bytes"] = align
    if align < 16:
        problems.append(f"the source must be aligned to at least 16 bytes for a matrix descriptor, got {align}")
    if tmem.kind not in (TMEM, SCALES):
        problems.append(f"the destination must be tensor_memory_encoding or tensor_memory_scales_encoding, "
                        f"got {tmem.kind}")
        return _result("tmem_copy", problems, "", details)
    if not problems:
        try:
            cvt = lower(tmem, list(dst_alloc)).invert_and_compose(lower(shared, list(src_alloc)))
            if not cvt.is_trivial_over(["block"]):
                problems.append("the source and destination must have the same CGA layout "
                                "(tmem^-1 . shared is not trivial over block)")
        except (CheckerError, LayoutError) as e:
            details["cga_check"] = f"not made: {getattr(e, 'message', e)}"
    nvmma = shared if shared.kind == "nvmma_shared" else None
    if nvmma is not None and (nvmma.transposed or nvmma.fp4_padded):
        problems.append("an nvmma_shared source must be neither transposed nor fp4Padded")
    if tmem.kind == SCALES:
        if nvmma is not None and nvmma.swizzling_byte_width != 0:
            problems.append(f"a copy into tensor_memory_scales_encoding needs an unswizzled source, got "
                            f"swizzlingByteWidth {nvmma.swizzling_byte_width}")
    else:
        if tmem.block_m != 128:
            problems.append(f"the destination must have blockM = 128, got {tmem.block_m}")
        if nvmma is not None and nvmma.swizzling_byte_width == 0:
            problems.append("a copy into tensor_memory_encoding needs a swizzled nvmma_shared source")
        if bits != 32:
            problems.append(f"a copy into tensor_memory_encoding needs 32-bit elements, got {bits}")
    return _result("tmem_copy", problems, f"tcgen05.cp from {shared.kind} into {tmem.kind}: Triton's rules hold",
                   details)


def decide(ob) -> Result:
    """A TTGIR check of ``tmem_subslice`` (a subslice's window) or ``tmem_copy`` (a tcgen05.cp)."""
    p = ob.param
    if ob.property == "tmem_copy":
        return tmem_copy(ob.operand("shared"), ob.operand("tmem"), p("source_shape"), ob.shape, p("source_alloc"),
                         p("alloc"), ob.dtype_bits, bool(p("source_in_shared")), bool(p("mutable")))
    if p("dim") is not None:        # Triton 3.9's {offset, dim} (checker/ttgir/ops_nvidia.py)
        return tmem_subslice_along(ob.operand("src"), ob.operand("dst"), p("source_shape"), ob.shape,
                                   p("source_alloc"), p("alloc"), p("source_type"), ob.dtype, p("offset"), p("dim"),
                                   ob.dtype_bits)
    return tmem_subslice(ob.operand("src"), ob.operand("dst"), p("source_shape"), ob.shape, p("source_alloc"),
                         p("alloc"), p("source_type"), ob.dtype, p("n"), ob.dtype_bits)
