"""Gluon layout objects, as plain data, to encodings.

Gluon (``triton.experimental.gluon.language``) builds layouts with Python
constructors such as ``BlockedLayout(size_per_thread=[2, 2], ...)``. Their
data form ``{"class": "BlockedLayout", "params": {...}}`` is what Triton's
own conformance oracle records, and what users of Gluon write. This module
turns that form into layoutcheck encodings, applying Gluon's defaults and
its Python-side checks, so Gluon users get the same answers Triton gives.

A class whose constructor takes the encoding's fields is read by their
metadata (`checker.encodings.base.param`: Gluon's parameter name and
default). The others are written out here: they take other parameters
(``version = [major, minor]``, ``block = [M, N]``, interval-padding pairs,
helper constructors) or assert in Python before building.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..encodings import ENCODING_CLASSES, lower
from ..encodings.amd_mfma import MFMA_TILES, AmdMfmaEncoding
from ..encodings.amd_wmma import DEFAULT_INSTR_SHAPE, AmdWmmaEncoding, cta_bases_of_warps
from ..encodings.base import (
    BASES,
    BOOL,
    CGA,
    ENCODING,
    INT,
    INTS,
    RANK,
    REQUIRED,
    Encoding,
    SharedEncoding,
    as_bases,
    as_ints,
    params_of,
)
from ..encodings.linear import LinearEncoding
from ..encodings.nvidia_mma import NvidiaMmaEncoding
from ..encodings.nvmma_shared import NvmmaSharedEncoding
from ..encodings.padded_shared import PaddedSharedEncoding, identity_offsets
from ..encodings.partitioned_shared import PartitionedSharedEncoding
from ..encodings.tensor_memory import TensorMemoryEncoding
from ..errors import EncodingError, NotModelled
from ..layout import is_power_of_two
from ..limits import INT_MAX, INT_MIN, check_depth, clip, describe
from ..padded import linear_part

GluonConverter = Callable[[Mapping[str, Any]], Encoding]
GLUON_CLASSES: dict[str, GluonConverter] = {}


def gluon_class(name: str):
    def deco(fn: GluonConverter) -> GluonConverter:
        GLUON_CLASSES[name] = fn
        return fn
    return deco


def lower_gluon(encoding: Encoding, shape):
    """`lower` plus Gluon's Python-side rule: a shared buffer of one element per CTA (no offset
    bits) is rejected. Triton's C++ lowering accepts it (TTGIR allocates mbarriers as
    ``!ttg.memdesc<1xi64, #shared>``), so this rule belongs to Gluon input only."""
    result = lower(encoding, shape)
    if encoding.is_shared and linear_part(result).in_dim_size_log2("offset") == 0:
        raise EncodingError(f"{encoding.kind}: the shape gives one element per CTA; Gluon requires a shared "
                            f"layout to have at least one offset basis", field="shape")
    return result


def is_gluon_object(obj: Any) -> bool:
    """Whether obj is a Gluon layout object (a class of ``triton.experimental.gluon``); Triton is not
    imported to tell."""
    return type(obj).__module__.startswith("triton.experimental.gluon")


def gluon_object_spec(obj: Any) -> dict:
    """The spec ``{"class", "params"}`` of a Gluon layout object (``gl.BlockedLayout(...)``, the NVIDIA,
    AMD, shared and tensor-memory classes): its dataclass fields are the constructor's parameters, which
    the spec reader takes by the same names; nested layouts (``parent``, ``partition_layout``) become
    nested specs; a subclass (``MBarrierLayout``) is read as the class it extends."""
    import dataclasses
    cls = next((c.__name__ for c in type(obj).__mro__ if c.__name__ in GLUON_CLASSES), None)
    if cls is None or not dataclasses.is_dataclass(obj):
        raise EncodingError(f"Gluon {type(obj).__name__} is not a layout layoutcheck reads (a concrete layout is "
                            f"one of: {', '.join(sorted(c for c in GLUON_CLASSES if '(' not in c))})", field="class")
    return {"class": cls, "params": {f.name: _plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}}


