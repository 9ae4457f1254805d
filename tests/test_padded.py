"""checker/padded.py: `phys`, the one padding formula (phys(i) = i + sum_k (i >> log2 I_k) << log2 P_k), and
`PaddedLayout` (physical offsets, footprint, padding holes, the offset stored at a slot) on a padded_shared
encoding read from its attribute text and from its YAML declaration."""

import pytest

from checker.encodings import lower
from checker.errors import LayoutError
from checker.layout import LinearLayout
from checker.padded import PaddedLayout, linear_part, phys
from checker.syntax.mlir_attr import parse_attribute
from checker.syntax.yaml_decl import encoding_from_mapping

TEXT = "#ttg.padded_shared<[32:+4, 64:+8] {order = [1, 0], shape = [16, 32]}>"
DECL = {"kind": "padded_shared", "intervals": [32, 64], "paddings": [4, 8], "order": [1, 0], "shape": [16, 32]}


@pytest.fixture(scope="module")
def padded():
    enc = parse_attribute(TEXT)
    assert encoding_from_mapping(DECL) == enc                     # the YAML reader gives the same encoding
    return lower(enc, [16, 32])


def by_hand(i):
    return i + (i // 32) * 4 + (i // 64) * 8                       # 4 slots after every 32, 8 more after every 64


def test_physical_offsets(padded):
    assert isinstance(padded, PaddedLayout) and padded.padded
    assert (padded.intervals, padded.paddings, padded.shifts, padded.min_interval) == ((32, 64), (4, 8),
                                                                                      ((5, 2), (6, 3)), 32)
    assert padded.offsets == 512
    assert [padded.physical_offset(i) for i in (0, 1, 31, 32, 63, 64, 65, 511)] == [0, 1, 31, 36, 67, 80, 81, 627]
    assert all(padded.physical_offset(i) == by_hand(i) for i in range(512))
    assert padded.footprint() == 628                              # phys(511) + 1: Triton's getPaddedSize
    with pytest.raises(LayoutError) as e:
        padded.physical_offset(512)
    assert str(e.value) == "offset 512 is out of range [0, 512)"
    assert padded.phys(512) == by_hand(512)                       # unchecked


def test_padding_holes_are_the_slots_no_offset_uses(padded):
    used = {by_hand(i) for i in range(512)}
    holes = [p for p in range(628) if p not in used]
    assert list(padded.padding_holes()) == holes and len(holes) == 628 - 512
    assert padded.hole_ranges()[:4] == [(32, 36), (68, 80), (112, 116), (148, 160)]
    assert [padded.unpadded(p) for p in (0, 36, 67, 80, 627)] == [0, 32, 63, 64, 511]
    assert [padded.unpadded(p) for p in (32, 35, 68, 628, 10_000)] == [None] * 5


def test_the_linear_component_says_which_element_an_offset_holds(padded):
    assert linear_part(padded) is padded.linear
    assert padded.linear.apply({"offset": 5, "block": 0}) == {"dim0": 0, "dim1": 5}
    assert padded.linear.apply({"offset": 32, "block": 0}) == {"dim0": 1, "dim1": 0}   # row 1 begins after 4 slots
    assert padded.to_dict() == {**padded.linear.to_dict(), "intervals": [32, 64], "paddings": [4, 8]}
    assert padded.to_dict()["bases"]["offset"][5] == [1, 0]


def test_phys_over_any_shift():
    assert phys(100, ((5, 2), (6, 3))) == by_hand(100)
    assert phys(100, ()) == 100
    assert phys(100, ((5, 2),), shr=lambda i, s: 0) == 100         # the caller's right shift is the one used
    assert phys(7, ((1, 1),)) == 7 + (7 >> 1 << 1) == 13


def test_a_linear_shared_layout_is_one_without_padding(padded):
    plain = PaddedLayout.of(padded.linear)
    assert not plain.padded and plain.shifts == () and plain.min_interval is None
    assert [plain.physical_offset(i) for i in (0, 100, 511)] == [0, 100, 511]
    assert plain.footprint() == 512 and plain.hole_ranges() == [] and plain.padding_holes() == ()
    assert PaddedLayout.of(padded) is padded and linear_part("x") == "x"


@pytest.mark.parametrize("args, message", [
    (("linear", (32,), (4,)), "a padded layout's linear component must be a LinearLayout, got str"),
    ((None, (32,), (4, 8)), "padded layout: 1 intervals but 2 paddings"),
    ((None, (32,), (3,)), "padded layout: intervals and paddings must be powers of two, got 3"),
    ((None, (24,), (4,)), "padded layout: intervals and paddings must be powers of two, got 24"),
])
def test_what_a_padded_layout_refuses(padded, args, message):
    linear, intervals, paddings = args
    with pytest.raises(LayoutError) as e:
        PaddedLayout(padded.linear if linear is None else linear, intervals, paddings)
    assert str(e.value) == message


def test_a_shared_layout_needs_an_offset_in_dim():
    registers = LinearLayout.from_dict({"bases": {"register": [[1]]}, "out_dims": {"dim0": 2}})
    with pytest.raises(LayoutError) as e:
        PaddedLayout(registers)
    assert str(e.value) == "a shared layout needs an 'offset' in-dim (in-dims ['register'])"
    with pytest.raises(LayoutError) as e:
        PaddedLayout.of({"bases": {}})
    assert str(e.value) == "expected a shared LinearLayout or padded layout, got dict"
