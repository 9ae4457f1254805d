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

An operand whose parent is not P passes where Triton's ``inferDotOpEncoding``
lets it (`_other_parent`: a wgmma A operand of another NVIDIA MMA parent whose
layout equals dot_op(0, P, k); a WMMA parent differing in its CGA layout).

where a (and b) may instead be a shared memory descriptor (``warp_group_dot``
reads A or B from shared memory: the accumulator is then NVIDIA MMA v3 and the
shared layout an NVMMA one, nvmma_shared or its shared_linear form, whose CGA
does not split K over CTAs: wgmma reads its own CTA's shared memory).

Both return a `Result` with no engine verdicts; a failure's explanation names
the rule that is broken. An encoding that is valid but not modelled (e.g. a
partitioned layout over a padded one) raises `NotModelled`: no verdict.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from .. import f2
from ..encodings import lower
from ..encodings.amd_wmma import AmdWmmaEncoding
from ..encodings.base import Encoding
from ..encodings.dot_operand import DotOperandEncoding
from ..encodings.nvidia_mma import NvidiaMmaEncoding
from ..errors import CheckerError, NotModelled
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


def _other_parent(name: str, op: DotOperandEncoding, acc: Encoding, shape: Sequence[int]) -> list[str]:
    """An operand whose parent is not the accumulator's encoding (Triton's ``inferDotOpEncoding``):

    - a Hopper (MMA v3) accumulator takes an A operand with any NVIDIA MMA parent (chained wgmma dots
      keep A's parent, whose instrShape N differs); layoutcheck also asks that A holds its elements where
      the accumulator's own dot operand would (equal LinearLayouts at A's shape), since wgmma reads A's
      registers as that fragment;
    - an AMD WMMA parent may differ from the accumulator in its CGA layout only;
    - otherwise Triton rejects it ("Incompatible parent encoding")."""
    if isinstance(acc, NvidiaMmaEncoding) and acc.version_major == 3 and op.op_idx == 0:
        if not isinstance(op.parent, NvidiaMmaEncoding):
            return [f"{name}'s parent must be an NVIDIA MMA encoding for a wgmma accumulator, got {op.parent.kind}"]
        expected = DotOperandEncoding(op.op_idx, acc, op.k_width)
        try:
            if lower(op, shape) == lower(expected, shape):
                return []
        except CheckerError as e:
            return [f"{name}'s layout cannot be compared with the accumulator's operand layout at "
                    f"{list(shape)}: {e.message}"]
        return [f"{name}'s parent is not the accumulator's encoding and {name} holds its elements elsewhere "
                f"than the accumulator's dot operand layout would at {list(shape)}"]
    if isinstance(acc, AmdWmmaEncoding) and isinstance(op.parent, AmdWmmaEncoding) and \
            dataclasses.replace(op.parent, cga_layout=acc.cga_layout) == acc:
        return []                       # the CGA layouts: `_wmma_cga`
    return [f"{name}'s parent is not the accumulator's encoding"]


def _wmma_cga(a: Encoding, b: Encoding, acc: Encoding) -> list[str]:
    """Multi-CTA WMMA (Triton's ``verifyDotOpEncodingCompatibility``): the accumulator's CGA layout is
    invertible (no zero and no repeated basis), A's (the dot operand's own CGA layout: its parent's with
    K broadcast) is it with dim1 broadcast (dim1 components zero), B's with dim0 broadcast."""
    if not (isinstance(acc, AmdWmmaEncoding) and all(
            isinstance(x, DotOperandEncoding) and isinstance(x.parent, AmdWmmaEncoding) for x in (a, b))):
        return []
    bases = [tuple(v) for v in acc.cga_layout]
    packed = [sum(c << (8 * i) for i, c in enumerate(v)) for v in bases]
    if f2.rank(packed) != len(packed):
        return ["the accumulator's CGA layout broadcasts or repeats rows (it must be invertible)"]
    problems = []
    for name, x, dim in (("operand 0", a, 1), ("operand 1", b, 0)):
        want = tuple(tuple(0 if i == dim else c for i, c in enumerate(v)) for v in bases)
        got = tuple(tuple(v) for v in x.cga_layout)      # the operand's own: its parent's, K broadcast
        if got != want:
            problems.append(f"{name}'s CGA layout {[list(v) for v in got]} is not the accumulator's "
                            f"with dim{dim} broadcast {[list(v) for v in want]}")
    return problems


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
            else:
                problems += _wgmma_k_split(name, op, a_shape if idx == 0 else b_shape, idx)
            continue
        if not isinstance(op, DotOperandEncoding):
            problems.append(f"{name} must be a dot_op encoding, got {op.kind}")
            continue
        if op.op_idx != idx:
            problems.append(f"{name} has opIdx = {op.op_idx}, expected {idx}")
        elif op.parent != acc:
            shape = a_shape if idx == 0 else b_shape
            problems += _other_parent(name, op, acc, shape)
    problems += _wmma_cga(a, b, acc)
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


def _wgmma_k_split(name: str, op: Encoding, shape: Sequence[int], idx: int) -> list[str]:
    """wgmma reads a shared operand from its own CTA's shared memory: the operand's CGA must not split K (A's
    last dim, B's second to last) over CTAs: a CGA basis along K inside the operand's shape (the CGA clamped to
    the shape, as the lowering clamps it) puts each half of K in another CTA. Triton 3.5 and 3.6 compile such a
    dot (a 2-CTA matmul with a transposed A tile) and 3.7's lowering asserts on it (DotOpMmaSmemLoader:
    ``block == 0``). Read off the CGA alone, not a lowering: the operand may be a view of K narrower than the
    layout's block shape (a K=32 dot split into two K=16 wgmmas over a 16x64 subslice of a 32x64 buffer)."""
    k = len(shape) - 1 if idx == 0 else len(shape) - 2
    cga = getattr(op, "cga_layout", ())
    bases = cga() if callable(cga) else cga
    n = 1 << sum(1 for b in bases if 0 < b[k] < shape[k])
    if n == 1:
        return []
    return [f"{name}'s CGA splits K into {n} CTAs: wgmma reads {name} from its own CTA's shared memory, which "
            f"holds 1/{n} of the K it needs (Triton 3.7's lowering asserts on it)"]


def decide(check) -> Result:
    """A TTGIR check of ``well_formed`` (lanes, warps and CTAs from the module) or ``dot_operands`` (one dot's
    A, B and accumulator)."""
    p = check.param
    if check.property == "dot_operands":
        return dot_operands(check.operand("a"), check.operand("b"), check.operand("acc"), p("a_shape"),
                            p("b_shape"), check.shape)
    return well_formed(check.operand("layout"), check.shape, lanes=p("threads_per_warp"), warps=p("warps") or (),
                       ctas=p("num_ctas"))