def _plain(value: Any) -> Any:
    """A Gluon field as plain data: constexpr unwrapped, layouts as specs, tuples as lists."""
    if type(value).__name__ == "constexpr" and hasattr(value, "value"):
        value = value.value
    if is_gluon_object(value):
        return gluon_object_spec(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def from_gluon(spec: Mapping[str, Any]) -> Encoding:
    """Build the encoding a Gluon layout spec ``{"class", "params"[, "ctor"]}`` describes (or a Gluon
    layout object itself: `gluon_object_spec`)."""
    if is_gluon_object(spec):
        spec = gluon_object_spec(spec)
    if not isinstance(spec, Mapping) or "class" not in spec:
        raise EncodingError("a Gluon layout spec needs a 'class' and 'params'", field="class")
    cls = spec["class"]
    conv = GLUON_CLASSES.get(cls) if isinstance(cls, str) else None
    if conv is None:
        raise EncodingError(f"unknown Gluon layout class {clip(cls, 40)!r} (known: "
                            f"{clip(', '.join(sorted(GLUON_CLASSES)), 150)})", field="class")
    check_depth(spec, "params", what="the Gluon spec", error=EncodingError)
    params = spec.get("params") or {}
    if not isinstance(params, Mapping):
        raise EncodingError(f"{cls}: params must be a mapping, got {describe(params)}", field="params")
    params = _checked_params(cls, params)
    if spec.get("ctor"):
        if not isinstance(spec["ctor"], str):
            raise EncodingError(f"{cls}: ctor must be a helper's name, got {describe(spec['ctor'])}", field="ctor")
        params["__ctor__"] = spec["ctor"]
    try:
        return conv(params)
    except KeyError as e:
        raise EncodingError(f"{cls}: missing parameter {clip(e.args[0], 40)}", field=str(e.args[0])) from None
    except EncodingError as e:
        raise e.located(field="params") from None
    except (TypeError, ValueError) as e:     # an integer where a list belongs, or a list where an integer does
        raise EncodingError(f"{cls}: a parameter has the wrong shape of value ({clip(str(e), 80)})",
                            field="params") from None


# The types of Gluon parameters that are not integers (or lists of them): flags, names, nested layouts.
# The fields' Gluon parameters by form (every class), and the parameters that are no field.
def _gluon_params(*forms: str) -> frozenset[str]:
    return frozenset(p.gluon for cls in ENCODING_CLASSES.values() for _, p in params_of(cls)
                     if p.form in forms and p.gluon)


_GLUON_FLAGS = _gluon_params(BOOL) | {"is_transposed"}
_GLUON_NAMES = frozenset({"dtype"})
_GLUON_LAYOUTS = _gluon_params(ENCODING)
# Parameters that are lists (of lists) of integers; "version" is a list for NVMMADistributedLayout and an
# integer for the AMD layouts; every other parameter is one integer.
_GLUON_LISTS = _gluon_params(INTS, BASES, CGA) | {"block_shape", "shape", "interval_padding_pairs", "block"}


def _checked_params(cls: str, params: Mapping[str, Any]) -> dict:
    """Gluon parameters with the types Gluon's constructors take, refused otherwise (EncodingError naming
    the parameter): flags are booleans; `dtype` is a name; a nested layout is a spec; every other
    parameter is a 32-bit integer or a list (of lists) of them: None is a parameter left out, and a
    boolean, float (NaN, inf, 64.0), string or bytes where an integer belongs is refused."""
    out = {}
    for key, value in params.items():
        if not isinstance(key, str):
            raise EncodingError(f"{cls}: parameter names are text, got {clip(key)}", field="params")
        if value is None:
            continue
        if key in _GLUON_FLAGS:
            if not isinstance(value, bool):
                raise EncodingError(f"{cls}: {key} must be True or False, got {describe(value)}", field=key)
        elif key in _GLUON_NAMES:
            if not isinstance(value, str):
                raise EncodingError(f"{cls}: {key} must be a name, got {describe(value)}", field=key)
        elif key in _GLUON_LAYOUTS:
            if not isinstance(value, Mapping) and not is_gluon_object(value):
                raise EncodingError(f"{cls}: {key} must be a layout spec, got {describe(value)}", field=key)
        else:
            value = _integers(cls, key, value)
        out[key] = value
    return out


def _integers(cls: str, key: str, value: Any) -> Any:
    """A 32-bit integer, or a list / tuple (nested) of them (iteratively; the depth is checked first)."""
    if key in _GLUON_LISTS and not isinstance(value, (list, tuple)):
        raise EncodingError(f"{cls}: {key} must be a list of integers, got {describe(value)}", field=key)
    if key not in _GLUON_LISTS and key != "version" and isinstance(value, (list, tuple)):
        raise EncodingError(f"{cls}: {key} must be an integer, got {describe(value)}", field=key)
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, bool) or not isinstance(v, int) or not INT_MIN <= v <= INT_MAX:
            got = describe(v) if v is value else f"{describe(v)} in {clip(value)}"
            raise EncodingError(f"{cls}: {key} must be a 32-bit integer or a list of them, got {got}", field=key)
    return value


