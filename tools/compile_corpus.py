"""Compile the real-kernel corpus (issue 10): Triton and Gluon kernels -> TTGIR fixtures + assembly facts.

    /work/tvenv/bin/python tools/compile_corpus.py --out tests/corpus          # Triton 3.9, CPU only
    /work/tvenv/bin/python tools/compile_corpus.py --out tests/corpus --only 'gl_*' --targets cuda90
    /work/tvenv/bin/python tools/compile_corpus.py --out tests/corpus_rdna --targets gfx1100 gfx1201   # RDNA3/4

The kernels live in ``tools/corpus_kernels/*.py``; each module lists its cases in ``CASES``
(``corpus_kernels.case(...)``): a ``@triton.jit`` or ``@gluon.jit`` function, argument types,
constexprs, compile options and the targets it is meant for.  Every (case, target) pair is
compiled with ``triton.compile(ASTSource|GluonASTSource(fn, signature, constexprs, attrs),
target=GPUTarget(...))`` all the way to PTX/cubin or AMDGCN/hsaco; ``attrs`` marks pointers and
i32 arguments 16-divisible as compile_kernels.py does.  A pair that Triton refuses is skipped and
the reason (the exception's first line) is printed and kept in ``skipped.json``.

Outputs, in ``--out``:

* ``<case>.<target>.ttgir``: Triton's TTGIR text WITH debug locations (``loc(...)`` and the
  ``#locN = loc("file.py":line:col)`` aliases), Python paths made relative to the repository
  (``tools/corpus_kernels/foo.py``) or to site-packages (``triton/language/standard.py``), after
  a two-line ``//`` header (what, for which target, with which parameters; the command).
* ``asm.json``: per fixture the target, num_warps, num_ctas, threads_per_warp, Triton's
  ``metadata.shared`` (bytes) and, per TTGIR line of the fixture file, the shared-memory
  instructions (PTX or AMDGCN opcodes with static counts) that the line's op emitted; under
  ``triton_llvm`` the plain shared-memory loads/stores of Triton's own LLVM IR (the module it hands
  to LLVM's optimizer), ``ld.shared.b128@16`` (bits, alignment), per line: what Triton emitted
  before LLVM rewrote anything (`llvm_shared_accesses`).

The line mapping: each pair is compiled a second time with ``knobs.compilation.use_ir_loc =
"ttgir"`` (Triton's USE_IR_LOC): Triton writes the TTGIR, the same text as the fixture below its
header, to a file and relocates every op to its own line there (MLIR's location snapshot), so the
``.loc`` directives of the PTX/AMDGCN name TTGIR lines; fixture line = snapshot line + 2.  No
re-parse is involved (re-parsing printed TTGIR aborts for some gfx1250 WMMA layouts).  The
snapshot compile is checked against the first (same text, same multiset of shared-memory
instructions, same ``shared``): ``recompile_matches``.  Instructions under a ``.loc`` with line 0
are counted under ``"unmapped"``; mapped lines that do not start an op are ``"ambiguous_lines"``;
lines whose op does not itself touch shared memory (LLVM kept a neighbour's location on a merged
or moved instruction) are ``"foreign_lines"``.

Triton is needed only here, never by layoutcheck.  Kernels are written in the spirit of
Triton's tutorials and tests, not copied.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import fnmatch
import importlib
import io
import json
import os
import re
import sys
import tempfile
import time
import warnings

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
warnings.filterwarnings("ignore")

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler.compiler import make_backend  # noqa: E402
from triton.experimental.gluon._runtime import GluonASTSource  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import corpus_kernels  # noqa: E402
from asm_compare import llvm_shared_accesses  # noqa: E402
from corpus_kernels import MODULES  # noqa: E402

TARGETS = {
    "cuda80": GPUTarget("cuda", 80, 32),
    "cuda90": GPUTarget("cuda", 90, 32),
    "cuda100": GPUTarget("cuda", 100, 32),
    "gfx942": GPUTarget("hip", "gfx942", 64),
    "gfx950": GPUTarget("hip", "gfx950", 64),
    "gfx1250": GPUTarget("hip", "gfx1250", 32),
    # RDNA3 / RDNA4 (the gfx11 / gfx12 presets): every case meant for all targets is compiled for them too when
    # asked for by --targets (tests/corpus_rdna)
    "gfx1100": GPUTarget("hip", "gfx1100", 32),
    "gfx1201": GPUTarget("hip", "gfx1201", 32),
}
RDNA = ("gfx1100", "gfx1201")

# ---------------------------------------------------------------------------------------------
# locations


def relativize(text: str) -> str:
    """Python paths in locations relative to the repository root, or to site-packages for Triton."""
    text = text.replace(f'"{ROOT}/', '"')
    return re.sub(r'"[^"\n]*/site-packages/', '"', text)


_OP_LINE = re.compile(r"^\s*(?:%[^=]*=\s*)?(?:\"?[a-z_][a-z0-9_]*\.[a-z0-9_.]+\"?|tt\.return|scf\.yield)\b")


def op_lines(text: str) -> set[int]:
    """1-based numbers of the lines that begin an operation."""
    return {i for i, ln in enumerate(text.split("\n"), 1) if _OP_LINE.match(ln)}


# ---------------------------------------------------------------------------------------------
# shared-memory instructions in assembly

_PTX_SHARED = re.compile(r"^(ld\.shared|st\.shared|ldmatrix|stmatrix|cp\.async|tcgen05\.|st\.async|mapa|"
                         r"atom\.shared|red\.shared|ld\.async|cp\.reduce\.async|mbarrier\.)")
_GCN_LANE_ONLY = ("ds_bpermute", "ds_permute", "ds_swizzle", "ds_nop")


def _ptx_opcode(line: str) -> str | None:
    s = line.strip()
    while s.startswith("{"):
        s = s[1:].strip()
    if not s or s[0] in "./}$" or s.startswith("//"):
        return None
    if s.startswith("@"):
        parts = s.split(None, 1)
        if len(parts) < 2:
            return None
        s = parts[1]
    op = s.split(None, 1)[0].rstrip(";")
    return op if _PTX_SHARED.match(op) else None


def _gcn_opcode(line: str) -> str | None:
    s = line.strip()
    if not s or s[0] in ".;/" or s.endswith(":"):
        return None
    parts = s.split(None, 1)
    op = parts[0]
    rest = parts[1].split(";")[0] if len(parts) > 1 else ""
    if op.startswith("ds_") and not op.startswith(_GCN_LANE_ONLY):
        return op
    if "lds" in op and ("load" in op or "store" in op):       # global_load_lds_*, *_async_to_lds_*, tensor_load_to_lds
        return op
    if op.startswith(("buffer_load", "global_load")) and re.search(r"\blds\b", rest):
        return op + " lds"
    if op.startswith(("tensor_load_to_lds", "tensor_store_from_lds")):
        return op
    return None


def shared_instructions(asm: str, is_ptx: bool, file_name: str | None = None):
    """{line: Counter(opcode)} under the current `.loc`; line 0 / other files -> key 0."""
    files: dict[str, str] = {}
    cur = 0
    out: dict[int, collections.Counter] = collections.defaultdict(collections.Counter)
    opcode = _ptx_opcode if is_ptx else _gcn_opcode
    for m in re.finditer(r'^\s*\.file\s+(\d+)\s+"([^"]*)"(?:\s*,?\s*"([^"]*)")?', asm, re.M):
        files[m.group(1)] = m.group(3) or m.group(2)          # PTX lists its files at the end
    for ln in asm.split("\n"):
        s = ln.strip()
        if s.startswith(".file"):
            continue
        if s.startswith(".loc"):
            m = re.match(r"\.loc\s+(\d+)\s+(\d+)\s+(\d+)", s)
            if m:
                fname = files.get(m.group(1), "")
                ok = file_name is None or os.path.basename(fname) == file_name
                cur = int(m.group(2)) if ok else 0
            continue
        op = opcode(ln)
        if op:
            out[cur][op] += 1
    return out


def total(per_line) -> collections.Counter:
    c = collections.Counter()
    for v in per_line.values():
        c.update(v)
    return c


# ---------------------------------------------------------------------------------------------
# compiling


def _signature(case) -> dict[str, str]:
    fn = case["fn"]
    return {n: ("constexpr" if n in case["constexprs"] else case["types"][n]) for n in fn.arg_names}


def _divisibility(case) -> dict:
    fn = case["fn"]
    return {(fn.arg_names.index(n),): [["tt.divisibility", 16]] for n, ty in case["types"].items()
            if n not in case["constexprs"] and (ty.startswith("*") or ty == "i32")}


def _is_gluon(fn) -> bool:
    return getattr(fn, "is_gluon", lambda: False)()


def compile_case(case, target: GPUTarget):
    fn = case["fn"]
    types = case["types"]
    if callable(types):
        types = types(target)
    cx = case["constexprs"]
    if callable(cx):
        cx = cx(target)
    case = {**case, "types": types, "constexprs": cx}
    src_cls = GluonASTSource if _is_gluon(fn) else triton.compiler.ASTSource
    src = src_cls(fn, _signature(case), case["constexprs"], _divisibility(case))
    return triton.compile(src, target=target, options=dict(case["options"]))


@contextlib.contextmanager
def _capture_llvm_ir(backend: str, sink: list):
    """Record the LLVM module Triton hands to LLVM's optimizer (its own lowering, unoptimized)."""
    mod = importlib.import_module(f"triton.backends.{'nvidia' if backend == 'cuda' else 'amd'}.compiler")
    real = mod.llvm

    class Proxy:
        def __getattr__(self, name):
            return getattr(real, name)

        @staticmethod
        def optimize_module(llvm_mod, *args, **kwargs):
            sink.append(str(llvm_mod))
            return real.optimize_module(llvm_mod, *args, **kwargs)

    mod.llvm = Proxy()
    try:
        yield
    finally:
        mod.llvm = real


