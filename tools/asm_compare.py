"""Does layoutcheck score the shared-memory instruction Triton really emits? Compare, per access.

    # 1. asm facts: compile each .ttgir with Triton (its own Python; CPU is enough) and record, per
    #    TTGIR line, the shared-memory instructions of the PTX / AMDGCN whose debug line names it
    /path/to/triton/python tools/asm_compare.py facts specs/kernels/*.ttgir -o tests/verify/asm_facts.json
    # 2. the comparison (layoutcheck's Python; Triton not needed)
    python tools/asm_compare.py compare specs/kernels/*.ttgir --asm tests/verify/asm_facts.json [--json]

Facts format (also the corpus's ``tests/corpus/asm.json``): ``{fixture file: {"target": "hip:gfx950",
..., "lines": {"<ttgir line>": {"<asm instruction>": count}}}}``; fixture files are matched by
path, else by file name. Compiling the TTGIR text itself (``triton.compile(path.ttgir)``) makes the
``.loc`` directives of the assembly name lines of that file.

For every ``bank_conflict_free`` check of a file (one per local_alloc with a value, local_store, local_load,
async copy), and for each side of every ``conversion_cost`` check whose convert_layout goes through shared
memory (rows with ``conversion``: "store" or "load"; the line holds both sides, each compared with the
instructions of its kind; `summary(rows, conversions=True)` counts them), the instruction layoutcheck scores
(``details["asm"]``: ``ld.shared.b128``, ``ldmatrix.x4.trans``, ``cp.async.b128`` on NVIDIA; the AMDGCN
mnemonic, ``ds_read_b64_tr_b16``, on AMD) is compared with the assembly at that op's line, both normalized the
same way (`normalize`): PTX vectors to total bits (``st.shared.v4.b16`` -> ``st.shared.b64``), sign/d16
variants of narrow reads to ``ds_read_u8/u16``. AMD's paired LDS accesses keep their exact names
(``ds_read2st64_b64``, ``ds_load_2addr_b64``, ...): layoutcheck scores the pair LLVM forms
(checker/properties/smem/pairs.py); a plan whose pairs take both forms scores ``plain+stride64`` and wants
both. An access is *compared* when its mapping is unambiguous: its line is not 0, no other shared access op
sits on that line, and the line has shared-memory instructions of the access's kind (loads for a load, writes
or async copies for a store); it *agrees* when those instructions, normalized, are exactly the scored one.

Rules found on Triton 3.9's corpus (tests/corpus, tests/verify/test_corpus_asm.py):

* Only access instructions count (`is_access`): a line may also carry another op's mbarrier.*,
  tcgen05.* (waits, commits), cp.async.commit/wait, cp.async.bulk.*, fences, mapa, LDS atomics, when
  LLVM gave them the access's debug line (a local_store next to a tcgen05 wait: gl_tcgen05_tmem_a).
* AMD async copies with an ``other`` operand: after each direct-to-LDS load Triton stores the
  ``other`` values of the masked lanes with a plain LDS store of the copy's width at the same
  addresses (``global_load_lds_dwordx4`` + ``ds_write_b128``). layoutcheck scores that store as a
  second bank_conflict_free check of the op (``access="fill_store"``); the comparison folds it
  into the copy's row (``fill``) and wants exactly the two instructions.
* LLVM's optimizer may rewrite Triton's vectors (tl_dot_fp32_ieee, FMA dot operand, fp32, on
  cuda:90 / cuda:100: Triton emits 16 ``load <4 x i32>, align 16``; LLVM scalarizes them and
  re-merges the scalars into ``<4 x float>, align 4``, which the NVPTX back end splits again: 48
  ld.shared.b32 + 4 ld.shared.v4.b32; the same TTGIR on cuda:80 keeps 16 v4). layoutcheck scores
  Triton's lowering; the facts' ``triton_llvm`` (Triton's own LLVM IR, before LLVM's optimizer) show
  it. Such a row is ``agrees in Triton's LLVM IR`` (`LLVM_REWROTE`): compared and agreeing, counted
  apart (``llvm_rewrote``), only when Triton's IR is exactly the scored instruction and the
  assembly moves the same bytes.
* LLVM may keep some scored AMD pairs single where layoutcheck does not model why (a flash-attention backward
  read on gfx942 that LLVM's sink pass moves away from the addresses it shares). Such a row is compared and
  agreeing, counted apart (``llvm_unpaired``, `LLVM_UNPAIRED`), only when the singles make up exactly the missing
  pairs. A read after a loop whose lanes' offset may reach it through a phi, as LLVM's code placement decides,
  names the other instruction it may be (``details.alternative``): a row whose assembly is that one, pair for
  pair, is compared and agreeing, counted apart (``llvm_alternative``, `LLVM_ALTERNATIVE`). The reads LLVM
  keeps single for a loop's MFMA/WMMA are scored single (`checker.ttgir.mma_feed`); where LLVM peeled an
  iteration out of that loop, the peeled copy, outside any loop, pairs: such a row agrees, counted apart
  (``llvm_peeled``, `LLVM_PEELED`), when the singles are the scored ones and the pairs whole copies.
* A conversion whose reads LLVM sinks into the first branch of the masked store its result feeds (the check's
  ``sunk_registers``, `checker.ttgir.store_branch`): the sunk reads may carry the store's line (InstCombine gives a
  sunk instruction its user's location), so the load row counts the loads at that line too (``sunk_line``; a 32x64
  bf16 transpose on gfx1250: the two ``ds_load_2addr_stride64_b32`` of the first branch at the store's line).
* Uncompared rows: several accesses on one line (ambiguous); LLVM put one access's instructions on
  a neighbouring access's line, beside the line's own or in their place (`_moved`: ambiguous); no access
  instruction at the line, because LLVM merged two ops' loads into one instruction with no line (``ds_read2_b64`` under
  ``.loc`` line 0: the facts' ``unmapped``) or sank them to their user's line (8-bit operand
  reads next to the dot or the conversion that consumes them). Where Triton's own LLVM IR still
  names the line with plain loads, such a row is checked there (`NO_ASM_IR_AGREES`); intrinsics
  (ldmatrix, transposed LDS reads) are not in it and stay unmapped.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter, defaultdict

SHARED = re.compile(r"^\s*(?:@!?%p\w+\s+)?((?:ld|st)\.shared(?:::cta)?\S*|ldmatrix\S*|stmatrix\S*|cp\.async\.c[ag]\S*"
                    r"|ds_\w+|buffer_load_\w+|global_load_lds_\w+|global_load_async_to_lds_\w+)(.*)$")
LOC = re.compile(r"^\s*\.loc\s+\d+\s+(\d+)\s+\d+")
SKIP_AMD = ("ds_bpermute", "ds_permute", "ds_swizzle", "ds_gws", "ds_nop", "ds_append", "ds_consume")


def asm_instructions(asm: str) -> dict[str, Counter]:
    """Shared-memory instructions of PTX or AMDGCN text by the TTGIR line of their ``.loc``
    (cp.async gets its byte count appended: ``cp.async.cg.shared.global:16``)."""
    lines: dict[str, Counter] = defaultdict(Counter)
    cur = 0
    for text in asm.splitlines():
        m = LOC.match(text)
        if m:
            cur = int(m.group(1))
            continue
        m = SHARED.match(text)
        if not m:
            continue
        ins, rest = m.group(1).rstrip(";"), m.group(2)
        if ins.startswith(SKIP_AMD) or ins.startswith("cp.async.commit") or ins.startswith("cp.async.wait"):
            continue
        if ins.startswith("buffer_load") and not re.search(r"\blds\b", rest):
            continue
        if ins.startswith("cp.async"):
            size = re.search(r"\],\s*(0x[0-9a-fA-F]+|\d+)", rest)
            if size:
                ins += f":{int(size.group(1), 0)}"
        lines[str(cur)][ins] += 1
    return lines


_LLVM_ACCESS = re.compile(r"^\s*(?:%\S+\s*=\s*)?(load|store)\s+(?:volatile\s+)?(.*?)ptr addrspace\(3\).*?"
                          r"align (\d+).*?!dbg !(\d+)")
_LLVM_TYPE = re.compile(r"^(?:<(\d+) x )?(i\d+|half|bfloat|float|double)")
_TYPE_BITS = {"half": 16, "bfloat": 16, "float": 32, "double": 64}


def llvm_shared_accesses(ir: str) -> dict[int, Counter]:
    """{line: Counter} of Triton's own LLVM IR (before LLVM's optimization): its plain shared-memory
    loads and stores (``addrspace(3)``) as ``ld.shared.b128`` / ``st.shared.b32``, with the alignment
    Triton gave them (``@16``), by the line of their debug location. Inline assembly and intrinsics
    (ldmatrix, cp.async, direct-to-LDS) are not listed."""
    locs = {m.group(1): int(m.group(2)) for m in re.finditer(r"^!(\d+) = !DILocation\(line: (\d+)", ir, re.M)}
    out: dict[int, Counter] = defaultdict(Counter)
    for ln in ir.split("\n"):
        m = _LLVM_ACCESS.match(ln)
        if not m:
            continue
        ty = m.group(2).strip()
        if m.group(1) == "store":           # store <ty> <value>, ptr addrspace(3) ...
            ty = ty.split(" ", 1)[0] if not ty.startswith("<") else ty[:ty.index(">") + 1]
        t = _LLVM_TYPE.match(ty)
        if not t:
            continue
        bits = int(t.group(1) or 1) * (_TYPE_BITS.get(t.group(2)) or int(t.group(2)[1:]))
        kind = "ld" if m.group(1) == "load" else "st"
        out[locs.get(m.group(4), 0)][f"{kind}.shared.b{bits}@{m.group(3)}"] += 1
    return out


def facts(paths: list[str]) -> dict:
    """Compile each TTGIR file with Triton and record its shared-memory instructions per line."""
    import triton
    from triton.backends.compiler import GPUTarget
    out = {}
    for path in paths:
        text = open(path, encoding="utf-8").read()
        m = re.search(r'ttg\.target"?\s*=\s*"(\w+):(\w+)"', text)
        tpw = re.search(r'"ttg\.threads-per-warp"\s*=\s*(\d+)', text)
        if not m or not tpw:
            print(f"{path}: no ttg.target / threads-per-warp; skipped", file=sys.stderr)
            continue
        kind, arch = m.group(1), m.group(2)
        target = GPUTarget(kind, int(arch) if kind == "cuda" else arch, int(tpw.group(1)))
        try:
            compiled = triton.compile(path, target=target)
        except Exception as e:  # noqa: BLE001 - report and go on
            print(f"{path}: Triton failed: {type(e).__name__}: {str(e)[:200]}", file=sys.stderr)
            continue
        asm = compiled.asm["ptx" if kind == "cuda" else "amdgcn"]
        lines = asm_instructions(asm)
        out[path] = {"target": f"{kind}:{arch}", "triton": triton.__version__,
                     "lines": {k: dict(sorted(v.items())) for k, v in sorted(lines.items(), key=lambda kv: int(kv[0]))}}
    return out


def normalize(ins: str) -> str:
    """One spelling per instruction kind and width (module docstring)."""
    ins = ins.strip()
    m = re.fullmatch(r"(ld|st)\.shared(?:::cta)?(?:\.v(\d+))?\.[bsuf](\d+)", ins)
    if m:
        return f"{m.group(1)}.shared.b{int(m.group(2) or 1) * int(m.group(3))}"
    m = re.fullmatch(r"(ldmatrix|stmatrix)\.sync\.aligned\.(m\d+n\d+)(?:\.\w+)?\.x(\d)(\.trans)?"
                     r"\.shared(?:::cta)?\.(b\d+)", ins)
    if m:
        return f"{m.group(1)}.x{m.group(3)}{m.group(4) or ''}" + (".b8" if m.group(5) == "b8" else "")
    m = re.fullmatch(r"cp\.async\.c[ag]\.shared(?:::cta)?\.global(?:\.\w+)*(?::(\d+))?", ins)
    if m:
        return f"cp.async.b{int(m.group(1)) * 8}" if m.group(1) else "cp.async"
    if PAIRED.fullmatch(ins):  # LLVM's fused pairs keep their own name: layoutcheck scores them as such
        return ins
    m = re.fullmatch(r"ds_(read|load|write|store)_([bui])(\d+)(?:_d16(?:_hi)?)?", ins)
    if m:
        op, bits = m.group(1), int(m.group(3))
        if op in ("read", "load"):
            return f"ds_{op}_{'u' if bits < 32 else 'b'}{bits}"
        return f"ds_{op}_b{bits}"
    m = re.fullmatch(r"buffer_load_(\w+)", ins)
    if m:
        return f"buffer_load_{m.group(1)}.lds"
    return ins


# AMD's paired LDS accesses (two addresses per lane), as LLVM's SILoadStoreOptimizer names them
PAIRED = re.compile(r"ds_(?:read2|write2|read2st64|write2st64|load_2addr|store_2addr|load_2addr_stride64|"
                    r"store_2addr_stride64)_b(?:32|64)")


def single_of(paired: str) -> str:
    """The single-address instruction of a paired one's width: ds_read2st64_b64 -> ds_read_b64,
    ds_store_2addr_b32 -> ds_store_b32."""
    m = re.fullmatch(r"ds_(read|write|load|store)(?:2st64|2|_2addr_stride64|_2addr)_b(\d+)", paired)
    return f"ds_{m.group(1)}_b{m.group(2)}" if m else paired


def is_load(norm: str) -> bool:
    return norm.startswith(("ld.", "ldmatrix", "ds_read", "ds_load"))


# the instructions a local_alloc / local_store / local_load / async copy is lowered to, normalized; the
# other shared-memory instructions a line may carry (mbarrier.*, tcgen05.*, fences, cp.async.commit/wait,
# cp.async.bulk.*, mapa, tensor_load_to_lds, LDS atomics) belong to other ops LLVM gave the same line
ACCESS = re.compile(r"^(?:(?:ld|st)\.shared\.b\d+|(?:ldmatrix|stmatrix)\.x\d|cp\.async(?:\.b\d+)?$|"
                    r"ds_(?:read|write|load|store)(?:_|2_|2st64_|_2addr_)|global_load_lds_|global_load_async_to_lds_|buffer_load_\w+\.lds$)")


def is_access(norm: str) -> bool:
    return bool(ACCESS.match(norm))


def _facts_for(asm_facts: dict, path: str) -> dict | None:
    if path in asm_facts:
        return asm_facts[path]
    rel = os.path.relpath(path)
    for key, value in asm_facts.items():
        if key == rel or os.path.relpath(key) == rel:
            return value
    name = os.path.basename(path)
    hits = [v for k, v in asm_facts.items() if os.path.basename(k) == name]
    return hits[0] if len(hits) == 1 else None


def _scored_accesses(obs: list, engine: str) -> list[tuple]:
    """(check, direction, its scored figures or the error that kept it from being scored) per access: each
    bank_conflict_free check, and each side of a conversion_cost check whose lowering goes through shared
    memory (direction "store" / "load", the convert_layout's line holding both sides' instructions; "unscored"
    where its cost is not modelled: a conversion between CTAs)."""
    from checker.run import runner
    out = []
    for ob in obs:
        try:
            d = runner.evaluate(ob, engine=engine).details or {}
        except Exception as e:  # noqa: BLE001 - a check that cannot be scored is reported
            side = None if ob.property == "bank_conflict_free" else "unscored"
            out.append((ob, side, f"{type(e).__name__}: {getattr(e, 'message', e)}"))
            continue
        if ob.property == "bank_conflict_free":
            out.append((ob, None, d))
        elif d.get("lowering") == "shared":
            out += [(ob, side, d[side]) for side in ("store", "load")]
    return out


def compare(paths: list[str], asm_facts: dict, engine: str = "f2", triton_version: str | None = None) -> list[dict]:
    """One row per bank_conflict_free check, and per side of a convert_layout through shared memory (a row with
    ``conversion``: "store" or "load"): file, line, op, target, scored, emitted, status. `triton_version`: the
    release whose rules score them (the one that compiled the files); None: each module's syntax decides."""
    from checker.run import runner
    from checker.ttgir.kernel import read_ir_file
    from checker.versions import VersionRequest
    from checker.versions import parse as parse_version
    request = VersionRequest(parse_version(triton_version)) if triton_version else VersionRequest()
    rows = []
    for path in paths:
        fx = _facts_for(asm_facts, path)
        kc = read_ir_file(path, version=request)
        every = [ob for ob in kc.obligations if ob.property == "bank_conflict_free"]
        fills = {(ob.line, ob.op): ob for ob in every if dict(ob.params or ()).get("access") == "fill_store"}
        obs = [ob for ob in every if dict(ob.params or ()).get("access") != "fill_store"]
        accesses = _scored_accesses(obs + [ob for ob in kc.obligations if ob.property == "conversion_cost"], engine)
        per_line = Counter(ob.line for ob, _, _ in accesses)
        for ob, side, d in accesses:
            row = {"file": path, "line": ob.line, "op": ob.op,
                   "target": (fx or {}).get("target") or (ob.hardware.triton_target if ob.hardware else None),
                   "hardware": ob.hardware.name if ob.hardware else None}
            if side is not None:
                row["conversion"] = side
            if isinstance(d, str):
                row.update(scored=None, error=d)
            else:
                row.update(scored=d.get("asm"), mnemonic=d.get("mnemonic"), vector_bytes=d.get("vector_bytes"),
                           conflicts=d.get("conflicts"), instructions=d.get("instructions_per_warp"))
                if d.get("kept_single"):
                    row["kept_single"] = d["kept_single"]
                if d.get("alternative"):
                    row["alternative"] = d["alternative"]
            fill = fills.get((ob.line, ob.op))
            if fill is not None:  # AMD's store of an async copy's `other` values: the same op, one more instruction
                try:
                    row["fill"] = (runner.evaluate(fill, engine=engine).details or {}).get("asm")
                except Exception as e:  # noqa: BLE001
                    row.update(fill=None, error=f"fill store: {type(e).__name__}: {getattr(e, 'message', e)}")
            emitted = Counter()
            if fx is not None:
                for ins, n in (fx.get("lines", {}).get(str(ob.line)) or {}).items():
                    emitted[normalize(ins)] += n
            want_load = side == "load" if side is not None else ob.params and dict(ob.params).get("direction") == "load"
            kind = {k: n for k, n in emitted.items() if is_access(k) and is_load(k) == bool(want_load)}
            if side == "load" and dict(ob.params or ()).get("sunk_registers") and fx is not None:
                row["sunk_line"] = _store_line(path, ob.line)  # reads sunk into the store's branch may take its line
                for ins, n in (fx.get("lines", {}).get(str(row["sunk_line"])) or {}).items():
                    if is_access(normalize(ins)) and is_load(normalize(ins)):
                        kind[normalize(ins)] = kind.get(normalize(ins), 0) + n
            row["emitted"] = dict(kind)
            others = {k: n for k, n in emitted.items() if not is_access(k)}
            if others:
                row["other_instructions"] = others
            if fx is None:
                row["status"] = "no asm facts"
            elif row.get("scored") is None or ("fill" in row and row["fill"] is None):
                row["status"] = "not scored"
            elif per_line[ob.line] > (2 if side is not None else 1):
                row["status"] = "ambiguous (several accesses on the line)"
            elif not kind:
                row["status"] = "no asm at this line"
                ir, llvm = _triton_ir(row, fx, ob.line, bool(want_load)), _as_llvm(row["scored"])
                if ir and llvm:  # LLVM moved or merged them; Triton's IR still names this line
                    row["triton_llvm"] = ir
                    row["status"] = NO_ASM_IR_AGREES if set(ir) == {llvm} else NO_ASM_IR_DIFFERS
            elif ob.line in set((fx or {}).get("ambiguous_lines") or ()):
                row["status"] = "ambiguous (the facts say so)"
            else:
                # facts without cp.async's byte count (the corpus's asm.json) compare the family only
                scored = "cp.async" if set(kind) == {"cp.async"} and row["scored"].startswith("cp.async") \
                    else row["scored"]
                # a plan whose pairs take both forms scores "plain+stride64" (checker/properties/smem/pairs.py)
                want = set(scored.split("+")) | ({row["fill"]} if row.get("fill") else set())
                row["status"] = "agrees" if set(kind) == want else "MISMATCH"
                if row["status"] != "agrees" and _alternative_agrees(row, kind):
                    row["status"] = LLVM_ALTERNATIVE
                elif row["status"] == "MISMATCH" and _llvm_rewrote(row, kind, fx, ob.line):
                    row["status"] = LLVM_REWROTE
                elif row["status"] == "MISMATCH" and _llvm_unpaired(row, kind):
                    row["status"] = LLVM_UNPAIRED
                elif row["status"] == "MISMATCH" and _peeled_pairs(row, kind):
                    row["status"] = LLVM_PEELED
            rows.append(row)
        _moved(rows[len(rows) - len(accesses):])
    return rows