_CONVERT = {INT: int, RANK: int, BOOL: bool, INTS: as_ints, BASES: as_bases, CGA: as_bases}


def _from_fields(cls: type, p: Mapping[str, Any]) -> Encoding:
    """An encoding whose Gluon class takes its fields: each read by its Gluon name (KeyError when a
    required one is missing), or its Gluon default."""
    values = {}
    for name, prm in params_of(cls):
        if prm.gluon in p:
            value = p[prm.gluon]
        elif prm.gluon_default is REQUIRED:
            raise KeyError(prm.gluon)
        else:
            value = prm.gluon_default
        values[name] = from_gluon(value) if prm.form == ENCODING else _CONVERT[prm.form](value)
    return cls(**values)


def _field_class(name: str, kind: str) -> None:
    """Register Gluon class `name` as read field by field into the encoding `kind`."""
    def convert(p: Mapping[str, Any]) -> Encoding:
        return _from_fields(ENCODING_CLASSES[kind], p)
    GLUON_CLASSES[name] = convert


for _name, _kind in (("BlockedLayout", "blocked"), ("SliceLayout", "slice"), ("DotOperandLayout", "dot_op"),
                     ("SwizzledSharedLayout", "swizzled_shared"), ("SharedLinearLayout", "shared_linear"),
                     ("TensorMemoryScalesLayout", "tensor_memory_scales_encoding"),
                     ("AMDRotatingShared(text)", "amd_rotating_shared")):  # not a Gluon class: the conformance
    _field_class(_name, _kind)                                              # data's stand-in for the text


@gluon_class("DistributedLinearLayout")
def _distributed_linear(p: Mapping[str, Any]) -> Encoding:
    """Gluon also states the layout's shape; it must be what the bases span."""
    enc = _from_fields(LinearEncoding, p)
    _check_declared_shape(enc, p.get("shape"))
    return enc


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


@gluon_class("NVMMADistributedLayout")
def _nvmma_distributed(p: Mapping[str, Any]) -> Encoding:
    version = as_ints(p["version"])
    if len(version) != 2:
        raise EncodingError(f"NVMMADistributedLayout: version is [major, minor], got {list(version)}",
                            field="version")
    return NvidiaMmaEncoding(version[0], version[1], as_ints(p["warps_per_cta"]), as_ints(p["instr_shape"]),
                             as_bases(p.get("cga_layout")))


# ttgl dtype name -> primitive bit width (triton.language.core)
GLUON_DTYPE_BITS = {
    "int1": 1, "int8": 8, "int16": 16, "int32": 32, "int64": 64,
    "uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64,
    "float8e5": 8, "float8e5b16": 8, "float8e4nv": 8, "float8e4b8": 8, "float8e4b15": 8,
    "float16": 16, "bfloat16": 16, "float32": 32, "float64": 64,
}