def facts(fixture_text: str, case, target: GPUTarget, first, header_lines: int = 2) -> dict:
    """Compile again with ``knobs.compilation.use_ir_loc = "ttgir"``: Triton then writes the TTGIR
    (the very text of the fixture, below its header) to a file and gives every op the location
    of its own line in that file, so the `.loc` directives of the assembly name TTGIR lines."""
    from triton import knobs
    is_ptx = target.backend == "cuda"
    asm_key = "ptx" if is_ptx else "amdgcn"
    with tempfile.TemporaryDirectory() as tmp:
        knobs.cache.dir = tmp
        knobs.compilation.always_compile = True
        knobs.compilation.use_ir_loc = "ttgir"
        unoptimized: list[str] = []
        try:
            with contextlib.redirect_stdout(io.StringIO()), _capture_llvm_ir(target.backend, unoptimized):
                second = compile_case(case, target)
        finally:
            knobs.compilation.use_ir_loc = None
    snapshot = relativize(second.asm["ttgir"])
    same_text = (header_lines + len(snapshot.split("\n")) == len(fixture_text.split("\n")) + (
        0 if snapshot.endswith("\n") else 1)
        and fixture_text.split("\n", header_lines)[header_lines].rstrip("\n") == snapshot.rstrip("\n"))
    per_snap = shared_instructions(second.asm[asm_key], is_ptx, f"{case['fn'].__name__}.ttgir")
    per_line = {(k + header_lines if k else 0): v for k, v in per_snap.items()}
    orig = total(shared_instructions(first.asm[asm_key], is_ptx))
    ops = op_lines(fixture_text)
    fixture_lines = fixture_text.split("\n")
    lines = {str(k): dict(sorted(v.items())) for k, v in sorted(per_line.items()) if k}
    md = first.metadata
    out = {
        "target": f"{target.backend}:{target.arch}",
        "num_warps": md.num_warps,
        "num_ctas": md.num_ctas,
        "threads_per_warp": target.warp_size,
        "shared": md.shared,
        "lines": lines,
        "unmapped": dict(sorted(per_line.get(0, {}).items())),
        "triton_llvm": {str(k + header_lines): dict(sorted(v.items())) for k, v in
                        sorted(llvm_shared_accesses(unoptimized[-1]).items()) if k} if unoptimized else {},
        "ambiguous_lines": sorted(int(k) for k in lines if int(k) not in ops),
        "foreign_lines": sorted(int(k) for k in lines
                                if int(k) in ops and not _SMEM_OP.search(fixture_lines[int(k) - 1])),
        "recompile_matches": same_text and orig == total(per_line) and md.shared == second.metadata.shared,
    }
    if not same_text:
        out["error"] = "the location snapshot differs from the fixture text"
    elif orig != total(per_line):
        out["error"] = "the snapshot compile emitted other shared-memory instructions"
    return out


