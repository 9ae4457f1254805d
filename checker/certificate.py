"""Certificates of the GF(2) engine's ``holds`` verdicts, and the small checker that verifies them.

A counterexample shows a property fails and is replayed; a certificate shows
a property holds and is *checked*. This module is the checker. It imports
nothing from layoutcheck (no `checker.f2`, no `LinearLayout`, no engine): a
certificate's *claim* is plain data (a layout as ``LinearLayout.to_dict()``
writes it: ``{"bases": {in_dim: [[c_out0, c_out1, ...], ...]}, "out_dims":
{out_dim: size}}``, or plain ints), its *proof* is lists of ints, and every
check below is a few lines of integer arithmetic (XOR, AND, parity) that
recomputes the columns from the bases itself. `result.run_engines` runs `verify`
on every F2 ``holds`` that carries a certificate and raises `InternalError`
when one does not check.

Vectors. A layout's column for in-bit j is its basis packed as
``LinearLayout.pack_out`` does (out-dim k shifted by the log2 sizes of the
out-dims before it); bit masks over a list select elements (bit i: element
i); ``A·x`` is the XOR of the columns x selects; ``w·v`` is parity(w & v).

Kinds (claim -> proof -> what is checked -> why it proves the claim):

``left_inverse`` (injective, injective_up_to_broadcast, the injective half
of invertible). Claim: ``layout``; ``skip_zero`` (drop zero columns: the
broadcast bits); ``dropped`` ({in_dim: [bit, ...]}: bits declared unused,
each checked to have a zero basis). Proof: ``inverse``, rows M_i (out-bit
masks). Check: M·A = I for the kept columns A (w_i·c_j = 1 iff i = j). A
matrix with a left inverse has independent columns, so ker A = {0}: no two
indices (outside the skipped bits) hold one coordinate.

``spanning`` (surjective, the surjective half of invertible). Claim:
``layout``, ``shape`` ({out_dim: size}, powers of two). Proof:
``combinations``, one in-bit mask per unit coordinate e_k of the shape's
box (out-dims in order, bit 0 first). Check: A·x_k = e_k. The box is the
span of its units, so every coordinate of the shape is A of the XOR of the
combinations of its bits: some index holds it.

``equal_columns`` (equivalent). Claim: ``layouts`` [A, B]. Proof: none.
Check: the same in-dims with the same sizes and the same out-dims with the
same sizes (a dim of size 1 may be missing from either), and every basis
of A equals B's, out-dims matched by name (a missing out-dim reads 0). Two
linear maps with equal columns are equal on every index.

``combinations`` (conversion: contains, writes, reads and every level
local_register / local_warp / local_cta that holds). Claim: ``src``,
``dst``, ``fixed`` (the in-dims a level keeps). Proof: ``combinations``,
one mask per dst in-bit (in-dims in order, bit 0 first) over V_F, the src
columns of the in-dims not fixed (in src's order). Check: every fixed dst
bit exists in src, and V_F·x_j = dst(e_j) + src(e_j restricted to the
fixed dims). Summed over the bits of any dst index x: dst(x) + src(x_F)
lies in V_F, i.e. src holds dst(x) at an index agreeing with x on F.

``rank_preserved`` (bank_conflict_free, hardware model). Claim:
``vectors`` (the word address of each free direction of one phase) and
``mask`` (the bank bits). Proof: ``transform`` T and ``echelon`` E over
the masked vectors b(v_i) = v_i & mask. Check: T is unit lower triangular
(T_i has bit i and no higher bit: invertible), E_i = XOR of the b(v_j)
T_i selects (re-multiplied), the nonzero rows of E have distinct leading
bits, and every T_i with E_i = 0 also gives XOR of the v_j = 0. The rows
T_i with E_i = 0 then span ker b∘W, so ker b∘W ⊆ ker W and rank W = rank
b∘W: each bank of a phase gets at most one word (cost 2^0 = 1).

``trivial_intersection`` (bank_conflict_free, Triton's model). Claim:
``first`` (segment vectors) and ``second`` (wavefront-lane vectors).
Proof: ``transform`` and ``echelon`` over first + second, checked as
above; every kernel row T_i (E_i = 0) XORs the ``first`` vectors it
selects to 0. A nonzero v in both spans would give a kernel vector whose
first part XORs to v != 0; so span(first) ∩ span(second) = {0}.

``all_of`` (invertible: left_inverse on the layout without its declared
bits, and spanning; conversion: every sub-claim that holds). Proof:
``parts``, certificates; each is checked.

Holds without a certificate (said in their modules): the slot part of a
padded layout (phys is strictly increasing by its formula: nothing to
check), ``fits`` and ``aligned_access`` (integer arithmetic on the
extreme offset, or one enumeration), the padded ``bank_conflict_free``
(an enumeration of every phase on integer addresses).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


class CertificateError(Exception):
    """A certificate that does not prove its claim (the message says which check failed)."""


@dataclass
class Certificate:
    """``kind`` (module docstring), ``claim`` (plain data: what is proved), ``proof`` (ints)."""

    kind: str
    claim: dict[str, Any] = field(repr=False)
    proof: dict[str, Any] = field(default_factory=dict)

    def verify(self) -> None:
        """Verify the certificate; raise `CertificateError` naming the first check that fails."""
        verify(self)

    def holds(self) -> bool:
        try:
            verify(self)
        except CertificateError:
            return False
        return True

    def to_dict(self) -> dict[str, Any]:
        """Compact JSON data: the kind and the proof (the claim is the layout the result is about)."""
        if self.kind == "all_of":
            return {"kind": self.kind, "parts": [p.to_dict() for p in self.proof["parts"]]}
        return {"kind": self.kind, **self.proof}


def verify(cert: Certificate) -> None:
    """Verify `cert` (module docstring); raise `CertificateError` when it does not prove its claim."""
    fn = _CHECKS.get(cert.kind)
    if fn is None:
        raise CertificateError(f"unknown certificate kind {cert.kind!r}")
    try:
        fn(cert.claim, cert.proof)
    except CertificateError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        raise CertificateError(f"{cert.kind}: malformed certificate ({type(e).__name__}: {e})") from None


# ------------------------------------------------------------------ plain arithmetic


def _parity(x: int) -> int:
    return x.bit_count() & 1


def _log2(n: int, what: str) -> int:
    if not isinstance(n, int) or n < 1 or n & (n - 1):
        raise CertificateError(f"{what} is {n!r}, not a power of two")
    return n.bit_length() - 1


def _outs(layout: Mapping) -> list[tuple[str, int]]:
    outs = layout["out_dims"]
    pairs = list(outs.items()) if isinstance(outs, Mapping) else [tuple(p) for p in outs]
    return [(str(n), int(s)) for n, s in pairs]


def _bits(layout: Mapping) -> list[tuple[str, int, tuple[int, ...]]]:
    """(in_dim, bit, basis) for every in-bit, in-dims in order, bit 0 first."""
    return [(d, i, tuple(b)) for d, bs in layout["bases"].items() for i, b in enumerate(bs)]


def _columns(layout: Mapping) -> list[int]:
    """The packed columns, one per in-bit (as LinearLayout.pack_out packs them)."""
    outs = _outs(layout)
    widths = [_log2(s, f"out-dim {n}'s size") for n, s in outs]
    cols = []
    for d, i, b in _bits(layout):
        if len(b) != len(outs):
            raise CertificateError(f"basis {d}[{i}] has {len(b)} values for {len(outs)} out-dims")
        v, shift = 0, 0
        for c, w in zip(b, widths):
            if not 0 <= c < 1 << w:
                raise CertificateError(f"basis {d}[{i}] value {c} is outside its out-dim")
            v |= c << shift
            shift += w
        cols.append(v)
    return cols


def _named(layout: Mapping) -> list[tuple[str, int, dict[str, int]]]:
    """(in_dim, bit, {out_dim: value}) per in-bit: vectors compared by out-dim name."""
    names = [n for n, _ in _outs(layout)]
    return [(d, i, {n: c for n, c in zip(names, b) if c}) for d, i, b in _bits(layout)]


def _xor_named(vectors: Sequence[Mapping[str, int]], mask: int) -> dict[str, int]:
    acc: dict[str, int] = {}
    for j, v in enumerate(vectors):
        if mask >> j & 1:
            for n, c in v.items():
                acc[n] = acc.get(n, 0) ^ c
    return {n: c for n, c in acc.items() if c}


def _xor(vectors: Sequence[int], mask: int) -> int:
    if mask < 0 or mask >> len(vectors):
        raise CertificateError(f"mask {mask:#x} selects beyond the {len(vectors)} vectors")
    acc = 0
    while mask:                             # over the set bits of mask, lowest first
        low = mask & -mask
        acc ^= vectors[low.bit_length() - 1]
        mask ^= low
    return acc


def _ints(xs: Any, what: str) -> list[int]:
    if not isinstance(xs, (list, tuple)) or not all(isinstance(x, int) and x >= 0 for x in xs):
        raise CertificateError(f"{what} must be a list of non-negative ints")
    return list(xs)


# ------------------------------------------------------------------ the kinds


def _left_inverse(claim: Mapping, proof: Mapping) -> None:
    layout = claim["layout"]
    cols = _columns(layout)
    bits = _bits(layout)
    dropped = {d: set(js) for d, js in (claim.get("dropped") or {}).items()}
    for d, js in dropped.items():
        have = {i for dd, i, _ in bits if dd == d}
        for j in js:
            if j not in have:
                raise CertificateError(f"dropped bit {d}[{j}] is not an in-bit of the layout")
    kept = []
    for (d, i, _), c in zip(bits, cols):
        if i in dropped.get(d, ()):
            if c:
                raise CertificateError(f"dropped bit {d}[{i}] has a nonzero basis")
            continue
        if c == 0 and claim.get("skip_zero"):
            continue
        kept.append(c)
    rows = _ints(proof["inverse"], "inverse")
    if len(rows) != len(kept):
        raise CertificateError(f"the inverse has {len(rows)} rows for {len(kept)} columns")
    for i, w in enumerate(rows):
        # row i of M·A as a bit mask over the kept columns: it must be the unit vector e_i
        product = sum(((w & c).bit_count() & 1) << j for j, c in enumerate(kept))
        if product != 1 << i:
            j = next(j for j, c in enumerate(kept) if _parity(w & c) != (i == j))
            raise CertificateError(f"(M·A)[{i}][{j}] = {_parity(w & kept[j])}, not {int(i == j)}")


def _spanning(claim: Mapping, proof: Mapping) -> None:
    layout = claim["layout"]
    cols = _columns(layout)
    shape = claim.get("shape") or {}
    units, shift = [], 0
    for n, size in _outs(layout):
        w = _log2(size, f"out-dim {n}'s size")
        box = min(size, shape.get(n, size))
        units.extend(1 << (shift + k) for k in range(_log2(box, f"the shape's {n}")))
        shift += w
    combos = _ints(proof["combinations"], "combinations")
    if len(combos) != len(units):
        raise CertificateError(f"{len(combos)} combinations for {len(units)} coordinate bits of the shape")
    for k, (e, x) in enumerate(zip(units, combos)):
        got = _xor(cols, x)
        if got != e:
            raise CertificateError(f"combination {k} gives {got:#x}, not the coordinate bit {e:#x}")


def _equal_columns(claim: Mapping, proof: Mapping) -> None:
    a, b = claim["layouts"]
    sa = {d: len(bs) for d, bs in a["bases"].items() if bs}
    sb = {d: len(bs) for d, bs in b["bases"].items() if bs}
    if sa != sb:
        raise CertificateError(f"the in-dims differ: {sa} vs {sb}")
    oa = {n: s for n, s in a["out_dims"].items() if s != 1}
    ob = {n: s for n, s in b["out_dims"].items() if s != 1}
    if oa != ob:
        raise CertificateError(f"the out sizes differ: {oa} vs {ob}")
    nb = {(d, i): v for d, i, v in _named(b)}
    for d, i, v in _named(a):
        if nb[(d, i)] != v:
            raise CertificateError(f"basis {d}[{i}] differs: {v} vs {nb[(d, i)]}")


def _combinations(claim: Mapping, proof: Mapping) -> None:
    src, dst = claim["src"], claim["dst"]
    fixed = set(claim.get("fixed") or ())
    src_bits = _named(src)
    span = [v for d, _, v in src_bits if d not in fixed]
    by_bit = {(d, i): v for d, i, v in src_bits}
    combos = _ints(proof["combinations"], "combinations")
    dst_bits = _named(dst)
    if len(combos) != len(dst_bits):
        raise CertificateError(f"{len(combos)} combinations for {len(dst_bits)} dst bits")
    for (d, i, v), x in zip(dst_bits, combos):
        target = dict(v)
        if d in fixed:
            if (d, i) not in by_bit:
                raise CertificateError(f"dst {d}={1 << i} does not exist in src")
            for n, c in by_bit[(d, i)].items():
                target[n] = target.get(n, 0) ^ c
        target = {n: c for n, c in target.items() if c}
        if x >> len(span):
            raise CertificateError(f"combination for {d}[{i}] selects beyond the {len(span)} span columns")
        got = _xor_named(span, x)
        if got != target:
            raise CertificateError(f"the combination for dst {d}[{i}] gives {got}, not {target}")


def _kernel_rows(vectors: Sequence[int], proof: Mapping) -> list[int]:
    """Check T (unit lower triangular), E = T·vectors (echelon: distinct leading bits of its nonzero
    rows) and return the rows T_i with E_i = 0: a basis of the kernel of the vectors."""
    T = _ints(proof["transform"], "transform")
    E = _ints(proof["echelon"], "echelon")
    m = len(vectors)
    if len(T) != m or len(E) != m:
        raise CertificateError(f"transform and echelon need {m} rows, got {len(T)} and {len(E)}")
    leads = set()
    for i, (t, e) in enumerate(zip(T, E)):
        if not t >> i & 1 or t >> (i + 1):
            raise CertificateError(f"transform row {i} ({t:#x}) is not unit lower triangular")
        if _xor(vectors, t) != e:
            raise CertificateError(f"echelon row {i} is not transform row {i} times the vectors")
        if e:
            lead = e.bit_length() - 1
            if lead in leads:
                raise CertificateError(f"echelon rows share the leading bit {lead}")
            leads.add(lead)
    return [t for t, e in zip(T, E) if e == 0]


def _rank_preserved(claim: Mapping, proof: Mapping) -> None:
    vectors = _ints(claim["vectors"], "vectors")
    mask = claim["mask"]
    for t in _kernel_rows([v & mask for v in vectors], proof):
        if _xor(vectors, t):
            raise CertificateError(f"the combination {t:#x} is 0 on the bank bits but not on the words")


def _trivial_intersection(claim: Mapping, proof: Mapping) -> None:
    first = _ints(claim["first"], "first")
    second = _ints(claim["second"], "second")
    for t in _kernel_rows(first + second, proof):
        v = _xor(first, t & ((1 << len(first)) - 1))
        if v:
            raise CertificateError(f"{v:#x} is in both spans")


def _all_of(claim: Mapping, proof: Mapping) -> None:
    parts = proof["parts"]
    if not parts:
        raise CertificateError("all_of needs at least one part")
    for p in parts:
        if not isinstance(p, Certificate):
            raise CertificateError("all_of parts must be certificates")
        verify(p)


_CHECKS: dict[str, Callable[[Mapping, Mapping], None]] = {
    "left_inverse": _left_inverse, "spanning": _spanning, "equal_columns": _equal_columns,
    "combinations": _combinations, "rank_preserved": _rank_preserved,
    "trivial_intersection": _trivial_intersection, "all_of": _all_of,
}
