"""Operands of Blackwell's ``ttng.tc_gen5_mma`` / ``ttng.tc_gen5_mma_scaled`` (tcgen05.mma).

mma_operands(a, b, d, shapes, element types, two_ctas, scaled types): the rules
of Triton's verifiers, lib/Dialect/TritonNvidiaGPU/IR/Ops.cpp
``TCGen5MMAOp::verify`` / ``TCGen5MMAScaledOp::verify`` (with
``verifyMMADType``, ``getMMAv5DTypeKindAndAcc``, ``getScaledMMAOperandType``)
and the dot interface's shape rules (lib/Dialect/Triton/IR/OpInterfaces.cpp
``verifyDotOpInterface``; ``TCGen5MMAOp::verifyDims``,
``TCGen5MMAScaledOp::verifyDims`` / ``verifyOutputDims``):

    element kinds: f32 -> tf32 (acc f32), f16 -> f16 (acc f16, f32), bf16 -> f16 (acc f32),
        4/6/8-bit floats -> f8f6f4 (acc f16, f32), i8 -> i8 (acc i32); A and B of one kind
        (scaled: an integer operand takes the type its lhs/rhs attribute names, e2m1 -> f4E2M1FN, ...)
    A, B, D of rank 2
    A: nvmma_shared, shared_linear or tensor_memory_encoding (colStride 1);
    B: nvmma_shared or shared_linear;  D: tensor_memory_encoding
    plain: D colStride = 32 / D's element bits;  min(blockN, N per CTA) <= 256
        A's CGA does not split K (dim 1), B's does not split K (dim 0)
        two_ctas: B's first CGA basis is [0, 1], N per CTA <= 256
        D's twoCTAs = the op's two_ctas (and A's, when A is in TMEM)
        D's block bases i = (A's block basis i along M, B's along N) (two_ctas: N part of basis 0 is 0)
    scaled: D's blockM = 128
    shapes: A [M, K], B [K, N], D [M, N] (scaled: an e2m1 operand packs two values per byte
        along K, or along M / N when its nvmma layout is transposed (A) / not transposed (B))

What Triton checks only while lowering (the search for a shared-memory matrix
descriptor for the instruction shape, DotOpMmaSmemLoader) is not modelled here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..encodings import lower
from ..encodings.base import Encoding
from ..encodings.cga import shape_per_cta
from ..errors import CheckerError
from ..versions import active, follows
from .result import Result

SCALE_TYPES = {"e4m3": "f8E4M3FN", "e5m2": "f8E5M2", "e2m3": "f6E2M3FN", "e3m2": "f6E3M2FN",
               "e2m1": "f4E2M1FN", "bf16": "bf16", "fp16": "f16"}
SHARED = ("nvmma_shared", "shared_linear")
TMEM = "tensor_memory_encoding"


def _bits(t: str) -> int | None:
    m = re.search(r"(\d+)", t)
    return int(m.group(1)) if m else None


def _is_float(t: str) -> bool:
    return t in ("f16", "bf16", "f32", "f64", "tf32") or bool(re.fullmatch(r"f\d+E\d+M\d+\w*", t))


def mma_kind(t: str) -> tuple[str, tuple[str, ...]] | None:
    """Triton's getMMAv5DTypeKindAndAcc: (kind, allowed accumulator types) of an operand type."""
    if t == "f32":
        return "tf32", ("f32",)
    if t == "f16":
        return "f16", ("f16", "f32")
    if t == "bf16":
        return "f16", ("f32",)
    if _is_float(t) and _bits(t) in (4, 6, 8):
        return "f8f6f4", ("f16", "f32")
    if t == "i8":
        return "i8", ("i32",)
    return None


def scaled_operand_type(t: str, scale_type: str | None) -> str:
    """Triton's getScaledMMAOperandType: a float keeps its type, an integer takes the named one."""
    if _is_float(t) or scale_type is None:
        return t
    return SCALE_TYPES.get(scale_type, t)


def _block_bases(enc: Encoding, shape: Sequence[int]):
    L = lower(enc, shape)
    return [tuple(b) for b in L.in_bases("block")] if L.has_in_dim("block") else []


def _split(bases, dim: int) -> int:
    """How many CTAs the CGA splits dimension `dim` into (non-zero block bases along it)."""
    return 1 << sum(1 for b in bases if b[dim])


