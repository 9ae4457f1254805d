"""Triton's own shared-memory allocation of a TTGIR module: the oracle `checker.ttgir_shared` is held to.

    .venv/bin/python tools/allocation_oracle.py FILE.ttgir [...]           # one JSON line per module
    .venv/bin/python tools/allocation_oracle.py --compare FILE.ttgir [...] # against layoutcheck's budget

For each module (lit's ``// -----`` splits them) the text is parsed by the installed Triton (3.9 here) and run
through the passes its backend's ``make_llir`` runs up to and including shared-memory allocation, in order:
NVIDIA ``combine_tensor_select_and_if``, ``allocate_warp_groups``, ``scf_to_cf``, the Gluon inliner,
``allocate_shared_memory_nv(capability, ptx)``; AMD ``scf_to_cf``, the inliner, ``allocate_shared_memory(arch)``.
The module's ``loc(...)`` are removed first, so MLIR gives every operation the location of its own line in the
file Triton parsed; the allocated module is then read back with layoutcheck's reader, and every operation's
``allocation.offset`` / ``allocation.size`` is reported at its line of the input, with the module's
``ttg.shared``.

Output per module: ``{"file", "line" (the module's first line), "target", "shared", "ops": [[line, op,
offset, size], ...]}`` (``size`` null for an explicit buffer, whose size the type gives; a partitioned buffer
has a row per partition); a module Triton rejects gives ``{"file", "line", "error"}``. ``--expect JSON`` adds
each file's answer (``shared`` and the sorted ``[line, offset]`` pairs) to that fixture file, as
tools/fuzz_allocation.py writes it. Needs Triton; layoutcheck never imports this.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

_LOC_ALIAS = re.compile(r"^#loc\d*\s*=.*$", re.M)


def strip_locations(text: str) -> str:
    """The module without location aliases and ``loc(...)`` suffixes (nested parentheses included)."""
    text = _LOC_ALIAS.sub("", text)
    out, i = [], 0
    while True:
        j = text.find("loc(", i)
        if j < 0:
            out.append(text[i:])
            return "".join(out)
        if j > 0 and (text[j - 1].isalnum() or text[j - 1] in "_#."):
            out.append(text[i:j + 4])
            i = j + 4
            continue
        out.append(text[i:j].rstrip(" "))
        depth, k = 0, j + 3
        while k < len(text):
            if text[k] == "(":
                depth += 1
            elif text[k] == ")":
                depth -= 1
                if depth == 0:
                    break
            elif text[k] == '"':
                k = text.index('"', k + 1)
            k += 1
        i = k + 1


def _parse(text: str):
    from triton._C.libtriton import amd, ir, nvidia
    with tempfile.NamedTemporaryFile("w", suffix=".ttgir", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        ctx = ir.context()
        ir.load_dialects(ctx)
        nvidia.load_dialects(ctx)
        amd.load_dialects(ctx)
        return ctx, ir.parse_mlir_module(path, ctx)
    finally:
        os.unlink(path)


def canonicalize(text: str) -> str:
    """The module as Triton's canonicalizer and CSE leave it (what a compiled kernel's TTGIR always is),
    printed without locations."""
    from triton._C.libtriton import ir, passes
    ctx, mod = _parse(strip_locations(text))
    pm = ir.pass_manager(ctx)
    passes.common.add_canonicalizer(pm)
    passes.common.add_cse(pm)
    passes.gluon.add_inliner(pm)         # it canonicalizes too (buffers only ever written to go)
    pm.run(mod, "canonicalize")
    return mod.str_nodebug()


def allocate(text: str, target: str) -> dict:
    """Triton's allocation of one module's text (module docstring)."""
    from triton._C.libtriton import amd, ir, nvidia, passes
    from checker.syntax.ttgir import read_ttgir
    ctx, mod = _parse(strip_locations(text))
    pm = ir.pass_manager(ctx)
    if target.startswith("cuda:"):
        cc = int(re.match(r"cuda:(\d+)", target).group(1))
        passes.ttgpuir.add_combine_tensor_select_and_if(pm)
        passes.ttgpuir.add_allocate_warp_groups(pm, False)
        passes.convert.add_scf_to_cf(pm)
        passes.gluon.add_inliner(pm)
        nvidia.passes.ttgpuir.add_allocate_shared_memory_nv(pm, cc, 88)
    else:
        passes.convert.add_scf_to_cf(pm)
        passes.gluon.add_inliner(pm)
        amd.passes.ttgpuir.add_allocate_shared_memory(pm, target.split(":", 1)[1])
    pm.run(mod, "allocation_oracle")
    printed = mod.str()
    [after] = read_ttgir(printed, "allocated")
    ops = []
    for op in after.operations:
        off = op.attributes.get("allocation.offset")
        if off is None or op.loc is None:
            continue
        size = op.attributes.get("allocation.size")
        offsets = [off] if isinstance(off, int) else [int(x) for x in re.findall(r"(\d+)\s*:\s*i32", str(off))]
        for o in offsets:            # a partitioned buffer: one offset per partition
            ops.append([op.loc[1], op.name, o, size if isinstance(size, int) else None])
    shared = after.attributes.get("ttg.shared")
    return {"shared": int(shared) if shared is not None else 0, "ops": sorted(ops)}


def modules(path: str):
    """(first line, text with earlier lines blanked so line numbers hold, target) of each module of a file."""
    from checker.syntax.ttgir import read_ttgir
    text = open(path).read()
    lines = text.split("\n")
    found = read_ttgir(text, path)
    starts = [m.line for m in found]
    for k, m in enumerate(found):
        first = 1 if k == 0 else starts[k]
        last = starts[k + 1] - 1 if k + 1 < len(found) else len(lines)
        # the module's attribute aliases sit above its `module` line: keep everything after the previous split
        top = 0
        for j in range(first - 2, -1, -1):
            if lines[j].strip().startswith("// -----"):
                top = j + 1
                break
        body = ["" for _ in range(top)] + lines[top:last]
        yield m.line, "\n".join(body), m.target or "cuda:90"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--compare", action="store_true", help="compare with checker.ttgir_shared.budget")
    ap.add_argument("--expect", help="an expected.json to add each (one-module) file's answer to")
    args = ap.parse_args(argv)
    agree = total = 0
    for path in args.files:
        for line, text, target in modules(path):
            try:
                got = allocate(text, target)
            except Exception as e:                       # noqa: BLE001 (Triton's own rejection)
                print(json.dumps({"file": path, "line": line, "error": str(e).splitlines()[0][:200]}))
                continue
            row = {"file": path, "line": line, "target": target, **got}
            if args.expect:
                expected = json.load(open(args.expect)) if os.path.exists(args.expect) else {}
                expected[os.path.basename(path)] = {"target": target, "shared": got["shared"],
                                                    "ops": sorted([r[0], r[2]] for r in got["ops"])}
                with open(args.expect, "w") as f:
                    json.dump(expected, f, indent=1, sort_keys=True)
                    f.write("\n")
            if args.compare:
                from checker.syntax.ttgir import read_ttgir
                from checker.ttgir_shared import budget
                ours = [budget(m) for m in read_ttgir(text, path) if m.line == line]
                row["layoutcheck"] = ours[0].total if ours else None
                total += 1
                agree += row["layoutcheck"] == got["shared"]
            print(json.dumps(row))
    if args.compare:
        print(f"{agree} of {total} modules: layoutcheck's total is Triton's", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
