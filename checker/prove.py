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
from .dtypes import dtype_bits
from .encodings.base import Encoding
from .errors import CheckerError
from .hardware import Hardware
from .layout import LinearLayout
from .padded import PaddedLayout
from .properties import aligned, bank_conflicts, equivalence, views
from .properties import coalesced as _coalesced
from .properties import conversion as _conversion
from .properties import conversion_cost as _conversion_cost
from .properties import fits as _fits
from .properties import injective as _injective
from .properties import invertible as _invertible
from .properties import surjective as _surjective
from .properties.operands import lowered
from .properties.result import Result, check_timeout
from .registry import SPEC_PROPERTIES
from .verdict import TIMEOUT_MS, Engines

Shape = Sequence[int] | None
Layout = LinearLayout | PaddedLayout | Encoding                # a LinearLayout, a padded one, or an encoding
Dtype = str | int | None                                       # "f16", "fp32", "i8", ... or a number of bits
HardwareLike = str | Hardware | Mapping[str, Any]              # a preset name ("sm90"), a Hardware, a mapping

__all__ = ["TIMEOUT_MS", "Result", "dtype_bits", "lowered", *SPEC_PROPERTIES]


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


def __getattr__(name: str):
    """A spec property of the registry without a function here: its module's ``judge``, with this module's
    keywords (``engine``, ``timeout_ms``, ``triton_version``)."""
    prop = SPEC_PROPERTIES.get(name)
    if prop is None:
        raise AttributeError(f"module 'checker.prove' has no attribute {name!r}")
    judge = prop.judge()

    def public(*args, engine: str = "both", timeout_ms: int | None = TIMEOUT_MS, **kwargs) -> Result:
        return judge(*args, engines=Engines(engine, timeout_ms), **kwargs)
    public.__name__ = public.__qualname__ = name
    public.__doc__ = f"{prop.summary} (`checker.properties`: its module's ``judge``)."
    globals()[name] = fn = _api(public)
    return fn


@_api
def surjective(layout: Layout, shape: Shape = None, *, layout_shape: Shape = None, engine: str = "both",
               timeout_ms: int = TIMEOUT_MS) -> Result:
    """Every element of `shape` is held by some hardware index. An encoding is lowered at ``layout_shape``
    (default: `shape`) and judged over `shape`, as a spec's ``layout_shape`` says; coordinates of the
    layout outside `shape` do not count. A LinearLayout's own out sizes are its layout shape: judging it
    over another `shape` needs ``layout_shape`` equal to them, so that it is never done by accident."""
    return _surjective.judge(layout, shape, layout_shape=layout_shape, engines=Engines(engine, timeout_ms))


@_api
def injective(layout: Layout, shape: Shape = None, *, engine: str = "both", timeout_ms: int = TIMEOUT_MS) -> Result:
    return _injective.judge(layout, shape, engines=Engines(engine, timeout_ms))


@_api
def injective_up_to_broadcast(layout: Layout, shape: Shape = None, *, engine: str = "both",
                              timeout_ms: int = TIMEOUT_MS) -> Result:
    return _injective.judge(layout, shape, modulo_broadcast=True, engines=Engines(engine, timeout_ms))


@_api
def invertible(layout: Layout, shape: Shape = None, *, engine: str = "both", timeout_ms: int = TIMEOUT_MS) -> Result:
    """Given an encoding, the offsets it declares padding (NVMMA fp4Padded) are holes, not collisions. A
    partitioned layout is judged with its partitions ((offset, block, partition) -> element): Triton's own
    LinearLayout of it keeps only partition 0, which covers 1 / numPartitions of the tensor by design."""
    return _invertible.judge(layout, shape, engines=Engines(engine, timeout_ms))


@_api
def equivalent(a: Layout, b: Layout, shape: Shape = None, *, engine: str = "both",
               timeout_ms: int = TIMEOUT_MS) -> Result:
    return equivalence.judge(a, b, shape, engines=Engines(engine, timeout_ms))


@_api
def conversion(src: Layout, dst: Layout, shape: Shape = None, *, via: Layout | None = None, engine: str = "both",
               timeout_ms: int = TIMEOUT_MS, triton: bool = False) -> Result:
    """triton=True adds how Triton itself classifies and lowers the conversion (details ``triton_trivial``,
    ``triton_class``, ``triton_lowering``, ...), computed only on request. Identical encodings count as
    Triton's same-encoding case (trivial at once)."""
    return _conversion.judge(src, dst, shape, via=via, triton=triton, engines=Engines(engine, timeout_ms))


