"""The `layoutcheck` command line: argument parsing and exit codes only.

Exit codes (as linters use them): 0 success / every check met its
expectation, 1 some check did not, 2 bad input (one line on stderr, no
traceback, nothing written), 3 internal error (engine disagreement, a
witness that does not replay).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from .errors import CheckerError, InternalError
from .padded import linear_part

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3


def version() -> str:
    """The installed package's version (pyproject.toml), or 'unknown' when run from a bare checkout."""
    from importlib.metadata import PackageNotFoundError, version as installed
    try:
        return installed("layoutcheck")
    except PackageNotFoundError:
        return "unknown"


def parse_shape(text: str) -> list[int]:
    """'16x16' -> [16, 16]."""
    try:
        dims = [int(p) for p in text.lower().split("x")]
    except ValueError:
        raise CheckerError(f"shape '{text}' is not of the form 16x16", field="--shape") from None
    if not dims or any(d <= 0 for d in dims):
        raise CheckerError(f"shape '{text}' must list positive sizes, e.g. 16x16", field="--shape")
    return dims


def resolve_encoding(text: str | None, file: str | None, name: str | None):
    """An encoding from attribute text, or from a YAML / MLIR file by name."""
    from .syntax.mlir_attr import parse_alias_definitions, parse_attribute
    if file:
        if not name:
            raise CheckerError("--file needs --name to pick an encoding", field="--name")
        if file.endswith((".yaml", ".yml")):
            from .syntax.yaml_decl import load_encodings
            table = load_encodings(file)
        else:
            try:
                with open(file) as f:
                    table = parse_alias_definitions(f.read())
            except OSError as e:
                raise CheckerError(f"cannot read {file}: {e.strerror}") from None
        key = name.lstrip("#")
        if key not in table:
            raise CheckerError(f"no encoding named '{name}' in {file} (it defines: {', '.join(sorted(table))})",
                               field="--name")
        enc = table[key]
    elif text:
        enc = parse_attribute(text)
    else:
        raise CheckerError("give an encoding as attribute text, or --file F --name N")
    enc.validate()
    return enc


def cmd_lower(args) -> int:
    from .encodings import lower
    enc = resolve_encoding(args.encoding, args.file, args.name)
    L = lower(enc, parse_shape(args.shape))
    if args.json:
        print(json.dumps(L.to_dict()))
    else:
        print(L)
    return EXIT_OK


def cmd_show(args) -> int:
    from .encodings import lower
    from .views import layout_view
    enc = resolve_encoding(args.encoding, args.file, args.name)
    L = lower(enc, parse_shape(args.shape))
    linear = linear_part(L)  # a padded layout is shown through its linear component
    if args.svg:
        from .reports.svg import layout_figure
        from .reports.writer import write_atomic
        write_atomic(args.svg, layout_figure(linear, title=f"{args.encoding or args.name} at {args.shape}"), "--svg")
    sys.stdout.write(layout_view(linear, hardware=args.hw))
    return EXIT_OK