# ops that may themselves touch shared memory; a mapped line whose op is not one of them is "foreign"
# (LLVM merged or moved an instruction and kept a neighbour's location)
_SMEM_OP = re.compile(r"\b(ttg\.|ttng\.|amdgpu\.|tt\.(reduce|scan|histogram|gather|dot|dot_scaled|trans|reshape|join|"
                      r"split|descriptor_|make_tensor_descriptor|atomic|experimental_)|\"tt\.(reduce|scan)\"|gluon\.|"
                      r"nvvm\.|rocdl\.)")


def skip_reason(e: BaseException) -> str:
    """The useful part of Triton's complaint: for a CompilationError the line of the kernel and
    the underlying error (not the source excerpt)."""
    parts = []
    while e is not None and len(parts) < 3:
        lines = [ln.strip() for ln in str(e).strip().splitlines() if ln.strip() and ln.strip() != "^"]
        if type(e).__name__ == "CompilationError" and lines:
            parts.append(f"CompilationError {lines[0]} {lines[-1]}")
        else:
            parts.append(f"{type(e).__name__}: {' '.join(lines[:4])}")
        e = e.__cause__ or e.__context__
    return " <- ".join(parts)[:600]


def header(case, name, tag, target, md, argv_hint) -> str:
    eff = make_backend(target).parse_options(dict(case["options"]))
    cx = case["constexprs"](target) if callable(case["constexprs"]) else case["constexprs"]
    params = {k: (v if isinstance(v, (int, float, str, bool)) else type(v).__name__) for k, v in cx.items()}
    params.update(num_warps=md.num_warps, num_stages=eff.num_stages)
    if md.num_ctas != 1:
        params["num_ctas"] = md.num_ctas
    opts = ", ".join(f"{k}={v}" for k, v in params.items())
    what = case.get("doc") or name
    return (f"// {name} ({what}) for {target.backend}:{target.arch} ({opts}), compiled by Triton "
            f"{triton.__version__} on CPU\n// python tools/compile_corpus.py --out {argv_hint} --only {name} "
            f"--targets {tag}\n")


