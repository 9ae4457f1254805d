"""Mutation test: flip every single bit of every basis of a sample of Triton layouts.

Each mutant is a different function, so `equivalent(original, mutant)` must fail, with the flipped
basis as its witness; its surjective / injective verdicts must match the rank, and F2 and Z3 must agree
on all of them (engine="both" raises otherwise).
"""

import pytest

from checker.layout import LinearLayout
from checker.properties.equivalence import equivalent
from checker.properties.injective import injective
from checker.properties.surjective import surjective

from ..conftest import load_jsonl

FAMILIES = ("blocked", "nvidia_mma", "dot_op", "amd_mfma", "slice", "linear")


def _sample():
    seen, out = set(), []
    for c in load_jsonl("convert_trivial.jsonl"):
        if c["error"] is None and c["src_family"] in FAMILIES and c["src_family"] not in seen:
            seen.add(c["src_family"])
            out.append((c["id"], LinearLayout.from_triton_json(c["src_linear_layout"])))
    return out


SAMPLE = _sample()


def _mutants(L):
    for d in L.in_dims:
        for i, b in enumerate(L.in_bases(d)):
            for k, (_, size) in enumerate(L.out_dim_sizes):
                for bit in range(size.bit_length() - 1):
                    nb = list(b)
                    nb[k] ^= 1 << bit
                    bases = {e: list(L.in_bases(e)) for e in L.in_dims}
                    bases[d][i] = tuple(nb)
                    yield d, i, LinearLayout(list(bases.items()), L.out_dim_sizes)


def test_sample_covers_families():
    assert len(SAMPLE) == len(FAMILIES)


@pytest.mark.parametrize("case_id,L", SAMPLE, ids=[s[0] for s in SAMPLE])
def test_every_mutant_is_caught(case_id, L):
    base = (surjective(L).status, injective(L).status)
    assert base == (("holds" if L.is_surjective() else "fails"), ("holds" if L.is_injective() else "fails"))
    assert equivalent(L, L).holds
    count = 0
    for d, i, M in _mutants(L):
        count += 1
        eq = equivalent(L, M)
        assert eq.fails
        assert eq.counterexample.data["index"] == {e: (1 << i if e == d else 0) for e in L.in_dims}
        assert eq.counterexample.data["images"] == [L.apply({e: (1 << i if e == d else 0) for e in L.in_dims}),
                                                    M.apply({e: (1 << i if e == d else 0) for e in L.in_dims})]
        assert eq.verdicts["z3"].counterexample.replay()
        s, j = surjective(M), injective(M)
        assert s.holds == M.is_surjective() and j.holds == M.is_injective()
        assert (s.status, j.status, eq.status) != base + ("holds",)
    assert count > 20
