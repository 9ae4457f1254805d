"""Compare the vector width layoutcheck predicts for every global access with what Triton emits (issue 30).

    .venv/bin/python tools/global_compare.py tests/corpus --facts tests/verify/global_facts.json \
        [--targets cuda80,cuda90,cuda100,gfx942,gfx950,gfx1250] [--jobs 2] [--cache /tmp/emitted]
    .venv/bin/python tools/global_compare.py --check tests/verify/global_facts.json      # no Triton needed

Each TTGIR fixture (``tests/corpus/<case>.<target>.ttgir``) is compiled again by the installed Triton from its
own text, with every ``loc(...)`` removed and every ``#loc`` line blanked, so that MLIR gives each operation
the location of its own line in that file: the debug locations of the generated code then name fixture
lines. Each fixture is compiled in a child process of its own (``--emit``: a fixture Triton's C++ aborts on is
recorded as an error, the run goes on), ``--jobs`` at a time; ``--cache`` keeps each fixture's instructions per
line for the next run. The instructions of each line of a global access (``ACCESS_OPS``: ``tt.load`` /
``tt.store``, ``amdg.buffer_load`` / ``buffer_store`` / ``buffer_atomic_rmw``, ``ttg.async_copy_global_to_local``,
``amdg.buffer_load_to_local``, ``tt.atomic_rmw`` / ``tt.atomic_cas``) are read

* on NVIDIA from Triton's LLVM IR (``compiled.asm["llir"]``): the ``ld.global`` / ``st.global`` /
  ``atom.global`` / ``cp.async.c[ag].shared.global`` (with its cp-size) inline assembly Triton's lowering
  emitted, each with its ``!dbg`` line (the PTX ``.loc`` before an inline asm block is the last location LLVM
  printed, often a neighbour's);
* on AMD from the AMDGCN (``compiled.asm["amdgcn"]``): ``global_load_*`` / ``global_store_*`` /
  ``global_atomic_*`` / ``buffer_*`` under the current ``.loc``, the direct-to-LDS forms included
  (``global_load_lds_dwordx4``, ``global_load_async_to_lds_b128``, ``buffer_load_dword ... lds``).

The bytes per lane of those instructions (every instruction of the line the same width, else the line is
``mixed``) are compared with the check's ``details.vector_bytes`` (`checker.properties.coalesced`). The facts
file stores, per fixture and line, the op, the predicted instruction and bytes, and the emitted opcodes;
``--check`` recomputes the predictions from the fixtures (layoutcheck only) and compares them with the stored
emitted bytes, exit 1 on a disagreement.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

ACCESS_OPS = ("tt.load", "tt.store", "amdg.buffer_load", "amdg.buffer_store", "ttg.async_copy_global_to_local",
              "amdg.buffer_load_to_local", "tt.atomic_rmw", "tt.atomic_cas", "amdg.buffer_atomic_rmw")


def strip_locations(text: str) -> str:
    """The TTGIR with every ``loc(...)`` removed and every ``#loc`` alias line blanked (lines keep their
    numbers)."""
    out = []
    for line in text.split("\n"):
        if line.startswith("#loc"):
            out.append("")
            continue
        res, i = [], 0
        while True:
            j = line.find("loc(", i)
            if j < 0:
                res.append(line[i:])
                break
            if j > 0 and (line[j - 1].isalnum() or line[j - 1] in "_#."):
                res.append(line[i:j + 4])
                i = j + 4
                continue
            res.append(line[i:j])
            depth, k = 0, j + 3
            while k < len(line):
                if line[k] == "(":
                    depth += 1
                elif line[k] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                k += 1
            i = k + 1
        out.append("".join(res).rstrip())
    return "\n".join(out)


# ------------------------------------------------------------------------------ emitted instructions

_PTX_GLOBAL = re.compile(r"(?<![A-Za-z_.])((?:ld|st|atom|red)\.global(?:\.[\w:]+)*)")      # after `\09` in asm text
# cp.async.{ca,cg}.shared.global [ dst ], [ src ], cp-size[, src-size]: keyed with its cp-size in bytes
_CP_ASYNC = re.compile(r"(cp\.async\.c[ag]\.shared\.global)\s*\[[^\]]*\],\s*\[[^\]]*\],\s*(0x[0-9a-fA-F]+|\d+)")
_DBG = re.compile(r"!dbg !(\d+)")
_DILOC = re.compile(r"^!(\d+) = !DILocation\(line: (\d+)")
_GCN = re.compile(r"^\s*((?:global|buffer)_(?:load|store|atomic)_\w+)")


def ptx_bytes(opcode: str) -> int:
    """Bytes per lane of ``ld.global[...].vN.bW`` (W bits per word, N words), of ``cp.async... 16`` (its
    cp-size) and of ``atom.global...[.vN].f32`` / ``.f16x2`` (a packed pair: 4 bytes)."""
    if opcode.startswith("cp.async"):
        return int(opcode.split()[-1])
    if re.search(r"\.b?f16x2(?:\.|$)", opcode):
        n = re.search(r"\.v(\d+)\.", opcode + ".")
        return (int(n.group(1)) if n else 1) * 4
    n = re.search(r"\.v(\d+)\.", opcode + ".")
    w = re.search(r"\.(?:bf|[bsuf])(\d+)(?:\.|$)", opcode)
    return (int(n.group(1)) if n else 1) * (int(w.group(1)) if w else 32) // 8


def gcn_bytes(opcode: str) -> int:
    """Bytes per lane of ``global_load_dwordx4``, ``buffer_store_short``, ``global_load_ubyte``,
    ``global_load_b128`` (gfx12 names), ``global_load_lds_dwordx4``, ``global_load_async_to_lds_b64``,
    ``global_atomic_add_f32`` / ``global_atomic_pk_add_f16`` (4), ``..._x2`` / ``_u64`` / ``_f64`` atomics (8)."""
    if "_atomic_" in opcode:
        return 8 if re.search(r"_x2$|64$", opcode) else 4
    if re.search(r"dwordx(\d)", opcode):
        return 4 * int(re.search(r"dwordx(\d)", opcode).group(1))
    if re.search(r"_[bui](\d+)$", opcode):          # gfx11+: _b128, _u16, _u8, _i8
        return int(re.search(r"_[bui](\d+)$", opcode).group(1)) // 8
    if "dword" in opcode:
        return 4
    if "short" in opcode or "d16" in opcode:
        return 2
    if "byte" in opcode:
        return 1
    return 0


def nvidia_instructions(llir: str) -> dict[int, collections.Counter]:
    """{TTGIR line: Counter(opcode)} of the global ld/st inline asm in Triton's LLVM IR."""
    lines = {}
    for ln in llir.split("\n"):
        m = _DILOC.match(ln)
        if m:
            lines[m.group(1)] = int(m.group(2))
    out: dict[int, collections.Counter] = collections.defaultdict(collections.Counter)
    for ln in llir.split("\n"):
        if " asm " not in ln or ".global" not in ln:
            continue
        d = _DBG.search(ln)
        at = lines.get(d.group(1), 0) if d else 0
        for op in _PTX_GLOBAL.findall(ln):
            out[at][op] += 1
        for op, size in _CP_ASYNC.findall(ln):
            out[at][f"{op} {int(size, 0)}"] += 1
    return out


