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
from collections.abc import Sequence

from .about import version
from .encodings import lower
from .errors import CheckerError, InternalError, one_line
from .limits import MAX_DTYPE_BITS, clip, parse_shape_text, read_stdin, read_text
from .padded import PaddedLayout, linear_part
from .registry import SMT_PROPERTIES, SPEC_PROPERTIES
from .versions import VersionRequest, supported_text, using
from .versions import parse as parse_version

# lazy imports: each command imports the modules it runs inside its own function (cmd_*, and the helpers only
# some commands call), so `layoutcheck --version` and any one command load only what that command needs
# (start-up time, issue 28). Modules that every command loads anyway (`import checker` loads them) are above.

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_INTERRUPTED = 130          # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C


def parse_shape(text: str) -> list[int]:
    """'16x16' -> [16, 16]: ASCII digits, positive sizes, at most `checker.limits.MAX_ELEMENTS` elements."""
    return list(parse_shape_text(text, "--shape"))


def resolve_layout(text: str | None, file: str | None, name: str | None, argument: str = "encoding"):
    """The layout named on the command line, as a `checker.syntax.pasted.Pasted` (its encoding, and the
    shape and element type of a pasted type): attribute text, an alias line, a tensor / memdesc type,
    a TTGIR snippet of alias lines and one type (`checker.syntax.pasted`; ``-``: read from stdin), or
    an encoding of a YAML / MLIR file by name. Validated by Triton's verifier rules. Errors name the file
    (and line) of --file, else the command-line `argument` the text came from."""
    from .syntax.mlir_attr import parse_alias_definitions
    from .syntax.pasted import Pasted, read_pasted
    if file:
        if not name:
            raise CheckerError("--file needs --name to pick an encoding", field="--name")
        alias_text = None
        if file.endswith((".yaml", ".yml")):
            from .syntax.yaml_decl import load_encodings
            table = load_encodings(file)
        else:
            alias_text = read_text(file)
            try:
                table = parse_alias_definitions(alias_text)
            except CheckerError as e:
                raise e.located(file=file) from None
        key = name.lstrip("#")
        if key not in table:
            defined = clip(", ".join(sorted(table)) or "nothing", 120)
            raise CheckerError(f"no encoding named {clip(name)!r} in {clip(file, 80)} (it defines: {defined})",
                               field="--name")
        got = Pasted(table[key], "alias", text=name)
        try:
            got.encoding.validate()
        except CheckerError as e:       # a rule broken in the file: its alias line
            raise e.located(file=file, line=_alias_line(alias_text, key)) from None
        return got
    if not text:
        raise CheckerError("give an encoding as attribute text (or a tensor<...> / !ttg.memdesc<...> type, "
                           "or alias lines), or --file F --name N", argument=argument)
    try:
        if text.strip() == "-":
            text = read_stdin(argument)
        got = read_pasted(text)
        got.encoding.validate()
    except CheckerError as e:
        raise e.located(argument=argument) from None
    return got


def _alias_line(text: str | None, name: str) -> int | None:
    """The line of ``#name = ...`` in an alias file's text (None for YAML, which places its own errors)."""
    import re
    if text is None:
        return None
    m = re.search(rf"^[ \t]*#{re.escape(name)}[ \t]*=", text, re.M)
    return text.count("\n", 0, m.start()) + 1 if m else None


def layout_shape(given: str | None, layouts: Sequence) -> list[int]:
    """The shape to lower at: --shape, else the shape of the pasted types (which must agree with it
    and with each other)."""
    typed = [p for p in layouts if p.shape is not None]
    shape = parse_shape(given) if given else None
    for p in typed:
        if shape is None:
            shape = list(p.shape)
        elif list(p.shape) != shape:
            what = f"--shape {given}" if given else f"the shape {_dims(shape)} of {typed[0].describe()}"
            raise CheckerError(f"{what} disagrees with the shape {_dims(p.shape)} of {p.describe()}",
                               field="--shape")
    if shape is None:
        raise CheckerError("give --shape (e.g. 64x64), or paste a type such as tensor<64x64xf16, #blocked>",
                           field="--shape")
    return shape


def element_bits(given: int | None, layouts: Sequence) -> int | None:
    """--dtype-bits, else the element width of the pasted types (which must agree with it and each other)."""
    if given is not None and not 0 < given <= MAX_DTYPE_BITS:
        raise CheckerError(f"must be a number of bits from 1 to {MAX_DTYPE_BITS} (the limit), got {given}",
                           field="--dtype-bits")
    bits = given
    first = None
    for p in layouts:
        if p.element_bits is None:
            continue
        if bits is None:
            bits, first = p.element_bits, p
        elif p.element_bits != bits:
            what = f"--dtype-bits {given}" if given is not None else \
                f"the element type {first.element_type} of {first.describe()}"
            raise CheckerError(f"{what} disagrees with the element type {p.element_type} ({p.element_bits} bits) "
                               f"of {p.describe()}", field="--dtype-bits")
    return bits


def _dims(shape) -> str:
    return "x".join(map(str, shape))


def _name(args, got) -> str:
    """What the layout is called in a figure's title."""
    return args.name if args.file else " ".join(got.text.split())


