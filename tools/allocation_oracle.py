"""Triton's own shared-memory allocation of a TTGIR module: the oracle `checker.ttgir.allocation` is held to.

    .venv/bin/python tools/allocation_oracle.py FILE.ttgir [...]           # one JSON line per module
    .venv/bin/python tools/allocation_oracle.py --compare FILE.ttgir [...] # against layoutcheck's budget
    .venv/bin/python tools/allocation_oracle.py --lit OUT --root TRITON TRITON/test/.../x.mlir [...]
                                                 # lit tests' modules as fixtures (write_lit_fixtures)

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


_GIVEN_ALLOCATION = re.compile(r"allocation\.(?:offset|size)\s*=\s*(?:\[[^\]]*\]|\d+\s*:\s*i\d+)\s*,?\s*")


def strip_allocation(text: str) -> str:
    """The module without the ``allocation.offset`` / ``allocation.size`` attributes a lit test may already
    write (Triton overwrites those of the buffers it places and leaves the others, which would read back as
    if placed); an attribute dictionary left empty goes too."""
    text = _GIVEN_ALLOCATION.sub("", text)
    return re.sub(r"\s*\{\s*\}(?=\s*:)", "", re.sub(r",\s*\}", "}", text))


def _parse(text: str):
    from triton._C.libtriton import amd, ir, nvidia, proton
    with tempfile.NamedTemporaryFile("w", suffix=".ttgir", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        ctx = ir.context()
        ir.load_dialects(ctx)
        nvidia.load_dialects(ctx)
        amd.load_dialects(ctx)
        proton.load_dialects(ctx)        # lit modules instrumented with proton.record (test/Proton)
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
    ctx, mod = _parse(strip_allocation(strip_locations(text)))
    pm = ir.pass_manager(ctx)
    if target.startswith("cuda:"):
        cc = int(re.match(r"cuda:(\d+)", target).group(1))
        passes.ttgpuir.add_combine_tensor_select_and_if(pm)
        try:
            passes.ttgpuir.add_allocate_warp_groups(pm, False)
        except TypeError:                    # Triton 3.7 and older: no argument
            passes.ttgpuir.add_allocate_warp_groups(pm)
        passes.convert.add_scf_to_cf(pm)
        passes.gluon.add_inliner(pm)
        nvidia.passes.ttgpuir.add_allocate_shared_memory_nv(pm, cc, 88)
    else:
        passes.convert.add_scf_to_cf(pm)
        passes.gluon.add_inliner(pm)
        amd.passes.ttgpuir.add_allocate_shared_memory(pm, target.split(":", 1)[1])
    _run(pm, mod, "allocation_oracle")
    printed = mod.str()
    [after] = read_ttgir(printed, "allocated")
    tmem = None
    if target.startswith("cuda:") and "ttng.tmem_alloc" in printed:
        tmem = _tensor_memory(mod, ctx)
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
    out = {"shared": int(shared) if shared is not None else 0, "ops": sorted(ops)}
    if tmem is not None:
        out.update(tmem)
    return out


def _run(pm, mod, name: str) -> None:
    try:
        pm.run(mod, name)
    except TypeError:                        # Triton 3.5: run(module) alone
        pm.run(mod)


def _tensor_memory(mod, ctx) -> dict:
    """The module's tensor memory as Triton's TensorMemoryAllocation pass (run next in ``make_llir``) gives it:
    ``tmem_size`` (``ttg.tensor_memory_size``, i.e. ``metadata.tmem_size``) and per ``ttng.tmem_alloc``
    ``[line, column, row]``: its ``tensor_memory_col_offset``, and the first row (lane) of the 64-row half it
    starts in (``tensor_memory_row_offset`` is the half's index times 16)."""
    from triton._C.libtriton import ir, nvidia

    from checker.syntax.ttgir import read_ttgir
    pm = ir.pass_manager(ctx)
    nvidia.passes.ttnvgpuir.add_allocate_tensor_memory(pm)
    _run(pm, mod, "allocation_oracle_tmem")
    [after] = read_ttgir(mod.str(), "allocated")
    size = after.attributes.get("ttg.tensor_memory_size")
    rows = [[op.loc[1], op.attributes["tensor_memory_col_offset"],
             op.attributes.get("tensor_memory_row_offset", 0) // 16 * 64]
            for op in after.operations if op.name == "ttng.tmem_alloc" and op.loc is not None
            and isinstance(op.attributes.get("tensor_memory_col_offset"), int)]
    return {"tmem_size": int(size) if size is not None else 0, "tmem_ops": sorted(rows)}


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


# ------------------------------------------------------------------ Triton's lit tests as fixtures


def _run_target(run_lines: list[str], path: str) -> str:
    """The target a lit file's RUN lines imply: ``gfx-arch=`` / ``arch=`` (AMD), ``compute-capability=``
    (NVIDIA), else AMD's gfx942 for a test under ``amd/`` and ``allocate-shared-memory-nv``'s default,
    compute capability 80."""
    for line in run_lines:
        m = re.search(r'\b(?:gfx-arch|arch)="?(gfx\w+)', line)
        if m:
            return "hip:" + m.group(1)
        m = re.search(r"compute-capability=(\d+)", line)
        if m:
            return "cuda:" + m.group(1)
    return "hip:gfx942" if "/amd/" in path else "cuda:80"


def lit_modules(path: str, source: str):
    """(first line in the lit file, module text, target, adaptations) of every module of a lit test: split at
    ``// -----`` as ``-split-input-file`` does, a split holding several modules split again (the attribute
    aliases above any of them go with each). A module without ``ttg.target`` gets the one its RUN line
    implies (``cuda:100`` if it uses tensor memory or tcgen05, which Triton's verifier requires); a bare
    function (a split with no ``module``) is wrapped in one of 4 warps."""
    text = open(path).read()
    lines = text.split("\n")
    run = [x for x in lines if x.startswith("// RUN")]
    implied = _run_target(run, source)
    splits, first = [], 0
    for k, x in enumerate(lines + ["// -----"]):
        if x.strip().startswith("// -----"):
            splits.append((first, lines[first:k]))
            first = k + 1
    for first, chunk in splits:
        starts = [k for k, x in enumerate(chunk) if re.match(r"module\b", x)]
        if not starts:
            if not any(x.startswith("tt.func") for x in chunk):
                continue
            k = next(k for k, x in enumerate(chunk) if x.startswith("tt.func"))
            chunk = chunk[:k] + ['module attributes {"ttg.num-warps" = 4 : i32} {'] + chunk[k:] + ["}"]
            starts, wrapped = [k], True
        else:
            wrapped = False
        for j, k in enumerate(starts):
            end = starts[j + 1] if j + 1 < len(starts) else len(chunk)
            end = max((e + 1 for e in range(k, end) if chunk[e].startswith("}")), default=end)
            head = [x for x in chunk[:k] if x.startswith(("#", "!"))]
            body = "\n".join(head + chunk[k:end])
            notes = ["wrapped in a module of 4 warps"] if wrapped else []
            if "allow-unregistered-dialect" in "".join(run):
                body, dropped = without_unregistered(body)
                if dropped:
                    notes.append("without the functions using unregistered operations: " + ", ".join(dropped))
            m = re.search(r'"?ttg\.target"?\s*=\s*"([^"]+)"', body)
            if m:
                target = m.group(1)
            else:
                target = implied
                if target.startswith("cuda:") and re.search(r"ttng\.(tmem_|tc_gen5)", body):
                    target = "cuda:100"
                body = re.sub(r"^module attributes \{", f'module attributes {{ttg.target = "{target}", ', body,
                              count=1, flags=re.M)
                body = re.sub(r"^module \{", f'module attributes {{ttg.target = "{target}"}} {{', body, count=1,
                              flags=re.M)
                notes.append(f"ttg.target {target} added")
            yield first + k + 1, body, target, notes


_DIALECTS = ("tt", "ttg", "ttng", "amdg", "tti", "proton", "arith", "math", "scf", "cf", "ub", "builtin", "llvm",
             "gpu", "nvvm", "rocdl", "nvg")
_GENERIC_OP = re.compile(r'^\s*(?:%[\w#:]+\s*=\s*)?"([\w.]+)"\s*\(', re.M)


def without_unregistered(body: str) -> tuple[str, list[str]]:
    """The module without its functions that hold an operation of no registered dialect (lit's
    ``-allow-unregistered-dialect`` lets a test write ``"use"(%x)``; Triton's parser refuses them), and those
    functions' names."""
    lines = body.split("\n")
    out, dropped, k = [], [], 0
    while k < len(lines):
        m = re.match(r"\s*tt\.func\b[^@]*@([\w$.]+)", lines[k])
        if not m:
            out.append(lines[k])
            k += 1
            continue
        depth, e = 0, k
        while e < len(lines):
            depth += lines[e].count("{") - lines[e].count("}")
            if depth <= 0 and "{" in "".join(lines[k:e + 1]):
                break
            e += 1
        text = "\n".join(lines[k:e + 1])
        if any(g.split(".")[0] not in _DIALECTS or "." not in g for g in _GENERIC_OP.findall(text)):
            dropped.append(m.group(1))
        else:
            out += lines[k:e + 1]
        k = e + 1
    return "\n".join(out), dropped


def _without_comments(text: str) -> str:
    out = [x.rstrip() for x in text.split("\n") if not x.strip().startswith("//")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip("\n") + "\n"


def _captured_stderr(fn, *args):
    """fn(*args), and what MLIR wrote to the process's stderr meanwhile (its diagnostics)."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile("w+") as f:
        os.dup2(f.fileno(), 2)
        try:
            return fn(*args), ""
        except Exception as e:                           # noqa: BLE001 (Triton's own rejection)
            os.dup2(saved, 2)
            f.seek(0)
            said = [x for x in f.read().splitlines() if "error:" in x]
            reason = said[0].split("error:", 1)[1].strip() if said else str(e).splitlines()[0]
            return None, reason[:300]
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def write_lit_fixtures(out: str, root: str, files: list[str]) -> None:
    """Every module of the lit tests `files` (paths under `root`, Triton's source tree), as a fixture of
    `out`: ``NAME.ttgir`` (the module, lit's comments dropped, a header naming its source) and its entry in
    ``expected.json`` (source, line, target, adaptations, Triton's ``shared`` and every placed buffer's
    ``[line, offset]``; with tensor memory, ``tmem_size`` and ``tmem_ops``: `_tensor_memory`); a module Triton
    3.9 rejects goes to ``rejected.json`` with Triton's reason."""
    expected, rejected = {}, {}
    os.makedirs(out, exist_ok=True)
    for path in files:
        source = os.path.relpath(path, root)
        for line, body, target, notes in lit_modules(path, source):
            name = re.sub(r"[^\w]+", "_", os.path.splitext(source)[0].removeprefix("test/")) + f"_L{line}"
            header = (f"// Triton's lit test {source}, the module at line {line} (triton-lang/triton, "
                      f"through torch-spyre/triton's branch sync-2026-06-12); comments dropped"
                      + "".join(f"; {n}" for n in notes) + "\n")
            text = header + _without_comments(body)
            got, reason = _captured_stderr(allocate, text, target)
            if got is None:
                rejected[name] = {"source": source, "line": line, "target": target, "reason": reason}
                continue
            with open(os.path.join(out, name + ".ttgir"), "w") as f:
                f.write(text)
            expected[name + ".ttgir"] = {"source": source, "line": line, "target": target, "adapted": notes,
                                         "shared": got["shared"], "ops": sorted([r[0], r[2]] for r in got["ops"])}
            if "tmem_size" in got:
                expected[name + ".ttgir"].update(tmem_size=got["tmem_size"], tmem_ops=got["tmem_ops"])
    for name, data in (("expected.json", expected), ("rejected.json", rejected)):
        with open(os.path.join(out, name), "w") as f:
            json.dump(data, f, indent=1, sort_keys=True)
            f.write("\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--compare", action="store_true", help="compare with checker.ttgir.allocation.budget")
    ap.add_argument("--expect", help="an expected.json to add each (one-module) file's answer to")
    ap.add_argument("--lit", metavar="OUT", help="write the modules of these lit tests as fixtures under OUT")
    ap.add_argument("--root", default=".", help="with --lit: Triton's source tree the files are under")
    args = ap.parse_args(argv)
    if args.lit:
        write_lit_fixtures(args.lit, args.root, args.files)
        return 0
    agree = total = tmem_agree = tmem_total = 0
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
                from checker.ttgir.allocation import budget
                from checker.ttgir.tmem_allocation import tmem_budget
                mods = [m for m in read_ttgir(text, path) if m.line == line]
                row["layoutcheck"] = budget(mods[0]).total if mods else None
                total += 1
                agree += row["layoutcheck"] == got["shared"]
                if "tmem_size" in got and mods:
                    t = tmem_budget(mods[0])
                    row["layoutcheck_tmem"] = t.size
                    row["layoutcheck_tmem_ops"] = sorted([c.line, c.column, c.row] for c in t.chunks)
                    tmem_total += 1
                    tmem_agree += t.size == got["tmem_size"] and row["layoutcheck_tmem_ops"] == got["tmem_ops"]
            print(json.dumps(row))
    if args.compare:
        print(f"{agree} of {total} modules: layoutcheck's total is Triton's", file=sys.stderr)
        if tmem_total:
            print(f"{tmem_agree} of {tmem_total} modules with tensor memory: layoutcheck's tmem_size and every "
                  f"allocation's column and row are Triton's", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
