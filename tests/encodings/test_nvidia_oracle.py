"""Edge cases of the NVIDIA families, answered by a real Triton 3.9 (tests/encodings/nvidia_oracle.jsonl).

3885 seeded random cases of nvidia_mma, dot_op (NVIDIA and blocked parents) and nvmma_shared, built to
reach the corners the conformance sample misses: odd instrShapes (M = 8, 32, 64; N = 24; 2-entry v3
shapes), rank-3 and rank-1 parents, kWidth 0 / 3, every swizzle x transposed x rank 1..4 x fp4Padded x
CGA, get_default_for, and shape/rank mismatches. Each was run through `triton==3.9.0` (CPU, Gluon's
builder, one forked child per case, as tools/triton_oracle.py does): `linear_layout` is Triton's answer,
`error` what it raised (`exception`) or died on (`crash`). Accepted cases must match bit for bit;
rejected ones must be rejected with an EncodingError.
"""

import json
import pathlib

import pytest

from checker.errors import CheckerError
from checker.syntax.gluon import from_gluon
from checker.syntax.gluon import lower_gluon as lower

CASES = [json.loads(line) for line in (pathlib.Path(__file__).parent / "nvidia_oracle.jsonl").open()]
ACCEPTED = [c for c in CASES if c["error"] is None]
REJECTED = [c for c in CASES if c["error"] is not None]


def test_the_fixture_covers_both_outcomes():
    assert len(ACCEPTED) > 1000 and len(REJECTED) > 1000


@pytest.mark.parametrize("case", ACCEPTED, ids=[c["id"] for c in ACCEPTED])
def test_matches_triton(case):
    L = lower(from_gluon(case["layout"]), case["shape"])
    assert {k: [list(b) for b in v] for k, v in L.bases.items()} == case["linear_layout"]["in"]
    assert [s for _, s in L.out_dim_sizes] == case["linear_layout"]["shape"]


@pytest.mark.parametrize("case", REJECTED, ids=[c["id"] for c in REJECTED])
def test_rejected_like_triton(case):
    with pytest.raises(CheckerError) as info:
        lower(from_gluon(case["layout"]), case["shape"])
    assert str(info.value).strip()