def cmd_lower(args) -> int:
    """The attribute text Triton prints for the encoding, then the LinearLayout (--json: its dict)."""
    from .syntax.mlir_attr import print_attribute
    got = resolve_layout(args.encoding, args.file, args.name)
    shape = layout_shape(args.shape, [got])
    L = _lower_declared(got.encoding, shape, args)
    if args.json:
        print(json.dumps(L.to_dict()))
        return EXIT_OK
    print(f"{print_attribute(got.encoding)} at {_dims(shape)}")
    if isinstance(L, PaddedLayout) and L.padded:
        pairs = ", ".join(f"{p} empty slot(s) after every {i} elements" for i, p in zip(L.intervals, L.paddings))
        print(f"padding: {pairs}; {L.offsets} elements span {L.footprint()} slots per CTA")
    print(linear_part(L))
    return EXIT_OK


def _lower_declared(encoding, shape, args):
    """The encoding lowered at `shape`; a failure names the --file and the line of the --name declaration."""
    try:
        return lower(encoding, shape)
    except CheckerError as e:
        if not args.file:
            raise
        import re
        text = read_text(args.file)
        found = re.search(rf"^[ \t]*#?{re.escape(args.name.lstrip('#'))}[ \t]*[:=]", text, re.M)
        raise e.located(file=args.file, line=text[:found.start()].count("\n") + 1 if found else None) from None


def cmd_show(args) -> int:
    from .reports.views import check_size, layout_view
    got = resolve_layout(args.encoding, args.file, args.name)
    shape = layout_shape(args.shape, [got])
    L = _lower_declared(got.encoding, shape, args)
    linear = linear_part(L)  # a padded layout is shown through its linear component
    check_size(linear, "--shape")       # at most 2^20 cells printed (checker.limits.MAX_SHOW_ELEMENTS)
    if args.svg:
        from .reports.svg import layout_figure
        from .reports.writer import write_atomic
        write_atomic(args.svg, layout_figure(linear, title=f"{_name(args, got)} at {_dims(shape)}"), "--svg")
    sys.stdout.write(layout_view(linear, hardware=args.hw))
    return EXIT_OK


def cmd_verify(args) -> int:
    """Load every spec (all or nothing) and every TTGIR file (problems collected, the rest checked),
    run the selected checks, write the reports, print the text report (`checker.reports.text`: findings
    by severity, the table, the recap; --table, --notes and --findings-only choose how much)."""
    from .hardware import resolve
    from .reports.text import render_text
    from .reports.writer import parse_formats, write_reports, written_line
    from .run.runner import Progress
    from .run.verification import load_inputs, verify_inputs
    _need_solvers(args.engine)
    formats = parse_formats(args.format)
    if args.jobs is not None and args.jobs < 1:
        raise CheckerError(f"must be at least 1, got {args.jobs}", field="--jobs")
    if args.timeout < 1:
        raise CheckerError(f"must be a positive number of milliseconds, got {args.timeout}", field="--timeout")
    if args.findings_only and (args.table or args.notes):
        raise CheckerError(f"prints no table and no notes: give it without {'--table' if args.table else '--notes'}",
                           field="--findings-only")
    hardware = resolve(args.hardware) if args.hardware else None
    inputs = load_inputs(args.paths, hardware, werror=args.werror, differential=args.differential,
                         version=VersionRequest(given_version(args)))
    for k in inputs.kernels:             # where the Triton version was inferred or is in doubt: said once per module
        if k.problems:                   # (not for a module the reader could not read whole: its problems are
            continue                     # the one line on stderr, the report's headline names the version)
        for line, text in k.notes:
            print(f"{k.file}:{line}: note: {text}", file=sys.stderr)
        for line, text in k.warnings:
            print(f"{k.file}:{line}: warning: {text}", file=sys.stderr)
    if args.explain is not None:
        return explain(inputs.kernels, args.explain, engine=args.engine, timeout_ms=args.timeout, grids=args.grids)
    if args.executor != "processes":
        from .run.executors import parse, require_ray
        parse(args.executor)
        require_ray()
    done = verify_inputs(inputs, only=args.only, skip=args.skip, engine=args.engine, timeout_ms=args.timeout,
                         jobs=args.jobs, progress=None if args.quiet else Progress, layouts=args.figures,
                         triton_figures=args.triton_figures, executor=args.executor, json_report="json" in formats,
                         pretty=True if args.pretty else None)
    report, problems = done.report, done.problems
    # the reports are written even when nothing was checked: an older report.json left in --report-dir
    # must not be read as this run's
    written = write_reports(report, done.timings if args.timings else None, formats, args.report_dir,
                            figures=args.figures, pretty=True if args.pretty else None, rows=done.rows)
    if done.nothing:
        print(f"layoutcheck verify: nothing to check: {len(inputs.kernels)} TTGIR file(s) with no layout to check")
        if written and not args.quiet:
            sys.stdout.flush()
            print(written_line(written), file=sys.stderr)
        return EXIT_OK
    sys.stdout.write(render_text(report, table=args.table, notes=args.notes, findings_only=args.findings_only))
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
        print("layoutcheck: error: " + one_line(f"{len(problems)} problem(s) in the TTGIR input; first: "
                                                f"{problems[0][0]}:{problems[0][1]}: {problems[0][2]}"),
              file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK if report["summary"]["failed"] == 0 else EXIT_FAILED


def cmd_run(args) -> int:
    """Run a program with Triton's compilation listener installed (`checker.triton`); every kernel it
    compiles is verified, its findings printed as they come, the summary at the end; the exit status is
    the program's when it failed, else 1 on an error (or a warning under --werror), else 0."""
    import importlib.util
    import os
    import shutil
    import tempfile

    from .integrations.triton import ENV, collect, finish
    from .reports.writer import parse_formats
    command = list(args.program)
    if command[:1] == ["--"]:
        command = command[1:]
    if not command:
        raise CheckerError("give the program to run after --, e.g. layoutcheck run -- python script.py",
                           field="program")
    if sys.modules.get("triton", False) is None or importlib.util.find_spec("triton") is None:
        raise CheckerError("layoutcheck run needs Triton, which is not installed (pip install triton==3.9.0)")
    if args.differential:
        from .properties.matches_triton import require_lowering_triton
        require_lowering_triton("--differential")
    parse_formats(args.format)
    records = tempfile.mkdtemp(prefix="layoutcheck-run-")
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ)
    if args.triton_version is None:
        from .integrations.triton import require_modelled
        require_modelled()
    env[ENV] = json.dumps({"werror": args.werror, "only": args.only, "differential": args.differential,
                           "engine": args.engine, "record_dir": records, "triton_version": args.triton_version})
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(here, "integrations", "_run"), os.path.dirname(here)]
                                        + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    try:
        try:
            status, ended_line = _run_relaying_stderr(command, env)
        except OSError as e:
            raise CheckerError(f"cannot run {command[0]}: {e.strerror}", field="program") from None
        kernels = collect(records)
    finally:
        shutil.rmtree(records, ignore_errors=True)
    if not ended_line and not args.quiet:       # the program's last words (a leak report) lack a newline
        print(file=sys.stderr)
    finish(kernels, report_dir=args.report_dir, formats=args.format, summary=not args.quiet)
    if status:
        return status if status > 0 else 128 - status
    if not kernels:                 # a gate never passes for having seen nothing
        print("layoutcheck run: error: no kernel was verified: the program compiled none with Triton "
              f"(it ran with Triton from {importlib.util.find_spec('triton').origin})", file=sys.stderr)
        return EXIT_FAILED
    errors = sum(k.errors + (k.problem is not None) for k in kernels)
    warnings = sum(k.warnings for k in kernels)
    return EXIT_FAILED if errors or (args.werror and warnings) else EXIT_OK


