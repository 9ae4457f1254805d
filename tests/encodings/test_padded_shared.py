"""Padded shared layouts: the linear component against Triton's (every conformance case), the padding
map as exact tables (TritonGPUAttrDefs.td and Gluon's docstring), the printed forms and the verifier."""

import json
import re

import pytest

from checker.encodings import lower
from checker.encodings.padded_shared import PaddedLayout, PaddedSharedEncoding
from checker.errors import EncodingError
from checker.layout import LinearLayout
from checker.syntax.gluon import from_gluon

from ..conftest import load_jsonl

CASES = [c for c in load_jsonl("lowering.jsonl") if c.get("padded_linear_component")]


def _padded(spec):
    return spec if spec["class"] == "PaddedSharedLayout" else spec["params"]["partition_layout"]


def _printed_bases(attr: str, name: str):
    m = re.search(name + r" = (\[[\[\], 0-9]*\])(?:[,}])", attr)
    return None if m is None else json.loads(m.group(1))


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_linear_component_matches_triton(case):
    """offset bases, out sizes, pairs: Triton's own linear component. Its block bases are recorded
    relative to one CTA (Gluon's cga_layout); the attribute text prints them scaled by the CTA extent."""
    exp = case["padded_linear_component"]
    enc = from_gluon(_padded(case["layout"]))
    P = lower(enc, exp["shape"])
    assert isinstance(P, PaddedLayout) and not isinstance(P, LinearLayout)
    assert list(P.linear.in_dims) == exp["in_dims"]
    assert [list(b) for b in P.linear.in_bases("offset")] == exp["in"]["offset"]
    assert [s for _, s in P.linear.out_dim_sizes] == exp["shape"]
    assert [list(b) for b in enc.cga_layout] == exp["in"]["block"]
    assert (list(P.intervals), list(P.paddings)) == (exp["intervals"], exp["paddings"])
    inner_attr = case["mlir_attr"][case["mlir_attr"].index("#ttg.padded_shared"):]
    printed_block = _printed_bases(inner_attr, "block")
    assert [list(b) for b in P.linear.in_bases("block")] == (printed_block or [])


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_printed_form_choice(case):
    """Triton prints {order, shape} exactly when identity_order_shape finds them."""
    enc = from_gluon(_padded(case["layout"]))
    m = re.search(r"#ttg\.padded_shared<\[[^\]]*\] \{order = (\[[0-9, ]*\]), shape = (\[[0-9, ]*\])\}",
                  case["mlir_attr"])
    found = enc.identity_order_shape()
    assert (found is None) == (m is None)
    if m:
        assert found == (tuple(json.loads(m.group(1))), tuple(json.loads(m.group(2))))


@pytest.mark.parametrize("pairs, phys, holes, footprint", [
    ([(2, 2)], [0, 1, 4, 5, 8, 9, 12, 13], [2, 3, 6, 7, 10, 11], 14),
    ([(2, 1), (4, 2)], [0, 1, 3, 4, 8, 9, 11, 12], [2, 5, 6, 7, 10], 13),
], ids=["td-2:+2", "td-2:+1,4:+2"])
def test_td_padding_examples(pairs, phys, holes, footprint):
    """[e0, e1, p0, p1, e2, e3, ...] and [e0, e1, p0, e2, e3, p1, p2, p3, e4, ...] on 8 elements."""
    enc = PaddedSharedEncoding(tuple(i for i, _ in pairs), tuple(q for _, q in pairs), ((1,), (2,), (4,)))
    P = lower(enc, [8])
    assert [P.physical_offset(i) for i in range(8)] == phys
    assert list(P.padding_holes()) == holes
    assert P.footprint() == footprint


def _slots(P):
    """Physical slot -> element coordinate (None for padding), one CTA."""
    out = [None] * P.footprint()
    for i in range(P.offsets):
        out[P.physical_offset(i)] = tuple(P.linear.apply({"offset": i, "block": 0}).values())
    return out


def test_gluon_docstring_example_1d():
    """shape [8], [[2, 2]], offset_bases [[2], [1]]: [x0, x2, p0, p1, x1, x3, ...]."""
    P = lower(from_gluon({"class": "PaddedSharedLayout", "params": {
        "interval_padding_pairs": [[2, 2]], "offset_bases": [[2], [1], [4]], "cga_layout": [], "shape": [8]}}), [8])
    assert _slots(P)[:6] == [(0,), (2,), None, None, (1,), (3,)]


def test_gluon_docstring_example_rows():
    """shape [8, 4], [[8, 1]], rows strided by 2: x0 x2 rows, a pad slot, x4 x6 rows, ..."""
    P = lower(from_gluon({"class": "PaddedSharedLayout", "params": {
        "interval_padding_pairs": [[8, 1]], "offset_bases": [[0, 1], [0, 2], [2, 0], [4, 0], [1, 0]],
        "cga_layout": [], "shape": [8, 4]}}), [8, 4])
    rows = [0, 2, None, 4, 6, None, 1, 3, None, 5, 7]
    expected = []
    for r in rows:
        expected += [None] if r is None else [(r, c) for c in range(4)]
    assert _slots(P) == expected


def test_with_identity_for_and_cga():
    enc = from_gluon({"class": "PaddedSharedLayout", "ctor": "with_identity_for", "params": {
        "interval_padding_pairs": [[64, 4]], "shape": [64, 64], "order": [1, 0], "cga_layout": [[1, 0]]}})
    assert enc.block_bases == ((32, 0),) and enc.cga_layout == ((1, 0),)
    assert len(enc.offset_bases) == 11 and enc.identity_order_shape() is None
    P = lower(enc, [64, 64])
    assert P.to_dict()["bases"]["block"] == [[32, 0]]
    assert P.to_dict()["intervals"] == [64] and P.to_dict()["paddings"] == [4]
    assert P.footprint() == 2048 + 31 * 4