def _store_line(path: str, line: int) -> int | None:
    """The line of the masked tt.store the convert_layout at `line` feeds (`checker.ttgir.store_branch.store_of`)."""
    from checker.limits import read_text
    from checker.syntax.ttgir import read_ttgir
    from checker.ttgir.builder import Builder, KernelChecks
    from checker.ttgir.store_branch import store_of
    for module in read_ttgir(read_text(path), path):
        b = Builder(module, path, None, KernelChecks(path))
        for op in module.operations:
            if op.line == line and op.name == "ttg.convert_layout":
                store = store_of(b, op)
                return store.line if store is not None else None
    return None


LLVM_REWROTE = "agrees in Triton's LLVM IR (LLVM's optimizer re-vectorized it)"
NO_ASM_IR_AGREES = "no asm at this line; agrees in Triton's LLVM IR"
NO_ASM_IR_DIFFERS = "no asm at this line; DIFFERS in Triton's LLVM IR"


LLVM_UNPAIRED = "agrees; LLVM left some of the scored pairs single"
LLVM_ALTERNATIVE = "agrees with the alternative the check names (LLVM's code placement decides)"


def _alternative_agrees(row: dict, kind: dict) -> bool:
    """The emitted instructions are the check's ``alternative`` (a read after a loop whose lanes' offset may come
    through a phi: `bank_conflict_free`'s offset_phi_alternative), instruction by instruction: its kinds, and where
    LLVM fuses only some pairs, that many paired ones and the rest single."""
    alt = row.get("alternative")
    if not alt or set(kind) != set(alt["asm"].split("+")):
        return False
    fused = alt.get("pairs_fused")
    if fused is None:
        return True
    paired = [k for k in kind if PAIRED.fullmatch(k)]
    # instructions_per_warp counts a mix's single accesses where a pair costs its two passes (gfx9), the
    # instructions LLVM issues where it is scored kind by kind (gfx1250)
    return len(paired) == 1 and kind[paired[0]] == fused and \
        sum(kind.values()) in (alt["instructions_per_warp"] - fused, alt["instructions_per_warp"])


