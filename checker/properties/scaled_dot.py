"""Microscaled dots: ``tt.dot_scaled`` (mxfp4 / mxfp8 operands with per-block scales).

scaled_dot(a, b, acc, a_scale, b_scale, shapes, formats, k_pack): the rules of
Triton's verifiers, lib/Dialect/Triton/IR/Ops.cpp ``DotScaledOp::verify``,
``DotScaledOp::deduceScaleFactor``, ``DotScaledOp::verifyDims`` /
``verifyOutputDims`` and the dot interface (lib/Dialect/Triton/IR/OpInterfaces.cpp
``verifyDotOpInterface``):

    A, B, C of one rank, 2 or 3; a batch dim is C's
    K: A's last dim and B's second-to-last, an e2m1 operand with k_pack doubling it
    M, N: A's second-to-last and B's last dim, an e2m1 operand without k_pack doubling it
    scale factor of a scale (more than one element): K / its last dim, 16 or 32;
        both scales give the same; none: 32
    A's scale [.., M, K / factor], B's scale [.., N, K / factor] (K as A gives it)

and, once the result has a matrix-core layout (after Triton's accelerate-matmul
pass; a blocked result is still to be rewritten or decomposed), what the
lowering of that layout requires:

    amd_mfma result (third_party/amd/lib/TritonAMDGPUToLLVM/DotOpToLLVM/MFMA.cpp
        ``convertScaledMFMA`` / ``convertScaledDot``): A and B dot_op operands
        (opIdx 0, 1), both scales or none, scales with a linear layout, operand
        formats e2m1, e4m3 or e5m2 (mxfp6 is not implemented)
    amd_wmma result (DotOpToLLVM/WMMA.cpp ``convertScaledWMMA`` /
        ``convertScaledDot``): WMMA version 3, both scales with a linear layout,
        no e2m3 / e3m2 operand
    nvidia_mma result (third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/DotOpToLLVM/MMAv2.cpp
        ``convertMMADotScaled`` / ``convertMMAImpl``): A and B dot_op operands
        (opIdx 0, 1) of an nvidia_mma parent, both scales

Not modelled: whether a scale's linear layout is the one Triton's
accelerate-matmul chooses (``chooseScaledMfmaScaleLayout``,
``chooseScaledWmmaScaleLayout``, ``getSM120DotScaledScaleLayout``), which the
lowerings read positionally; the matrix-core instruction search
(``MfmaIntrinsic::get``); the decomposition of a blocked scaled dot
(DecomposeScaledBlocked.cpp).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..encodings.base import Encoding
from .result import Result

FP6 = ("e2m3", "e3m2")
MFMA_FORMATS = ("e2m1", "e4m3", "e5m2")





def scale_factor(a_shape, b_shape, a_scale_shape, b_scale_shape, lhs: str, rhs: str, lhs_k_pack: bool,
                 rhs_k_pack: bool) -> tuple[int | None, str | None]:
    """Triton's deduceScaleFactor: (factor, None) or (None, the error)."""
    def by_shape(shape, scale, op_idx, fmt, k_pack):
        if scale is None or math.prod(scale) == 1:
            return 0, None
        unpack = 2 if fmt == "e2m1" and k_pack else 1
        kdim = shape[-1 if op_idx == 0 else -2] * unpack
        f = kdim // scale[-1] if scale[-1] else 0
        if f not in (16, 32):
            return 0, f"scale factor must be 16 or 32, got {f} ({'A' if op_idx == 0 else 'B'}: K = {kdim}, " \
                      f"scale {list(scale)})"
        return f, None
    fa, err = by_shape(a_shape, a_scale_shape, 0, lhs, lhs_k_pack)
    if err:
        return None, err
    fb, err = by_shape(b_shape, b_scale_shape, 1, rhs, rhs_k_pack)
    if err:
        return None, err
    if fa and fb and fa != fb:
        return None, f"operands must have the same scale factor (A: {fa}, B: {fb})"
    return (fa or fb or 32), None


