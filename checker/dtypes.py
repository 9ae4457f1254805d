"""Element types: their names as spec files, the CLI and the API write them, and their width in bits."""

from __future__ import annotations

from .errors import CheckerError
from .limits import MAX_DTYPE_BITS, clip

# Element types by name -> bits (an integer number of bits is accepted too).
DTYPES = {"f64": 64, "i64": 64, "u64": 64,
          "f32": 32, "tf32": 32, "i32": 32, "u32": 32,
          "f16": 16, "bf16": 16, "i16": 16, "u16": 16,
          "f8": 8, "f8e4m3": 8, "f8e5m2": 8, "i8": 8, "u8": 8,
          "f4": 4, "i4": 4}


def dtype_bits(dtype: str | int | None) -> int:
    """Bits of a dtype name ("f16", "fp32", "bf16", "i8", "int8", ...; `checker.spec.DTYPES`) or a bit count."""
    if isinstance(dtype, int) and not isinstance(dtype, bool) and 0 < dtype <= MAX_DTYPE_BITS:
        return dtype
    if isinstance(dtype, str):
        name = dtype.lower()
        for long, short in (("fp", "f"), ("int", "i"), ("uint", "u")):
            if name.startswith(long) and name[len(long):].isdigit():
                name = short + name[len(long):]
        if name in DTYPES:
            return DTYPES[name]
    raise CheckerError(f"unknown dtype {clip(repr(dtype), 40)} (known: {', '.join(DTYPES)}, or a number of bits up to "
                       f"{MAX_DTYPE_BITS})", field="dtype")
