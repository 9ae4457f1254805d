"""The public API: prove a property of layouts given as LinearLayouts or encodings.

    from checker import prove
    r = prove.conversion(mma, dot_op, [64, 64])
    r.status, r.details["level"], r.counterexample

Every function accepts a `LinearLayout` (or, for shared memory, a
`checker.padded.PaddedLayout`) or an encoding plus
the tensor ``shape`` to lower it at, and the keywords ``engine`` ("both",
the default: GF(2) algebra and Z3 must agree; or "f2" / "z3"),
``triton_version`` (whose semantics: "3.5" to "3.9", `checker.versions`;
default the newest) and ``timeout_ms`` (Z3's limit per obligation, a positive integer, or None for
no limit; 0 or less is refused with a `CheckerError` naming it, since Z3
would read 0 as no limit; a timeout gives "unknown").
Each returns a `checker.properties.Result`; the definitions are in the
docstrings of `checker.properties.*`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from . import versions
from .encodings import lower
from .encodings.base import Encoding, SharedEncoding
from .encodings.partitioned_shared import PartitionedSharedEncoding
from .errors import CheckerError
from .hardware import Hardware
from .layout import LinearLayout
from .padded import PaddedLayout, linear_part
from .properties.conversion import conversion as _conversion
from .properties.equivalence import equivalent as _equivalent
from .properties.fits import fits as _fits
from .properties.frame import shape_map
from .properties.injective import injective as _injective
from .properties.injective import injective_up_to_broadcast as _injective_up_to_broadcast
from .properties.invertible import invertible as _invertible
from .properties.result import Result, check_timeout
from .properties.surjective import surjective as _surjective
from .verdict import Engines

TIMEOUT_MS = 10_000
Shape = Sequence[int] | None
Layout = LinearLayout | PaddedLayout | Encoding                # a LinearLayout, a padded one, or an encoding
Dtype = str | int | None                                       # "f16", "fp32", "i8", ... or a number of bits
HardwareLike = str | Hardware | Mapping[str, Any]              # a preset name ("sm90"), a Hardware, a mapping


def _api(fn):
    """A public prove function: ``timeout_ms`` of 0 or less is refused (`CheckerError` naming it) before
    anything is lowered; Z3 would read 0 as "no limit". None means no limit. ``triton_version="3.6"``
    lowers, picks instructions and prices as that Triton does (`checker.versions`; default: the version
    in force, the newest supported outside any other choice)."""
    @functools.wraps(fn)
    def checked(*args, **kwargs):
        if "timeout_ms" in kwargs:
            check_timeout(kwargs["timeout_ms"])
        return fn(*args, **kwargs)
    return versions.keyword(checked)


def _text(shape) -> str:
    return "x".join(str(v) for v in (shape.values() if isinstance(shape, Mapping) else shape))


def lowered(layout: Layout, shape: Shape = None, what: str = "layout") -> LinearLayout | PaddedLayout:
    """A LinearLayout (or padded shared layout) as given, or an encoding lowered at shape."""
    if isinstance(layout, (LinearLayout, PaddedLayout)):
        return layout
    if not isinstance(layout, Encoding):
        raise CheckerError(f"expected a LinearLayout or an encoding, got {type(layout).__name__}", field=what)
    if shape is None:
        raise CheckerError(f"a {layout.kind} encoding needs a tensor shape to be lowered", field="shape")
    try:
        return lower(layout, shape)
    except CheckerError as e:           # name the parameter: the shape, or the operand (`what`: "S", "src")
        raise e.located(argument="shape" if e.field == "shape" else what) from None


def _linear(layout: Layout, shape: Shape, what: str = "layout") -> LinearLayout:
    return linear_part(lowered(layout, shape, what))


@_api
def surjective(layout: Layout, shape: Shape = None, *, layout_shape: Shape = None, engine: str = "both",
               timeout_ms: int = TIMEOUT_MS) -> Result:
    """Every element of `shape` is held by some hardware index. An encoding is lowered at ``layout_shape``
    (default: `shape`) and judged over `shape`, as a spec's ``layout_shape`` says; coordinates of the
    layout outside `shape` do not count. A LinearLayout's own out sizes are its layout shape: judging it
    over another `shape` needs ``layout_shape`` equal to them, so that it is never done by accident."""
    L = _linear(layout, layout_shape if layout_shape is not None else shape)
    own = dict(L.out_dim_sizes)
    if layout_shape is not None and shape_map(L, layout_shape) != own:
        raise CheckerError(f"layout_shape {_text(layout_shape)} is not the layout's own shape {_text(own)}",
                           field="layout_shape")
    if shape is not None and layout_shape is None and shape_map(L, shape) != own:
        raise CheckerError(f"the layout is lowered at {_text(own)} but the shape is {_text(shape)}: judging a layout "
                           f"over another shape than its own needs layout_shape={_text(own)}", field="shape")
    return _surjective(L, shape, engines=Engines(engine, timeout_ms))


@_api
def injective(layout: Layout, shape: Shape = None, *, engine: str = "both", timeout_ms: int = TIMEOUT_MS) -> Result:
    return _injective(_linear(layout, shape), engines=Engines(engine, timeout_ms))


@_api
def injective_up_to_broadcast(layout: Layout, shape: Shape = None, *, engine: str = "both",
                              timeout_ms: int = TIMEOUT_MS) -> Result:
    return _injective_up_to_broadcast(_linear(layout, shape), engines=Engines(engine, timeout_ms))


@_api
def invertible(layout: Layout, shape: Shape = None, *, engine: str = "both", timeout_ms: int = TIMEOUT_MS) -> Result:
    """Given an encoding, the offsets it declares padding (NVMMA fp4Padded) are holes, not collisions. A
    partitioned layout is judged with its partitions ((offset, block, partition) -> element): Triton's own
    LinearLayout of it keeps only partition 0, which covers 1 / numPartitions of the tensor by design."""
    padding = layout.padding_offset_bits() if isinstance(layout, SharedEncoding) else ()
    if isinstance(layout, PartitionedSharedEncoding):
        if shape is None:
            raise CheckerError("a partitioned layout needs the tensor shape", field="shape")
        return _invertible(layout.full_linear_layout(shape), padding_offset_bits=padding,
                           engines=Engines(engine, timeout_ms))
    return _invertible(lowered(layout, shape), padding_offset_bits=padding, engines=Engines(engine, timeout_ms))


@_api
def equivalent(a: Layout, b: Layout, shape: Shape = None, *, engine: str = "both",
               timeout_ms: int = TIMEOUT_MS) -> Result:
    return _equivalent(_linear(a, shape, "a"), _linear(b, shape, "b"),
                                   engines=Engines(engine, timeout_ms))


@_api
def conversion(src: Layout, dst: Layout, shape: Shape = None, *, via: Layout | None = None, engine: str = "both",
               timeout_ms: int = TIMEOUT_MS, triton: bool = False) -> Result:
    """triton=True adds how Triton itself classifies and lowers the conversion (details ``triton_trivial``,
    ``triton_class``, ``triton_lowering``, ...), computed only on request. Identical encodings count as
    Triton's same-encoding case (trivial at once)."""
    same = not isinstance(src, LinearLayout) and src == dst
    return _conversion(_linear(src, shape, "src"), _linear(dst, shape, "dst"),
                                  via=None if via is None else lowered(via, shape, "via"),
                                  same_encoding=same, engines=Engines(engine, timeout_ms), triton=triton)


