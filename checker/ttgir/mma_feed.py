"""How the loops around an AMD LDS read decide how Triton 3.9's LLVM pairs it: reads that feed every MFMA/WMMA of a
loop of one basic block (`mma_feed`: LLVM keeps their pairs single, change ``lds_reads_single_for_mma``,
`checker.properties.smem.pairs`, "Loops of one block"), and reads after a loop whose lanes' offset comes through
a phi (`offset_phi`).

A ``ttg.local_load`` feeds every MFMA/WMMA of its loop when

* it sits directly in the body of an ``scf.for`` that lowers to one basic block: no op of the body branches
  (`branches`: nested control flow, assertions and prints, atomics, masked global loads and stores, and on
  gfx9 masked asynchronous copies: each is a conditional block in Triton's AMD lowering; measured on Triton
  3.9.0's AMDGCN, tools/compile_lds_pairs.py), and
* every dot of the body that runs on the matrix cores (``tt.dot`` / ``tt.dot_scaled`` with an ``amd_mfma`` or
  ``amd_wmma`` result) reads its result directly, as operand A or B or as a scale.

`mma_feed` then gives how many of the result's low register bits one instruction reads together (the fewest over
its readers): log2 of the elements one MFMA/WMMA takes per lane from that operand (its tile's non-K dim times K
over the lanes that hold distinct elements: 64 for MFMA, 32 for WMMA v2/v3, 16 for WMMA v1, whose lane halves
repeat the operand; over 2 for an fp4 operand packed two to a byte), or for a scale the 32-bit word each
instruction takes (its K over the scale block). An operand's low register bits are its elements along K in
the order the instruction consumes them (the dot_op layouts' kWidth runs first; a scale layout's word).

`offset_phi`: a ``ttg.local_load`` after an ``scf.for`` of runtime bounds (a loop that may not run) whose body
reads a buffer of the same type into the same layout. Triton computes the lanes' offset for every read; LLVM hoists
the loop's copy into the guarded preheader and GVN merges the read after the loop with it through a phi, through
which known-bits analysis does not see, so the read cannot fold the lane-overlapping XOR constants into immediates
(`checker.properties.smem.pairs.address_registers`; found by editing Triton 3.9.0's LLVM IR: tl_dot_f16's epilogue
on gfx942; change ``lds_offset_phi_unfolded``). From Triton 3.9.0's optimized IR:

* no phi where every such read after the loop is used only in one branch of the ``scf.if`` that ends the loop's
  exit block (through ops of registers only, with nothing after it in the block that writes memory): InstCombine
  sinks the loads and their offset into that branch, which computes it afresh (`_sunk_into`);
* where each such read sinks into a branch of its own, the offset, shared by them, stays in the exit block: a phi,
  likely (`PHI_LIKELY`) on gfx942 / gfx950 (a 3-stage epilogue: 8 of 8 measured reads), possible on RDNA and
  gfx1250 (0 of 6 measured reads on gfx1201);
* a phi or not (`PHI_POSSIBLE`), where some read stays in the exit block: SimplifyCFG may hoist the identical
  copies on both sides of the loop's guard above it, and the phi goes; whether it does follows the order of
  LLVM's instructions, which the TTGIR does not fix (9 of 30 measured reads took the phi, all on RDNA).

The first read after the loop must be in its exit block (no branching op before it), else no phi is merged.
"""

from __future__ import annotations

import re

from ..encodings.amd_mfma import AmdMfmaEncoding
from ..encodings.amd_wmma import AmdWmmaEncoding
from ..layout import is_power_of_two, log2
from ..properties.smem.pairs import amd_generation
from ..syntax.ttgir import Operation, TypeRef, split_top
from ..versions import follows
from .builder import Builder

DOT_OPS = ("tt.dot", "tt.dot_scaled")
# ops whose AMD lowering is a conditional block (or holds one): the loop around them is no longer one block
BRANCHING = frozenset({"scf.if", "scf.for", "scf.while", "scf.index_switch", "scf.execute_region", "cf.br",
                       "cf.cond_br", "tt.assert", "tt.print", "tt.call", "tt.atomic_rmw", "tt.atomic_cas",
                       "amdg.cond_barrier"})
# ops with regions that lower to straight-line code (their bodies are inlined per element)
STRAIGHT_REGIONS = frozenset({"tt.reduce", "tt.scan", "tt.map_elementwise"})
_SCALED = re.compile(r"\btt\.dot_scaled\s+(.*?)\s+lhs\s*=\s*(\w+)\s+rhs\s*=\s*(\w+)")


