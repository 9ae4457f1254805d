"""NVIDIA MMA accumulators: the td's MMA v2 picture as an exact table, hand-checked v3 bases, verifier rules."""

import pytest

from checker.encodings import lower
from checker.encodings.nvidia_mma import NvidiaMmaEncoding
from checker.errors import EncodingError
from checker.syntax.gluon import from_gluon

from ..tables import owners

AMPERE_2x2 = NvidiaMmaEncoding(2, 0, (2, 2), (16, 8))

# TritonGPUAttrDefs.td, "version = 2", blockTileSize = [32, 16]: the thread id owning each element,
# with the rows the td elides ("....") written out (row r of a 8-row block holds threads 4r..4r+3).
# The td labels the right-hand block "warp 2" and the lower one "warp 1", but its numbers are those of
# row-major warps (threads 32..63 = warp 1 on the right), and that is what Triton computes.
TD_MMA_V2_32x16 = """
 0  0  1  1  2  2  3  3   32  32  33  33  34  34  35  35
 4  4  5  5  6  6  7  7   36  36  37  37  38  38  39  39
 8  8  9  9 10 10 11 11   40  40  41  41  42  42  43  43
12 12 13 13 14 14 15 15   44  44  45  45  46  46  47  47
16 16 17 17 18 18 19 19   48  48  49  49  50  50  51  51
20 20 21 21 22 22 23 23   52  52  53  53  54  54  55  55
24 24 25 25 26 26 27 27   56  56  57  57  58  58  59  59
28 28 29 29 30 30 31 31   60  60  61  61  62  62  63  63
 0  0  1  1  2  2  3  3   32  32  33  33  34  34  35  35
 4  4  5  5  6  6  7  7   36  36  37  37  38  38  39  39
 8  8  9  9 10 10 11 11   40  40  41  41  42  42  43  43
12 12 13 13 14 14 15 15   44  44  45  45  46  46  47  47
16 16 17 17 18 18 19 19   48  48  49  49  50  50  51  51
20 20 21 21 22 22 23 23   52  52  53  53  54  54  55  55
24 24 25 25 26 26 27 27   56  56  57  57  58  58  59  59
28 28 29 29 30 30 31 31   60  60  61  61  62  62  63  63
64 64 65 65 66 66 67 67   96  96  97  97  98  98  99  99
68 68 69 69 70 70 71 71  100 100 101 101 102 102 103 103
72 72 73 73 74 74 75 75  104 104 105 105 106 106 107 107
76 76 77 77 78 78 79 79  108 108 109 109 110 110 111 111
80 80 81 81 82 82 83 83  112 112 113 113 114 114 115 115
84 84 85 85 86 86 87 87  116 116 117 117 118 118 119 119
88 88 89 89 90 90 91 91  120 120 121 121 122 122 123 123
92 92 93 93 94 94 95 95  124 124 125 125 126 126 127 127
64 64 65 65 66 66 67 67   96  96  97  97  98  98  99  99
68 68 69 69 70 70 71 71  100 100 101 101 102 102 103 103
72 72 73 73 74 74 75 75  104 104 105 105 106 106 107 107
76 76 77 77 78 78 79 79  108 108 109 109 110 110 111 111
80 80 81 81 82 82 83 83  112 112 113 113 114 114 115 115
84 84 85 85 86 86 87 87  116 116 117 117 118 118 119 119
88 88 89 89 90 90 91 91  120 120 121 121 122 122 123 123
92 92 93 93 94 94 95 95  124 124 125 125 126 126 127 127
"""


def td_table():
    """(thread, register) -> (row, col): a thread's registers are its cells in row-major order."""
    grid = [[int(v) for v in line.split()] for line in TD_MMA_V2_32x16.strip().splitlines()]
    cells = {}
    for r, row in enumerate(grid):
        for c, t in enumerate(row):
            cells.setdefault(t, []).append((r, c))
    return {(t, k): rc for t, rcs in cells.items() for k, rc in enumerate(rcs)}


