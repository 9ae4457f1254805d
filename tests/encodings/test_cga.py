"""The CTA/CGA layout: bases, Triton's legacy split parameters, and the shapes they imply (checker.encodings.cga)."""

import pytest

from checker.encodings.cga import (
    cga_bases_from_split_params,
    cga_linear_layout,
    cta_split_num,
    ctas_per_cga,
    shape_per_cta,
    validate_cga,
)
from checker.errors import EncodingError


def test_legacy_split_parameters_become_block_bases_in_cta_order():
    # CTAsPerCGA [2, 2], CTASplitNum [2, 1], CTAOrder [1, 0]: dim1 is fastest and broadcast, dim0 is split
    assert cga_bases_from_split_params([2, 2], [2, 1], [1, 0]) == ((0, 0), (1, 0))


def test_split_counts_and_shape_per_cta():
    bases = ((1, 0), (0, 0))
    assert cta_split_num(bases, 2) == [2, 1]
    assert ctas_per_cga(bases, 2) == [4, 1]
    assert shape_per_cta(bases, [64, 64]) == [32, 64]


def test_block_bases_as_a_layout():
    L = cga_linear_layout(((1, 0), (0, 1)), 2)
    assert L.in_bases("block") == ((1, 0), (0, 1))
    assert L.out_dim_sizes == (("dim0", 2), ("dim1", 2))


def test_repeated_bases_are_refused_with_the_rule():
    with pytest.raises(EncodingError, match="must be a permutation matrix, got \\[\\[1, 0\\], \\[1, 0\\]\\]") as e:
        validate_cga(((1, 0), (1, 0)), 2, "blocked")
    assert e.value.field == "CGALayout"
