"""aligned_access (checker.properties.aligned) on linear shared layouts; its padded cases (the faulting H100
kernel, the calibration on padded_h100.jsonl, random padded layouts) are in test_padded_access.py, its views and
direct-to-LDS mode in test_padded_views.py."""

import pytest

from checker import parse_encoding, prove
from checker.errors import CheckerError


def test_linear_layouts_are_always_aligned():
    """F2: every basis outside the vector is a multiple of it (the vectorisation is contiguous)."""
    R = parse_encoding("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
                       "order = [1, 0]}>")
    for S in ("#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
              "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>"):
        for side in ("store", "load"):
            r = prove.aligned_access(R, parse_encoding(S), [64, 64], "f16", direction=side)
            assert r.holds and "multiple of 8" in r.explanation, r.explanation
    with pytest.raises(CheckerError, match="unknown dtype"):
        prove.aligned_access(R, parse_encoding(S), [64, 64], "f17")