def test_identity_order_shape_column_major():
    enc = PaddedSharedEncoding((32,), (4,), ((1, 0), (2, 0), (0, 1), (0, 2)))
    assert enc.identity_order_shape() == ((0, 1), (4, 4))
    assert PaddedSharedEncoding((32,), (4,), ((2, 0), (1, 0), (0, 1))).identity_order_shape() is None


@pytest.mark.parametrize("enc, field, message", [
    (PaddedSharedEncoding((32,), (4, 8), ((1,),)), "intervals", "must match paddings size"),
    (PaddedSharedEncoding((), (), ((1,),)), "intervals", "at least one"),
    (PaddedSharedEncoding((24,), (4,), ((1,),)), "intervals", "powers of two"),
    (PaddedSharedEncoding((32,), (3,), ((1,),)), "paddings", "powers of two"),
    (PaddedSharedEncoding((32, 32), (4, 8), ((1,),)), "intervals", "duplicates"),
    (PaddedSharedEncoding((32,), (4,), ((1, 0), (0, 0))), "offset", "broadcasting"),
    (PaddedSharedEncoding((32,), (4,), ((1, 0), (1, 0))), "offset", "broadcasting"),
    (PaddedSharedEncoding((32,), (4,), ((1, 1),)), "offset", "at most one dimension"),
    (PaddedSharedEncoding((32,), (4,), ((3,),)), "offset", "power of two"),
    (PaddedSharedEncoding((32,), (4,), ()), "offset", "cannot be empty"),
])
def test_verifier(enc, field, message):
    with pytest.raises(EncodingError, match=message) as info:
        lower(enc, [2] * max(enc.rank, 1))
    assert info.value.field == field


def test_shape_must_match_the_linear_component():
    with pytest.raises(EncodingError, match="mismatch in expected shape for dimension 1") as info:
        lower(PaddedSharedEncoding((32,), (4,), ((0, 1), (1, 0))), [2, 4])
    assert info.value.field == "shape"


@pytest.mark.parametrize("params, message", [
    ({"interval_padding_pairs": []}, "at least one interval-padding pair"),
    ({"interval_padding_pairs": [[24, 4]]}, "interval values must all be power of two"),
    ({"interval_padding_pairs": [[32, 4], [32, 8]]}, "duplicates"),
    ({"offset_bases": [[1]]}, "rank of shape"),
])
def test_gluon_asserts(params, message):
    spec = {"class": "PaddedSharedLayout", "params": {"interval_padding_pairs": [[32, 4]],
                                                      "offset_bases": [[0, 1], [1, 0]], "cga_layout": [],
                                                      "shape": [2, 2], **params}}
    with pytest.raises(EncodingError, match=message):
        from_gluon(spec)


def test_a_short_form_of_ones_is_one_element_of_its_rank():
    """tritongpu_tdm_stride_order.mlir's ``{order = [0, 1, 2], shape = [1, 1, 1]}``: Triton 3.9 accepts it (a
    linear component of no bases over three dims of size 1), prints it with order [2, 1, 0], allocates 2 bytes
    for a 1x1x1 f16 buffer, and takes it for a 1x1x1 memdesc or one with a leading buffer dim, not a 1x1 one
    ("rank must be equal to or one less than the shape size")."""
    from checker.encodings.padded_shared import PaddedSharedPointEncoding
    from checker.errors import CheckerError
    from checker.syntax.mlir_attr import parse_attribute, print_attribute
    enc = parse_attribute("#ttg.padded_shared<[32:+4] {order = [0, 1, 2], shape = [1, 1, 1]}>", {})
    enc.validate()
    assert isinstance(enc, PaddedSharedPointEncoding) and enc.rank == 3
    assert print_attribute(enc) == "#ttg.padded_shared<[32:+4] {order = [2, 1, 0], shape = [1, 1, 1]}>"
    assert enc == parse_attribute("#ttg.padded_shared<[32:+4] {order = [2, 1, 0], shape = [1, 1, 1]}>", {})
    P = lower(enc, [1, 1, 1])
    assert list(P.linear.out_dim_sizes) == [("dim0", 1), ("dim1", 1), ("dim2", 1)]
    assert not P.linear.in_bases("offset")
    with pytest.raises(CheckerError):
        enc.check_shape([1, 1])
    with pytest.raises(CheckerError):
        enc.check_shape([2, 1, 1])
    gluon = from_gluon({"class": "PaddedSharedLayout", "params": {
        "interval_padding_pairs": [[32, 4]], "offset_bases": [], "cga_layout": [], "shape": [1, 1, 1]}})
    assert gluon == enc


@pytest.mark.parametrize("text", ["#ttg.padded_shared<[32:+4] {offset = [], block = []}>",
                                  "#ttg.padded_shared<[32:+4] {order = [], shape = []}>"])
def test_a_layout_of_no_dims_is_refused(text):
    """Triton 3.9: "Empty Layout not supported" (the long form), "linearComponent must have [offset, block]
    as input dims" (the short form of rank 0)."""
    from checker.errors import CheckerError
    from checker.syntax.mlir_attr import parse_attribute
    with pytest.raises(CheckerError):
        parse_attribute(text, {}).validate()