@_api
def fits(layout: Layout, dtype_bits: int, capacity_bytes: int, alignment_bytes: int | None = None, *,
         shape: Shape = None, base_bytes: int = 0, engine: str = "both", timeout_ms: int = TIMEOUT_MS) -> Result:
    """alignment_bytes defaults to the encoding's own (Triton's getAlignment) when given an encoding."""
    if alignment_bytes is None and hasattr(layout, "alignment") and callable(layout.alignment):
        alignment_bytes = layout.alignment()
    return _fits(lowered(layout, shape), dtype_bits, capacity_bytes, alignment_bytes,
                      base_bytes=base_bytes, engines=Engines(engine, timeout_ms))


# ---------------------------------------------------------------- bank conflicts
from .properties.bank_conflicts import bank_conflict_free as _bank_conflict_free  # noqa: E402


@_api
def bank_conflict_free(R: Layout, S: Layout, shape: Shape = None, dtype: Dtype = None, *, direction: str = "store",
                       access: str = "auto", model: str = "hardware", hardware: HardwareLike = "sm90",
                       engine: str = "both", timeout_ms: int = TIMEOUT_MS, dtype_bits: int | None = None,
                       triton: bool = False) -> Result:
    """Storing R into S (or loading S into R) without bank conflicts; details carry
    conflicts, wavefronts and min_wavefronts for the whole CTA (with triton=True and the hardware model, also
    Triton's own count, ``triton_conflicts``, and why the models differ where they do). dtype: a name as in spec files
    ("f16", "bf16", "fp32", "i8", ...) or a number of bits (``dtype_bits=`` says the same); it
    defaults to the shared encoding's element width where it has one (nvmma_shared)."""
    if dtype is not None and dtype_bits is not None and _bits(dtype) != dtype_bits:
        raise CheckerError(f"dtype {dtype!r} and dtype_bits {dtype_bits} disagree", field="dtype")
    dtype = dtype if dtype is not None else dtype_bits
    if dtype is None:
        dtype = getattr(S, "element_bit_width", None)
        if dtype is None:
            raise CheckerError("the element type (a name or a number of bits) is needed", field="dtype")
    return _bank_conflict_free(_linear(R, shape, "R"), lowered(S, shape, "S"), _bits(dtype),
                               direction=direction, access=access, model=model, hardware=hardware,
                               engines=Engines(engine, timeout_ms), triton=triton)


