"""Parse and lowering rates of layoutcheck's TTGIR reader on Triton's own lit tests.

    git -C <triton> archive HEAD test/TritonGPU test/Conversion test/TritonNvidiaGPU test/Analysis | tar -x -C /tmp/lit
    python tools/ttgir_corpus.py /tmp/lit [--json out.json]

Every ``*.mlir`` file under the folder is read with `checker.syntax.ttgir.read_ttgir`;
any exception other than a CheckerError is a crash (there must be none). The check
derivation (`checker.ttgir.kernel.kernel_checks`) is run too, and its crashes counted
apart.

Encodings are found in the text independently of the reader (comments excluded):

- alias definitions ``#name = #ttg.<kind><...>`` of a layout kind (several may share a
  line; memory spaces such as ``#ttg.shared_memory`` are not encodings);
- inline encodings: the encoding of a type written out in the type
  (``tensor<16x16xf16, #ttg.dot_op<{...}>>``, ``!ttg.memdesc<...>``,
  ``!tt.tensordesc<...>``, the bare ``<...>`` of async copies), one per occurrence.

An alias is *parsed* when the reader defined it on its line; an inline encoding
when the reader produced a type with an encoding on that line (per line, as many as
were found). The others are either *rejected as Triton rejects them* or *failed*:

- rejected: the file runs with ``-verify-diagnostics`` and a lit ``expected-error``
  (``@+N``, ``@-N``, ``@below``, ``@above`` or the same line) points at a line of the
  definition or type; or the reader's problem is the use of an alias whose own
  definition was rejected in this way (MLIR never gets past the first error);
- failed: the rest, grouped by the reader's message (an encoding the reader skipped
  without a problem is "not read").

Lowering: every distinct (encoding, shape) of a file, at the shape layoutcheck checks it
at (`checker.syntax.ttgir.layout_shape`), is lowered with `checker.encodings.lower`. A
failure is *rejected as Triton does* when an expected-error points at a line using the
pair, *not lowered by Triton either* when the lowering rule it breaks is one Triton's
own lowering aborts on (the message says so), and *failed* otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from checker.encodings import lower  # noqa: E402
from checker.errors import CheckerError  # noqa: E402
from checker.syntax.ttgir import LAYOUT_DIALECTS, NOT_LAYOUTS, layout_shape, read_ttgir  # noqa: E402
from checker.ttgir.kernel import kernel_checks  # noqa: E402

_DIALECT = "(?:" + "|".join(LAYOUT_DIALECTS) + r")\."
ALIAS = re.compile(r"(?:^|(?<=>))\s*#([\w$.-]+)\s*=\s*#" + _DIALECT + r"(\w+)")
INLINE = re.compile(r"(?:(?<![\w!.$])tensor|!ttg\.memdesc|!tt\.tensordesc|(?P<bare>(?:->|[:,])\s*))"
                    r"<(?P<body>(?:[^#<>]|<[^<>]*>)*?),\s*#" + _DIALECT + r"(?P<kind>\w+)<")
EXPECTED = re.compile(r"//\s*expected-error(?:-re)?\s*(@(?:[+-]\d+|below|above))?")
VERIFY = re.compile(r"//\s*RUN:.*-verify-diagnostics")
CASCADE = re.compile(r"its definition on line (\d+) was rejected")
TRITON_ABORTS = ("Triton aborts", "(it aborts)", "Illegal shared layout")
_STRING_OR_COMMENT = re.compile(r'"(?:[^"\\]|\\.)*"?|//')


def code_of(line: str) -> str:
    """A line without its // comment."""
    for m in _STRING_OR_COMMENT.finditer(line):
        if m.group() == "//":
            return line[:m.start()]
    return line


def expected_error_lines(lines: list[str]) -> set[int]:
    """1-based lines a lit `expected-error` points at (none unless the file runs -verify-diagnostics)."""
    if not any(VERIFY.search(line) for line in lines):
        return set()
    out = set()
    for i, line in enumerate(lines, start=1):
        m = EXPECTED.search(line)
        if not m:
            continue
        where = m.group(1)
        out.add(i if where is None else i + 1 if where == "@below" else i - 1 if where == "@above"
                else i + int(where[1:]))
    return out