def _llvm_unpaired(row: dict, kind: dict) -> bool:
    """The scored paired instruction, or none of it, next to single accesses of its width that make up
    the pairs it lacks: 2 x paired + single = 2 x the scored count. Seen in the corpus inside pipelined
    loops: tl_dot_f16 on gfx942 (one ds_read2st64_b64 and six ds_read_b64 where four pairs were scored:
    LLVM computed the XOR-formed address registers before the loop with the immediate folded in, so
    only the register without XOR part keeps two immediates) and the mxfp4 scales on gfx1250 (two
    ds_load_b32 on one address register, 256 bytes apart, with the other operand's ds_load_tr8_b64
    scheduled between them; the epilogue's copy without them is ds_load_2addr_stride64_b32). The
    pairing rule is LLVM's (checker/properties/smem/pairs.py); where it applies depends on the order
    LLVM gives the block, which the TTGIR does not fix."""
    scored = row.get("scored") or ""
    single = single_of(scored)
    if not PAIRED.fullmatch(scored) or single not in kind or not set(kind) <= {scored, single} \
            or not row.get("instructions"):
        return False
    return 2 * kind.get(scored, 0) + kind[single] == 2 * row["instructions"]


LLVM_PEELED = "agrees in the loop; LLVM peeled an iteration out of it, whose copy pairs"