def _run_relaying_stderr(command: list[str], env: dict) -> tuple[int, bool]:
    """Run `command`; its stderr is copied to ours as it comes (its findings stream as they happen). Returns
    its exit status (EXIT_INTERRUPTED on Ctrl-C) and whether its stderr ended a line (so that what is printed
    next starts on a line of its own)."""
    import subprocess
    import threading
    proc = subprocess.Popen(command, env=env, stderr=subprocess.PIPE)
    last = [b"\n"]
    out = getattr(sys.stderr, "buffer", None)

    def relay() -> None:
        for chunk in iter(lambda: proc.stderr.read1(65536), b""):
            last[0] = chunk[-1:]
            if out is not None:
                out.write(chunk)
                out.flush()
            else:
                sys.stderr.write(chunk.decode(errors="replace"))
                sys.stderr.flush()

    thread = threading.Thread(target=relay, daemon=True)
    thread.start()
    try:
        status = proc.wait()
    except KeyboardInterrupt:
        proc.wait()
        status = EXIT_INTERRUPTED
    thread.join()
    return status, last[0] == b"\n"


def cmd_diff(args) -> int:
    """Verify both sides, print one line per change (the text report) and write the reports asked for; exit 1
    when a change of the --fail-on kind is there."""
    from .reports import diff as reports
    from .run.diff import FAIL_ON, diff, exit_status
    if args.fail_on not in FAIL_ON:
        raise CheckerError(f"must be one of {', '.join(FAIL_ON)}, got {args.fail_on!r}", argument="--fail-on")
    formats = [f.strip() for f in args.format.split(",") if f.strip()]
    for f in formats:
        if f not in reports.FORMATS:
            raise CheckerError(f"unknown diff format '{f}' (formats: {', '.join(reports.FORMATS)})",
                               argument="--format")
    if args.timeout < 1:
        raise CheckerError(f"must be a positive number of milliseconds, got {args.timeout}", argument="--timeout")
    result = diff([args.old], [args.new], old_triton_version=args.old_triton_version,
                  new_triton_version=args.new_triton_version, hardware=args.hardware, engine=args.engine,
                  jobs=args.jobs, timeout_ms=args.timeout)
    written = reports.write(result, formats, args.report_dir) if args.report_dir else []
    sys.stdout.write(reports.render_text(result))
    if written:
        from .reports.writer import written_line
        sys.stdout.flush()
        print(written_line(written), file=sys.stderr)
    return exit_status(result, args.fail_on)