def mma_feed(b: Builder, op: Operation) -> int | None:
    """The ``mma_feed`` of a ``ttg.local_load`` (module docstring), None where its pairs are fused as anywhere
    else: another target, an older Triton, no loop of one block, a matrix-core dot of the loop that does not
    read it, or a reader whose instruction this module does not size."""
    if b.hw is None or b.hw.vendor != "amd" or not follows("lds_reads_single_for_mma") or not op.results \
            or op.parent is None:
        return None
    loop = b.m.operations[op.parent]
    if loop.name != "scf.for" or op.region != 0:
        return None
    body = [o for o in b.held.get(id(loop), ()) if o.region == 0]
    if any(branches(b, o) for o in body):
        return None
    value = op.results[0]
    bits = []
    for dot in body:
        if dot.name not in DOT_OPS or not _on_matrix_cores(dot):
            continue
        roles = [role for v, role in operand_roles(dot) if v == value]
        if not roles:
            return None                     # an MFMA/WMMA of the loop this read does not feed
        for role in roles:
            g = instruction_register_bits(dot, role)
            if g is None:
                return None
            bits.append(g)
    return min(bits) if bits else None


PHI_LIKELY, PHI_POSSIBLE = "likely", "possible"


def offset_phi(b: Builder, op: Operation) -> str | None:
    """Whether a ``ttg.local_load``'s lanes' offset may reach it through a phi (module docstring; Triton 3.9's LLVM:
    change ``lds_offset_phi_unfolded``): None where it cannot, `PHI_LIKELY` where every read of that type after the
    loop sinks into a branch of its own (the offset stays in the loop's exit block, shared) on 64-lane targets,
    `PHI_POSSIBLE` where some stays in the exit block or on the others (LLVM's code placement decides)."""
    if b.hw is None or b.hw.vendor != "amd" or op.parent is None or not follows("lds_offset_phi_unfolded"):
        return None
    same = _read_type(op)
    if same is None:
        return None
    block = [o for o in b.held.get(id(b.m.operations[op.parent]), ()) if o.region == op.region]
    at = block.index(op)
    loops = [i for i, o in enumerate(block[:at]) if o.name == "scf.for"]
    if not loops:
        return None
    loop = block[loops[-1]]
    if not _runtime_bounds(b, loop) or not any(_read_type(inner) == same for inner in b.held.get(id(loop), ())
                                                if inner.region == 0):
        return None
    after = block[loops[-1] + 1:]
    reads = [i for i, o in enumerate(after) if _read_type(o) == same and b.users.get(o.results[0])]
    if not reads or any(branches(b, o) for o in after[:reads[0]]):
        return None              # the first such read is not in the loop's exit block: no phi to merge with
    sites = [_sunk_into(b, after, i) for i in reads]
    if None in sites:
        return PHI_POSSIBLE
    if len(set(sites)) == 1:
        return None
    return PHI_LIKELY if b.hw.warp_size == 64 else PHI_POSSIBLE


# ops that lower to register arithmetic only: InstCombine may sink them (and the loads they read) into the one
# successor block that holds all their users
PURE_PREFIXES = ("arith.", "math.")
PURE = frozenset({"tt.bitcast", "tt.reshape", "tt.broadcast", "tt.expand_dims", "tt.trans", "tt.splat", "tt.join",
                  "tt.split", "tt.fp_to_fp", "amdg.scaled_upcast_fp4", "amdg.scaled_upcast_fp8", "ttg.local_load"})


def _pure(b: Builder, o: Operation) -> bool:
    return (o.name.startswith(PURE_PREFIXES) or o.name in PURE) and not b.held.get(id(o))


def _sunk_into(b: Builder, after: list[Operation], at: int) -> tuple[int, int] | None:
    """The scf.if region (id of the op, region index) LLVM sinks the read ``after[at]`` into, or None where it
    stays in its block: InstCombine moves a load and the pure ops fed by it into the block's one successor when
    every use lies there (the first region of the scf.if that ends the block, taken only from it) and nothing
    after the load in the block writes memory."""
    nxt = next((j for j in range(at + 1, len(after)) if branches(b, after[j])), None)
    if nxt is None or after[nxt].name != "scf.if" or not all(_pure(b, o) for o in after[at + 1:nxt]):
        return None
    target = after[nxt]
    inside = {id(o): o.region for o in b.held.get(id(target), ())}
    between = {id(o) for o in after[at + 1:nxt]}
    regions = set()
    work = list(after[at].results)
    while work:
        for user in b.users.get(work.pop(), ()):
            if id(user) in between:
                work.extend(user.results)
            elif id(user) in inside:
                regions.add(inside[id(user)])
            else:
                return None
    return (id(target), regions.pop()) if len(regions) == 1 else None


