"""Shared by the property tests of this folder: the shared layouts of test_gather.py and test_tdm.py
(`E`, aliases read from TTGIR text) and the 16x8 swizzled layout of test_invertible.py and test_fits.py."""

from checker.layout import LinearLayout
from checker.syntax.ttgir import read_ttgir

ALIASES = """
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#sw = #ttg.swizzled_shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [1, 0]}>
#flat = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#pad = #ttg.padded_shared<[64:+4] {order = [1, 0], shape = [64, 64]}>
#pad2 = #ttg.padded_shared<[64:+4, 128:+8] {order = [1, 0], shape = [64, 64]}>
#padsmall = #ttg.padded_shared<[2:+1] {order = [1, 0], shape = [64, 64]}>
#padbig = #ttg.padded_shared<[64:+512] {order = [1, 0], shape = [64, 64]}>
#part = #ttg.partitioned_shared<{numPartitions = 2, numGroups = 1, partitionDim = 0, partitionLayout = #flat}>
#partsw = #ttg.partitioned_shared<{numPartitions = 2, numGroups = 1, partitionDim = 0, partitionLayout = #sw}>
#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
"""
E = read_ttgir(ALIASES + 'module attributes {"ttg.num-warps" = 4 : i32} {}\n')[0].aliases

# 16x8 swizzled: offset -> (row, col), col XOR-ed with the row.
SWIZZLED = LinearLayout({"offset": [(0, 1), (0, 2), (0, 4), (1, 1), (2, 2), (4, 4), (8, 0)], "block": []},
                        [("dim0", 16), ("dim1", 8)])