def _peeled_pairs(row: dict, kind: dict) -> bool:
    """A read scored single because it feeds every MFMA/WMMA of a loop of one block (``kept_single``), whose line
    also holds copies of it in the paired form: LLVM peeled the loop's first iteration(s) (fp8 64x128x16 on gfx942:
    two ds_read_b64 in the loop, one ds_read2st64_b64 before it), and outside the loop the rule does not hold.
    Agreeing when the singles are exactly the scored instructions and the pairs whole copies of them."""
    scored, n = row.get("scored") or "", row.get("instructions") or 0
    pair = [k for k in kind if k != scored]
    if not row.get("kept_single") or kind.get(scored) != n or len(pair) != 1 or not PAIRED.fullmatch(pair[0]) \
            or single_of(pair[0]) != scored:
        return False
    return 2 * kind[pair[0]] % n == 0


def _as_llvm(scored: str) -> str | None:
    """The scored instruction as `triton_llvm` names a plain LLVM load/store (None: an intrinsic or
    inline assembly there: ldmatrix, transposed LDS reads, async copies)."""
    if _bits(scored):
        return scored
    m = re.fullmatch(r"ds_(read|load|write|store)_[bu](\d+)", single_of(scored))
    if m:
        return f"{'ld' if m.group(1) in ('read', 'load') else 'st'}.shared.b{m.group(2)}"
    return None


