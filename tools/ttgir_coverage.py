"""Coverage of `layoutcheck verify` on TTGIR: per target, which operations were seen, checked, skipped.

    python tools/ttgir_coverage.py tests/corpus specs/kernels [--markdown] [--json out.json]

Every ``*.ttgir`` / ``*.mlir`` file under the given paths is read and its checks are derived
(`checker.ttgir.kernel.read_ir_file`) and proven with the F2 engine in this process
(`checker.run.runner.run`, one job), exactly as ``layoutcheck verify --engine f2`` does. For each
target (the module's ``ttg.target``) and operation name:

- *seen*: how many operations of that name the files hold;
- *checked*: how many of them got at least one check of their own (an op check registered with
  `checker.ttgir.builder.op_check`: conversions, shared accesses, views, dots, tensor memory, TMA...);
- *skipped*: how many had a check skipped, by reason (the models do not cover the case);
- *errors*/*warnings*: how many had a check that failed, by severity.

Operations with no op check of their own still have their types checked (`well_formed`,
`surjective`, `injective_up_to_broadcast`, `invertible` per distinct layout and shape); they are
listed as "types only". Internal errors (exit 3) are counted apart and must be zero.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from checker.errors import CheckerError  # noqa: E402
from checker.run.runner import run  # noqa: E402
from checker.spec import find_inputs, is_ir  # noqa: E402
from checker.syntax.ttgir import read_ttgir  # noqa: E402
from checker.ttgir.kernel import checked_ops, kernel_checks  # noqa: E402


def coverage(paths: list[str]) -> dict:
    """{target: {op: {"seen", "checked", "skipped": {reason: n}, "errors", "warnings"}}} plus totals."""
    table: dict = defaultdict(lambda: defaultdict(lambda: {"seen": 0, "checked": 0, "skipped": Counter(),
                                                            "errors": 0, "warnings": 0}))
    internal, files, problems = [], 0, 0
    for path in [f for f in find_inputs(paths) if is_ir(f)]:
        files += 1
        with open(path, encoding="utf-8") as f:
            modules = read_ttgir(f.read(), path)
        for module in modules:
            target = module.target or "(no target)"
            k = kernel_checks([module], path)
            problems += len(k.problems)
            lines: dict[int, dict] = defaultdict(lambda: {"checked": False, "skips": [], "failed": set()})
            outcomes = run(k.obligations, jobs=1, engine="f2") if k.obligations else []
            for o in outcomes:
                ob = o.check if o.skipped else None
                if o.skipped:
                    lines[ob.line]["skips"].append(o.skipped)
                    continue
                rec = o.record
                src = rec["source"]
                if rec["verdict"] == "error":
                    internal.append(f"{path}:{src['line']}: {rec['failure']}")
                if rec["property"] not in ("well_formed", "surjective", "injective_up_to_broadcast", "invertible"):
                    lines[src["line"]]["checked"] = True
                if not rec["passed"]:
                    lines[src["line"]]["failed"].add(rec["severity"])
            for sk in k.skips:
                lines[sk["line"]]["skips"].append(sk["reason"])
            for op in module.operations:
                row = table[target][op.name]
                row["seen"] += 1
                at = lines.get(op.line)
                if at is None:
                    continue
                row["checked"] += at["checked"] and op.name in checked_ops()
                for reason in dict.fromkeys(at["skips"]):
                    row["skipped"][reason] += 1
                row["errors"] += "error" in at["failed"]
                row["warnings"] += "warning" in at["failed"]
    return {"files": files, "reader_problems": problems, "internal_errors": internal,
            "targets": {t: {op: {**r, "skipped": dict(r["skipped"])} for op, r in sorted(ops.items())}
                        for t, ops in sorted(table.items())}}


def markdown(cov: dict) -> str:
    """One table per target: the operations that have op checks, then the others in one line."""
    out = [f"{cov['files']} files; reader problems: {cov['reader_problems']}; internal errors: "
           f"{len(cov['internal_errors'])}", ""]
    ops_with_checks = checked_ops()
    for target, ops in cov["targets"].items():
        out += [f"#### {target}", "", "| operation | seen | checked | skipped (reason) | errors | warnings |",
                "| --- | ---: | ---: | --- | ---: | ---: |"]
        for op, r in ops.items():
            if op not in ops_with_checks and not r["skipped"]:
                continue
            skipped = "; ".join(f"{n}: {reason}" for reason, n in sorted(r["skipped"].items())) or "-"
            out.append(f"| `{op}` | {r['seen']} | {r['checked']} | {skipped} | {r['errors']} | {r['warnings']} |")
        rest = sorted(op for op, r in ops.items() if op not in ops_with_checks and not r["skipped"])
        out += ["", "types only: " + ", ".join(f"`{op}` ({ops[op]['seen']})" for op in rest), ""]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--markdown", action="store_true", help="print Markdown tables (docs/ttgir.md)")
    ap.add_argument("--json", help="write the coverage as JSON to this file")
    args = ap.parse_args(argv)
    try:
        cov = coverage(args.paths)
    except CheckerError as e:
        print(f"ttgir_coverage: {e}", file=sys.stderr)
        return 2
    if args.json:
        with open(args.json, "w") as f:
            json.dump(cov, f, indent=1)
    if args.markdown:
        print(markdown(cov))
    else:
        for target, ops in cov["targets"].items():
            seen = sum(r["seen"] for r in ops.values())
            checked = sum(r["checked"] for r in ops.values())
            skipped = sum(sum(r["skipped"].values()) for r in ops.values())
            print(f"{target}: {seen} operations, {checked} with op checks, {skipped} with skipped checks")
        for line in cov["internal_errors"]:
            print("internal error:", line)
    return 3 if cov["internal_errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