def amd_instructions(gcn: str) -> dict[int, collections.Counter]:
    """{TTGIR line: Counter(opcode)} of global / buffer loads and stores in the AMDGCN (``.loc`` of file 1)."""
    out: dict[int, collections.Counter] = collections.defaultdict(collections.Counter)
    line = 0
    for raw in gcn.split("\n"):
        s = raw.strip()
        if s.startswith(".loc"):
            m = re.match(r"\.loc\s+(\d+)\s+(\d+)", s)
            line = int(m.group(2)) if m else 0
            continue
        m = _GCN.match(raw)
        if m:     # the direct-to-LDS forms (global_load_lds_*, buffer_load_* ... lds) kept, marked
            lds = " lds" in raw and "lds" not in m.group(1)
            out[line][m.group(1) + (" lds" if lds else "")] += 1
    return out


def compile_fixture(path: Path, target: str) -> dict[int, collections.Counter]:
    """The emitted instructions per TTGIR line, compiled in a child process (a fixture Triton's C++ aborts
    on must not end the run): `emit` there, its JSON read back; a failure raises RuntimeError with the
    child's last error line."""
    import subprocess
    r = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--emit", str(path), target],
                       capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        tail = [x for x in (r.stderr or "").splitlines() if x.strip()]
        err = next((x for x in reversed(tail) if "error" in x.lower()), tail[-1] if tail else f"exit {r.returncode}")
        raise RuntimeError(re.sub(r"[\w/.-]*/(?=[\w.-]+\.ttgir)", "", err.strip()))     # no temporary folder
    got = json.loads(r.stdout.strip().splitlines()[-1])
    return {int(k): collections.Counter(v) for k, v in got.items()}


