"""Lowering per Triton version: every (encoding, shape) a version lowers, layoutcheck lowers the same.

tests/versions/lowering/<X.Y>.jsonl: tools/version_oracle.py run under Triton X.Y (its own parser and
verifier, then its C++ ``toLinearLayout``), over the same 2,588 cases (tools/version_cases.py: every
distinct (encoding, shape) of tests/corpus, the conformance cases and blocked layouts on small shapes),
keyed by the text Triton 3.9 prints (``attr39``) beside the version's own spelling (``attr``). A case
the version rejects, aborts on or cannot spell records ``error``.
"""

import collections

import pytest

import checker
from checker.encodings import lower
from checker.padded import linear_part
from checker.versions import CHANGES, using

from .conftest import VERSIONS, load_version_jsonl

RECORDS = {v: load_version_jsonl("lowering", v) for v in VERSIONS}
# Triton 3.9 itself lowers these and layoutcheck does not (yet) the same way: the same in every version that
# has them, so they are not a version difference (#ttg.generic_linear without a permutation matrix, an
# amd_wmma v1 whose ctaLayout repeats a register tile, partitioned_shared's partition in-dim).
NOT_VERSIONED = {"#ttg.generic_linear", "#ttg.partitioned_shared",
                 "#ttg.amd_wmma<{version = 1, isTranspose = true, ctaLayout = {register = [[1, 0]], "
                 "warp = [[0, 1], [1, 0]]}}>"}


def _ours(attr, shape, version):
    with using(version):
        L = linear_part(lower(checker.parse_encoding(attr), shape))
    return {d: [list(b) for b in L.in_bases(d)] for d in L.in_dims if L.in_dim_size(d) > 1}, \
        [s for _, s in L.out_dim_sizes]


def _theirs(ll):
    return {d: b for d, b in ll.items() if d != "shape" and b}, ll["shape"]


def _versioned(attr):
    return not any(attr.startswith(p) for p in NOT_VERSIONED)


@pytest.mark.parametrize("version", VERSIONS)
def test_every_lowering_of_that_version_is_layoutchecks(version):
    lowered = [r for r in RECORDS[version] if "ll" in r and _versioned(r["attr39"])]
    assert len(lowered) >= 2290
    wrong = [(r["attr39"], r["shape"]) for r in lowered if _ours(r["attr39"], r["shape"], version) != _theirs(r["ll"])]
    assert wrong == []


def test_the_versions_differ_where_the_changes_say():
    """Each change of checker.versions that alters a lowering shows in the fixtures: the cases whose bases
    differ between a version and 3.9, by family."""
    new = {(r["attr39"], tuple(r["shape"])): r.get("ll") for r in RECORDS["3.9"]}
    differ = collections.Counter()
    for v in ("3.5", "3.6", "3.7", "3.8"):
        for r in RECORDS[v]:
            if "ll" in r and new[(r["attr39"], tuple(r["shape"]))] and _theirs(r["ll"]) != _theirs(
                    new[(r["attr39"], tuple(r["shape"]))]):
                differ[(v, r["attr39"].split("<")[0] + ("" if "dot_op" not in r["attr39"] else
                                                        "/" + r["attr39"].split("parent = ")[1].split("<")[0]))] += 1
    assert differ == {
        **{(v, "#ttg.blocked"): 249 for v in ("3.5", "3.6", "3.7", "3.8")},
        **{(v, "#ttg.nvmma_shared"): 12 for v in ("3.5", "3.6", "3.7")},
        **{(v, "#ttng.tensor_memory_encoding"): 1 for v in ("3.5", "3.6", "3.7")},     # a CTA split: block -> col
        ("3.5", "#ttng.tensor_memory_scales_encoding"): 1,                              # no broadcast rows
        ("3.5", "#ttg.dot_op/#ttg.amd_mfma"): 8, ("3.7", "#ttg.dot_op/#ttg.amd_wmma"): 2}, differ
    assert {c.since for c in CHANGES.values()} <= {checker.versions.parse(v) for v in VERSIONS}


def test_a_small_reduction_result_keeps_its_registers_up_to_38():
    """The issue's example: a [64, 1] reduction result of a [1, 4]-per-thread blocked layout."""
    enc = checker.parse_encoding("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], "
                                 "warpsPerCTA = [4, 1], order = [1, 0]}>")
    assert checker.lower(enc, [64, 1], triton_version="3.8").in_bases("register") == ((0, 0), (0, 0))
    assert checker.lower(enc, [64, 1], triton_version="3.9").in_bases("register") == ()
    assert checker.lower(enc, [64, 1]).in_bases("register") == ()            # the newest by default


CORPUS_VERSIONS = ("3.5", "3.6", "3.7", "3.8")


@pytest.mark.parametrize("version", CORPUS_VERSIONS)
def test_every_encoding_of_that_versions_kernels_lowers_as_it_does(version):
    """tests/versions/corpus_lowering/<X.Y>.jsonl: every distinct (encoding, shape) of the version's own kernel
    corpus (tests/versions/corpus/<X.Y>/), spelled as that version prints it (``unpacked``, two-entry MFMA
    ``instrShape``, ...), lowered by the version's own toLinearLayout (tools/version_cases.py corpus,
    tools/version_oracle.py --route ctypes). Where Triton aborts (multi-buffer allocation shapes such as
    ``3x64x32`` of a rank-2 shared layout, which layoutcheck lowers one tile at a time; rotating shared) there is
    nothing to compare."""
    records = load_version_jsonl("corpus_lowering", version)
    lowered = [r for r in records if "ll" in r]
    assert len(lowered) >= 620
    assert all(r["error"].startswith("crash") for r in records if "ll" not in r)
    wrong = [(r["attr"], r["shape"]) for r in lowered if _ours(r["attr"], r["shape"], version) != _theirs(r["ll"])]
    assert wrong == []