@_api
def fits(layout: Layout, dtype_bits: int, capacity_bytes: int, alignment_bytes: int | None = None, *,
         shape: Shape = None, base_bytes: int = 0, engine: str = "both", timeout_ms: int = TIMEOUT_MS) -> Result:
    """alignment_bytes defaults to the encoding's own (Triton's getAlignment) when given an encoding."""
    return _fits.judge(layout, dtype_bits, capacity_bytes, alignment_bytes, shape=shape, base_bytes=base_bytes,
                       engines=Engines(engine, timeout_ms))


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
    return bank_conflicts.judge(R, S, shape, dtype if dtype is not None else dtype_bits, direction=direction,
                                access=access, model=model, hardware=hardware, triton=triton,
                                engines=Engines(engine, timeout_ms))


@_api
def conversion_cost(src: Layout, dst: Layout, shape: Shape = None, dtype: Dtype = None, *,
                    hardware: HardwareLike = "sm90", engine: str = "both", timeout_ms: int = TIMEOUT_MS) -> Result:
    """How Triton 3.9 lowers convert_layout src -> dst (`checker.properties.conversion_cost`): details hold
    ``lowering`` ("register", "shuffle" or "shared"), ``scratch_bytes``, ``scratch_layout`` (to_dict form),
    ``reps`` and, for the shared path, ``store`` / ``load`` (instruction, vector_bytes, instructions,
    wavefronts and min_wavefronts per CTA, Triton's own conflict count); holds when both sides cost their
    minimum. dtype: a name ("f16", "fp32", "i8", ...) or a number of bits."""
    return _conversion_cost.judge(src, dst, shape, dtype, hardware=hardware, engines=Engines(engine, timeout_ms))


_bits = dtype_bits     # for functions whose keyword `dtype_bits` hides it


@_api
def aligned_access(R: Layout, S: Layout, shape: Shape = None, dtype: Dtype = None, *, direction: str = "store",
                   hardware: HardwareLike = "sm90",
                   engine: str = "both", timeout_ms: int = TIMEOUT_MS) -> Result:
    """Every vector access of the instruction Triton emits for R <-> S starts at a multiple of its width
    (`checker.properties.aligned`). dtype: a name ("f16", "fp32", "i8", ...) or a number of bits; it
    defaults to the shared encoding's element width where it has one (nvmma_shared)."""
    return aligned.judge(R, S, shape, dtype, direction=direction, hardware=hardware,
                         engines=Engines(engine, timeout_ms))


@_api
def view_consistent(source: Layout, view: Layout, source_shape: Shape = None, view_shape: Shape = None, *, kind: str,
                    order: Sequence[int] | None = None, engine: str = "both", timeout_ms: int = TIMEOUT_MS) -> Result:
    """A memdesc view (kind "trans", "reshape", "index" or "subslice") addresses the buffer it was
    taken from: `checker.properties.views`."""
    return views.judge(source, view, source_shape, view_shape, kind=kind, order=order,
                       engines=Engines(engine, timeout_ms))


@_api
def coalesced(layout: Layout, shape: Shape = None, dtype_bits: Dtype = None, *,
              contiguity: Sequence[int] | None = None, divisibility: Sequence[int] | None = None,
              strides: Sequence[int | None] | None = None, hardware: HardwareLike = "sm90", access: str = "load",
              mask_alignment: int | None = None, base_offset_bytes: int = 0, l1_cached: bool = True,
              engine: str = "both", timeout_ms: int = TIMEOUT_MS) -> Result:
    """A global load or store of a tensor in this layout (`checker.properties.coalesced`): is it as wide as the
    layout allows (Triton's vector width from the pointer's AxisInfo) and does every warp request touch its
    minimum 32-byte sectors? ``strides``: elements per coordinate step per dim (default: row-major contiguous;
    None for a dim: an unknown runtime stride); ``contiguity``: the pointer's AxisInfo contiguity per dim
    (default: the dim's size where its stride is 1, else 1); ``divisibility``: its divisibility per dim in bytes
    (default 16 everywhere, Triton's pointer-argument hint); ``mask_alignment``: the mask's constancy along the
    layout's order[0] (None: unmasked); ``l1_cached``: a load whose lines stay in L1 (False: ``cacheModifier =
    cg``, volatile), whose threads' two-vector runs are then judged whole (`checker.properties.coalesced.whole_runs`).
    Details carry ``instruction``, ``vector_bytes``, ``requests``, ``sectors`` and ``min_sectors`` (per CTA; with
    ``runs`` where the runs are judged); `checker.properties.coalesced.probe` gives them per request."""
    return _coalesced.judge(layout, shape, dtype_bits, contiguity=contiguity, divisibility=divisibility,
                            strides=strides, hardware=hardware, access=access, mask_alignment=mask_alignment,
                            base_offset_bytes=base_offset_bytes, l1_cached=l1_cached,
                            engines=Engines(engine, timeout_ms))