def _triton_ir(row: dict, fx: dict, line: int, want_load: bool) -> dict[str, int]:
    """Triton's own LLVM loads (or stores) at the line, alignment dropped."""
    out: dict[str, int] = {}
    for k, n in ((fx or {}).get("triton_llvm", {}).get(str(line)) or {}).items():
        k = k.split("@")[0]
        if k.startswith("ld.") == want_load:
            out[k] = out.get(k, 0) + n
    return out


def _bits(norm: str) -> int | None:
    m = re.fullmatch(r"(?:ld|st)\.shared\.b(\d+)(?:@\d+)?", norm)
    return int(m.group(1)) if m else None


def _llvm_rewrote(row: dict, kind: dict, fx: dict, line: int) -> bool:
    """Triton emitted exactly the scored ld/st.shared at this line (``triton_llvm``: its own LLVM IR,
    before LLVM's optimizer), and the assembly moves the same bytes in other widths: LLVM scalarized
    the vectors and re-merged them (tl_dot_fp32_ieee on cuda:90/100: 16 ``load <4 x i32>, align 16``
    become 48 ld.shared.b32 + 4 ld.shared.v4.b32; the same module on cuda:80 keeps 16 v4)."""
    triton = {k.split("@")[0]: n for k, n in ((fx or {}).get("triton_llvm", {}).get(str(line)) or {}).items()}
    scored = row.get("scored") or ""
    if _bits(scored) is None or set(triton) != {scored} or any(_bits(k) is None for k in kind):
        return False
    return sum(_bits(k) * n for k, n in kind.items()) == _bits(scored) * triton[scored]