def _pair(case, tag, out_hint, send):
    """In a forked child: compile, send the fixture, then the assembly facts."""
    target = TARGETS[tag]
    try:
        first = compile_case(case, target)
    except Exception as e:                   # noqa: BLE001 - Triton refuses this pair: record why
        send(("skip", skip_reason(e)))
        return
    md = first.metadata
    text = header(case, case["name"], tag, target, md, out_hint) + relativize(first.asm["ttgir"])
    if not text.endswith("\n"):
        text += "\n"
    base = {"target": f"{target.backend}:{target.arch}", "num_warps": md.num_warps, "num_ctas": md.num_ctas,
            "threads_per_warp": target.warp_size, "shared": md.shared, "lines": {}, "recompile_matches": False}
    send(("fixture", text, base))
    try:
        send(("facts", facts(text, case, target, first)))
    except Exception as e:                   # noqa: BLE001
        send(("facts", {**base, "error": f"recompile failed: {skip_reason(e)}"}))


def run_isolated(case, tag, out_hint):
    """Run one pair in a forked process: MLIR's fatal errors abort the process, not just raise."""
    import multiprocessing as mp
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    err = tempfile.TemporaryFile()

    def child():
        os.dup2(err.fileno(), 2)
        _pair(case, tag, out_hint, send.send)
        send.close()

    proc = ctx.Process(target=child)
    proc.start()
    send.close()
    fixture = fact = reason = None
    try:
        while True:
            msg = recv.recv()
            if msg[0] == "skip":
                reason = msg[1]
            elif msg[0] == "fixture":
                fixture, fact = msg[1], msg[2]
            else:
                fact = msg[1]
    except EOFError:
        pass
    proc.join()
    err.seek(0)
    stderr = err.read().decode(errors="replace")
    if reason and ("error encountered during parsing" in reason
                   or "PassManager::run failed" in reason):  # MLIR printed why
        diag = [ln.strip() for ln in stderr.splitlines() if "error:" in ln]
        reason += " :: " + " ".join(diag[:2])[:400]
    if proc.exitcode != 0 and "Traceback (most recent call last)" in stderr:
        raise RuntimeError(f"the tool itself failed on {case['name']}.{tag}:\n{stderr}")
    if proc.exitcode != 0:
        tail = " ".join(ln.strip() for ln in stderr.strip().splitlines()[-3:])
        tail = re.sub(r'loc\("/tmp/[^"]*/', 'loc("', tail)
        if fixture is None and reason is None:
            reason = f"crashed (exit {proc.exitcode}): {tail}"[:600]
        elif fixture is not None and "error" not in fact:
            fact = {**fact, "error": f"recompile of the fixture crashed (exit {proc.exitcode}): {tail}"[:600]}
    return fixture, fact, reason


