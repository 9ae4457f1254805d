"""The warp shuffles and redux instructions Triton emits for each tt.reduce of the NVIDIA corpus kernels.

    .venv/bin/python tools/shuffle_counts.py --corpus tests/corpus          # writes tests/corpus/shuffles.json

Each NVIDIA fixture of the corpus is compiled again (Triton 3.9, CPU) with ``knobs.compilation.use_ir_loc =
"ttgir"``, so the PTX's ``.loc`` directives name TTGIR lines (fixture line = snapshot line + 2, as in
tools/compile_corpus.py); the ``shfl.sync.*`` and ``redux.sync.*`` instructions under each ``tt.reduce`` line
are counted. A reduction's lowering is straight-line code, so the static count is what each thread executes
(loops around the op repeat all of it alike). Output: ``{fixture: {line: {"shfl": n, "redux": m}}}``, read by
tests/verify/test_corpus_shuffles.py against the ``reduction`` checks' ``shuffles_per_thread`` and
``redux_per_thread``. Needs Triton.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

_INSTR = re.compile(r"^\s*(?:@%?\w+\s+)?(shfl\.sync|redux\.sync)\S*")


def per_line(ptx: str, file_name: str) -> dict[int, collections.Counter]:
    files: dict[str, str] = {}
    for m in re.finditer(r'^\s*\.file\s+(\d+)\s+"([^"]*)"(?:\s*,?\s*"([^"]*)")?', ptx, re.M):
        files[m.group(1)] = m.group(3) or m.group(2)
    out: dict[int, collections.Counter] = collections.defaultdict(collections.Counter)
    cur = 0
    for ln in ptx.split("\n"):
        s = ln.strip()
        if s.startswith(".loc"):
            m = re.match(r"\.loc\s+(\d+)\s+(\d+)", s)
            if m:
                cur = int(m.group(2)) if os.path.basename(files.get(m.group(1), "")) == file_name else 0
            continue
        m = _INSTR.match(ln)
        if m:
            out[cur]["shfl" if m.group(1).startswith("shfl") else "redux"] += 1
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="tests/corpus")
    args = ap.parse_args(argv)
    import compile_corpus as cc
    from triton import knobs

    from checker.syntax.ttgir import read_ttgir
    cases = {c["name"]: c for c in cc.all_cases()}
    out = {}
    for name in sorted(os.listdir(args.corpus)):
        if not name.endswith(".ttgir") or ".cuda" not in name:
            continue
        case_name, tag, _ = name.rsplit(".", 2)
        text = open(os.path.join(args.corpus, name)).read()
        [m] = read_ttgir(text, name)[:1]
        lines = {op.line for op in m.operations if op.name == "tt.reduce"}
        if not lines or case_name not in cases:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            knobs.cache.dir = tmp
            knobs.compilation.always_compile = True
            knobs.compilation.use_ir_loc = "ttgir"
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    k = cc.compile_case(cases[case_name], cc.TARGETS[tag])
            finally:
                knobs.compilation.use_ir_loc = None
        counts = per_line(k.asm["ptx"], f"{cases[case_name]['fn'].__name__}.ttgir")
        out[name] = {str(line): dict(sorted(counts.get(line - 2, collections.Counter()).items()))
                     for line in sorted(lines)}
        print(name, out[name], file=sys.stderr)
    with open(os.path.join(args.corpus, "shuffles.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