def _moved(rows: list[dict]) -> None:
    """LLVM may give an access's instructions the debug line of a neighbouring access (two local_loads
    in a row: the first line keeps none, the next has both kinds). Such a line, and the access left
    without instructions whose scored instruction is the extra one, are ambiguous, not mismatches. Where the
    access left without instructions is farther away (a pipelined loop's operand reads spread over the
    epilogue's lines, one of them a conversion's), only the line that received them is ambiguous."""
    for r in rows:
        if r["status"] != "MISMATCH":
            continue
        own = r["scored"] in r["emitted"]
        extra = set(r["emitted"]) - {r["scored"]}
        away = [o for o in rows if o is not r and o["scored"] in extra
                and (o["status"].startswith("no asm at this line") or o["status"] == DONOR)]
        donors = [o for o in away if abs(o["line"] - r["line"]) <= 3]
        if {o["scored"] for o in donors} == extra:
            r["status"] = RECEIVER if own else ONLY_NEIGHBOURS
            for o in donors:
                o["status"] = DONOR
        elif own and {o["scored"] for o in away} == extra:
            r["status"] = MOVED_HERE


RECEIVER = "ambiguous (a neighbouring access's instructions on this line)"
ONLY_NEIGHBOURS = "ambiguous (only a neighbouring access's instructions on this line, none of its own)"
DONOR = "ambiguous (its instructions on a neighbouring line)"


