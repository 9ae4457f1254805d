"""tdm_copy (AsyncTDMCopyGlobalToLocalOp::verify, the TDM descriptor fields)."""

from checker.properties.tdm import tdm_copy

from .conftest import E


def test_tdm_padded_holds_and_reports_the_padding():
    r = tdm_copy(E["pad"], E["pad"], [64, 64], 16)
    assert r.status == "holds", r.explanation
    assert (r.details["pad_interval_dwords"], r.details["pad_amount_dwords"]) == (32, 2)


def test_tdm_refuses_swizzling_and_other_layouts():
    assert "does not support swizzling" in tdm_copy(E["sw"], None, [64, 64], 16).explanation
    assert "in a partitioned layout" in tdm_copy(E["partsw"], None, [64, 64], 16).explanation
    assert "got nvmma_shared" in tdm_copy(E["nv"], None, [64, 64], 16).explanation
    assert tdm_copy(E["part"], E["part"], [64, 64], 16).status == "holds"


def test_tdm_padding_sizes():
    r = tdm_copy(E["padsmall"], None, [64, 64], 16)
    assert "at least 2 dwords" in r.explanation and "at least 1 dword" in r.explanation


def test_tdm_descriptor_fields():
    assert "exactly one (interval, padding) pair" in tdm_copy(E["pad2"], E["pad2"], [64, 64], 16).explanation
    assert "pad amount field holds 1 to 128 dwords" in tdm_copy(E["padbig"], E["padbig"], [64, 64], 16).explanation


def test_tdm_block_size():
    assert "exceeds the maximum 65535" in tdm_copy(E["flat"], None, [1, 131072], 16).explanation
