"""Gluon layout specs ({"class": ..., "params": ...}) read into encodings (checker.syntax.gluon)."""

import pytest

from checker.encodings.blocked import BlockedEncoding
from checker.errors import CheckerError
from checker.syntax.gluon import from_gluon


def test_a_blocked_spec_reads_field_for_field():
    enc = from_gluon({"class": "BlockedLayout", "params": {"size_per_thread": [1, 4], "threads_per_warp": [8, 4],
                                                           "warps_per_cta": [4, 1], "order": [1, 0]}})
    assert enc == BlockedEncoding((1, 4), (8, 4), (4, 1), (1, 0))


def test_a_boolean_where_an_integer_belongs_is_refused():
    with pytest.raises(CheckerError):
        from_gluon({"class": "BlockedLayout", "params": {"size_per_thread": [True, 4], "threads_per_warp": [8, 4],
                                                         "warps_per_cta": [4, 1], "order": [1, 0]}})