MOVED_HERE = "ambiguous (the instructions of an access without any at its own line are here too)"


def summary(rows: list[dict], conversions: bool = False) -> dict[str, dict[str, int]]:
    """Per target: the accesses (bank_conflict_free checks; with `conversions`, the sides of the conversions
    through shared memory instead), how many were compared, agree, and of those how many only in Triton's LLVM
    IR, are paired AMD instructions, or lost some pairs to LLVM."""
    out: dict[str, dict[str, int]] = {}
    for r in rows:
        if ("conversion" in r) != conversions:
            continue
        s = out.setdefault(r["target"] or "?", {"accesses": 0, "compared": 0, "agree": 0, "llvm_rewrote": 0,
                                                "paired": 0, "llvm_unpaired": 0, "llvm_peeled": 0,
                                                "llvm_alternative": 0})
        s["accesses"] += 1
        if r["status"] in ("agrees", "MISMATCH", LLVM_REWROTE, LLVM_UNPAIRED, LLVM_PEELED, LLVM_ALTERNATIVE):
            s["compared"] += 1
            s["agree"] += r["status"] != "MISMATCH"
            s["llvm_rewrote"] += r["status"] == LLVM_REWROTE
            s["llvm_unpaired"] += r["status"] == LLVM_UNPAIRED
            s["llvm_peeled"] += r["status"] == LLVM_PEELED
            s["llvm_alternative"] += r["status"] == LLVM_ALTERNATIVE
            s["paired"] += r["status"] != "MISMATCH" and bool(PAIRED.fullmatch(r.get("scored") or ""))
    return out


