"""Parse rate of layoutcheck's TTGIR reader on Triton's own lit tests.

    git -C <triton> archive HEAD test/TritonGPU test/Conversion test/TritonNvidiaGPU test/Analysis | tar -x -C /tmp/lit
    python tools/ttgir_corpus.py /tmp/lit [--json out.json]

For every ``*.mlir`` file under the folder: the reader (`checker.syntax.ttgir.read_ttgir`)
and the check derivation (`checker.ttgir_checks.kernel_checks`) must not crash (any
exception other than a CheckerError is a crash). Then every layout encoding in the file
is counted:

- alias definitions ``#name = #ttg.<kind><...>`` of a layout kind (memory spaces such as
  ``#ttg.shared_memory`` are not encodings), and inline encodings in types
  (``tensor<16x16xf16, #ttg.dot_op<{...}>>``), one per occurrence;
- *parsed*: the alias is defined in its module / the line has no reader problem;
- *rejected as Triton does*: not parsed, on a line a ``// expected-error`` diagnostic
  points at (lit's ``@+N``, ``@-N``, ``@below``, ``@above`` or the same line): Triton's
  verifier rejects it too, so it is left out of the rate;
- *failed*: the rest, grouped by the reader's message.

Lowering: every distinct (encoding, shape) of a tensor or memdesc type is lowered at the
shape layoutcheck checks it at; failures on expected-error lines are Triton's rejections.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from checker.encodings import lower  # noqa: E402
from checker.errors import CheckerError  # noqa: E402
from checker.syntax.ttgir import read_ttgir  # noqa: E402
from checker.ttgir_checks import kernel_checks, layout_shape  # noqa: E402

NOT_LAYOUTS = {"shared_memory", "tensor_memory"}
ALIAS = re.compile(r"^\s*#([\w$.-]+)\s*=\s*#(?:ttg|triton_gpu|ttng)\.(\w+)\b")
INLINE = re.compile(r"(?:tensor|memdesc)<[^#>]*,\s*#(?:ttg|triton_gpu|ttng)\.(\w+)<")
EXPECTED = re.compile(r"//\s*expected-(?:error|warning|remark|note)\s*(@(?:[+-]\d+|below|above))?")


def diagnostic_lines(lines: list[str]) -> set[int]:
    """1-based lines that a lit `expected-error` (or warning) diagnostic refers to."""
    out = set()
    for i, line in enumerate(lines, start=1):
        m = EXPECTED.search(line)
        if not m:
            continue
        where = m.group(1)
        if where is None:
            out.add(i)
        elif where == "@below":
            out.add(i + 1)
        elif where == "@above":
            out.add(i - 1)
        else:
            out.add(i + int(where[1:]))
    return out


def _alias_span(lines: list[str], start: int) -> range:
    """Lines of a (possibly multi-line) alias definition starting at 1-based `start`."""
    depth, end = 0, start
    for j in range(start - 1, len(lines)):
        text = lines[j].split("//")[0]
        depth += sum(text.count(c) for c in "<{[(") - sum(text.count(c) for c in ">}])") + text.count("->")
        end = j + 1
        if depth <= 0:
            break
    return range(start, end + 1)


def measure_file(path: str, totals: Counter, reasons: Counter) -> None:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = text.splitlines()
    expected = diagnostic_lines(lines)
    totals["files"] += 1
    try:
        modules = read_ttgir(text, path)
        kernel_checks(modules, path)
    except CheckerError as e:
        reasons[f"reader raised: {e}"] += 1
        totals["reader_errors"] += 1
        return
    except Exception as e:  # a crash: the number that must be 0
        totals["crashes"] += 1
        reasons[f"CRASH {type(e).__name__}: {e}"] += 1
        return
    totals["modules"] += len(modules)
    totals["operations"] += sum(len(m.operations) for m in modules)
    problems = {p.line: p.message for m in modules for p in m.problems}
    defined = {(m.alias_lines.get(name)) for m in modules for name in m.aliases}
    for i, line in enumerate(lines, start=1):
        a = ALIAS.match(line)
        if a and a.group(2) not in NOT_LAYOUTS:
            _count(totals, reasons, "alias", i in defined, _alias_span(lines, i), expected,
                   problems.get(i, "not defined"))
        for m in INLINE.finditer(line):
            if m.group(1) not in NOT_LAYOUTS:
                _count(totals, reasons, "inline", i not in problems, range(i, i + 1), expected,
                       problems.get(i, ""))
    seen = set()
    for m in modules:
        for op in m.operations:
            for ref in op.types:
                if ref.encoding is None or (ref.encoding, tuple(ref.shape)) in seen:
                    continue
                seen.add((ref.encoding, tuple(ref.shape)))
                try:
                    lower(ref.encoding, layout_shape(ref))
                    totals["lowered"] += 1
                except CheckerError as e:
                    if op.line in expected:
                        totals["lower_rejected_as_triton"] += 1
                    else:
                        totals["lower_failed"] += 1
                        reasons[f"lower: {ref.encoding.kind}: {_shorten(e.message)}"] += 1


def _count(totals, reasons, what, ok, span, expected, message) -> None:
    totals["encodings"] += 1
    totals[f"{what}_encodings"] += 1
    if ok:
        totals["parsed"] += 1
    elif any(line in expected for line in span):
        totals["rejected_as_triton"] += 1
    else:
        totals["failed"] += 1
        reasons[f"parse: {_shorten(message)}"] += 1


def _shorten(message: str) -> str:
    return re.sub(r"\d+", "N", message)[:160]


def measure(folder: str) -> dict:
    totals: Counter = Counter()
    reasons: Counter = Counter()
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".mlir"):
                measure_file(os.path.join(root, name), totals, reasons)
    accepted = totals["encodings"] - totals["rejected_as_triton"]
    lowerable = totals["lowered"] + totals["lower_failed"]
    return {"totals": dict(sorted(totals.items())),
            "parse_rate": round(totals["parsed"] / accepted, 4) if accepted else None,
            "lower_rate": round(totals["lowered"] / lowerable, 4) if lowerable else None,
            "failures": dict(reasons.most_common())}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args(argv)
    result = measure(args.folder)
    t = result["totals"]
    print(f"files {t.get('files', 0)}, modules {t.get('modules', 0)}, operations {t.get('operations', 0)}, "
          f"crashes {t.get('crashes', 0)}")
    print(f"encodings {t.get('encodings', 0)} (aliases {t.get('alias_encodings', 0)}, inline "
          f"{t.get('inline_encodings', 0)}): parsed {t.get('parsed', 0)}, rejected as Triton does "
          f"{t.get('rejected_as_triton', 0)}, failed {t.get('failed', 0)}; parse rate {result['parse_rate']:.2%}")
    print(f"distinct (encoding, shape) lowered {t.get('lowered', 0)}, failed {t.get('lower_failed', 0)}, "
          f"rejected as Triton does {t.get('lower_rejected_as_triton', 0)}; lower rate {result['lower_rate']:.2%}")
    for reason, n in result["failures"].items():
        print(f"  {n:5d}  {reason}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=2)
    return 1 if t.get("crashes") else 0


if __name__ == "__main__":
    sys.exit(main())
