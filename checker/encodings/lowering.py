"""`lower(encoding, shape)`: the LinearLayout Triton builds for an encoding at a shape, validated and cached.

`lower` validates the encoding (Triton's verifier rules) and the shape, then calls the family's
``to_linear_layout``; results are cached per (encoding, shape, Triton version) because encodings are immutable
values (the version in force: `checker.versions`). A family that holds another encoding (partitioned_shared)
lowers it through here too.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import EncodingError
from ..layout import LinearLayout
from ..limits import shape as checked_shape
from ..padded import PaddedLayout
from ..versions import TritonVersion
from ..versions import active as active_version
from .base import Encoding


def lower(encoding: Encoding, shape: Sequence[int]) -> LinearLayout | PaddedLayout:
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
    encoding.validated  # noqa: B018  (validate(), once per encoding value: the property runs it)
    encoding.check_shape(shape)
    layout = encoding.to_linear_layout(shape)
    if len(_LOWERED) >= CACHE_LIMIT:
        del _LOWERED[next(iter(_LOWERED))]                 # the oldest
    _LOWERED[(encoding, shape, version)] = layout
    return layout


# (encoding, shape, Triton version) -> its lowering; encodings and layouts are immutable values, so one serves
# every caller
CACHE_LIMIT = 4096
_LOWERED: dict[tuple[Encoding, tuple[int, ...], TritonVersion], LinearLayout | PaddedLayout] = {}
