"""Index and coordinate bookkeeping shared by the engines (checker.properties.frame)."""

from checker.layout import LinearLayout
from checker.properties import frame

L = LinearLayout([("register", [(1,)]), ("lane", [(2,), (4,)])], [("dim0", 8)])


def test_flat_indices_and_packed_coordinates():
    assert frame.index(L, 5) == {"register": 1, "lane": 2}        # bit 0 is the register, bits 1-2 the lane
    assert frame.coordinate(L, 6) == {"dim0": 6}
    assert frame.shape_map(L, [8]) == {"dim0": 8}


def test_images_and_ranges():
    assert frame.image(L, {"register": 1, "lane": 3}) == {"dim0": 7}
    assert frame.in_range(L, {"register": 1, "lane": 3})
    assert not frame.in_range(L, {"register": 2, "lane": 0})      # only one register bit
    assert frame.show({"a": 1, "b": 2}) == "(a=1, b=2)"
