"""Every TritonGPU encoding, one module per family, and the lowering entry point.

    from checker.encodings import lower
    L = lower(encoding, [64, 64])       # a LinearLayout (PaddedLayout for padded_shared)

`lower` validates the encoding (Triton's verifier rules) and the shape, then
calls the family's ``to_linear_layout``; results are cached per
(encoding, shape, Triton version) because encodings are immutable values
(the version in force: `checker.versions`).
"""

from __future__ import annotations

from ..padded import PaddedLayout
from . import amd_mfma, blocked, closed, nvidia_mma, nvmma_shared
from .amd_mfma import AmdMfmaEncoding
from .amd_rotating_shared import AmdRotatingSharedEncoding
from .amd_wmma import AmdWmmaEncoding
from .base import DistributedEncoding, Encoding, SharedEncoding, hash_once
from .blocked import BlockedEncoding
from .dot_operand import DotOperandEncoding
from .linear import LinearEncoding
from .lowering import _LOWERED, CACHE_LIMIT, lower  # noqa: F401  (the entry point, re-exported)
from .nvidia_mma import NvidiaMmaEncoding
from .nvmma_shared import NvmmaSharedEncoding
from .padded_shared import PaddedSharedEncoding
from .partitioned_shared import PartitionedSharedEncoding
from .shared_linear import SharedLinearEncoding
from .slice import SliceEncoding
from .swizzled_shared import SwizzledSharedEncoding
from .tensor_memory import TensorMemoryEncoding, TensorMemoryScalesEncoding

ENCODING_CLASSES: dict[str, type[Encoding]] = {}


def _register(*classes: type[Encoding]) -> None:
    for cls in classes:
        ENCODING_CLASSES[cls.kind] = cls
        setattr(cls, "__hash__", hash_once(cls.__hash__))  # noqa: B010  (mypy refuses assigning to a method)


_register(BlockedEncoding)
_register(SliceEncoding, LinearEncoding, SwizzledSharedEncoding, SharedLinearEncoding)
_register(TensorMemoryEncoding, TensorMemoryScalesEncoding)
_register(AmdMfmaEncoding, AmdWmmaEncoding, AmdRotatingSharedEncoding)
_register(PaddedSharedEncoding, PartitionedSharedEncoding)
_register(NvidiaMmaEncoding, DotOperandEncoding, NvmmaSharedEncoding)


def clear_caches() -> None:
    """Forget every lowering and every per-encoding part the closed forms cache (benchmarks of a cold call).
    What an encoding derives on itself (`base.derived`) stays with that value: a cold call needs a value
    parsed afresh (`checker.syntax.mlir_attr.clear_parse_cache`, then parse)."""
    _LOWERED.clear()
    for fn in (blocked._blocked_tile, nvidia_mma._accumulator_tile, nvidia_mma._operand_tile,
               amd_mfma._mfma_tile, nvmma_shared._core_parts, closed.cga_parts):
        fn.cache_clear()


__all__ = ["lower", "clear_caches", "ENCODING_CLASSES", "Encoding", "DistributedEncoding", "SharedEncoding",
           "BlockedEncoding", "PaddedLayout"]