def emit(path: Path, target: str) -> dict[int, collections.Counter]:
    """Compile one fixture with the installed Triton (in this process) and read its instructions per line."""
    import triton
    from triton.backends.compiler import GPUTarget
    text = strip_locations(path.read_text())
    if target.startswith("cuda"):
        gt = GPUTarget("cuda", int(target[4:]), 32)
    else:
        gt = GPUTarget("hip", target, 64)
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / path.name
        f.write_text(text)
        k = triton.compile(str(f), target=gt)
    return nvidia_instructions(k.asm["llir"]) if target.startswith("cuda") else amd_instructions(k.asm["amdgcn"])


# ------------------------------------------------------------------------------ predictions


def predictions(path: Path) -> dict[int, dict]:
    """{line: {op, instruction, vector_bytes, status, ...}} of every coalesced check of one fixture."""
    from checker.registry import PROPERTIES
    from checker.ttgir.kernel import read_ir_file
    kc = read_ir_file(str(path))
    out = {}
    for ob in kc.obligations:
        if ob.property != "coalesced":
            continue
        r = PROPERTIES["coalesced"].run(ob, "f2", None)
        out[ob.line] = {"op": ob.op, "instruction": r.details["instruction"],
                        "vector_bytes": r.details["vector_bytes"], "status": r.status,
                        "sectors": r.details.get("sectors"), "min_sectors": r.details.get("min_sectors")}
    return out


def _emitted(path: Path, target: str, cache: Path | None = None):
    """compile_fixture's answer, or the error text (a string) of a fixture Triton does not re-read; kept in
    `cache` (``<fixture>.json``) when given."""
    f = cache / (path.name + ".json") if cache is not None else None
    if f is not None and f.exists():
        got = json.loads(f.read_text())
        if isinstance(got, str):
            got = re.sub(r"[\w/.-]*/(?=[\w.-]+\.ttgir)", "", got)
        return got if isinstance(got, str) else {int(k): collections.Counter(v) for k, v in got.items()}
    try:
        got = compile_fixture(path, target)
    except Exception as e:          # noqa: BLE001  (a fixture Triton does not re-read: recorded, not fatal)
        got = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:200]
    if f is not None:
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(json.dumps(got if isinstance(got, str) else {str(k): dict(v) for k, v in got.items()}))
    return got


def compare_one(path: Path, target: str, emitted=None) -> dict:
    pred = predictions(path)
    if emitted is None:
        emitted = _emitted(path, target)
    if isinstance(emitted, str):
        return {"error": emitted, "lines": {}}
    lines = {}
    for ln, p in sorted(pred.items()):
        ops = dict(emitted.get(ln, {}))
        widths = {ptx_bytes(o) if target.startswith("cuda") else gcn_bytes(o) for o in ops}
        lines[str(ln)] = {**p, "emitted": ops,
                          "emitted_bytes": (next(iter(widths)) if len(widths) == 1 else
                                            ("mixed" if widths else None))}
    return {"lines": lines}


