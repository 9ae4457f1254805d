"""Shared-memory hardware as data: the numbers the bank-conflict model needs, per target.

A `Hardware` is a frozen record. Shared memory is ``banks`` banks of
``bank_bytes`` bytes; the word at byte address a is ``a // bank_bytes`` and
its bank is ``word % banks``. A warp of ``warp_size`` lanes issues one
shared-memory instruction as *phases* (wavefronts when conflict-free): the
lanes are split into groups, each group served together. Which lanes form a
group depends on the access width and, on AMD, on the direction, so the
split is a table (`PhaseRule`), never a formula: gfx942's ``ds_read_b128``
groups ``{0-3, 20-23}`` are not contiguous.

Every group of one rule must be a coset of one subspace of the lane indices
(as bit vectors over GF(2)): the group holding lane 0 is closed under XOR
and every other group is a translate of it. All published tables are of this
form, and the bank-conflict engines rely on it (phases are then affine
subspaces of the hardware index space).

``matrix`` lists the matrix and layout-changing instructions the target has:
NVIDIA's 8x8 ``ldmatrix`` / ``stmatrix`` (``b8`` for the 8-bit transposed
forms; each 8x8 matrix of 16-bit elements is one phase of eight 16-byte
rows); AMD's transposed LDS reads, ``tr_b64`` (gfx950: ds_read_b64_tr_b16 /
_b8) or ``tr_b128`` (gfx1250: ds_load_tr16_b128, ds_load_tr8_b64), whose
lane groups are the rules of direction ``transpose`` (the ``load`` rule of
the same width when there is none); ``lds_scatter`` when direct-to-LDS loads
take a per-lane LDS address (gfx1250). ``direct_to_lds`` lists the bytes per
lane of the target's direct-to-LDS loads (AMD), ``smem_partition_bytes`` the
size of one LDS partition where the LDS is split (gfx1250: 64 KiB).

Presets: `PRESETS` (``sm80``, ``sm90``, ``sm100``, ``sm120``, ``gfx942``, ``gfx950``,
``gfx11``, ``gfx12``, ``gfx1250``); each number's source is listed in docs/hardware.md.
`resolve` accepts a preset name, a `Hardware`, or a mapping with the same
fields (validated; errors name the field).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import f2
from .errors import CheckerError
from .layout import is_power_of_two
from .limits import MAX_BYTES, clip

DIRECTIONS = ("load", "store", "both", "transpose", "pair")
MATRIX_FEATURES = ("ldmatrix", "stmatrix", "b8", "tr_b64", "tr_b128", "lds_scatter")
NVIDIA_MATRIX = ("ldmatrix", "stmatrix", "b8")


@dataclass(frozen=True)
class PhaseRule:
    """The lane groups of one access: `direction` ("load", "store" or "both"),
    the per-lane access widths in bytes it covers, and the groups."""

    direction: str
    vector_bytes: tuple[int, ...]
    groups: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class Hardware:
    name: str
    vendor: str
    warp_size: int
    banks: int
    bank_bytes: int
    max_vector_bytes: int
    smem_bytes_per_block: int
    phases: tuple[PhaseRule, ...]
    matrix: tuple[str, ...] = ()
    triton_target: str = ""
    direct_to_lds: tuple[int, ...] = ()
    smem_partition_bytes: int = 0

    def groups(self, direction: str, vector_bytes: int) -> tuple[tuple[int, ...], ...]:
        """The lane groups served together by a `direction` access of `vector_bytes` per lane
        (``transpose``: a transposed LDS read; the load rule when no transpose rule is given)."""
        for rule in self.phases:
            if rule.direction == "transpose" and direction == "transpose" and vector_bytes in rule.vector_bytes:
                return rule.groups
        if direction == "transpose":
            direction = "load"
        for rule in self.phases:
            if rule.direction in (direction, "both") and vector_bytes in rule.vector_bytes:
                return rule.groups
        raise CheckerError(f"hardware {self.name} has no phase rule for a {vector_bytes}-byte {direction}",
                           field="hardware.phases")

    def pair_groups(self, vector_bytes: int) -> tuple[tuple[int, ...], ...] | None:
        """The lane groups of an AMD paired LDS access (ds_read2*, ds_write2*, ds_*_2addr*) moving
        `vector_bytes` per lane over its two addresses, when the target serves both addresses of a lane
        in one phase (a rule of direction ``pair``); None: each address is its own pass, with the
        groups of a single access of half the width."""
        for rule in self.phases:
            if rule.direction == "pair" and vector_bytes in rule.vector_bytes:
                return rule.groups
        return None

    def has(self, feature: str) -> bool:
        return feature in self.matrix

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "vendor": self.vendor, "warp_size": self.warp_size, "banks": self.banks,
                "bank_bytes": self.bank_bytes, "max_vector_bytes": self.max_vector_bytes,
                "smem_bytes_per_block": self.smem_bytes_per_block,
                "phases": [{"direction": r.direction, "vector_bytes": list(r.vector_bytes),
                            "groups": [list(g) for g in r.groups]} for r in self.phases],
                "matrix": list(self.matrix), "triton_target": self.triton_target,
                "direct_to_lds": list(self.direct_to_lds), "smem_partition_bytes": self.smem_partition_bytes}

    @classmethod
    def from_mapping(cls, m: Mapping[str, Any]) -> Hardware:
        """A custom target from a mapping with the fields of `Hardware` (validated)."""
        if not isinstance(m, Mapping):
            raise CheckerError(f"hardware must be a preset name or a mapping, got {type(m).__name__}",
                               field="hardware")
        known = {"name", "vendor", "warp_size", "banks", "bank_bytes", "max_vector_bytes",
                 "smem_bytes_per_block", "phases", "matrix", "triton_target", "direct_to_lds",
                 "smem_partition_bytes"}
        for k in m:
            if k not in known:
                raise CheckerError(f"unknown field (fields: {sorted(known)})", field=f"hardware.{k}")
        for k in ("warp_size", "banks", "bank_bytes", "max_vector_bytes", "smem_bytes_per_block", "phases"):
            if k not in m:
                raise CheckerError("missing", field=f"hardware.{k}")
        ints = {}
        for k in ("warp_size", "banks", "bank_bytes", "max_vector_bytes"):
            v = m[k]
            if isinstance(v, bool) or not isinstance(v, int) or not is_power_of_two(v):
                raise CheckerError(f"must be a power of two, got {clip(v)}", field=f"hardware.{k}")
            if v > _HARDWARE_LIMITS[k]:
                raise CheckerError(f"must be at most {_HARDWARE_LIMITS[k]} (the limit), got {clip(v)}",
                                   field=f"hardware.{k}")
            ints[k] = v
        cap = m["smem_bytes_per_block"]
        if isinstance(cap, bool) or not isinstance(cap, int) or not 0 < cap <= MAX_BYTES:
            raise CheckerError(f"must be a positive number of bytes up to 2^32 (the limit), got {clip(cap)}",
                               field="hardware.smem_bytes_per_block")
        matrix = m.get("matrix", ())
        if isinstance(matrix, (str, Mapping)) or not isinstance(matrix, (list, tuple)) \
                or not all(isinstance(f, str) and f in MATRIX_FEATURES for f in matrix):
            raise CheckerError(f"must list features among {list(MATRIX_FEATURES)}, got {matrix!r}",
                               field="hardware.matrix")
        if any(f in NVIDIA_MATRIX for f in matrix) and ints["warp_size"] != 32:
            raise CheckerError("ldmatrix/stmatrix need warps of 32 lanes", field="hardware.matrix")
        if "tr_b64" in matrix and "tr_b128" in matrix:
            raise CheckerError("tr_b64 and tr_b128 exclude each other", field="hardware.matrix")
        d2l = m.get("direct_to_lds", ())
        if not isinstance(d2l, (list, tuple)) or not all(isinstance(w, int) and not isinstance(w, bool)
                                                  and w in (4, 8, 16) for w in d2l):
            raise CheckerError(f"must list bytes per lane among 4, 8, 16, got {d2l!r}", field="hardware.direct_to_lds")
        part = m.get("smem_partition_bytes", 0)
        if isinstance(part, bool) or not isinstance(part, int) or not 0 <= part <= MAX_BYTES:
            raise CheckerError(f"must be a number of bytes (0: not partitioned), got {part!r}",
                               field="hardware.smem_partition_bytes")
        rules = m["phases"]
        if not isinstance(rules, (list, tuple)) or not rules:
            raise CheckerError("must be a non-empty list of {direction, vector_bytes, groups}", field="hardware.phases")
        phases = tuple(_rule(r, i, ints["warp_size"]) for i, r in enumerate(rules))
        hw = cls(str(m.get("name", "custom")), str(m.get("vendor", "custom")), ints["warp_size"], ints["banks"],
                 ints["bank_bytes"], ints["max_vector_bytes"], cap, phases, tuple(matrix),
                 str(m.get("triton_target", "")), tuple(d2l), part)
        for d in ("load", "store"):
            width = 1
            while width <= hw.max_vector_bytes:
                hw.groups(d, width)
                width *= 2
        return hw


def resolve(hardware: str | Hardware | Mapping[str, Any]) -> Hardware:
    """A preset by name, a Hardware as is, or a custom one from a mapping."""
    if isinstance(hardware, Hardware):
        return hardware
    if isinstance(hardware, str):
        if hardware not in PRESETS:
            raise CheckerError(f"unknown hardware {hardware!r} (presets: {sorted(PRESETS)})", field="hardware")
        return PRESETS[hardware]
    return Hardware.from_mapping(hardware)


def lanes(text: str) -> tuple[int, ...]:
    """Lane-set notation used by the tables: "0-3,20-23" -> (0, 1, 2, 3, 20, 21, 22, 23)."""
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.strip().partition("-")
        if not re.fullmatch(r"[0-9]{1,4}", lo) or not re.fullmatch(r"[0-9]{0,4}", hi):
            raise ValueError(f"lanes are 'a-b,c-d' with ASCII numbers below 10000, got {text[:40]!r}")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return tuple(out)


# The largest values a custom hardware mapping may give (the presets use 32 or 64 lanes, 32 or 64 banks
# of 4 bytes, 16-byte vectors); larger ones would only make the bank model enumerate more lanes.
_HARDWARE_LIMITS = {"warp_size": 128, "banks": 1024, "bank_bytes": 64, "max_vector_bytes": 256}


def coset_basis(groups: tuple[tuple[int, ...], ...]) -> list[int]:
    """A basis of the subspace whose cosets the groups are (the span of the group holding lane 0)."""
    return f2.span_basis(next(g for g in groups if 0 in g))


def _rule(r: Any, i: int, warp_size: int) -> PhaseRule:
    where = f"hardware.phases[{i}]"
    if not isinstance(r, Mapping):
        raise CheckerError("must be a mapping {direction, vector_bytes, groups}", field=where)
    direction = r.get("direction", "both")
    if direction not in DIRECTIONS:
        raise CheckerError(f"must be one of {list(DIRECTIONS)}, got {direction!r}", field=f"{where}.direction")
    widths = r.get("vector_bytes")
    widths = (widths,) if isinstance(widths, int) else widths
    if not isinstance(widths, (list, tuple)) or not widths or not all(
            isinstance(w, int) and not isinstance(w, bool) and is_power_of_two(w) and w <= 256 for w in widths):
        raise CheckerError(f"must be powers of two (bytes per lane), got {r.get('vector_bytes')!r}",
                           field=f"{where}.vector_bytes")
    raw = r.get("groups")
    if not raw or not isinstance(raw, (list, tuple)) or not all(isinstance(g, (str, list, tuple)) for g in raw):
        raise CheckerError("must be a non-empty list of lane groups", field=f"{where}.groups")
    try:
        groups = tuple(tuple(sorted(lanes(g) if isinstance(g, str) else (int(x) for x in g))) for g in raw)
    except (TypeError, ValueError):
        raise CheckerError(f"lane groups must be lists of lanes or 'a-b,c-d' text, got {str(raw)[:60]}",
                           field=f"{where}.groups") from None
    seen = sorted(x for g in groups for x in g)
    if seen != list(range(warp_size)):
        raise CheckerError(f"the groups must split the lanes 0..{warp_size - 1} exactly once", field=f"{where}.groups")
    base = next(g for g in groups if 0 in g)
    span = set(base)
    if any(a ^ b not in span for a in base for b in base):
        raise CheckerError(f"the group of lane 0 {list(base)} is not closed under XOR of lane ids "
                           f"(a subspace over GF(2))", field=f"{where}.groups")
    for g in groups:
        if {g[0] ^ x for x in base} != set(g):
            raise CheckerError(f"group {list(g)} is not a translate of the group of lane 0 {list(base)}",
                               field=f"{where}.groups")
    return PhaseRule(direction, tuple(widths), groups)


def _table(*rows: tuple[str, tuple[int, ...], tuple[str, ...]]) -> tuple[PhaseRule, ...]:
    return tuple(PhaseRule(d, w, tuple(lanes(g) for g in gs)) for d, w, gs in rows)


# NVIDIA (sources: docs/hardware.md). 128 bytes per wavefront: a <=32-bit access is one phase of
# the warp, 64-bit two half-warps, 128-bit four quarter-warps of consecutive lanes (measured on H100).
_NVIDIA_PHASES = _table(
    ("both", (1, 2, 4), ("0-31",)),
    ("both", (8,), ("0-15", "16-31")),
    ("both", (16,), ("0-7", "8-15", "16-23", "24-31")),
)

# CDNA3 (gfx942): wave64, 32 banks x 4 B.
_GFX942_PHASES = _table(
    ("both", (1, 2, 4), ("0-31", "32-63")),
    ("both", (8,), ("0-15", "16-31", "32-47", "48-63")),
    ("store", (16,), ("0-7", "8-15", "16-23", "24-31", "32-39", "40-47", "48-55", "56-63")),
    ("load", (16,), ("0-3,20-23", "4-7,16-19", "8-11,28-31", "12-15,24-27",
                     "32-35,52-55", "36-39,48-51", "40-43,60-63", "44-47,56-59")),
)

# CDNA4 (gfx950): wave64, 64 banks x 4 B.
_GFX950_PHASES = _table(
    ("both", (1, 2, 4), ("0-63",)),
    ("both", (8,), ("0-31", "32-63")),
    ("store", (16,), ("0-15", "16-31", "32-47", "48-63")),
    ("load", (16,), ("0-3,12-15,20-27", "4-11,16-19,28-31", "32-35,44-47,52-59", "36-43,48-51,60-63")),
)

# RDNA (gfx11, gfx12): wave32, 32 banks x 4 B: the NVIDIA split.
_RDNA_PHASES = _NVIDIA_PHASES

# gfx1250: wave32, 64 banks x 4 B (256 bytes per wavefront): up to 8 B per lane the whole wave, 16 B
# two half-waves; transposed reads (ds_load_tr16_b128, ds_load_tr8_b64) two half-waves (Triton's
# composePaddedLayoutWMMA: "two shuffle groups" of 8 lanes per cycle). Paired accesses
# (ds_load_2addr_b32 / _b64): both addresses of a lane in one phase (Triton's AMD Utility.cpp: on
# gfx1250 "two addresses are served simultaneously"), lanes grouped as for the total bytes [A].
# gfx942 / gfx950 have no pair rule: each address of a ds_read2* / ds_write2* is its own pass [A].
_GFX1250_PHASES = _table(
    ("both", (1, 2, 4, 8), ("0-31",)),
    ("both", (16,), ("0-15", "16-31")),
    ("transpose", (8, 16), ("0-15", "16-31")),
    ("pair", (8,), ("0-31",)),
    ("pair", (16,), ("0-15", "16-31")),
)

PRESETS: dict[str, Hardware] = {
    "sm80": Hardware("sm80", "nvidia", 32, 32, 4, 16, 163 * 1024, _NVIDIA_PHASES, ("ldmatrix",), "cuda:80"),
    "sm90": Hardware("sm90", "nvidia", 32, 32, 4, 16, 227 * 1024, _NVIDIA_PHASES, ("ldmatrix", "stmatrix"),
                     "cuda:90"),
    "sm100": Hardware("sm100", "nvidia", 32, 32, 4, 16, 227 * 1024, _NVIDIA_PHASES,
                      ("ldmatrix", "stmatrix", "b8"), "cuda:100"),
    "sm120": Hardware("sm120", "nvidia", 32, 32, 4, 16, 99 * 1024, _NVIDIA_PHASES,
                      ("ldmatrix", "stmatrix", "b8"), "cuda:120"),
    "gfx942": Hardware("gfx942", "amd", 64, 32, 4, 16, 64 * 1024, _GFX942_PHASES, (), "hip:gfx942", (4,)),
    "gfx950": Hardware("gfx950", "amd", 64, 64, 4, 16, 160 * 1024, _GFX950_PHASES, ("tr_b64",), "hip:gfx950",
                       (16, 4)),
    "gfx11": Hardware("gfx11", "amd", 32, 32, 4, 16, 64 * 1024, _RDNA_PHASES, (), "hip:gfx1100"),
    "gfx12": Hardware("gfx12", "amd", 32, 32, 4, 16, 64 * 1024, _RDNA_PHASES, (), "hip:gfx1200"),
    "gfx1250": Hardware("gfx1250", "amd", 32, 64, 4, 16, 320 * 1024, _GFX1250_PHASES, ("tr_b128", "lds_scatter"),
                        "hip:gfx1250", (16, 8, 4), 64 * 1024),
}


def hardware_for_target(target: str | None) -> Hardware | None:
    """The preset for a module's ``ttg.target``: cuda:8x -> sm80, cuda:90 -> sm90, cuda:10x -> sm100,
    cuda:12x -> sm120 (consumer Blackwell: cuda:120, cuda:121),
    hip:gfx942 / gfx950 / gfx1250 exactly, hip:gfx11xx -> gfx11, hip:gfx12xx -> gfx12; None otherwise."""
    if not target:
        return None
    m = re.fullmatch(r"cuda:(\d+)a?", target)
    if m:
        cc = int(m.group(1))
        name = "sm80" if 80 <= cc < 90 else "sm90" if cc == 90 else "sm100" if 100 <= cc < 110 else \
            "sm120" if 120 <= cc < 130 else None
        return PRESETS.get(name) if name else None
    m = re.fullmatch(r"hip:(gfx\w+)", target)
    if m:
        arch = m.group(1)
        if arch in PRESETS:
            return PRESETS[arch]
        for family in ("gfx11", "gfx12"):
            if arch.startswith(family):
                return PRESETS[family]
    return None