def cmd_verify(args) -> int:
    """Load every spec (all or nothing) and every TTGIR file (problems collected, the rest checked),
    run the selected checks, write the reports, print the summary and the IR findings."""
    import dataclasses
    import time
    from .hardware import resolve
    from .reports.json_report import build_report, build_timings
    from .reports.text import render_text
    from .reports.writer import parse_formats, write_reports, written_line
    from .runner import Progress, default_jobs, run
    from .spec import find_inputs, is_ir, load_paths, select
    from .ttgir_checks import read_ir_file
    formats = parse_formats(args.format)
    if args.jobs is not None and args.jobs < 1:
        raise CheckerError(f"must be at least 1, got {args.jobs}", field="--jobs")
    if args.timeout < 1:
        raise CheckerError(f"must be a positive number of milliseconds, got {args.timeout}", field="--timeout")
    hardware = resolve(args.hardware) if args.hardware else None
    files = find_inputs(args.paths)
    specs = [f for f in files if not is_ir(f)]
    by_spec: dict[str, list] = {}
    for ob in (load_paths(specs) if specs else []):
        by_spec.setdefault(ob.file, []).append(ob)
    kernels, obligations = [], []
    for f in files:                     # checks in input order: a spec's, or a TTGIR file's
        if is_ir(f):
            kernels.append(read_ir_file(f, hardware))
            obligations += kernels[-1].obligations
        else:
            obligations += by_spec.get(f, [])
    if args.werror:
        obligations = [dataclasses.replace(ob, severity="error") for ob in obligations]
    if args.explain is not None:
        return explain(kernels, args.explain, engine=args.engine, timeout_ms=args.timeout)
    obligations = select(obligations, args.only, args.skip)
    problems = [(k.file, line, msg) for k in kernels for line, msg in k.problems]
    if not obligations and not problems:
        if kernels and not (args.only or args.skip) and not specs:
            print(f"layoutcheck verify: nothing to check: {len(kernels)} TTGIR file(s) with no layout to check")
            return EXIT_OK
        raise CheckerError("no check is selected (see --only / --skip)")
    jobs = args.jobs or default_jobs()
    start = time.perf_counter()
    progress = None if args.quiet or not obligations else Progress(len(obligations))
    try:
        outcomes = run(obligations, jobs=jobs, engine=args.engine, timeout_ms=args.timeout, progress=progress)
    finally:
        if progress is not None:
            progress.close()
    by_file = {k.file: k for k in kernels}
    for o in outcomes:
        if o.skipped is not None:
            by_file[o.check.file].skip(o.check.line, o.check.op, o.skipped, o.check.property, o.check.python)
    outcomes = [o for o in outcomes if o.record is not None]
    report = build_report(outcomes, engine=args.engine, timeout_ms=args.timeout,
                          ttgir=[k.summary() for k in kernels])
    timings = build_timings(outcomes, jobs=jobs, wall_seconds=time.perf_counter() - start) if args.timings else None
    written = write_reports(report, timings, formats, args.report_dir, figures=args.figures)
    sys.stdout.write(render_text(report))
    if written and not args.quiet:          # stdout stays the text report; where the files went is said on stderr
        sys.stdout.flush()
        print(written_line(written), file=sys.stderr)
    errors = [c for c in report["checks"] if c["verdict"] == "error"]
    if errors:
        print(f"layoutcheck: internal error in {len(errors)} check(s) (the rest was checked); first: "
              f"{errors[0]['source']['file']}:{errors[0]['source']['line']}: {errors[0]['failure']}",
              file=sys.stderr)
        return EXIT_INTERNAL
    if problems:
        print(f"layoutcheck: error: {len(problems)} problem(s) in the TTGIR input; first: "
              f"{problems[0][0]}:{problems[0][1]}: {problems[0][2]}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK if report["summary"]["failed"] == 0 else EXIT_FAILED


def explain(kernels: list, where: str, *, engine: str, timeout_ms: int) -> int:
    """--explain [FILE:]LINE: the layouts of the operation at that line (show views) and every proof about it."""
    from .encodings import lower
    from .runner import evaluate
    from .reports.text import show
    from .syntax.mlir_attr import print_attribute
    from .views import layout_view
    file, _, line_text = where.rpartition(":")
    if not line_text.isdigit():
        raise CheckerError(f"give a line number, or FILE:LINE, got {where!r}", field="--explain")
    line = int(line_text)
    chosen = [k for k in kernels if not file or k.file == file]
    if len(chosen) != 1:
        raise CheckerError("--explain needs exactly one TTGIR input" + (f" named {file}" if file else ""),
                           field="--explain")
    k = chosen[0]
    type_checks = ("well_formed", "surjective", "injective_up_to_broadcast", "invertible")
    obs = sorted((ob for ob in k.obligations if ob.line == line), key=lambda ob: ob.property in type_checks)
    problems = [msg for ln, msg in k.problems if ln == line]
    if not obs and not problems:
        raise CheckerError(f"no check is derived from line {line}", file=k.file, line=line, field="--explain")
    out = []
    for msg in problems:
        out.append(f"{k.file}:{line}: error: {msg}")
    shown = set()
    for ob in obs:
        for role, enc in ob.operands:
            shape = ob.shape if role not in ("a", "b") else ob.param(f"{role}_shape")
            key = (enc, tuple(shape))
            if key in shown:
                continue
            shown.add(key)
            out.append(f"== {role}: {print_attribute(enc)} at {'x'.join(map(str, shape))}")
            try:
                L = lower(enc, shape)
                out.append(layout_view(linear_part(L)).rstrip())
            except CheckerError as e:
                out.append(f"(does not lower: {e.message})")
    for ob in obs:
        r = evaluate(ob, engine, timeout_ms)
        out.append(f"== {ob.op} {ob.property}: {r.status}" + (f" ({ob.severity})" if r.status == "fails" else ""))
        out.append(f"   {r.explanation}")
        if r.counterexample:
            out.append("   witness: " + show(r.counterexample.to_dict()))
        if r.details:
            out.append("   details: " + show(r.details))
    sys.stdout.write("\n".join(out) + "\n")
    return EXIT_OK


PROPERTIES = ("surjective", "injective", "injective_up_to_broadcast", "invertible", "equivalent", "conversion",
              "bank_conflict_free", "aligned_access", "fits")
SMT_PROPERTIES = ("surjective", "injective", "injective_up_to_broadcast", "equivalent")


def _operands(args) -> list:
    """The encodings named on the command line (attribute text, or NAME from --file)."""
    if not args.layouts:
        raise CheckerError("give the layouts to prove, as attribute text or names from --file", field="layouts")
    if args.file:
        return [resolve_encoding(None, args.file, name) for name in args.layouts]
    return [resolve_encoding(text, None, None) for text in args.layouts]


def _need(ops: list, n: int, prop: str) -> None:
    if len(ops) != n:
        raise CheckerError(f"{prop} takes {n} layout(s), got {len(ops)}", field="layouts")


def cmd_prove(args) -> int:
    from . import prove
    ops = _operands(args)
    shape = parse_shape(args.shape)
    common = {"engine": args.engine, "timeout_ms": args.timeout}
    p = args.property
    if p in ("surjective", "injective", "injective_up_to_broadcast", "invertible"):
        _need(ops, 1, p)
        result = getattr(prove, p)(ops[0], shape, **common)
    elif p in ("equivalent", "conversion"):
        _need(ops, 2, p)
        result = getattr(prove, p)(ops[0], ops[1], shape, **common)
    elif p == "aligned_access":
        _need(ops, 2, p)
        if args.dtype_bits is None:
            raise CheckerError("aligned_access needs --dtype-bits", field="--dtype-bits")
        result = prove.aligned_access(ops[0], ops[1], shape, args.dtype_bits, direction=args.direction,
                                      hardware=args.hardware, **common)
    elif p == "bank_conflict_free":
        _need(ops, 2, p)
        result = prove.bank_conflict_free(ops[0], ops[1], shape, args.dtype_bits, direction=args.direction,
                                          access=args.access, model=args.model, hardware=args.hardware, **common)
    else:
        _need(ops, 1, p)
        if args.dtype_bits is None:
            raise CheckerError("fits needs --dtype-bits", field="--dtype-bits")
        from .hardware import resolve
        capacity = resolve(args.hardware).smem_bytes_per_block
        result = prove.fits(ops[0], args.dtype_bits, capacity, shape=shape, **common)
    if args.json:
        print(json.dumps(result.to_dict(), sort_keys=True))
    else:
        print(f"{p}: {result.status}")
        if result.explanation:
            print(result.explanation)
    return EXIT_OK if result.status == "holds" else EXIT_FAILED


def cmd_smt(args) -> int:
    from . import smt
    from .prove import lowered
    import importlib
    equivalence, frame, injective, surjective = (importlib.import_module(f"checker.properties.{m}")
                                                 for m in ("equivalence", "frame", "injective", "surjective"))
    ops = _operands(args)
    shape = parse_shape(args.shape)
    layouts = [linear_part(lowered(op, shape)) for op in ops]
    p = args.property
    if p == "surjective":
        _need(ops, 1, p)
        box = frame.shape_map(layouts[0], shape)
        (L,) = frame.align(layouts, box)
        ob = surjective.obligation(L, box)
    elif p in ("injective", "injective_up_to_broadcast"):
        _need(ops, 1, p)
        ob = injective.obligation(p, layouts[0], p == "injective_up_to_broadcast")
    else:
        _need(ops, 2, p)
        ob = equivalence.obligation(layouts[0], layouts[1])
    sys.stdout.write(smt.to_smtlib(ob))
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="layoutcheck",
                                description="Prove Triton GPU tensor layouts correct.")
    p.add_argument("--version", action="version", version=f"layoutcheck {version()}")
    sub = p.add_subparsers(dest="command", required=True)

    def encoding_args(sp):
        sp.add_argument("encoding", nargs="?", help="Triton attribute text, e.g. '#ttg.blocked<{...}>'")
        sp.add_argument("--file", help="a YAML declaration file (or an MLIR file with #alias definitions)")
        sp.add_argument("--name", help="the encoding's name in --file")
        sp.add_argument("--shape", required=True, help="tensor shape, e.g. 16x16")

    sp = sub.add_parser("lower", help="print the LinearLayout Triton builds for an encoding at a shape")
    encoding_args(sp)
    sp.add_argument("--json", action="store_true", help="print {bases, out_dims} as JSON")
    sp.set_defaults(run=cmd_lower)

    sp = sub.add_parser("prove", help="prove one property from the command line")
    sp.add_argument("property", choices=PROPERTIES)
    sp.add_argument("layouts", nargs="*", help="attribute texts (or names in --file): one or two layouts")
    sp.add_argument("--file", help="a YAML declaration file (or an MLIR file with #alias definitions)")
    sp.add_argument("--shape", required=True, help="tensor shape, e.g. 64x64")
    sp.add_argument("--engine", choices=("f2", "z3", "both"), default="both")
    sp.add_argument("--timeout", type=int, default=10_000, help="Z3 limit per obligation, ms (timeout: unknown)")
    sp.add_argument("--dtype-bits", type=int, help="element width in bits (bank_conflict_free, aligned_access, fits)")
    sp.add_argument("--direction", choices=("store", "load"), default="store")
    sp.add_argument("--access", default="auto")
    sp.add_argument("--model", choices=("hardware", "triton"), default="hardware")
    sp.add_argument("--hardware", default="sm90")
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(run=cmd_prove)

    sp = sub.add_parser("smt", help="write the SMT-LIB2 text of an obligation (a model means the property fails)")
    sp.add_argument("property", choices=SMT_PROPERTIES)
    sp.add_argument("layouts", nargs="*")
    sp.add_argument("--file")
    sp.add_argument("--shape", required=True)
    sp.set_defaults(run=cmd_smt)

    sp = sub.add_parser("show", help="print the tensor view (owners of every element) or the hardware view")
    encoding_args(sp)
    sp.add_argument("--hw", action="store_true", help="hardware view: what each register/lane or offset holds")
    sp.add_argument("--svg", metavar="PATH", help="also write an SVG figure of the tensor grid to PATH")
    sp.set_defaults(run=cmd_show)

    sp = sub.add_parser("verify", help="prove every check of spec files (docs/spec-format.md) and write reports")
    sp.add_argument("paths", nargs="+", metavar="PATH",
                    help="spec files (*.yaml), TTGIR files (*.ttgir, *.mlir; - for stdin), or folders searched "
                         "for both")
    sp.add_argument("--jobs", type=int, help="worker processes (default: one per core)")
    sp.add_argument("--format", default="text,json",
                    help="reports to write, comma-separated: text,json,md,junit,html (default: text,json)")
    sp.add_argument("--report-dir", default="reports", help="folder for the reports (default: reports)")
    sp.add_argument("--only", action="append", default=[], metavar="PATTERN",
                    help="run only checks whose id matches this shell pattern (repeatable)")
    sp.add_argument("--skip", action="append", default=[], metavar="PATTERN",
                    help="skip checks whose id matches this shell pattern (repeatable)")
    sp.add_argument("--engine", choices=("f2", "z3", "both"), default="both",
                    help="decision procedure: GF(2) algebra, Z3, or both, which must agree (default)")
    sp.add_argument("--timeout", type=int, default=10_000, metavar="MS", help="Z3's limit per check (ms)")
    sp.add_argument("--quiet", action="store_true",
                    help="no progress and no 'reports:' line on stderr (stdout still has the text report)")
    sp.add_argument("--figures", choices=("failed", "all", "none"), default="failed",
                    help="figures in the HTML report: for the checks that fail or warn (default), all, none")
    sp.add_argument("--timings", action="store_true", help="also write timings.json (wall times per check)")
    sp.add_argument("--hardware", metavar="NAME",
                    help="hardware preset for TTGIR input (default: from the module's ttg.target)")
    sp.add_argument("--werror", action="store_true", help="warnings (bank conflicts in TTGIR) fail the run")
    sp.add_argument("--explain", metavar="[FILE:]LINE",
                    help="print the layouts and proofs of the TTGIR operation at LINE, then stop")
    sp.set_defaults(run=cmd_verify)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except CheckerError as e:
        print(f"layoutcheck: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except InternalError as e:
        print(f"layoutcheck: internal error: {e}", file=sys.stderr)
        return EXIT_INTERNAL
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