def scaled_dot(a: Encoding | None, b: Encoding | None, acc: Encoding | None, a_scale: Encoding | None,
               b_scale: Encoding | None, a_shape: Sequence[int], b_shape: Sequence[int], c_shape: Sequence[int],
               a_scale_shape: Sequence[int] | None, b_scale_shape: Sequence[int] | None, lhs: str, rhs: str,
               lhs_k_pack: bool = True, rhs_k_pack: bool = True) -> Result:
    """The operands of one tt.dot_scaled agree (module docstring)."""
    problems: list[str] = []
    details: dict = {"a_shape": list(a_shape), "b_shape": list(b_shape), "c_shape": list(c_shape),
                     "lhs": lhs, "rhs": rhs}
    rank = len(a_shape)
    if rank not in (2, 3):
        problems.append(f"operands must be 2-D or 3-D, A has rank {rank}")
    elif len(b_shape) != rank or len(c_shape) != rank:
        problems.append(f"A, B and C must have one rank: {list(a_shape)}, {list(b_shape)}, {list(c_shape)}")
    if problems:
        return _result(problems, details)
    ka = a_shape[-1] * (2 if lhs == "e2m1" and lhs_k_pack else 1)
    kb = b_shape[-2] * (2 if rhs == "e2m1" and rhs_k_pack else 1)
    if ka != kb:
        problems.append(f"K differs: A {list(a_shape)} gives K = {ka}, B {list(b_shape)} gives K = {kb}")
    if rank == 3 and (a_shape[0] != c_shape[0] or b_shape[0] != c_shape[0]):
        problems.append(f"the batch dims of A ({a_shape[0]}) and B ({b_shape[0]}) must be C's ({c_shape[0]})")
    m = a_shape[-2] * (2 if lhs == "e2m1" and not lhs_k_pack else 1)
    n = b_shape[-1] * (2 if rhs == "e2m1" and not rhs_k_pack else 1)
    if (m, n) != (c_shape[-2], c_shape[-1]):
        problems.append(f"A {list(a_shape)} x B {list(b_shape)} gives [{m}, {n}], not C's {list(c_shape)[-2:]}")
    factor, err = scale_factor(a_shape, b_shape, a_scale_shape, b_scale_shape, lhs, rhs, lhs_k_pack, rhs_k_pack)
    if err:
        problems.append(err)
    else:
        details["scale_factor"] = factor
        for name, scale, want in (("A", a_scale_shape, c_shape[-2]), ("B", b_scale_shape, c_shape[-1])):
            if scale is None:
                continue
            if len(scale) != rank:
                problems.append(f"{name}'s scale {list(scale)} must have the operands' rank {rank}")
                continue
            if scale[-2] != want:
                problems.append(f"{name}'s scale {list(scale)}: its dim {rank - 2} must be "
                                f"{'M' if name == 'A' else 'N'} = {want}")
            if scale[-1] != ka // factor:
                problems.append(f"{name}'s scale {list(scale)}: its last dim must be K / {factor} = {ka // factor}")
    problems += lowering_problems(a, b, acc, a_scale, b_scale, a_scale_shape, b_scale_shape, lhs, rhs)
    details["result_layout"] = getattr(acc, "kind", None)
    return _result(problems, details)


def lowering_problems(a, b, acc, a_scale, b_scale, a_scale_shape, b_scale_shape, lhs, rhs) -> list[str]:
    """What the lowering of a matrix-core result layout requires (module docstring)."""
    kind = getattr(acc, "kind", None)
    if kind not in ("amd_mfma", "amd_wmma", "nvidia_mma"):
        return []
    out: list[str] = []
    has_a, has_b = a_scale_shape is not None, b_scale_shape is not None

    def dot_operands(parent_kind: str | None) -> None:
        for name, enc, idx in (("A", a, 0), ("B", b, 1)):
            if getattr(enc, "kind", None) != "dot_op" or enc.op_idx != idx:
                out.append(f"{name} must be a dot_op operand (opIdx {idx}) for a {kind} result, got "
                           f"{getattr(enc, 'kind', None)}")
            elif parent_kind and enc.parent.kind != parent_kind:
                out.append(f"{name}'s dot_op parent must be {parent_kind}, got {enc.parent.kind}")

    def linear_scales() -> None:
        for name, enc, present in (("A", a_scale, has_a), ("B", b_scale, has_b)):
            if present and getattr(enc, "kind", None) != "linear":
                out.append(f"{name}'s scale must have a linear layout for a {kind} result, got "
                           f"{getattr(enc, 'kind', None)}")

    if kind == "amd_mfma":
        dot_operands(None)
        if has_a != has_b:
            out.append("a single scale is not supported for an amd_mfma result (both or none)")
        linear_scales()
        bad = [f for f in (lhs, rhs) if f not in MFMA_FORMATS]
        if bad:
            out.append(f"the scaled MFMA lowering takes e2m1, e4m3 or e5m2 operands, got {', '.join(bad)}")
    elif kind == "amd_wmma":
        if acc.version != 3:
            out.append(f"the scaled WMMA lowering needs WMMA version 3, got {acc.version}")
        if not (has_a and has_b):
            out.append("the scaled WMMA lowering needs both scales")
        linear_scales()
        if lhs in FP6 or rhs in FP6:
            out.append("the scaled WMMA lowering does not implement FP6 operands")
    else:
        dot_operands("nvidia_mma")
        if not (has_a and has_b):
            out.append("the scaled MMA (mma.sync block_scale) lowering needs both scales")
    return out


def _result(problems: list[str], details: dict) -> Result:
    return Result("scaled_dot", "fails" if problems else "holds", {}, None,
                  "; ".join(problems) if problems else
                  f"tt.dot_scaled operands agree (shapes, scale factor {details.get('scale_factor')}, layouts)",
                  details)


def decide(ob) -> Result:
    p = ob.param
    return scaled_dot(ob.operand("a"), ob.operand("b"), ob.operand("acc"), ob.operand("a_scale"),
                      ob.operand("b_scale"), p("a_shape"), p("b_shape"), ob.shape, p("a_scale_shape"),
                      p("b_scale_shape"), p("lhs"), p("rhs"), p("lhs_k_pack") is not False,
                      p("rhs_k_pack") is not False)