@_api
def conversion_cost(src: Layout, dst: Layout, shape: Shape = None, dtype: Dtype = None, *,
                    hardware: HardwareLike = "sm90", engine: str = "both", timeout_ms: int = TIMEOUT_MS) -> Result:
    """How Triton 3.9 lowers convert_layout src -> dst (`checker.properties.conversion_cost`): details hold
    ``lowering`` ("register", "shuffle" or "shared"), ``scratch_bytes``, ``scratch_layout`` (to_dict form),
    ``reps`` and, for the shared path, ``store`` / ``load`` (instruction, vector_bytes, instructions,
    wavefronts and min_wavefronts per CTA, Triton's own conflict count); holds when both sides cost their
    minimum. dtype: a name ("f16", "fp32", "i8", ...) or a number of bits."""
    # lazy: this proof's module loads when it is asked (`layoutcheck verify` loads checker.prove without it)
    from .properties.conversion_cost import conversion_cost as _conversion_cost
    if dtype is None:
        raise CheckerError("the element type (a name or a number of bits) is needed", field="dtype")
    return _conversion_cost(_linear(src, shape, "src"), _linear(dst, shape, "dst"), _bits(dtype),
                            hardware=hardware, engines=Engines(engine, timeout_ms))


from .dtypes import dtype_bits  # noqa: E402  (public here too: checker.prove.dtype_bits)

_bits = dtype_bits     # for functions whose keyword `dtype_bits` hides it


