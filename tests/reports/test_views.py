"""Text views (checker.reports.views): the view is chosen by the layout's in-dims; tensor memory and any other
layout have one too."""

from checker import lower, parse_encoding
from checker.layout import LinearLayout
from checker.reports.views import layout_view


def test_tensor_memory_views_rows_and_columns():
    # blockM = 64: rows 0..15, then (0, n) for N > blockN, then 16, 32; two 8-column blocks side by side
    L = lower(parse_encoding("#ttng.tensor_memory_encoding<blockM = 64, blockN = 8, colStride = 1>"), [64, 16])
    tensor = layout_view(L).splitlines()
    assert len(tensor) == 64
    assert tensor[0] == ("[[R  0:C0, R  0:C1, R  0:C2, R  0:C3, R  0:C4, R  0:C5, R  0:C6, R  0:C7, "
                         "R 16:C0, R 16:C1, R 16:C2, R 16:C3, R 16:C4, R 16:C5, R 16:C6, R 16:C7]")
    assert tensor[16].startswith("[ R 32:C0, ")
    hw = layout_view(L, hardware=True).splitlines()
    assert len(hw) == 128             # 7 row bases: 16 rows, the (0, 8) row, 16, 32 (and their sums)
    assert hw[16] == "Row  16: ( 0, 8), ( 0, 9), ( 0,10), ( 0,11), ( 0,12), ( 0,13), ( 0,14), ( 0,15)"
    assert hw[32] == "Row  32: (16, 0), (16, 1), (16, 2), (16, 3), (16, 4), (16, 5), (16, 6), (16, 7)"


def test_tensor_memory_broadcast_lists_every_cell():
    # the scales encoding: 4 warps' rows hold the same element (zero bases)
    L = lower(parse_encoding("#ttng.tensor_memory_scales_encoding<>"), [128, 4])
    first = layout_view(L).splitlines()[0]
    assert first.startswith("[[R  0:C 0|R 32:C 0|R 64:C 0|R 96:C 0, R  0:C 1|R 32:C 1|R 64:C 1|R 96:C 1, ")


def test_tensor_memory_with_two_ctas_names_the_block():
    enc = parse_encoding("#ttng.tensor_memory_encoding<blockM = 128, blockN = 4, colStride = 1, "
                         "CGALayout = [[1, 0]]>")
    L = lower(enc, [256, 4])
    assert layout_view(L).splitlines()[0] == "[[B0:R  0:C0, B0:R  0:C1, B0:R  0:C2, B0:R  0:C3]"
    hw = layout_view(L, hardware=True).splitlines()
    assert hw[0] == "Block0:" and hw[129] == "Block1:" and hw[130] == "Row   0: (128,0), (128,1), (128,2), (128,3)"


def test_any_other_layout_lists_each_index():
    L = LinearLayout.from_bases([("x", [(1, 0), (0, 1)])], ["dim0", "dim1"])
    assert layout_view(L) == "x=0 -> (0,0)\nx=1 -> (1,0)\nx=2 -> (0,1)\nx=3 -> (1,1)\n"
    assert layout_view(L, hardware=True) == layout_view(L)


def test_distributed_and_shared_views_unchanged():
    blocked = lower(parse_encoding("#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], "
                                   "warpsPerCTA = [1, 1], order = [1, 0]}>"), [2, 2])
    assert layout_view(blocked) == "[[ T0:0| T2:0| T4:0| T6:0| T8:0|T10:0|T12:0|T14:0, " \
                                   " T1:0| T3:0| T5:0| T7:0| T9:0|T11:0|T13:0|T15:0]\n" \
                                   "[ T16:0|T18:0|T20:0|T22:0|T24:0|T26:0|T28:0|T30:0, " \
                                   "T17:0|T19:0|T21:0|T23:0|T25:0|T27:0|T29:0|T31:0]]\n"
    shared = lower(parse_encoding("#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"),
                   [2, 2])
    assert layout_view(shared) == "[[(0:0),(0:1)]\n[ (1:0),(1:1)]]\n"
    assert layout_view(shared, hardware=True) == ("Block: 0:\nOffset: 0 -> (0,0)\nOffset: 1 -> (0,1)\n"
                                                  "Offset: 2 -> (1,0)\nOffset: 3 -> (1,1)\n")