def all_cases():
    cases = []
    for modname in MODULES:
        mod = importlib.import_module(f"corpus_kernels.{modname}")
        cases.extend(mod.CASES)
    names = [c["name"] for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    assert not dup, f"duplicate case names {dup}"
    return cases


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="folder for <case>.<target>.ttgir, asm.json, skipped.json")
    ap.add_argument("--only", nargs="*", help="case names or fnmatch patterns (default: all)")
    ap.add_argument("--targets", nargs="*", choices=sorted(TARGETS), help="target tags (default: all)")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    args = ap.parse_args(argv)
    cases = all_cases()
    if args.list:
        for c in cases:
            print(c["name"], ",".join(c["targets"]), c.get("doc", ""))
        return 0
    os.makedirs(args.out, exist_ok=True)
    asm_path = os.path.join(args.out, "asm.json")
    skip_path = os.path.join(args.out, "skipped.json")
    asm = json.load(open(asm_path)) if os.path.exists(asm_path) else {}
    skipped = json.load(open(skip_path)) if os.path.exists(skip_path) else {}
    out_hint = os.path.relpath(os.path.abspath(args.out), ROOT)
    written = 0
    for case in cases:
        if args.only and not any(fnmatch.fnmatch(case["name"], p) for p in args.only):
            continue
        generic = tuple(case["targets"]) == corpus_kernels.ALL
        for tag in tuple(case["targets"]) + (RDNA if generic else ()):
            if (args.targets or tag in RDNA) and tag not in (args.targets or ()):
                continue
            name = f"{case['name']}.{tag}.ttgir"
            t0 = time.time()
            fixture, fact, reason = run_isolated(case, tag, out_hint)
            if fixture is None:
                skipped[name] = reason
                asm.pop(name, None)
                if os.path.exists(os.path.join(args.out, name)):
                    os.remove(os.path.join(args.out, name))
                print(f"SKIP {name}: {reason}", file=sys.stderr)
                continue
            skipped.pop(name, None)
            asm[name] = fact
            with open(os.path.join(args.out, name), "w", encoding="utf-8") as f:
                f.write(fixture)
            written += 1
            mismatch = ("" if fact.get("recompile_matches", False)
                        else " (RECOMPILE MISMATCH: " + fact.get("error", "counts differ") + ")")
            print(f"{name}: {len(fixture.splitlines())} lines, shared={fact['shared']}, {len(fact['lines'])} smem lines"
                  f"{mismatch} [{time.time() - t0:.1f}s]", file=sys.stderr)
    with open(asm_path, "w", encoding="utf-8") as f:
        json.dump(dict(sorted(asm.items())), f, indent=1, sort_keys=False)
        f.write("\n")
    with open(skip_path, "w", encoding="utf-8") as f:
        json.dump(dict(sorted(skipped.items())), f, indent=1)
        f.write("\n")
    print(f"{written} modules written, {len(skipped)} pairs skipped", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
