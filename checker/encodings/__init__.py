"""Every TritonGPU encoding, one module per family, and the lowering entry point.

    from checker.encodings import lower
    L = lower(encoding, [64, 64])       # a LinearLayout (PaddedLayout for padded_shared)

`lower` validates the encoding (Triton's verifier rules) and the shape, then
calls the family's ``to_linear_layout``; results are cached per
(encoding, shape, Triton version) because encodings are immutable values
(the version in force: `checker.versions`).
"""

from __future__ import annotations

from typing import Sequence

from ..errors import EncodingError
from ..limits import shape as checked_shape
from ..versions import active as active_version
from .base import DistributedEncoding, Encoding, SharedEncoding, hash_once
from .amd_mfma import AmdMfmaEncoding
from .amd_rotating_shared import AmdRotatingSharedEncoding
from .amd_wmma import AmdWmmaEncoding
from .blocked import BlockedEncoding
from .dot_operand import DotOperandEncoding
from .nvidia_mma import NvidiaMmaEncoding
from .nvmma_shared import NvmmaSharedEncoding
from .linear import LinearEncoding
from .padded_shared import PaddedLayout, PaddedSharedEncoding
from .partitioned_shared import PartitionedSharedEncoding
from .shared_linear import SharedLinearEncoding
from .slice import SliceEncoding
from .swizzled_shared import SwizzledSharedEncoding
from .tensor_memory import TensorMemoryEncoding, TensorMemoryScalesEncoding

ENCODING_CLASSES: dict[str, type[Encoding]] = {}


def _register(*classes: type[Encoding]) -> None:
    for cls in classes:
        ENCODING_CLASSES[cls.kind] = cls
        cls.__hash__ = hash_once(cls.__hash__)


_register(BlockedEncoding)
_register(SliceEncoding, LinearEncoding, SwizzledSharedEncoding, SharedLinearEncoding)
_register(TensorMemoryEncoding, TensorMemoryScalesEncoding)
_register(AmdMfmaEncoding, AmdWmmaEncoding, AmdRotatingSharedEncoding)
_register(PaddedSharedEncoding, PartitionedSharedEncoding)
_register(NvidiaMmaEncoding, DotOperandEncoding, NvmmaSharedEncoding)


def lower(encoding: Encoding, shape: Sequence[int]):
    """The LinearLayout Triton builds for `encoding` at `shape` (validated), as the Triton version in force
    builds it (`checker.versions.active`)."""
    version = active_version()
    if isinstance(encoding, Encoding) and type(shape) in (tuple, list) and all(type(d) is int for d in shape):
        hit = _LOWERED.get((encoding, tuple(shape), version))   # a shape of plain ints lowered before: checked then
        if hit is not None:
            return hit
    if not isinstance(encoding, Encoding):
        raise EncodingError(f"expected an encoding, got {type(encoding).__name__}", field="encoding")
    # positive integers (no bool, float, str, bytes, mapping), at most 2^31 elements: checker.limits
    shape = checked_shape(shape, "shape", error=EncodingError)
    encoding.validated                                      # validate(), once per encoding value
    encoding.check_shape(shape)
    layout = encoding.to_linear_layout(shape)
    if len(_LOWERED) >= CACHE_LIMIT:
        del _LOWERED[next(iter(_LOWERED))]                 # the oldest
    _LOWERED[(encoding, shape, version)] = layout
    return layout


# (encoding, shape, Triton version) -> its lowering; encodings and layouts are immutable values, so one serves
# every caller
CACHE_LIMIT = 4096
_LOWERED: dict[tuple, object] = {}


def clear_caches() -> None:
    """Forget every lowering and every per-encoding part the closed forms cache (benchmarks of a cold call).
    What an encoding derives on itself (`base.derived`) stays with that value: a cold call needs a value
    parsed afresh (`checker.syntax.mlir_attr.clear_parse_cache`, then parse)."""
    from . import amd_mfma, blocked, closed, nvidia_mma, nvmma_shared
    _LOWERED.clear()
    for fn in (blocked._blocked_tile, nvidia_mma._accumulator_tile, nvidia_mma._operand_tile,
               amd_mfma._mfma_tile, nvmma_shared._core_parts, closed.cga_parts):
        fn.cache_clear()


__all__ = ["lower", "clear_caches", "ENCODING_CLASSES", "Encoding", "DistributedEncoding", "SharedEncoding", "BlockedEncoding",
           "PaddedLayout"]
