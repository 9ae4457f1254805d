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