@gluon_class("NVMMASharedLayout")
def _nvmma_shared(p: Mapping[str, Any]) -> Encoding:
    """The constructor's asserts, or ``get_default_for(block_shape, dtype, transposed, fp4_padded,
    cga_layout)``: the widest swizzle (128, 64, 32 bytes) dividing the contiguous row of a CTA's
    tile, in bytes; none when that row is under 32 bytes, the rank is 1 or fewer than 8 rows remain."""
    if p.get("__ctor__") == "get_default_for":
        p = _nvmma_default_params(p)
    elif p.get("__ctor__"):
        raise EncodingError(f"NVMMASharedLayout has no helper '{p['__ctor__']}'", field="ctor")
    swizzle, bits = int(p["swizzle_byte_width"]), int(p["element_bitwidth"])
    rank, fp4 = int(p.get("rank", 2)), bool(p.get("fp4_padded", False))
    cga = as_bases(p.get("cga_layout"))
    if cga and len(cga[0]) != rank:
        raise EncodingError(f"NVMMASharedLayout: cga_layout bases have {len(cga[0])} entries but rank is {rank}",
                            field="cga_layout")
    if bits not in (8, 16, 32, 64):
        raise EncodingError(f"NVMMASharedLayout: element_bitwidth must be 8, 16, 32 or 64, got {bits}",
                            field="element_bitwidth")
    if swizzle not in (0, 32, 64, 128):
        raise EncodingError(f"NVMMASharedLayout: swizzle_byte_width must be 0, 32, 64 or 128, got {swizzle}",
                            field="swizzle_byte_width")
    if fp4 and swizzle != 128:
        raise EncodingError("NVMMASharedLayout: fp4_padded only supports 128 byte swizzling", field="fp4_padded")
    if fp4 and bits != 8:
        raise EncodingError("NVMMASharedLayout: fp4_padded is only supported for element_bitwidth=8",
                            field="fp4_padded")
    return NvmmaSharedEncoding(swizzle, bool(p.get("transposed", False)), bits, fp4, rank, cga)


def _nvmma_default_params(p: Mapping[str, Any]) -> dict:
    dtype = p["dtype"]
    if dtype not in GLUON_DTYPE_BITS:
        raise EncodingError(f"NVMMASharedLayout.get_default_for: unknown dtype '{dtype}' "
                            f"(known: {', '.join(GLUON_DTYPE_BITS)})", field="dtype")
    bits = GLUON_DTYPE_BITS[dtype]
    block = as_ints(p["block_shape"])
    transposed, fp4 = bool(p.get("transposed", False)), bool(p.get("fp4_padded", False))
    cga = p.get("cga_layout")
    per_cta = list(block) if cga is None else _gluon_shape_per_cta(block, as_bases(cga))
    if transposed:
        per_cta = per_cta[1:] + per_cta[:1]
    row_bytes = (per_cta[-1] if per_cta else 0) * (2 if fp4 else 1) * bits // 8
    swizzle = next((w for w in (128, 64, 32) if row_bytes >= w and row_bytes % w == 0), 0)
    outer = 1
    for s in per_cta[:-1]:
        outer *= s
    if len(block) < 2 or outer < 8:
        swizzle = 0
    return {"swizzle_byte_width": swizzle, "element_bitwidth": bits, "rank": len(block),
            "transposed": transposed, "fp4_padded": fp4, "cga_layout": cga or []}


