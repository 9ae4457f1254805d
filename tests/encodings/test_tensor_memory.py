"""Tensor memory layouts: bases as Triton 3.9 computes them (recorded with tools/triton_oracle.py)."""

import pytest

from checker.encodings import lower
from checker.encodings.tensor_memory import TensorMemoryEncoding, TensorMemoryScalesEncoding
from checker.errors import EncodingError


def rows_cols(L):
    d = L.to_dict()["bases"]
    return d["row"], d["col"]


@pytest.mark.parametrize("block, col_stride, shape, rows, cols", [
    ((64, 64), 1, [64, 64], [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0], [16, 0], [32, 0]],
     [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]]),
    ((64, 64), 1, [128, 64], [[1, 0], [2, 0], [4, 0], [8, 0], [64, 0], [16, 0], [32, 0]],
     [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]]),
    ((64, 64), 1, [64, 128], [[1, 0], [2, 0], [4, 0], [8, 0], [0, 64], [16, 0], [32, 0]],
     [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]]),
    ((128, 64), 2, [128, 128], [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [64, 0]],
     [[0, 0], [0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]]),
    ((128, 128), 1, [256, 128], [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [64, 0]],
     [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [128, 0]]),
    ((64, 64), 1, [256, 256], [[1, 0], [2, 0], [4, 0], [8, 0], [64, 0], [16, 0], [32, 0]],
     [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [128, 0], [0, 64], [0, 128]]),
])
def test_tensor_memory_matches_triton(block, col_stride, shape, rows, cols):
    L = lower(TensorMemoryEncoding(block[0], block[1], col_stride), shape)
    assert rows_cols(L) == (rows, cols)
    assert L.out_dim_sizes == (("dim0", shape[0]), ("dim1", shape[1]))


@pytest.mark.parametrize("shape, cols", [
    ([128, 8], [[0, 1], [0, 2], [32, 0], [64, 0], [0, 4]]),
    ([64, 4], [[0, 1], [0, 2], [32, 0]]),
    ([32, 2], [[0, 1], [0, 0], [0, 0]]),
])
def test_tensor_memory_scales_match_triton(shape, cols):
    L = lower(TensorMemoryScalesEncoding(), shape)
    assert rows_cols(L) == ([[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 0], [0, 0]], cols)


@pytest.mark.parametrize("enc, field", [
    (TensorMemoryEncoding(32, 64), "blockM"),
    (TensorMemoryEncoding(128, 1024), "blockN"),
    (TensorMemoryEncoding(128, 128, 3), "colStride"),
    (TensorMemoryEncoding(128, 128, 1, ((0, 1),), True), "twoCTAs"),
])
def test_verifier(enc, field):
    with pytest.raises(EncodingError) as info:
        lower(enc, [128, 128])
    assert info.value.field == field
