"""A property's operands as its decision procedure takes them: LinearLayouts (or padded shared layouts).

Operands arrive as encodings with the tensor shape to lower them at, or already lowered. One place turns
them into layouts, so that the public API (`checker.prove`) and a check's ``decide(check, engines)`` (spec
files, TTGIR op rules, ``layoutcheck prove``) see the same normalisation:

- `lowered`: an encoding lowered at a shape, a layout as given; a failure to lower names the operand;
- `linear`: its linear part (a padded layout without its padding);
- `operand`: a check's operand, lowered at the check's ``layout_shape`` (a spec's "lowered at one shape,
  judged over another") or left as the encoding;
- `element_width`: the element width of an access, from the dtype or from the shared encoding that declares
  it (nvmma_shared).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..dtypes import dtype_bits
from ..encodings import lower
from ..encodings.base import Encoding
from ..errors import CheckerError
from ..layout import LinearLayout
from ..padded import PaddedLayout, linear_part

Shape = Sequence[int] | None


def shape_text(shape: Sequence[int] | Mapping[str, int]) -> str:
    """``64x32``."""
    return "x".join(str(v) for v in (shape.values() if isinstance(shape, Mapping) else shape))


def lowered(layout: Any, shape: Shape = None, what: str = "layout") -> LinearLayout | PaddedLayout:
    """A LinearLayout (or padded shared layout) as given, or an encoding lowered at shape; errors name the
    operand (`what`: "S", "src"...) or the shape."""
    if isinstance(layout, (LinearLayout, PaddedLayout)):
        return layout
    if not isinstance(layout, Encoding):
        raise CheckerError(f"expected a LinearLayout or an encoding, got {type(layout).__name__}", field=what)
    if shape is None:
        raise CheckerError(f"a {layout.kind} encoding needs a tensor shape to be lowered", field="shape")
    try:
        return lower(layout, shape)
    except CheckerError as e:
        raise e.located(argument="shape" if e.field == "shape" else what) from None


def linear(layout: Any, shape: Shape = None, what: str = "layout") -> LinearLayout:
    """`lowered`, without a padded layout's padding."""
    return linear_part(lowered(layout, shape, what))


def operand(check: Any, role: str) -> Any:
    """The check's operand of `role`: its encoding, lowered at the check's ``layout_shape`` when it has one
    (then it is judged over ``check.shape``); None for an optional role left out."""
    enc = check.operand(role)
    if enc is not None and check.layout_shape:
        return lower(enc, check.layout_shape)
    return enc


def element_width(dtype: str | int | None, shared: Any = None, field: str = "dtype") -> int:
    """The element width: `dtype` (a name or a number of bits), else the width a shared encoding declares
    (nvmma_shared's ``element_bit_width``); neither is a `CheckerError` naming `field`."""
    if dtype is None:
        dtype = getattr(shared, "element_bit_width", None)
        if dtype is None:
            raise CheckerError("the element type (a name or a number of bits) is needed", field=field)
    return dtype_bits(dtype)