def test_td_mma_v2_picture_is_exact():
    L = lower(AMPERE_2x2, [32, 16])
    table = td_table()
    assert len(table) == 128 * 4
    for (thread, reg), coord in table.items():
        got = L.apply({"register": reg, "lane": thread % 32, "warp": thread // 32, "block": 0})
        assert (got["dim0"], got["dim1"]) == coord, (thread, reg)
    # every element has exactly one owner: the accumulator is not broadcast
    assert all(len(v) == 1 for v in owners(L).values())
    assert L.to_dict()["bases"] == {"register": [[0, 1], [8, 0]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
                                    "warp": [[0, 8], [16, 0]], "block": []}


def test_v2_larger_shape_repeats_along_the_last_dim_first():
    L = lower(AMPERE_2x2, [64, 32])
    assert L.bases["register"] == ((0, 1), (8, 0), (0, 16), (32, 0))


def test_v2_rank3_batch_dim():
    L = lower(NvidiaMmaEncoding(2, 0, (2, 2, 1), (1, 16, 8)), [2, 32, 8])
    assert L.bases["register"] == ((0, 0, 1), (0, 8, 0))
    assert L.bases["lane"] == ((0, 0, 2), (0, 0, 4), (0, 1, 0), (0, 2, 0), (0, 4, 0))
    assert L.bases["warp"] == ((0, 16, 0), (1, 0, 0))


def test_v3_hand_checked_bases():
    """16x64x16, warps [4, 1]: kWidth 2 columns, 4x8 lanes, m/8 = 2 rows, n/8 = 8 columns, warps down dim0."""
    L = lower(NvidiaMmaEncoding(3, 0, (4, 1), (16, 64, 16)), [64, 64])
    assert L.to_dict()["bases"] == {"register": [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]],
                                    "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
                                    "warp": [[16, 0], [32, 0]], "block": []}


def test_v3_smaller_shape_keeps_zero_register_bases():
    L = lower(NvidiaMmaEncoding(3, 0, (4, 1), (16, 64, 16)), [16, 16])
    assert L.bases["register"] == ((0, 1), (8, 0), (0, 8), (0, 0), (0, 0))
    assert L.bases["warp"] == ((0, 0), (0, 0))


def test_cga_puts_blocks_above_everything():
    L = lower(NvidiaMmaEncoding(2, 0, (2, 2), (16, 8), ((1, 0),)), [64, 16])
    assert L.bases["block"] == ((32, 0),)


def test_gluon_converter():
    enc = from_gluon({"class": "NVMMADistributedLayout",
                      "params": {"version": [3, 0], "warps_per_cta": [4, 1], "instr_shape": [16, 64, 16]}})
    assert enc == NvidiaMmaEncoding(3, 0, (4, 1), (16, 64, 16))
    with pytest.raises(EncodingError, match=r"version is \[major, minor\]"):
        from_gluon({"class": "NVMMADistributedLayout",
                    "params": {"version": [3], "warps_per_cta": [4, 1], "instr_shape": [16, 64, 16]}})


@pytest.mark.parametrize("enc, shape, field, message", [
    (NvidiaMmaEncoding(1, 0, (4, 1), (16, 8)), [64, 8], "versionMajor", r"Volta .* deprecated"),
    (NvidiaMmaEncoding(5, 0, (4, 1), (128, 128, 16)), [128, 128], "versionMajor",
     r"versionMajor must be 2 \(Ampere\) or 3 \(Hopper\), got 5"),
    (NvidiaMmaEncoding(2, 0, (3, 1), (16, 8)), [64, 8], "warpsPerCTA", "power of two"),
    (NvidiaMmaEncoding(2, 0, (4,), (16,)), [64], "warpsPerCTA", "rank >= 2"),
    (NvidiaMmaEncoding(3, 0, (4, 1), (16, 24, 16)), [64, 64], "instrShape", "N = 24 must be a power of two"),
    (NvidiaMmaEncoding(3, 0, (4, 1, 1), (16, 64, 16)), [4, 64, 64], "instrShape", "needs rank 2"),
    (NvidiaMmaEncoding(2, 0, (2, 2, 1), (16, 8)), [2, 32, 8], "instrShape", "one entry per dim"),
    (NvidiaMmaEncoding(2, 0, (2, 2), (16, 4)), [32, 8], "instrShape", "N = 4"),
    (NvidiaMmaEncoding(2, 0, (2, 2), (16, 8), ((1, 0), (1, 0))), [128, 32], "CGALayout", "permutation matrix"),
])
def test_rejected(enc, shape, field, message):
    with pytest.raises(EncodingError, match=message) as info:
        lower(enc, shape)
    assert info.value.field == field


def test_shape_rules():
    with pytest.raises(EncodingError, match="rank"):
        lower(AMPERE_2x2, [32, 16, 2])
    with pytest.raises(EncodingError, match="power of two"):
        lower(AMPERE_2x2, [48, 16])
