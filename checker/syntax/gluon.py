"""Gluon layout objects, as plain data, to encodings.

Gluon (``triton.experimental.gluon.language``) builds layouts with Python
constructors such as ``BlockedLayout(size_per_thread=[2, 2], ...)``. Their
data form ``{"class": "BlockedLayout", "params": {...}}`` is what Triton's
own conformance oracle records, and what users of Gluon write. This module
turns that form into layoutcheck encodings, applying Gluon's defaults and
its Python-side checks, so Gluon users get the same answers Triton gives.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from ..encodings.base import Encoding, as_bases, as_ints
from ..errors import EncodingError

GluonConverter = Callable[[Mapping[str, Any]], Encoding]
GLUON_CLASSES: dict[str, GluonConverter] = {}


def gluon_class(name: str):
    def deco(fn: GluonConverter) -> GluonConverter:
        GLUON_CLASSES[name] = fn
        return fn
    return deco


def from_gluon(spec: Mapping[str, Any]) -> Encoding:
    """Build the encoding a Gluon layout spec ``{"class", "params"[, "ctor"]}`` describes."""
    if not isinstance(spec, Mapping) or "class" not in spec:
        raise EncodingError("a Gluon layout spec needs a 'class' and 'params'", field="class")
    cls = spec["class"]
    conv = GLUON_CLASSES.get(cls)
    if conv is None:
        raise EncodingError(f"unknown Gluon layout class '{cls}' (known: {', '.join(sorted(GLUON_CLASSES))})",
                            field="class")
    params = dict(spec.get("params") or {})
    if spec.get("ctor"):
        params["__ctor__"] = spec["ctor"]
    try:
        return conv(params)
    except KeyError as e:
        raise EncodingError(f"{cls}: missing parameter {e.args[0]}", field=str(e.args[0])) from None


@gluon_class("BlockedLayout")
def _blocked(p: Mapping[str, Any]) -> Encoding:
    from ..encodings.blocked import BlockedEncoding
    return BlockedEncoding(as_ints(p["size_per_thread"]), as_ints(p["threads_per_warp"]),
                           as_ints(p["warps_per_cta"]), as_ints(p["order"]), as_bases(p.get("cga_layout")))


@gluon_class("SliceLayout")
def _slice(p: Mapping[str, Any]) -> Encoding:
    from ..encodings.slice import SliceEncoding
    return SliceEncoding(int(p["dim"]), from_gluon(p["parent"]))


@gluon_class("DistributedLinearLayout")
def _distributed_linear(p: Mapping[str, Any]) -> Encoding:
    """Gluon also states the layout's shape; it must be what the bases span."""
    from ..encodings.linear import LinearEncoding
    enc = LinearEncoding(as_bases(p["reg_bases"]), as_bases(p["lane_bases"]), as_bases(p["warp_bases"]),
                         as_bases(p.get("block_bases")))
    _check_declared_shape(enc, p.get("shape"))
    return enc


@gluon_class("SwizzledSharedLayout")
def _swizzled_shared(p: Mapping[str, Any]) -> Encoding:
    from ..encodings.swizzled_shared import SwizzledSharedEncoding
    return SwizzledSharedEncoding(int(p["vec"]), int(p["per_phase"]), int(p["max_phase"]), as_ints(p["order"]),
                                  as_bases(p.get("cga_layout")))


@gluon_class("SharedLinearLayout")
def _shared_linear(p: Mapping[str, Any]) -> Encoding:
    from ..encodings.shared_linear import SharedLinearEncoding
    return SharedLinearEncoding(as_bases(p["offset_bases"]), as_bases(p.get("block_bases")),
                                int(p.get("alignment", 16)))


def _check_declared_shape(enc, shape) -> None:
    """A linear layout whose stated shape differs from what its bases span is rejected,
    as Triton does (a basis beyond the shape, or a non-surjective layout)."""
    if shape is None:
        return
    enc.validate()
    sizes = [s for _, s in enc.stored_layout().out_dim_sizes]
    if list(shape) != sizes:
        raise EncodingError(f"{enc.kind}: the bases span the shape {sizes}, not the declared shape {list(shape)} "
                            f"(every basis must lie inside the shape and the layout must cover it)", field="shape")