def _gluon_shape_per_cta(shape, cga) -> list[int]:
    """Gluon's own split: per dim, shape / (2 * the largest basis component), or / 1 if it is 0."""
    if not cga:
        return list(shape)
    if any(len(b) != len(shape) for b in cga):
        raise EncodingError(f"NVMMASharedLayout.get_default_for: cga_layout bases need {len(shape)} entries, "
                            f"got {[list(b) for b in cga]}", field="cga_layout")
    out = []
    for d, s in enumerate(shape):
        largest = max(b[d] for b in cga)
        split = 2 * largest if largest else 1
        if s % split:
            raise EncodingError(f"NVMMASharedLayout.get_default_for: shape {list(shape)} is not divisible by "
                                f"the CGA layout {[list(b) for b in cga]}", field="block_shape")
        out.append(s // split)
    return out


def _gluon_assert(cond: bool, cls: str, field: str, message: str) -> None:
    """One of Gluon's Python-side asserts, raised as an EncodingError."""
    if not cond:
        raise EncodingError(f"{cls}: {message}", field=field)


@gluon_class("AMDMFMALayout")
def _amd_mfma(p: Mapping[str, Any]) -> Encoding:
    """Defaults: element_bitwidth 32, tiles_per_warp all ones."""
    cls = "AMDMFMALayout"
    version, instr, warps = int(p["version"]), as_ints(p["instr_shape"]), as_ints(p["warps_per_cta"])
    bits = 32 if p.get("element_bitwidth") is None else int(p["element_bitwidth"])
    tiles = as_ints(p.get("tiles_per_warp"))
    cga = as_bases(p.get("cga_layout"))
    _gluon_assert(1 <= version <= 4, cls, "version", f"version must be in the [1, 4] range, got {version}")
    _gluon_assert(len(instr) == 3, cls, "instr_shape",
                  f"instr_shape must follow the (M, N, K) format, got {list(instr)}")
    _gluon_assert(tuple(instr[:2]) in MFMA_TILES, cls, "instr_shape", f"invalid intrinsic shape {list(instr)}")
    _gluon_assert(bits in (32, 64), cls, "element_bitwidth", f"element bitwidth must be 32 or 64, got {bits}")
    _gluon_assert(all(len(b) == len(warps) for b in cga), cls, "cga_layout", "cga_layout basis rank mismatch")
    return AmdMfmaEncoding(version, warps, instr, bool(p["transposed"]), tiles_per_warp=tiles,
                           element_bit_width=bits, cga_layout=cga)


@gluon_class("AMDWMMALayout")
def _amd_wmma(p: Mapping[str, Any]) -> Encoding:
    """Defaults: reg_bases [], instr_shape [16, 16, 16], rank 2. Gluon <= 3.6's warps_per_cta (and
    tiles_per_warp, all ones by default; the rank is their length) give the ctaLayout PR #8946 converts
    them to (`cta_bases_of_warps`)."""
    cls = "AMDWMMALayout"
    version = int(p["version"])
    if p.get("warp_bases") is None and p.get("warps_per_cta") is not None:
        counts = as_ints(p["warps_per_cta"])
        tiles = (1,) * len(counts) if p.get("tiles_per_warp") is None else as_ints(p["tiles_per_warp"])
        _gluon_assert(len(tiles) == len(counts) and all(is_power_of_two(x) for x in counts + tiles), cls,
                      "tiles_per_warp", "warps_per_cta and tiles_per_warp must be powers of two, one per dim")
        regs, warps = cta_bases_of_warps(counts, tiles)
        rank = len(counts)
    else:
        warps, regs = as_bases(p["warp_bases"]), as_bases(p.get("reg_bases"))
        rank = 2 if p.get("rank") is None else int(p["rank"])
    instr = DEFAULT_INSTR_SHAPE if p.get("instr_shape") is None else as_ints(p["instr_shape"])
    cga = as_bases(p.get("cga_layout"))
    _gluon_assert(1 <= version <= 3, cls, "version", f"version must be in the [1, 3] range, got {version}")
    _gluon_assert(not warps or len(warps[0]) == rank, cls, "warp_bases", "warp_bases basis rank mismatch")
    _gluon_assert(all(len(b) == rank for b in cga), cls, "cga_layout", "cga_layout basis rank mismatch")
    return AmdWmmaEncoding(version, bool(p["transposed"]), regs, warps, instr, cga, rank)


@gluon_class("PaddedSharedLayout")
def _padded_shared(p: Mapping[str, Any]) -> Encoding:
    """The constructor ``(interval_padding_pairs, offset_bases, cga_layout, shape)`` or
    ``with_identity_for(interval_padding_pairs, shape, order, cga_layout=[])``: identity offset bases
    over the per-CTA shape, in `order`. Gluon's cga_layout is relative to one CTA's offsets; Triton's
    linear component (what the encoding stores) has it scaled by their extent, as the product
    LL(offset) * LL(block) does."""
    cls = "PaddedSharedLayout"
    shape, cga = as_ints(p["shape"]), as_bases(p.get("cga_layout"))
    if p.get("__ctor__") == "with_identity_for":
        offsets = _identity_offsets_for(shape, as_ints(p["order"]), cga)
    elif p.get("__ctor__"):
        raise EncodingError(f"{cls} has no helper '{p['__ctor__']}'", field="ctor")
    else:
        offsets = as_bases(p["offset_bases"])
    rank = len(shape)
    _gluon_assert(all(len(b) == rank for b in offsets + cga), cls, "offset_bases",
                  f"every offset and cga_layout basis must have {rank} entries (the rank of shape {list(shape)})")
    pairs = [as_ints(pair) for pair in p["interval_padding_pairs"]]
    _gluon_assert(len(pairs) > 0, cls, "interval_padding_pairs",
                  "interval_padding_pairs must have at least one interval-padding pair")
    _gluon_assert(all(len(pair) == 2 for pair in pairs), cls, "interval_padding_pairs",
                  "every interval_padding_pairs entry must be [interval, padding]")
    intervals, paddings = tuple(i for i, _ in pairs), tuple(q for _, q in pairs)
    _gluon_assert(len(set(intervals)) == len(intervals), cls, "interval_padding_pairs",
                  f"interval values cannot have duplicates, got {list(intervals)}")
    _gluon_assert(all(is_power_of_two(i) for i in intervals), cls, "interval_padding_pairs",
                  "interval values must all be power of two")
    _gluon_assert(all(is_power_of_two(q) for q in paddings), cls, "interval_padding_pairs",
                  "padding values must all be power of two")
    _gluon_assert(rank > 0, cls, "shape", "order must not be empty")
    return PaddedSharedEncoding.with_cga(intervals, paddings, offsets, cga, rank)


def _identity_offsets_for(shape, order, cga) -> tuple:
    """Identity offset bases over shape / the CGA split (Gluon: 2 * the largest basis component per dim)."""
    cls = "PaddedSharedLayout.with_identity_for"
    _gluon_assert(len(shape) == len(order), cls, "order", f"shape {list(shape)} and order {list(order)} differ in rank")
    _gluon_assert(all(is_power_of_two(s) for s in shape), cls, "shape",
                  f"every shape entry must be a power of two, got {list(shape)}")
    _gluon_assert(sorted(order) == list(range(len(shape))), cls, "order",
                  f"order must be a permutation of 0..{len(shape) - 1}, got {list(order)}")
    _gluon_assert(all(len(b) == len(shape) for b in cga), cls, "cga_layout", "cga_layout basis rank mismatch")
    per_cta = list(shape)
    for d in range(len(shape)):
        largest = max((b[d] for b in cga), default=0)
        split = 2 * largest if largest else 1
        _gluon_assert(per_cta[d] % split == 0, cls, "shape", f"shape {list(shape)} is not divisible by the CGA "
                                                              f"layout {[list(b) for b in cga]}")
        per_cta[d] //= split
    return identity_offsets(per_cta, order)


@gluon_class("PartitionedSharedLayout")
def _partitioned_shared(p: Mapping[str, Any]) -> Encoding:
    cls = "PartitionedSharedLayout"
    parts, groups, dim = int(p["num_partitions"]), int(p["num_groups"]), int(p["partition_dim"])
    _gluon_assert(is_power_of_two(parts), cls, "num_partitions",
                  f"num_partitions must be a power of two, got {parts}")
    _gluon_assert(is_power_of_two(groups), cls, "num_groups",
                  f"num_groups must be a power of two, got {groups}")
    _gluon_assert(dim >= 0, cls, "partition_dim", f"partition_dim must be non-negative, "
                                                  f"got {dim}")
    inner = from_gluon(p["partition_layout"])
    _gluon_assert(isinstance(inner, SharedEncoding), cls, "partition_layout",
                  f"partition_layout must be a SharedLayout, got {inner.kind}")
    return PartitionedSharedEncoding(parts, groups, dim, inner)


@gluon_class("TensorMemoryLayout")
def _tensor_memory(p: Mapping[str, Any]) -> Encoding:
    """Blackwell's ``TensorMemoryLayout(block, col_stride, cga_layout, two_ctas, fp4_padded)``."""
    block = as_ints(p["block"])
    _gluon_assert(len(block) == 2, "TensorMemoryLayout", "block", f"block is [M, N], got {list(block)}")
    if p.get("fp4_padded"):
        raise NotModelled("TensorMemoryLayout: fp4_padded tensor memory is not modelled", field="fp4_padded")
    return TensorMemoryEncoding(block[0], block[1], int(p.get("col_stride", 1)), as_bases(p.get("cga_layout")),
                                bool(p.get("two_ctas", False)))