def _read_type(op: Operation) -> tuple | None:
    """A local_load's (memdesc encoding, shape, result encoding, shape, element type); None for other ops."""
    if op.name != "ttg.local_load":
        return None
    m = [t for t in op.operand_types if t.kind == "memdesc"]
    t = [t for t in op.result_types if t.kind == "tensor"]
    if len(m) != 1 or len(t) != 1:
        return None
    return m[0].encoding_text, tuple(m[0].shape), t[0].encoding_text, tuple(t[0].shape), t[0].element_type


def _runtime_bounds(b: Builder, loop: Operation) -> bool:
    """An scf.for whose lower or upper bound is not an arith.constant (it may run zero times)."""
    bounds = loop.operands[:2]
    return len(bounds) == 2 and any((d := b.defining_op(v)) is None or d.name != "arith.constant" for v in bounds)


def branches(b: Builder, o: Operation) -> bool:
    """Whether `o` makes its block a conditional one in Triton's AMD lowering (module docstring)."""
    if o.name in BRANCHING:
        return True
    if o.name == "tt.load":
        return len(o.operands) >= 2 or "boundaryCheck" in o.text        # a mask (and other), or a block pointer's
    if o.name == "tt.store":
        return len(o.operands) >= 3 or "boundaryCheck" in o.text
    if o.name == "ttg.async_copy_global_to_local":   # gfx9 guards the masked copy; gfx1250's copy takes the mask
        return bool(re.search(r"\bmask\s+%", o.text)) and amd_generation(b.hw) < 12
    return o.name not in STRAIGHT_REGIONS and bool(b.held.get(id(o)))


def _on_matrix_cores(dot: Operation) -> bool:
    results = [t for t in dot.result_types if t.kind == "tensor"]
    return bool(results) and isinstance(results[0].encoding, (AmdMfmaEncoding, AmdWmmaEncoding))


def operand_roles(dot: Operation) -> list[tuple[str, str]]:
    """(SSA value, role) of a dot's operands: ``a``, ``b``, ``acc``, and for tt.dot_scaled ``a_scale``,
    ``b_scale`` where it has them."""
    return [(v, role) for v, (role, _) in zip(dot.operands, _roles(dot))]


def _roles(dot: Operation) -> list[tuple[str, TypeRef | None]]:
    """Each operand's role and type, in the order of the op's operands (the accumulator's type: None)."""
    tensors = [t for t in dot.operand_types if t.kind == "tensor"]
    if dot.name == "tt.dot":
        names = ["a", "b"]
    else:
        m = _SCALED.search(dot.text)
        parts = split_top(m.group(1)) if m else []
        if len(parts) != 3:
            return []
        names = ["a"] + (["a_scale"] if re.search(r"\bscale\b", parts[0]) else []) + ["b"] \
            + (["b_scale"] if re.search(r"\bscale\b", parts[1]) else [])
    if len(tensors) < len(names):
        return []
    return [(n, t) for n, t in zip(names, tensors)] + [("acc", None)]


def instruction_register_bits(dot: Operation, role: str) -> int | None:
    """log2 of the registers of operand `role` one MFMA/WMMA instruction of `dot` reads per lane (module
    docstring); None for the accumulator, a parent without K in its instrShape, or a count that is no power
    of two."""
    parent = dot.result_types[0].encoding
    shape = tuple(getattr(parent, "instr_shape", ()))
    types = dict(_roles(dot))
    if role not in ("a", "b", "a_scale", "b_scale") or len(shape) < 3 or role not in types:
        return None
    k = shape[2]
    formats = _SCALED.search(dot.text).groups()[1:] if dot.name == "tt.dot_scaled" else ("", "")
    side = role[0]
    packed = 2 if formats[side == "b"] == "e2m1" else 1      # fp4, two to an i8 along K
    if role in ("a", "b"):
        lanes = 64 if isinstance(parent, AmdMfmaEncoding) else 16 if parent.version == 1 else 32
        elements = shape[0 if side == "a" else 1] * k // lanes // packed
    else:                                   # a scale: the K its word covers over the scale block
        data, scale = types.get(side), types[role]
        if data is None or not scale.shape[-1]:
            return None
        k_full = (data.shape[-1] if side == "a" else data.shape[-2]) * packed
        block = k_full // scale.shape[-1]
        elements = k // block if block else 0
    return log2(elements) if elements >= 1 and is_power_of_two(elements) else None
