"""checker.dtypes: element types by name and their width; a number of bits is taken as it is, within the limit."""

import pytest

from checker import prove
from checker.dtypes import DTYPES, dtype_bits
from checker.errors import CheckerError
from checker.limits import MAX_DTYPE_BITS


@pytest.mark.parametrize("name, bits", [("f16", 16), ("fp16", 16), ("bf16", 16), ("fp32", 32), ("f32", 32),
                                        ("tf32", 32), ("int8", 8), ("i8", 8), ("uint8", 8), ("u64", 64),
                                        ("f8e4m3", 8), ("fp4", 4), ("F16", 16), ("INT32", 32)])
def test_names_and_their_long_spellings(name, bits):
    assert dtype_bits(name) == bits


def test_a_number_of_bits_is_taken_as_it_is_up_to_the_limit():
    assert [dtype_bits(n) for n in (1, 6, 16, MAX_DTYPE_BITS)] == [1, 6, 16, MAX_DTYPE_BITS]


@pytest.mark.parametrize("bad", [0, -8, MAX_DTYPE_BITS + 1, True, "f17", "float", None, 16.0])
def test_anything_else_is_one_line_naming_the_field(bad):
    with pytest.raises(CheckerError) as e:
        dtype_bits(bad)
    assert e.value.field == "dtype" and str(e.value).startswith("field 'dtype': unknown dtype ")
    assert ", ".join(DTYPES) in str(e.value)


def test_the_public_api_uses_the_same_table():
    assert prove.dtype_bits is dtype_bits
    assert DTYPES["f4"] == 4 and DTYPES["f64"] == 64 and len(DTYPES) == 18