@_api
def aligned_access(R: Layout, S: Layout, shape: Shape = None, dtype: Dtype = None, *, direction: str = "store",
                   hardware: HardwareLike = "sm90",
                   engine: str = "both", timeout_ms: int = TIMEOUT_MS) -> Result:
    """Every vector access of the instruction Triton emits for R <-> S starts at a multiple of its width
    (`checker.properties.aligned`). dtype: a name ("f16", "fp32", "i8", ...) or a number of bits; it
    defaults to the shared encoding's element width where it has one (nvmma_shared)."""
    # lazy: this proof's module loads when it is asked (`layoutcheck verify` loads checker.prove without it)
    from .properties.aligned import aligned_access as _aligned_access
    if dtype is None:
        dtype = getattr(S, "element_bit_width", None)
        if dtype is None:
            raise CheckerError("the element type (a name or a number of bits) is needed", field="dtype")
    return _aligned_access(_linear(R, shape, "R"), lowered(S, shape, "S"), dtype_bits(dtype), direction=direction,
                           hardware=hardware, engines=Engines(engine, timeout_ms))


@_api
def view_consistent(source: Layout, view: Layout, source_shape: Shape = None, view_shape: Shape = None, *, kind: str,
                    order: Sequence[int] | None = None, engine: str = "both", timeout_ms: int = TIMEOUT_MS) -> Result:
    """A memdesc view (kind "trans", "reshape", "index" or "subslice") addresses the buffer it was
    taken from: `checker.properties.views`."""
    # lazy: this proof's module loads when it is asked (`layoutcheck verify` loads checker.prove without it)
    from .properties.views import view_consistent as decide_view
    return decide_view(lowered(source, source_shape, "source"), lowered(view, view_shape, "view"), kind,
                       order=order, engines=Engines(engine, timeout_ms))


@_api
def coalesced(layout: Layout, shape: Shape = None, dtype_bits: Dtype = None, *,
              contiguity: Sequence[int] | None = None, divisibility: Sequence[int] | None = None,
              strides: Sequence[int | None] | None = None, hardware: HardwareLike = "sm90", access: str = "load",
              mask_alignment: int | None = None, base_offset_bytes: int = 0, engine: str = "both",
              timeout_ms: int = TIMEOUT_MS) -> Result:
    """A global load or store of a tensor in this layout (`checker.properties.coalesced`): is it as wide as the
    layout allows (Triton's vector width from the pointer's AxisInfo) and does every warp request touch its
    minimum 32-byte sectors? ``strides``: elements per coordinate step per dim (default: row-major contiguous;
    None for a dim: an unknown runtime stride); ``contiguity``: the pointer's AxisInfo contiguity per dim
    (default: the dim's size where its stride is 1, else 1); ``divisibility``: its divisibility per dim in bytes
    (default 16 everywhere, Triton's pointer-argument hint); ``mask_alignment``: the mask's constancy along the
    layout's order[0] (None: unmasked). Details carry ``instruction``, ``vector_bytes``, ``requests``,
    ``sectors`` and ``min_sectors`` (per CTA); `checker.properties.coalesced.probe` gives them per request."""
    # lazy: this proof's module loads when it is asked (`layoutcheck verify` loads checker.prove without it)
    from .properties.coalesced import coalesced as _coalesced
    if dtype_bits is None:
        raise CheckerError("the element type (a name or a number of bits) is needed", field="dtype_bits")
    bits = _bits(dtype_bits)
    L = _linear(layout, shape)
    dims = [s for _, s in L.out_dim_sizes]
    if strides is None:
        strides = [1] * len(dims)
        for k in range(len(dims) - 2, -1, -1):
            strides[k] = strides[k + 1] * dims[k + 1]
    if len(strides) != len(dims):
        raise CheckerError(f"needs {len(dims)} strides, got {list(strides)}", field="strides")
    if contiguity is None:
        contiguity = [dims[k] if strides[k] == 1 else 1 for k in range(len(dims))]
    if divisibility is None:
        divisibility = [16] * len(dims)
    eb = max(1, bits // 8)
    return _coalesced(L, bits, contiguity=list(contiguity), divisibility=list(divisibility),
                      strides_bytes=[s * eb if isinstance(s, int) else None for s in strides], hardware=hardware,
                      kind=access, mask_alignment=mask_alignment, base_offset_bytes=base_offset_bytes,
                      engines=Engines(engine, timeout_ms))
