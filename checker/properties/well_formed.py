"""Static properties of encodings as a module uses them: no proof engine, a direct check.

well_formed(enc, shape, lanes, warps, ctas): the encoding passes Triton's
verifier rules, lowers at `shape`, and its hardware extents match the
module's:

    |lane| = ttg.threads-per-warp,  |warp| in allowed warp counts,  |block| = ttg.num-ctas

for a distributed encoding (a shared encoding has only ``block``). A warp
count is allowed when it is the module's ``ttg.num-warps`` or the warp count
of one of its ``ttg.warp_specialize`` partitions.

dot_operands(a, b, acc): the operands of ``tt.dot`` / ``ttng.warp_group_dot``
agree with the accumulator, as Triton's dot verifier requires:

    a = dot_op(opIdx 0, parent P, kWidth k),  b = dot_op(opIdx 1, parent P, kWidth k),  acc = P,
    a: [.., M, K],  b: [.., K, N],  acc: [.., M, N]

where a (and b) may instead be a shared memory descriptor (``warp_group_dot``
reads A or B from shared memory: the accumulator is then NVIDIA MMA v3 and the
shared layout an NVMMA one, nvmma_shared or its shared_linear form).

Both return a `Result` with no engine verdicts; a failure's explanation names
the rule that is broken. An encoding that is valid but not modelled (e.g. a
partitioned layout over a padded one) raises `NotModelled`: no verdict.
"""

from __future__ import annotations

from typing import Sequence

from ..encodings import lower
from ..encodings.base import Encoding
from ..encodings.dot_operand import DotOperandEncoding
from ..encodings.nvidia_mma import NvidiaMmaEncoding
from ..errors import CheckerError, NotModelled
from ..padded import linear_part
from ..padded import linear_part
from .result import Result


WGMMA_SHARED = ("nvmma_shared", "shared_linear")


def _static(prop: str, problems: list[str], ok: str, details: dict) -> Result:
    status = "fails" if problems else "holds"
    return Result(prop, status, {}, None, "; ".join(problems) if problems else ok, details)


def well_formed(enc: Encoding, shape: Sequence[int], *, lanes: int | None = None,
                warps: Sequence[int] = (), ctas: int | None = None) -> Result:
    """The encoding is valid, lowers at shape, and spans the module's lanes, warps and CTAs."""
    try:
        enc.validate()
        L = linear_part(lower(enc, shape))  # a padded layout: its linear component's dims
    except NotModelled:
        raise
    except CheckerError as e:
        return _static("well_formed", [e.message if not e.field else f"{e.field}: {e.message}"], "", {})
    sizes = {d: L.in_dim_size(d) for d in L.in_dims}
    problems = []
    if not enc.is_shared:
        if lanes is not None and sizes.get("lane", 1) != lanes:
            problems.append(f"the layout spans {sizes.get('lane', 1)} lanes but the module has "
                            f"ttg.threads-per-warp = {lanes}")
        if warps and sizes.get("warp", 1) not in warps:
            want = " or ".join(str(w) for w in warps)
            problems.append(f"the layout spans {sizes.get('warp', 1)} warps but the module has "
                            + (f"ttg.num-warps = {want}" if len(warps) == 1 else
                               f"{want} (ttg.num-warps and its warp_specialize partitions)"))
    if ctas is not None and sizes.get("block", 1) != ctas:
        problems.append(f"the layout spans {sizes.get('block', 1)} CTAs but the module has ttg.num-ctas = {ctas}")
    return _static("well_formed", problems, f"valid {enc.kind} layout at shape {list(shape)}", {"in_dims": sizes})


def dot_operands(a: Encoding, b: Encoding, acc: Encoding, a_shape: Sequence[int], b_shape: Sequence[int],
                 acc_shape: Sequence[int]) -> Result:
    """A, B and the accumulator of one dot agree (module docstring)."""
    problems = []
    for name, op, idx in (("A", a, 0), ("B", b, 1)):
        if op.is_shared:
            if not (isinstance(acc, NvidiaMmaEncoding) and acc.version_major == 3):
                problems.append(f"{name} is read from shared memory, which only an NVIDIA MMA v3 "
                                f"(warp_group_dot) accumulator can do; the accumulator is {acc.kind}")
            elif op.kind not in WGMMA_SHARED:
                problems.append(f"{name} is read by wgmma from shared memory, which needs an nvmma_shared "
                                f"layout; got {op.kind}")
            continue
        if not isinstance(op, DotOperandEncoding):
            problems.append(f"{name} must be a dot_op encoding, got {op.kind}")
            continue
        if op.op_idx != idx:
            problems.append(f"{name} has opIdx = {op.op_idx}, expected {idx}")
        if op.parent != acc:
            problems.append(f"{name}'s parent is not the accumulator's encoding")
    if isinstance(a, DotOperandEncoding) and isinstance(b, DotOperandEncoding) and a.k_width != b.k_width:
        problems.append(f"kWidth differs between A ({a.k_width}) and B ({b.k_width})")
    if len({len(a_shape), len(b_shape), len(acc_shape)}) != 1:
        problems.append(f"ranks differ: A {list(a_shape)}, B {list(b_shape)}, accumulator {list(acc_shape)}")
    else:
        *batch, m, k = a_shape
        *batch_b, k_b, n = b_shape
        *batch_c, m_c, n_c = acc_shape
        if k != k_b:
            problems.append(f"K differs: A is {list(a_shape)}, B is {list(b_shape)}")
        if (m, n) != (m_c, n_c) or batch != batch_b or batch != batch_c:
            problems.append(f"A {list(a_shape)} x B {list(b_shape)} does not give the accumulator's "
                            f"{list(acc_shape)}")
    details = {"a_shape": list(a_shape), "b_shape": list(b_shape), "acc_shape": list(acc_shape)}
    return _static("dot_operands", problems, "A, B and the accumulator agree (opIdx, parent, kWidth, shapes)",
                   details)
