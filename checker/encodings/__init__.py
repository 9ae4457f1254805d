"""Every TritonGPU encoding, one module per family, and the lowering entry point.

    from checker.encodings import lower
    L = lower(encoding, [64, 64])       # a LinearLayout (PaddedLayout for padded_shared)

`lower` validates the encoding (Triton's verifier rules) and the shape, then
calls the family's ``to_linear_layout``; results are cached per
(encoding, shape) because encodings are immutable values.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

from ..errors import EncodingError
from .base import DistributedEncoding, Encoding, SharedEncoding
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


_register(BlockedEncoding)
_register(SliceEncoding, LinearEncoding, SwizzledSharedEncoding, SharedLinearEncoding)
_register(TensorMemoryEncoding, TensorMemoryScalesEncoding)
_register(AmdMfmaEncoding, AmdWmmaEncoding, AmdRotatingSharedEncoding)
_register(PaddedSharedEncoding, PartitionedSharedEncoding)
_register(NvidiaMmaEncoding, DotOperandEncoding, NvmmaSharedEncoding)


def lower(encoding: Encoding, shape: Sequence[int]):
    """The LinearLayout Triton builds for `encoding` at `shape` (validated)."""
    from ..limits import shape as checked_shape
    if not isinstance(encoding, Encoding):
        raise EncodingError(f"expected an encoding, got {type(encoding).__name__}", field="encoding")
    # positive integers (no bool, float, str, bytes, mapping), at most 2^31 elements: checker.limits
    return _lower_cached(encoding, checked_shape(shape, "shape", error=EncodingError))


@lru_cache(maxsize=4096)
def _lower_cached(encoding: Encoding, shape: tuple[int, ...]):
    encoding.validate()
    encoding.check_shape(shape)
    return encoding.to_linear_layout(shape)


def clear_caches() -> None:
    """Forget every lowering and every per-encoding part the closed forms cache (benchmarks of a cold call)."""
    from . import amd_mfma, blocked, closed, nvidia_mma, nvmma_shared
    _lower_cached.cache_clear()
    for fn in (blocked._blocked_tile, nvidia_mma._accumulator_tile, nvidia_mma._operand_tile,
               amd_mfma._mfma_tile, nvmma_shared._core_parts, closed.cga_parts):
        fn.cache_clear()


__all__ = ["lower", "clear_caches", "ENCODING_CLASSES", "Encoding", "DistributedEncoding", "SharedEncoding", "BlockedEncoding",
           "PaddedLayout"]