def statement_span(lines: list[str], start: int) -> range:
    """The lines of the (possibly multi-line) definition or type that starts on 1-based `start`."""
    depth = 0
    for j in range(start - 1, len(lines)):
        text = code_of(lines[j]).replace("->", "")
        depth += sum(text.count(c) for c in "<{[(") - sum(text.count(c) for c in ">}])")
        if depth <= 0:
            return range(start, j + 2)
    return range(start, len(lines) + 1)


def find_encodings(lines: list[str]) -> tuple[Counter, Counter]:
    """(alias definitions per line, inline encodings per line) found in the code of each line."""
    aliases, inline = Counter(), Counter()
    for i, line in enumerate(lines, start=1):
        code = code_of(line)
        for m in ALIAS.finditer(code):
            if m.group(2) not in NOT_LAYOUTS:
                aliases[i] += 1
        for m in INLINE.finditer(code):
            if m.group("kind") in NOT_LAYOUTS or (m.group("bare") is not None
                                                  and not m.group("body").strip()[:1].isdigit()):
                continue
            inline[i] += 1
    return aliases, inline


class Tally:
    def __init__(self):
        self.totals: Counter = Counter()
        self.reasons: dict[str, Counter] = defaultdict(Counter)     # category -> reason -> count
        self.examples: dict[tuple[str, str], str] = {}

    def note(self, category: str, reason: str, where: str) -> None:
        reason = re.sub(r"\d+", "N", reason)[:170]
        self.reasons[category][reason] += 1
        self.examples.setdefault((category, reason), where)


def _refs(modules):
    """Every type the reader produced (once each) with the operation that holds it (None: a type alias)."""
    seen = set()
    for m in modules:
        for ref in m.type_aliases.values():
            seen.add(id(ref))
            yield None, ref
        for op in m.operations:
            for ref in op.operand_types + op.result_types + op.argument_types:
                if id(ref) not in seen:
                    seen.add(id(ref))
                    yield op, ref


