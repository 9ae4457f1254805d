"""The benchmark corpus: the conformance cases (computed by Triton 3.9) plus larger shapes, as encodings."""

from __future__ import annotations

import json
import pathlib
from dataclasses import dataclass
from typing import Any

from checker.errors import CheckerError
from checker.syntax.gluon import GLUON_CLASSES, from_gluon, lower_gluon

ROOT = pathlib.Path(__file__).resolve().parents[1]
CONFORMANCE = ROOT / "tests" / "conformance"

# One representative per family, lowered at large shapes too (Gluon specs, as in the conformance files).
LARGE = {
    "blocked": {"class": "BlockedLayout", "params": {"size_per_thread": [1, 8], "threads_per_warp": [4, 8],
                                                     "warps_per_cta": [4, 1], "order": [1, 0]}},
    "nvidia_mma": {"class": "NVMMADistributedLayout", "params": {"version": [3, 0], "warps_per_cta": [4, 1],
                                                                 "instr_shape": [16, 128, 16]}},
    "amd_mfma": {"class": "AMDMFMALayout", "params": {"version": 3, "instr_shape": [32, 32, 8],
                                                      "transposed": True, "warps_per_cta": [2, 2]}},
    "swizzled_shared": {"class": "SwizzledSharedLayout", "params": {"vec": 8, "per_phase": 1, "max_phase": 8,
                                                                    "order": [1, 0]}},
    "nvmma_shared": {"class": "NVMMASharedLayout", "params": {"swizzle_byte_width": 128, "element_bitwidth": 16,
                                                              "rank": 2, "transposed": False}},
}
LARGE_SHAPES = ([256, 256], [1024, 1024], [8192, 8192])


@dataclass
class Case:
    id: str
    family: str
    spec: dict
    shape: list[int]
    encoding: Any


def _load(name: str) -> list[dict]:
    with open(CONFORMANCE / name) as f:
        return [json.loads(line) for line in f if line.strip()]


def _family_of(spec: dict) -> str:
    return spec["class"]


def lowering_cases(limit: int | None = None) -> list[Case]:
    """Every accepted conformance lowering case with a Gluon converter, then the large shapes."""
    out: list[Case] = []
    for name in ("lowering.jsonl", "differential_lowering.jsonl"):
        for c in _load(name):
            if c.get("error") or c.get("expected_error") or c["layout"]["class"] not in GLUON_CLASSES:
                continue
            try:
                enc = from_gluon(c["layout"])
                lower_gluon(enc, c["shape"])
            except CheckerError:
                continue
            out.append(Case(c["id"], c["family"], c["layout"], list(c["shape"]), enc))
    if limit:
        out = out[:limit]
    for family, spec in LARGE.items():
        for shape in LARGE_SHAPES:
            out.append(Case(f"large-{family}-{shape[0]}x{shape[1]}", family, spec, list(shape), from_gluon(spec)))
    return out


def pairs(name: str, left: str, right: str, limit: int | None = None) -> list[tuple[dict, Any, Any]]:
    """(case, left encoding, right encoding) of a pair file (convert_trivial / bank_conflicts)."""
    out = []
    for c in _load(name):
        if c.get("error"):
            continue
        try:
            a, b = from_gluon(c[left]), from_gluon(c[right])
            lower_gluon(a, c["shape"])
            lower_gluon(b, c["shape"])
        except (CheckerError, KeyError):
            continue
        out.append((c, a, b))
        if limit and len(out) >= limit:
            break
    return out