def mma_operands(a: Encoding, b: Encoding, d: Encoding, a_shape: Sequence[int], b_shape: Sequence[int],
                 d_shape: Sequence[int], a_type: str, b_type: str, d_type: str, *, two_ctas: bool = False,
                 scaled: bool = False, lhs: str | None = None, rhs: str | None = None,
                 allocs: Sequence[Sequence[int]] | None = None) -> Result:
    """The operands of one tcgen05.mma agree (module docstring)."""
    problems: list[str] = []
    at = scaled_operand_type(a_type, lhs) if scaled else a_type
    bt = scaled_operand_type(b_type, rhs) if scaled else b_type
    ak, bk = mma_kind(at), mma_kind(bt)
    if ak is None:
        problems.append(f"unsupported A element type {at}")
    if bk is None:
        problems.append(f"unsupported B element type {bt}")
    if ak and bk:
        if ak[0] != bk[0]:
            problems.append(f"A and B element kinds differ: A is {ak[0]} ({at}), B is {bk[0]} ({bt})")
        elif d_type not in ak[1] or d_type not in bk[1]:
            problems.append(f"accumulator type {d_type} is not one of {', '.join(ak[1])} for {at} x {bt}")
    if any(len(s) != 2 for s in (a_shape, b_shape, d_shape)):
        problems.append(f"A, B and D must be rank 2: {list(a_shape)}, {list(b_shape)}, {list(d_shape)}")
        return _result(problems, a_shape, b_shape, d_shape)
    if d.kind != TMEM:
        problems.append(f"the accumulator D must have a tensor_memory_encoding, got {d.kind}")
        return _result(problems, a_shape, b_shape, d_shape)
    if scaled:
        if d.block_m != 128:
            problems.append(f"the scaled MMA needs an accumulator with blockM = 128, got {d.block_m}")
        problems += _shape_problems(a, b, a_shape, b_shape, d_shape, lhs, rhs)
        return _result(problems, a_shape, b_shape, d_shape)
    if a.kind not in SHARED + (TMEM,):
        problems.append(f"A must be nvmma_shared, shared_linear or tensor_memory_encoding, got {a.kind}")
    if b.kind not in SHARED:
        problems.append(f"B must be nvmma_shared or shared_linear, got {b.kind}")
    if a.kind == TMEM and a.col_stride_for(_bits(at) or 32) != 1:
        problems.append(f"A in tensor memory must have colStride = 1, got {a.col_stride_for(_bits(at) or 32)}")
    d_bits = _bits(d_type) or 32
    if d.col_stride_for(d_bits) != 32 // d_bits:
        problems.append(f"D's colStride must be 32 / {d_bits} = {32 // d_bits}, got {d.col_stride_for(d_bits)}")
    n_cta = shape_per_cta(d.cga_layout, d_shape)[1]
    if min(d.block_n, n_cta) > 256:
        problems.append(f"the instruction's N = min(blockN {d.block_n}, N per CTA {n_cta}) exceeds 256")
    problems += _shape_problems(a, b, a_shape, b_shape, d_shape, None, None)
    if problems:
        return _result(problems, a_shape, b_shape, d_shape)
    a_alloc, b_alloc, d_alloc = allocs or (a_shape, b_shape, d_shape)     # lowered at allocation shapes
    ab, bb, db = _block_bases(a, a_alloc), _block_bases(b, b_alloc), _block_bases(d, d_alloc)
    for who, n in (("A", _split(ab, 1)), ("B", _split(bb, 0))):
        if n != 1:
            older = "" if follows("mma_v5_k_split_refused") else (
                f": Triton {active()}'s verifier accepts it, but each CTA holds 1/{n} of the K its MMA needs whole "
                "(change mma_v5_k_split_refused)")
            problems.append(f"{who}'s CGA splits K into {n} CTAs (must be 1){older}")
    if two_ctas:
        first = tuple(b.cga_layout[0]) if getattr(b, "cga_layout", ()) else None
        if b.kind == "nvmma_shared" and first != (0, 1):
            problems.append(f"two_ctas needs B's first CGA basis to be [0, 1], got {list(first) if first else None}")
        if n_cta > 256:
            problems.append(f"two_ctas allows one instruction along N: N per CTA is {n_cta} (> 256)")
    if d.two_ctas != two_ctas:
        problems.append(f"D's twoCTAs = {d.two_ctas} but the op's two_ctas = {two_ctas}")
    if a.kind == TMEM and a.two_ctas != two_ctas:
        problems.append(f"A's twoCTAs = {a.two_ctas} but the op's two_ctas = {two_ctas}")
    if not problems:
        for i, got in enumerate(db):
            want = (ab[i][0] if i < len(ab) else 0, bb[i][1] if i < len(bb) else 0)
            if two_ctas and i == 0:
                want = (want[0], 0)
            if got != want:
                problems.append(f"D's block basis {i} is {list(got)}, expected {list(want)} (A's along M, B's along N)")
                break
    return _result(problems, a_shape, b_shape, d_shape)


def _shape_problems(a, b, a_shape, b_shape, d_shape, lhs, rhs) -> list[str]:
    (m, ka), (kb, n), (dm, dn) = a_shape, b_shape, d_shape
    trans_a = a.kind == "nvmma_shared" and a.transposed
    trans_b = b.kind == "nvmma_shared" and not b.transposed
    if lhs == "e2m1":
        ka, m = (ka, m * 2) if trans_a else (ka * 2, m)
    if rhs == "e2m1":
        kb, n = (kb, n * 2) if trans_b else (kb * 2, n)
    out = []
    if ka != kb:
        out.append(f"K differs: A {list(a_shape)} gives K = {ka}, B {list(b_shape)} gives K = {kb}")
    if (m, n) != (dm, dn):
        out.append(f"A {list(a_shape)} x B {list(b_shape)} gives [{m}, {n}], not D's {list(d_shape)}")
    return out


def _result(problems, a_shape, b_shape, d_shape) -> Result:
    details = {"a_shape": list(a_shape), "b_shape": list(b_shape), "d_shape": list(d_shape)}
    return Result("mma_operands", "fails" if problems else "holds", {}, None,
                  "; ".join(problems) if problems else "tcgen05.mma operands agree (types, layouts, CGA, shapes)",
                  details)


def decide(ob) -> Result:
    """The Obligation form (runner)."""
    p = ob.param
    try:
        return mma_operands(ob.operand("a"), ob.operand("b"), ob.operand("acc"), p("a_shape"), p("b_shape"),
                            ob.shape, p("a_type"), p("b_type"), p("d_type"), two_ctas=bool(p("two_ctas")),
                            scaled=bool(p("scaled")), lhs=p("lhs"), rhs=p("rhs"),
                            allocs=(p("a_alloc"), p("b_alloc"), p("d_alloc")) if p("a_alloc") else None)
    except CheckerError:
        raise