def measure_file(path: str, name: str, t: Tally) -> None:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = text.splitlines()
    t.totals["files"] += 1
    try:
        modules = read_ttgir(text, path)
    except Exception as e:  # noqa: BLE001 - a crash: the number that must be 0
        t.totals["crashes"] += 1
        t.note("crash", f"{type(e).__name__}: {e}", name)
        return
    try:
        kernel_checks(modules, path)
    except CheckerError:
        pass
    except Exception as e:  # noqa: BLE001
        t.totals["check_crashes"] += 1
        t.note("check crash", f"{type(e).__name__}: {e}", name)
    t.totals["modules"] += len(modules)
    t.totals["operations"] += sum(len(m.operations) for m in modules)
    t.totals["problems"] += sum(len(m.problems) for m in modules)
    expected = expected_error_lines(lines)
    problems: dict[int, str] = {}
    for m in modules:
        for p in m.problems:
            problems.setdefault(p.line, p.message)
    found_alias, found_inline = find_encodings(lines)
    parsed_alias = Counter(line for m in modules for line in m.alias_lines.values())
    parsed_inline = Counter(ref.line for _, ref in _refs(modules) if ref.encoding is not None
                            and ref.encoding_text and "." in ref.encoding_text.split("<")[0])
    verdict: dict[int, str] = {}        # line -> category of the failure on it, for cascades

    def classify(line: int, span: range) -> str:
        message = problems.get(line, "not read (the reader reported no problem on this line)")
        cascade = CASCADE.search(message)
        if any(k in expected for k in span):
            category = "rejected"
        elif cascade and verdict.get(int(cascade.group(1))) == "rejected":
            category = "rejected"
        else:
            category = "failed"
        verdict[line] = category
        t.note(category, message, f"{name}:{line}")
        return category

    for line in sorted(set(found_alias) | set(found_inline)):
        for what, found, parsed in (("alias", found_alias, parsed_alias), ("inline", found_inline, parsed_inline)):
            n = found[line]
            if not n:
                continue
            ok = min(n, parsed[line])
            t.totals["encodings"] += n
            t.totals[f"{what}_encodings"] += n
            t.totals["parsed"] += ok
            for _ in range(n - ok):
                span = statement_span(lines, line) if what == "alias" else range(line, line + 1)
                t.totals["rejected_as_triton" if classify(line, span) == "rejected" else "failed"] += 1

    uses: dict[tuple, list] = defaultdict(list)
    for op, ref in _refs(modules):
        if ref.encoding is not None:
            uses[(ref.encoding, tuple(layout_shape(ref)))].append((op, ref))
    for (enc, shape), where in uses.items():
        try:
            lower(enc, list(shape))
            t.totals["lowered"] += 1
        except CheckerError as e:
            lines_used = {k for op, ref in where
                          for k in (range(op.line, op.end_line + 1) if op else [ref.line])}
            first = min(ref.line for _, ref in where)
            if lines_used & expected:
                t.totals["lower_rejected_as_triton"] += 1
                t.note("lower rejected", f"{enc.kind}: {e.message}", f"{name}:{first}")
            elif any(s in e.message for s in TRITON_ABORTS):
                t.totals["lower_aborts_in_triton"] += 1
                t.note("lower aborts in Triton", f"{enc.kind}: {e.message}", f"{name}:{first}")
            else:
                t.totals["lower_failed"] += 1
                t.note("lower failed", f"{enc.kind}: {e.message}", f"{name}:{first}")
        except Exception as e:  # noqa: BLE001
            t.totals["crashes"] += 1
            t.note("crash", f"lower {enc.kind}: {type(e).__name__}: {e}", name)


def measure(folder: str) -> dict:
    t = Tally()
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".mlir"):
                path = os.path.join(root, f)
                measure_file(path, os.path.relpath(path, folder), t)
    n = t.totals
    accepted = n["encodings"] - n["rejected_as_triton"]
    lowerable = n["lowered"] + n["lower_failed"]
    return {"totals": dict(sorted(n.items())),
            "parse_rate": round(n["parsed"] / accepted, 4) if accepted else None,
            "lower_rate": round(n["lowered"] / lowerable, 4) if lowerable else None,
            "reasons": {cat: [{"count": c, "reason": r, "example": t.examples[(cat, r)]}
                              for r, c in rs.most_common()] for cat, rs in sorted(t.reasons.items())}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", help="folder searched for *.mlir files")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args(argv)
    result = measure(args.folder)
    n = Counter(result["totals"])
    print(f"files {n['files']}, modules {n['modules']}, operations {n['operations']}, "
          f"reader problems {n['problems']}; crashes {n['crashes']} (check derivation: {n['check_crashes']})")
    rate = result["parse_rate"]
    print(f"encodings {n['encodings']} ({n['alias_encodings']} alias definitions, {n['inline_encodings']} inline): "
          f"parsed {n['parsed']}, rejected as Triton does {n['rejected_as_triton']}, failed {n['failed']}; "
          f"parse rate {rate:.2%} of the {n['encodings'] - n['rejected_as_triton']} Triton accepts")
    rate = result["lower_rate"]
    print(f"distinct (encoding, shape) pairs: lowered {n['lowered']}, failed {n['lower_failed']}, "
          f"rejected as Triton does {n['lower_rejected_as_triton']}, not lowered by Triton either "
          f"{n['lower_aborts_in_triton']}; lower rate {rate:.2%}")
    for category, rows in result["reasons"].items():
        if category == "parsed":
            continue
        print(f"\n{category}:")
        for row in rows:
            print(f"  {row['count']:5d}  {row['reason']}  [{row['example']}]")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=2)
    return 1 if n["crashes"] else 0


if __name__ == "__main__":
    sys.exit(main())
