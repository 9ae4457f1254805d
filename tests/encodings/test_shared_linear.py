"""Shared linear layouts: bases by value and the verifier rules."""

import pytest

from checker.encodings import lower
from checker.encodings.shared_linear import SharedLinearEncoding
from checker.errors import EncodingError


def test_shared_linear_uses_its_bases_and_checks_the_shape():
    enc = SharedLinearEncoding(((0, 1), (0, 2), (1, 1), (2, 2)))
    L = lower(enc, [4, 4])
    assert L.to_dict() == {"bases": {"offset": [[0, 1], [0, 2], [1, 1], [2, 2]], "block": []},
                           "out_dims": {"dim0": 4, "dim1": 4}}
    with pytest.raises(EncodingError, match="mismatch in expected shape for dimension 0"):
        lower(enc, [8, 4])
    with pytest.raises(EncodingError, match="invertible"):
        lower(SharedLinearEncoding(((0, 1), (0, 1))), [1, 2])
    with pytest.raises(EncodingError, match="alignment"):
        lower(SharedLinearEncoding(((0, 1),), (), 12), [1, 2])