def explain(kernels: list, where: str, *, engine: str, timeout_ms: int, grids: bool = False) -> int:
    """--explain [FILE:]LINE: the proofs about the operation at that line, then its layouts
    (`checker.run.verification.explain`, rendered by `checker.reports.explain`)."""
    from .reports.explain import render_explain
    from .run.verification import explain as explain_line
    explained = explain_line(kernels, where, engine=engine, timeout_ms=timeout_ms)
    sys.stdout.write(render_explain(explained, grids=grids))
    if explained.problems:              # the reader could not read (all of) that line: bad input
        sys.stdout.flush()
        print(f"layoutcheck: error: {one_line(f'{explained.file}:{explained.line}: {explained.problems[0]}')}",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK


# What `prove` and `smt` offer: the property registry's spec properties (and those with an SMT builder).
PROPERTIES = tuple(SPEC_PROPERTIES)


def _operands(args) -> list:
    """The layouts named on the command line (`resolve_layout`: pasted text, or NAME from --file)."""
    if not args.layouts:
        raise CheckerError("give the layouts to prove, as attribute text, types or names from --file",
                           field="layouts")
    if args.file:
        return [resolve_layout(None, args.file, name) for name in args.layouts]
    if sum(text.strip() == "-" for text in args.layouts) > 1:
        raise CheckerError("stdin ('-') can give one layout only", field="layouts")
    return [resolve_layout(text, None, None, "layouts") for text in args.layouts]


def _need(ops: list, prop) -> None:
    """As many layouts as the property has roles (its optional roles may be left out), each of the kind its role
    takes (a shared layout where one is needed, a distributed one elsewhere)."""
    low, high = len(prop.required), len(prop.all_roles)
    if not low <= len(ops) <= high:
        n = low if low == high else f"{low} or {high}"
        raise CheckerError(f"{prop.name} takes {n} layout(s), got {len(ops)}", field="layouts")
    for k, ((role, kind), op) in enumerate(zip(prop.all_roles, ops)):
        shared = getattr(op, "is_shared", None)
        if shared is None or kind == "any" or shared == (kind == "shared"):
            continue
        got = "a shared" if shared else "a distributed"
        raise CheckerError(f"{prop.name}'s {_ORDINALS[k]} layout ({role}) must be {kind}, got {got} one "
                           f"(#{getattr(op, 'kind', '?')})", field="layouts")


_ORDINALS = ("first", "second", "third", "fourth")
# the names the properties' code gives its operands, and the role (position among `layouts`) each one is
_OPERAND_NAMES = {"R": "reg", "S": "shared", "L": "layout", "A": "a", "B": "b"}


def _as_argument(e: CheckerError, prop) -> CheckerError:
    """An error the property's code located at one of its operands (``R``, ``src``...) named as the command line
    names it: the n-th of `layouts`."""
    roles = [r for r, _ in prop.all_roles]
    role = _OPERAND_NAMES.get(e.field or "", e.field)
    if role in roles:
        k = roles.index(role)
        e.message = f"the {_ORDINALS[k]} layout ({role}): {e.message}"
        e.field = "layouts"
    return e


def cmd_prove(args) -> int:
    """One check of a registry property (`checker.registry.PROPERTIES`) from the command line."""
    from .hardware import resolve
    from .spec import Check
    _need_solvers(args.engine)
    prop = SPEC_PROPERTIES[args.property]
    if args.timeout < 1:
        raise CheckerError(f"must be a positive number of milliseconds, got {args.timeout}", field="--timeout")
    pasted = _operands(args)
    ops = [p.encoding for p in pasted]
    _need(ops, prop)
    shape = layout_shape(args.shape, pasted)
    bits = element_bits(args.dtype_bits, pasted)
    if bits is None and prop.needs_dtype:
        bits = getattr(ops[-1], "element_bit_width", None)      # an nvmma_shared layout says it
        if bits is None:
            raise CheckerError(f"{prop.name} needs --dtype-bits (or a pasted type)", field="--dtype-bits")
    hw = resolve(args.hardware)
    given = {"direction": args.direction, "access": args.access, "model": args.model,
             "capacity_bytes": hw.smem_bytes_per_block}
    given = {k: v for k, v in given.items() if v is not None}        # the rest: the property's defaults
    check = Check(id=prop.name, property=prop.name, operands=tuple(zip((r for r, _ in prop.all_roles), ops)),
                  shape=None if shape is None else tuple(shape), layout_shape=None, dtype=None, dtype_bits=bits,
                  hardware=hw, params=tuple((k, given.get(k, default)) for k, default in prop.params),
                  expect="holds", expect_conflicts=None, expect_level=None, file="<command line>", line=0)
    try:
        result = prop.run(check, args.engine, args.timeout)
    except CheckerError as e:
        raise _as_argument(e, prop) from None
    if args.json:
        print(json.dumps(result.to_dict(), sort_keys=True))
    else:
        print(f"{prop.name}: {result.status}")
        if result.explanation:
            print(result.explanation)
    return EXIT_OK if result.status == "holds" else EXIT_FAILED


def _need_solvers(engine: str) -> None:
    """An engine whose solver is not installed (Z3 for z3 / both / all, the second solver for all): one line,
    exit 2."""
    from .solvers import require
    from .z3lib import require_z3
    require_z3(engine)
    if engine == "all":
        require()


def cmd_smt(args) -> int:
    """The SMT-LIB2 text of a registry property's obligation (its ``smt`` builder)."""
    from . import smt
    from .prove import lowered
    prop = SPEC_PROPERTIES[args.property]
    pasted = _operands(args)
    ops = [p.encoding for p in pasted]
    _need(ops, prop)
    shape = layout_shape(args.shape, pasted)
    layouts = [linear_part(lowered(op, shape)) for op in ops]
    sys.stdout.write(smt.to_smtlib(prop.obligation()(layouts, shape)))
    return EXIT_OK


SCHEMAS = ("spec", "encoding", "report")


def cmd_schema(args) -> int:
    """A shipped JSON Schema with the registry's properties filled in (`checker.registry.full_schema`)."""
    from .registry import full_schema
    print(json.dumps(full_schema(f"{args.name}.schema.json").document, indent=2))
    return EXIT_OK


def cmd_swizzle(args) -> int:
    """Synthesize the shared layout of a store/load pair (`checker.synthesis`), verified on both sides."""
    import json

    from .reports.synthesis import render
    from .synthesis import synthesize
    from .ttgir.pairing import Pair, pair_in_ttgir
    family = "nvmma" if args.nvmma else "padded" if args.padded else "any"
    if args.nvmma and args.padded:
        raise CheckerError("give --nvmma or --padded, not both", field="--padded")
    if args.ttgir:
        if args.line is None or args.layouts:
            raise CheckerError("--ttgir FILE takes --line N (the line of a local_load / local_store), no layouts",
                               field="--line")
        pair = pair_in_ttgir(args.ttgir, args.line)
    else:
        if len(args.layouts) != 2:
            raise CheckerError("give the store layout and the load layout (or --ttgir FILE --line N)",
                               field="layouts")
        pasted = [resolve_layout(t, None, None) for t in args.layouts]
        for k, p in enumerate(pasted):
            if getattr(p.encoding, "is_shared", False):
                raise CheckerError(f"the {('store', 'load')[k]} layout (the {_ORDINALS[k]}) must be a register "
                                   f"(distributed) layout, got a shared one (#{p.encoding.kind}); give the shared "
                                   f"layout in use with --current", field="layouts")
        shape = layout_shape(args.shape, pasted)
        bits = element_bits(args.dtype_bits, pasted)
        if bits is None:
            raise CheckerError("give --dtype-bits (or paste a tensor type with its element type)",
                               field="--dtype-bits")
        current = resolve_layout(args.current, None, None).encoding if args.current else None
        pair = Pair(pasted[0].encoding, pasted[1].encoding, shape, bits, args.store_access, args.load_access,
                    current, None, " ".join(args.layouts[0].split()), " ".join(args.layouts[1].split()))
    hardware = args.hardware or pair.hardware or "sm90"
    st, ld, shape, sa, la = pair.store, pair.load, pair.shape, pair.store_access, pair.load_access
    Rs, Rl = lower(st, shape), lower(ld, shape)
    if pair.bits < 8:
        raise CheckerError(f"a shared layout is synthesized for elements of 8 bits or more, got {pair.bits} (Triton "
                           "packs sub-byte elements into bytes first: give the packed type's bits)",
                           argument="--dtype-bits")
    try:
        syn = synthesize(Rs, Rl, pair.bits, hardware, store_access=sa, load_access=la, family=family,
                         current=pair.current)
    except CheckerError as e:       # an operand named as synthesize names it: as the command line does
        if e.field == "hardware":
            e.field = "--hardware" if args.hardware else "--ttgir" if args.ttgir else "layouts"
        elif e.field in ("store", "load") and not args.ttgir:
            e.message, e.field = f"the {e.field} layout (the {_ORDINALS[e.field == 'load']}): {e.message}", "layouts"
        raise
    syn.verify(store_access=sa, load_access=la, R_store=Rs, R_load=Rl)
    print(json.dumps(syn.to_dict(), indent=2) if args.json else render(syn, pair.store_text, pair.load_text))
    return EXIT_OK


class _VersionAction(argparse.Action):
    """``--version``: the installed version, looked up only when asked (importlib.metadata costs ~10 ms)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, **kwargs):
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit", **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"layoutcheck {version()}")
        parser.exit()


def switch(sp: argparse.ArgumentParser, flag: str, help: str) -> None:
    """An on/off option (off unless given)."""
    sp.add_argument(flag, action="store_true", help=help)


def patterns(sp: argparse.ArgumentParser, flag: str, help: str) -> None:
    """A repeatable shell-pattern option (a list, empty unless given)."""
    sp.add_argument(flag, action="append", default=[], metavar="PATTERN", help=help)


def engine_arg(sp: argparse.ArgumentParser, help: str) -> None:
    """--engine: the decision procedure (f2, z3, both, all), both by default."""
    sp.add_argument("--engine", choices=("f2", "z3", "both", "all"), default="both", help=help)


def dtype_bits_arg(sp: argparse.ArgumentParser, help: str) -> None:
    """--dtype-bits: the element width in bits."""
    sp.add_argument("--dtype-bits", type=int, help=help)


ACCESSES = ("st.shared, ld.shared, stmatrix, ldmatrix, stmatrix.trans, ldmatrix.trans, ds_read_tr, cp.async, "
            "direct_to_lds")


def access_arg(sp: argparse.ArgumentParser, flag: str, what: str) -> None:
    """An instruction option: auto (the one Triton emits) or one of `ACCESSES`."""
    sp.add_argument(flag, default="auto", help=f"{what}: auto (the one Triton emits), {ACCESSES} "
                                               f"(default: %(default)s)")


def report_args(sp: argparse.ArgumentParser, folder: str | None, folder_help: str, formats_help: str) -> None:
    """--report-dir and --format: where the reports go and which are written."""
    sp.add_argument("--report-dir", default=folder, help=folder_help)
    sp.add_argument("--format", default="text,json",
                    help=f"{formats_help}, comma-separated: text,json,md,junit,html (default: text,json)")


def build_parser() -> argparse.ArgumentParser:
    from .reports.text import NOTES_SHOWN, TABLE_ROWS
    p = argparse.ArgumentParser(prog="layoutcheck",
                                description="Prove Triton GPU tensor layouts correct.")
    p.add_argument("--version", action=_VersionAction)
    sub = p.add_subparsers(dest="command", required=True)

    layout_help = ("the layout: Triton attribute text ('#ttg.blocked<{...}>'), an alias line "
                   "('#blocked = #ttg.blocked<{...}>'), a type ('tensor<64x64xf16, #ttg.blocked<{...}>>', "
                   "'!ttg.memdesc<64x64xf16, #shared, #smem, mutable>'; a trailing loc(...) is ignored), or "
                   "TTGIR alias lines followed by one type or attribute; - reads it from stdin")
    file_help = "a YAML declaration file (or an MLIR/TTGIR file with #alias definitions) (default: none)"
    shape_help = ("tensor shape, e.g. 64x64 (default: the shape of a pasted tensor/memdesc type; "
                  "one given must agree with it)")

    def encoding_args(sp):
        sp.add_argument("encoding", nargs="?", help=layout_help)
        sp.add_argument("--file", help=file_help)
        sp.add_argument("--name", help="the encoding's name in --file (default: none; needed with --file)")
        sp.add_argument("--shape", help=shape_help)

    sp = sub.add_parser("lower", help="print Triton's attribute text for an encoding and the LinearLayout "
                                      "Triton builds for it at a shape")
    encoding_args(sp)
    switch(sp, "--json", "print {bases, out_dims} as JSON (default: off: text)")
    sp.set_defaults(run=cmd_lower)

    sp = sub.add_parser("prove", help="prove one property from the command line")
    sp.add_argument("property", choices=PROPERTIES, help="the property: %(choices)s")
    sp.add_argument("layouts", nargs="*", help="one or two layouts (as for lower: attribute text, alias lines, "
                                               "tensor/memdesc types; or names in --file)")
    sp.add_argument("--file", help=file_help)
    sp.add_argument("--shape", help=shape_help)
    engine_arg(sp, "decision procedure: GF(2) algebra, Z3, both, which must agree, or all: both and a second "
                   "SMT solver (Bitwuzla, pip install bitwuzla) on the same SMT-LIB2 "
                   "obligations (default: %(default)s)")
    sp.add_argument("--timeout", type=int, default=10_000, metavar="MS",
                    help="Z3's limit per obligation in ms; a timeout gives unknown (default: %(default)s)")
    dtype_bits_arg(sp, "element width in bits, for bank_conflict_free, aligned_access and fits (default: the "
                       "element type of a pasted type, else the shared encoding's own where it has one)")
    sp.add_argument("--direction", choices=("store", "load"),
                    help="the access: registers to memory (store) or back (load), for the properties with a "
                         "direction (default: the property's own, store for shared memory)")
    access_arg(sp, "--access", "the instruction to model for bank_conflict_free")
    sp.add_argument("--model", choices=("hardware", "triton"), default="hardware",
                    help="bank model for bank_conflict_free: the hardware's wavefronts, or Triton's own "
                         "estimate (default: %(default)s)")
    sp.add_argument("--hardware", default="sm90",
                    help="hardware preset for bank_conflict_free, aligned_access and fits: sm80, sm90, sm100, "
                         "gfx942, gfx950, gfx11, gfx12, gfx1250 (default: %(default)s, an H100)")
    switch(sp, "--json", "print the result as JSON (default: off: text)")
    sp.set_defaults(run=cmd_prove)

    sp = sub.add_parser("smt", help="write the SMT-LIB2 text of an obligation (a model means the property fails)")
    sp.add_argument("property", choices=SMT_PROPERTIES, help="the property: %(choices)s")
    sp.add_argument("layouts", nargs="*", help="one layout (two for equivalent), as for prove")
    sp.add_argument("--file", help=file_help)
    sp.add_argument("--shape", help=shape_help)
    sp.set_defaults(run=cmd_smt)

    sp = sub.add_parser("schema", help="print a JSON Schema of layoutcheck's files, whole (the property registry "
                                       "filled in), for editors and other tools")
    sp.add_argument("name", choices=SCHEMAS, help="which: %(choices)s")
    sp.set_defaults(run=cmd_schema)

    sp = sub.add_parser("swizzle", help="synthesize the shared layout that makes a store and a load "
                                        "conflict-free at their widest vectors (or proven minimal)")
    sp.add_argument("layouts", nargs="*", help="the store's register layout and the load's (as for lower: "
                                               "attribute text, alias lines, tensor types)")
    sp.add_argument("--ttgir", metavar="FILE", help="a TTGIR file: the pair of the access on --line (default: none)")
    sp.add_argument("--line", type=int, help="with --ttgir: the line of a local_load / local_store (its partner is "
                                             "found through the buffer's SSA value)")
    sp.add_argument("--shape", help=shape_help)
    dtype_bits_arg(sp, "element width in bits (default: a pasted type's)")
    sp.add_argument("--hardware", help="hardware preset (default: the module's target, else sm90)")
    sp.add_argument("--current", help="the shared layout in use, to compare with (default: none; with --ttgir "
                                      "the IR's)")
    access_arg(sp, "--store-access", "the store's instruction")
    access_arg(sp, "--load-access", "the load's instruction")
    switch(sp, "--nvmma", "only NVMMA layouts (wgmma / TMA compatible)")
    switch(sp, "--padded", "only AMD padded layouts (identity offsets, one "
                                                          "interval-padding pair)")
    switch(sp, "--json", "print the result as JSON (default: off: text)")
    sp.set_defaults(run=cmd_swizzle)

    sp = sub.add_parser("show", help="print the tensor view (owners of every element) or the hardware view")
    encoding_args(sp)
    switch(sp, "--hw", "hardware view: what each register/lane, shared offset or TMEM row/column holds "
                         "(default: off: the tensor view, who holds each element)")
    sp.add_argument("--svg", metavar="PATH", help="also write an SVG figure of the tensor grid to PATH "
                                                  "(default: none)")
    sp.set_defaults(run=cmd_show)

    sp = sub.add_parser("verify", help="prove every check of spec files (docs/spec-format.md) and write reports")
    sp.add_argument("paths", nargs="+", metavar="PATH",
                    help="spec files (*.yaml), TTGIR files (*.ttgir, *.mlir; - for stdin), or folders searched "
                         "for both")
    sp.add_argument("--jobs", type=int, help="worker processes (default: one per core)")
    report_args(sp, "reports", "folder for the reports (default: reports)", "reports to write")
    patterns(sp, "--only", "run only checks whose id matches this shell pattern (repeatable)")
    patterns(sp, "--skip", "skip checks whose id matches this shell pattern (repeatable)")
    engine_arg(sp, "decision procedure: GF(2) algebra, Z3, both, which must agree (default), or all: both and a "
                   "second SMT solver (Bitwuzla, pip install bitwuzla)")
    sp.add_argument("--timeout", type=int, default=10_000, metavar="MS",
                    help="Z3's limit per check in ms (default: %(default)s)")
    switch(sp, "--quiet", "no progress and no 'reports:' line on stderr (stdout still has the text report)")
    switch(sp, "--table", f"print the table of checks by file and property however long (default: by property "
                          f"alone past {TABLE_ROWS} rows; report.txt always has it)")
    switch(sp, "--notes", f"print every note, the level of each ttg.convert_layout (default: their count by level "
                          f"past {NOTES_SHOWN} notes; report.txt always lists them)")
    switch(sp, "--findings-only", "print only the errors and the warnings, then the recap: no notes, table or "
                                  "checks skipped (the exit code and the reports are the same)")
    sp.add_argument("--figures", choices=("failed", "all", "none"), default="failed",
                    help="figures in the HTML report: for the checks that fail or warn (default), all, none")
    switch(sp, "--timings", "also write timings.json (wall times per check)")
    switch(sp, "--pretty", "indent report.json whatever its size (default: indented up to 2000 checks, compact "
                           "with one check per line above)")
    switch(sp, "--triton-figures", "also report Triton's own figures beside each conversion (triton_class, "
                                   "triton_lowering) and bank-conflict check (triton_conflicts) (default: only "
                                   "where a spec asks, triton: true, and for TTGIR conversions)")
    sp.add_argument("--executor", default="processes", metavar="processes|ray|ray://HOST:PORT",
                    help="where the checks run: worker processes on this machine (default, --jobs of them), "
                         "or Ray tasks in batches: ray (a local Ray, or the cluster RAY_ADDRESS names), "
                         "ray://HOST:PORT (a cluster through Ray Client); needs pip install ray")
    sp.add_argument("--hardware", metavar="NAME",
                    help="hardware preset for TTGIR input (default: from the module's ttg.target)")
    switch(sp, "--werror", "warnings (bank conflicts in TTGIR) fail the run")
    switch(sp, "--differential", "also lower every encoding of the TTGIR with the installed Triton and check that "
                                 "the bases agree (matches_triton; needs pip install triton==3.9.0)")
    sp.add_argument("--explain", metavar="[FILE:]LINE",
                    help="print the proofs (verdicts first) and the layouts of the TTGIR operation at LINE, then "
                         "stop; FILE is an input's path or a suffix of it, e.g. matmul.cuda80.ttgir:84 "
                         "(default: none)")
    switch(sp, "--grids", "with --explain, also print who holds each element of each layout (default: off)")
    sp.set_defaults(run=cmd_verify)

    sp = sub.add_parser("run", help="run a program and verify every kernel Triton compiles in it: "
                                    "layoutcheck run [options] -- python script.py [args]")
    sp.add_argument("program", nargs=argparse.REMAINDER, metavar="-- PROGRAM [ARGS]",
                    help="the command to run (after --)")
    switch(sp, "--werror", "warnings (bank conflicts) make the exit status 1")
    report_args(sp, None, "write the reports of every kernel there at the end (default: none)",
                "reports to write with --report-dir")
    patterns(sp, "--only", "run only checks whose id matches this shell pattern (repeatable)")
    engine_arg(sp, "decision procedure, as for verify (default: %(default)s)")
    switch(sp, "--differential", "also check every encoding's lowering against the installed Triton's "
                                 "(matches_triton)")
    switch(sp, "--quiet", "no summary at the end (findings are still printed)")
    sp.set_defaults(run=cmd_run)
    sp = sub.add_parser("diff", help="what changes in the kernels' layouts, shared-memory accesses and costs between "
                                     "two compiles (two Triton versions, two configs, an edit)")
    sp.add_argument("old", metavar="OLD", help="a TTGIR file or a folder of them (a Triton cache folder too)")
    sp.add_argument("new", metavar="NEW", help="the same, compiled the new way")
    sp.add_argument("--old-triton-version", metavar="X.Y",
                    help="the old side's Triton semantics (default: each module's detected version)")
    sp.add_argument("--new-triton-version", metavar="X.Y",
                    help="the new side's Triton semantics (default: each module's detected version)")
    sp.add_argument("--fail-on", default="regression", metavar="regression|change|never",
                    help="exit 1 on a regression (default), on any change, or never")
    sp.add_argument("--report-dir", help="write diff.txt/diff.json/diff.md/diff.html there (default: none)")
    sp.add_argument("--format", default="text,json", help="with --report-dir, comma-separated: text,json,md,html "
                                                          "(default: text,json)")
    sp.add_argument("--hardware", metavar="NAME", help="hardware preset overriding the modules' ttg.target")
    sp.add_argument("--jobs", type=int, default=1, help="worker processes per side (default: 1)")
    sp.add_argument("--timeout", type=int, default=10_000, metavar="MS", help="Z3 limit per obligation")
    engine_arg(sp, "decision procedure, as for verify (default: %(default)s)")
    sp.set_defaults(run=cmd_diff)
    for name, sp in sub.choices.items():
        if name == "diff":
            continue
        default = {"verify": "a spec's triton_version, else what each module's syntax says, else the newest",
                   "run": "the installed Triton's"}.get(name, "what the text's syntax says, else the newest")
        sp.add_argument("--triton-version", metavar="X.Y",
                        help=f"follow that Triton's semantics: {supported_text()} (default: {default})")
    return p


def given_version(args):
    """The Triton version given with --triton-version (a `TritonVersion`), or None."""
    if args.triton_version is None:
        return None
    try:
        return parse_version(args.triton_version)
    except CheckerError as e:
        raise CheckerError(e.message, argument="--triton-version") from None


def semantics(args):
    """(The Triton version a command on layout text follows, the note or warning lines saying why): the one
    given (a warning where the text's syntax says otherwise), else the one the text's syntax allows (a note
    when not the newest), else the newest supported (`checker.syntax.version_marks.choose`). `main` prints the
    lines once the command has run; bad input gets its one line alone."""
    from .syntax.version_marks import choose, find_marks
    texts = [t for t in ([getattr(args, "encoding", None)] + list(getattr(args, "layouts", None) or ())) if t]
    if getattr(args, "ttgir", None):                # swizzle --ttgir: the module's syntax
        texts.append(read_text(args.ttgir))
    marks = find_marks("\n".join(t for t in texts if t != "-"))
    given = given_version(args)
    try:
        selection, notes, warnings = choose(marks, given, "given", what="text")
    except CheckerError as e:           # the text's marks contradict each other: name where the text came from
        if e.file is None and e.field is None:
            e.field = "--ttgir" if getattr(args, "ttgir", None) else "encoding" if getattr(args, "encoding", None) \
                else "layouts"
        raise
    said = [f"layoutcheck: {kind}: {line}" for kind, lines in (("note", notes), ("warning", warnings))
            for line in lines]
    return selection.version, said


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command in ("verify", "run", "diff"):   # each module's version is chosen as it is read
            return args.run(args)
        version, said = semantics(args)
        with using(version):
            status = args.run(args)
        for line in said:
            print(line, file=sys.stderr)
        return status
    except CheckerError as e:
        print(f"layoutcheck: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except InternalError as e:
        print(f"layoutcheck: internal error: {e}", file=sys.stderr)
        return EXIT_INTERNAL
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:           # Ctrl-C: one line, no traceback; nothing was written half-way
        print("layoutcheck: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