def _table(rows: list[dict]) -> str:
    head = ("file:line", "op", "scored", "emitted", "status")
    body = [(f"{os.path.basename(r['file'])}:{r['line']}", r["op"], str(r.get("scored")),
             ", ".join(f"{k} x{n}" for k, n in sorted(r["emitted"].items())) or "-", r["status"]) for r in rows]
    widths = [max(len(x[i]) for x in [head] + body) for i in range(len(head))]
    fmt = "  ".join(f"{{:{w}}}" for w in widths)
    return "\n".join(fmt.format(*x).rstrip() for x in [head] + body)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("facts", help="compile TTGIR files with Triton and write asm facts")
    f.add_argument("files", nargs="+")
    f.add_argument("-o", "--out", required=True)
    c = sub.add_parser("compare", help="compare layoutcheck's scored instructions with asm facts")
    c.add_argument("files", nargs="+")
    c.add_argument("--asm", required=True, help="asm facts JSON")
    c.add_argument("--json", action="store_true", help="print rows and summary as JSON")
    a = ap.parse_args(argv)
    if a.cmd == "facts":
        data = facts(a.files)
        with open(a.out, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1, sort_keys=True)
            fh.write("\n")
        print(f"{len(data)} files -> {a.out}")
        return 0
    with open(a.asm, encoding="utf-8") as fh:
        asm_facts = json.load(fh)
    rows = compare(a.files, asm_facts)
    s = summary(rows)
    if a.json:
        print(json.dumps({"rows": rows, "summary": s}, indent=1))
    else:
        print(_table(rows))
        print()
        for t, v in sorted(s.items()):
            print(f"{t}: {v['compared']} of {v['accesses']} accesses compared, {v['agree']} agree")
        bad = [r for r in rows if r["status"] == "MISMATCH"]
        for r in bad:
            print(f"MISMATCH {r['file']}:{r['line']} {r['op']}: scored {r['scored']}, emitted {r['emitted']}")
    return 1 if any(r["status"] == "MISMATCH" for r in rows) else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sys.exit(main())