def agreement(facts: dict) -> tuple[int, int, list]:
    """(compared, agreeing, disagreements) over the lines whose emitted width is one number."""
    compared = agree = 0
    bad = []
    for name, f in sorted(facts.items()):
        for ln, x in f.get("lines", {}).items():
            if not isinstance(x.get("emitted_bytes"), int):
                continue
            compared += 1
            if x["emitted_bytes"] == x["vector_bytes"]:
                agree += 1
            else:
                bad.append((name, int(ln), x["op"], x["instruction"], x["vector_bytes"], x["emitted"]))
    return compared, agree, bad


def check_facts(facts_path: Path, corpus: Path) -> int:
    """Recompute the predictions (no Triton) and compare with the stored emitted widths."""
    facts = json.loads(facts_path.read_text())
    stale = []
    for name, f in sorted(facts.items()):
        pred = predictions(corpus / name)
        for ln, x in f.get("lines", {}).items():
            p = pred.get(int(ln))
            if p is None or p["vector_bytes"] != x["vector_bytes"]:
                stale.append((name, ln, x["vector_bytes"], p and p["vector_bytes"]))
                x["vector_bytes"] = p["vector_bytes"] if p else None
    compared, agree, bad = agreement(facts)
    print(f"{compared} accesses compared with the assembly, {agree} agree")
    for b in bad:
        print("  disagree:", b)
    for s in stale:
        print("  prediction changed:", s)
    return 0 if agree == compared and not stale else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus", nargs="?", default=str(ROOT / "tests" / "corpus"))
    ap.add_argument("--targets", default="cuda80,cuda90,cuda100,gfx942,gfx950,gfx1250")
    ap.add_argument("--only", default="*", help="fnmatch pattern over case names")
    ap.add_argument("--facts", help="write the facts here (JSON)")
    ap.add_argument("--check", help="compare a stored facts file's emitted widths with fresh predictions")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="fixtures compiled at once")
    ap.add_argument("--cache", help="a folder keeping each fixture's emitted instructions (reused when there)")
    ap.add_argument("--emit", nargs=2, metavar=("TTGIR", "TARGET"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.emit:      # the child of `compile_fixture`: one JSON line {line: {opcode: count}}
        got = emit(Path(args.emit[0]), args.emit[1])
        print(json.dumps({str(k): dict(v) for k, v in got.items()}))
        return 0
    corpus = Path(args.corpus)
    if args.check:
        return check_facts(Path(args.check), corpus)
    import fnmatch
    from concurrent.futures import ThreadPoolExecutor
    targets = args.targets.split(",")
    todo = []
    for path in sorted(corpus.glob("*.ttgir")):
        case, tag = path.name.split(".")[:2]
        if tag not in targets or not fnmatch.fnmatch(case, args.only):
            continue
        text = path.read_text()
        if not any(re.search(rf"\b{re.escape(o)}\b", text) for o in ACCESS_OPS):
            continue
        todo.append((path, tag))
    cache = Path(args.cache) if args.cache else None
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        emitted = dict(zip([p.name for p, _ in todo], pool.map(lambda pt: _emitted(pt[0], pt[1], cache), todo)))
    facts = {}
    for path, tag in todo:
        facts[path.name] = compare_one(path, tag, emitted[path.name])
        print(path.name, len(facts[path.name]["lines"]), facts[path.name].get("error", ""), flush=True)
    compared, agree, bad = agreement(facts)
    print(f"{compared} accesses compared with the assembly, {agree} agree")
    for b in bad:
        print("  disagree:", b)
    if args.facts:
        Path(args.facts).write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n")
    return 0 if agree == compared else 1


if __name__ == "__main__":
    sys.exit(main())
