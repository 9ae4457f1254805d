"""The text report, for a person at a terminal or at the tail of a CI log: the headline, then the findings
by severity (the errors: the problems of the TTGIR input, the failed spec checks with their witness and the TTGIR
findings as compiler diagnostics; then the warnings; then the notes), the table of checks, the checks skipped,
and a recap that repeats the errors and ends on the headline again.

    layoutcheck verify: 6 checks, 5 passed, 1 failed (engine both, Triton 3.9: default)

    FAIL ampere-epilogue  specs/ampere.yaml:40  expected holds, got fails
         witness: missing_coordinate: coordinate=(dim0=0, dim1=64) certificate=64

    file                 property            checks  passed  failed
    specs/ampere.yaml    bank_conflict_free       4       4       0
                         conversion               2       1       1
    total                                         6       5       1

    1 error(s), repeated from above:
    FAIL ampere-epilogue  specs/ampere.yaml:40  expected holds, got fails
    layoutcheck verify: 6 checks, 5 passed, 1 failed (engine both, Triton 3.9: default)

A big run stays readable: a table of more than `TABLE_ROWS` rows by file and property is printed by property
alone (`verify --table` prints it whole), more than `NOTES_SHOWN` notes are counted by level (`--notes` lists
them), the recap repeats the first `RECAP_ERRORS` errors, and `--findings-only` keeps the errors, the warnings
and the recap. report.txt is always whole (`render_complete`).

`witness_line` (a counterexample in one line), `failure_line`, `finding` and `failure_sentence` are shared
with the Markdown and JUnit reports.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from ..registry import STATIC_PROPERTIES

WITNESS_CHARS = 320
TABLE_ROWS = 200            # a longer table by file and property is printed by property alone (verify --table: whole)
NOTES_SHOWN = 50            # more notes are counted by level (verify --notes: listed)
RECAP_ERRORS = 20           # errors repeated at the end of the report
SEVERITIES = ("error", "warning", "note")


def show(value: Any) -> str:
    """Compact plain text: {dim0: 4, dim1: 2} -> (dim0=4, dim1=2), lists in brackets, runs of
    three or more consecutive integers as ranges ([0, 1, 2, 3, 8] -> [0-3, 8])."""
    if isinstance(value, Mapping):
        return "(" + ", ".join(f"{k}={show(v)}" for k, v in value.items()) + ")"
    if isinstance(value, list) and value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return "[" + ", ".join(_runs(value)) + "]"
    if isinstance(value, list):
        return "[" + ", ".join(show(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


def _runs(xs: list[int]) -> list[str]:
    out: list[str] = []
    start = 0
    for i in range(1, len(xs) + 1):
        if i == len(xs) or xs[i] != xs[i - 1] + 1:
            run = xs[start:i]
            out += [f"{run[0]}-{run[-1]}"] if len(run) >= 3 else [str(x) for x in run]
            start = i
    return out


def witness_line(check: Mapping[str, Any], limit: int = WITNESS_CHARS) -> str:
    """The check's counterexample in one line ('' when it has none), cut at `limit` characters."""
    cx = check.get("counterexample")
    if not cx:
        return ""
    text = f"{cx.get('kind', 'witness')}: " + " ".join(f"{k}={show(v)}" for k, v in cx.items() if k != "kind")
    return text if len(text) <= limit else text[:limit - 3] + "..."


def failure_line(check: Mapping[str, Any]) -> str:
    """Why a check failed, with its witness: 'expected holds, got fails; witness: ...'."""
    reason = check.get("failure") or f"expected {check.get('expect')}, got {check.get('verdict')}"
    witness = witness_line(check)
    return f"{reason}; witness: {witness}" if witness else reason


def failure_sentence(check: Mapping[str, Any]) -> str:
    """A failed check in one line, in the text report's words: a TTGIR check's `finding` ('2-way bank conflict
    (ds_write_b32): lanes 0 and 9 hit bank 0 ...'), a spec check's `failure_line`."""
    return finding(check) if (check.get("source") or {}).get("op") else failure_line(check)


def source_text(check: Mapping[str, Any]) -> str:
    src = check.get("source") or {}
    return f"{src.get('file')}:{src.get('line')}"


def headline(report: Mapping[str, Any]) -> str:
    s = report["summary"]
    warnings = f", {s['warnings']} warnings" if s.get("warnings") else ""
    return (f"layoutcheck verify: {s['checks']} checks, {s['passed']} passed, {s['failed']} failed{warnings} "
            f"(engine {s['engine']}{version_text(s)})")


def version_text(summary: Mapping[str, Any]) -> str:
    """``, Triton 3.6: detected: ...``: the Triton version the checks followed and why, when recorded."""
    if "triton_version" not in summary:
        return ""
    reason = summary.get("triton_version_reason")
    return f", Triton {summary['triton_version']}" + (f": {reason}" if reason else "")


def render_text(report: Mapping[str, Any], *, table: bool = False, notes: bool = False,
                findings_only: bool = False) -> str:
    """The text report (module docstring), as `verify` prints it. `table`: the table by file and property
    however long (else by property alone past `TABLE_ROWS` rows); `notes`: every note (else counted by level
    past `NOTES_SHOWN`); `findings_only`: the errors, the warnings and the recap, nothing else."""
    found = findings(report)
    errors = [f for f in found if f.severity == "error"]
    problems = [f for f in errors if f.check is None]
    blocks = [[f"{len(problems)} problem(s) in the TTGIR input (the rest was checked):"] + _lines(problems)
              if problems else [],
              _lines(errors[len(problems):]),
              _lines(f for f in found if f.severity == "warning")]
    if not findings_only:
        blocks += [note_lines([f for f in found if f.severity == "note"], every=notes),
                   table_lines(report, whole=table), skipped_lines(report)]
    blocks.append(recap_lines(report, errors))
    lines = [headline(report)]
    for block in blocks:
        lines += [""] + block if block else []
    return "\n".join(lines) + "\n"


def render_complete(report: Mapping[str, Any]) -> str:
    """report.txt: the text report with the whole table and every note, however big the run."""
    return render_text(report, table=True, notes=True)


class Finding(NamedTuple):
    """One finding of the text report: its severity (error, warning or note), its file and line, its lines (the
    first says it all; a failed spec check's second is its witness) and its check (None for a problem of the
    TTGIR input)."""
    severity: str
    file: str
    line: int
    lines: tuple[str, ...]
    check: Mapping[str, Any] | None


def findings(report: Mapping[str, Any]) -> list[Finding]:
    """Every finding, errors first (the problems of the TTGIR input, then the failed checks), then warnings,
    then notes; within a severity in file and line order. A failed spec check is ``FAIL id  file:line  reason``
    and its witness; a TTGIR check's finding is an `ir_diagnostics` line."""
    problems = [Finding("error", file, line, (f"{file}:{line}: error: {message}",), None)
                for file, line, message in input_problems(report)]
    found = [Finding(severity, file, line, (diagnostic(file, line, where, op, severity, message),), check)
             for file, line, where, op, severity, message, check in ir_findings(report)]
    for c in report["checks"]:
        if c["passed"] or (c.get("source") or {}).get("op"):
            continue
        witness = witness_line(c)
        found.append(Finding(c.get("severity", "error"), c["source"]["file"], c["source"].get("line") or 0,
                             (f"FAIL {c['id']}  {source_text(c)}  {c.get('failure') or ''}",)
                             + ((f"     witness: {witness}",) if witness else ()), c))
    found.sort(key=lambda f: (SEVERITIES.index(f.severity), f.file, f.line))
    return problems + found


def _lines(found: Iterable[Finding]) -> list[str]:
    return [line for f in found for line in f.lines]


def note_lines(notes: list[Finding], every: bool = False) -> list[str]:
    """The notes (the level of each conversion), one per line; past `NOTES_SHOWN` of them (unless `every`),
    their count by level and by whether Triton moves the data further than the proof needs."""
    if every or len(notes) <= NOTES_SHOWN:
        return _lines(notes)
    levels: dict[str, int] = {}
    for f in notes:
        level = (f.check.get("details") or {}).get("level", "?")
        levels[level] = levels.get(level, 0) + 1
    by_level = ", ".join(f"{levels[level]} {level}-level" for level in [*LEVEL_MEANING, "?"] if level in levels)
    more = sum(more_than_needed(f.check) for f in notes)
    return [(f"{len(notes)} notes (the level of each ttg.convert_layout): {by_level}; for {more} Triton emits more "
             "than the proof needs"),
            f"(more than {NOTES_SHOWN} notes are counted, not listed: --notes lists them, report.txt has them)"]


def table_lines(report: Mapping[str, Any], whole: bool = False) -> list[str]:
    """The table of checks by file and property, and the total; by property alone when it would have more than
    `TABLE_ROWS` rows (unless `whole`), saying so."""
    by_file = _counts(report, by_file=True)
    if whole or len(by_file) <= TABLE_ROWS:
        return _table(report, by_file, ("file", "property"))
    return _table(report, _counts(report, by_file=False), ("property",)) + [
        f"({len(by_file)} rows by file and property: --table prints them, report.txt has them)"]


def _counts(report: Mapping[str, Any], by_file: bool) -> dict[tuple[str, ...], list[int]]:
    """(file, property) or (property,) -> [checks, passed, warnings], sorted."""
    groups: dict[tuple[str, ...], list[int]] = {}
    for c in report["checks"]:
        key = (c["source"]["file"], c["property"]) if by_file else (c["property"],)
        row = groups.setdefault(key, [0, 0, 0])
        row[0] += 1
        row[1] += c["passed"]
        row[2] += not c["passed"] and c.get("severity") == "warning"
    return dict(sorted(groups.items()))


def _table(report: Mapping[str, Any], groups: dict[tuple[str, ...], list[int]], keys: tuple[str, ...]) -> list[str]:
    """The rows of `groups` under the `keys` columns (a file repeated from the row above is left blank), with a
    warnings column when a check may warn."""
    warned = any(c.get("severity") == "warning" for c in report["checks"])
    head = keys + ("checks", "passed", "failed") + (("warnings",) if warned else ())
    rows = [head]
    last = None
    for key, (n, ok, warn) in groups.items():
        shown = (key[0] if key[0] != last or len(key) == 1 else "",) + key[1:]
        rows.append(shown + (str(n), str(ok), str(n - ok - warn)) + ((str(warn),) if warned else ()))
        last = key[0]
    s = report["summary"]
    rows.append(("total",) + ("",) * (len(keys) - 1) + (str(s["checks"]), str(s["passed"]), str(s["failed"]))
                + ((str(s.get("warnings", 0)),) if warned else ()))
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    return ["  ".join(r[i].ljust(widths[i]) if i < len(keys) else r[i].rjust(widths[i])
                      for i in range(len(head))).rstrip() for r in rows]


def recap_lines(report: Mapping[str, Any], errors: list[Finding]) -> list[str]:
    """The end of the report: the errors again, one line each (the first `RECAP_ERRORS`), then the headline."""
    if not errors:
        return [headline(report)]
    shown = [f.lines[0] for f in errors[:RECAP_ERRORS]]
    more = [f"... and {len(errors) - RECAP_ERRORS} more above"] if len(errors) > RECAP_ERRORS else []
    return [f"{len(errors)} error(s), repeated from above:"] + shown + more + [headline(report)]


def input_problems(report: Mapping[str, Any]) -> list[tuple[str, int, str]]:
    """(file, line, message) of every part of the TTGIR input the reader could not read (exit code 2)."""
    return [(k["file"], p["line"], p["message"]) for k in report["summary"].get("ttgir", ())
            for p in k["problems"]]


def skipped_summary(report: Mapping[str, Any]) -> list[tuple[str, int, str]]:
    """(file, count, reason) for every reason a TTGIR check was not made, by file then count."""
    out = []
    for k in report["summary"].get("ttgir", ()):
        for reason, n in sorted(k.get("skipped_checks", {}).items(), key=lambda kv: (-kv[1], kv[0])):
            out.append((k["file"], n, reason))
    return out


def skipped_lines(report: Mapping[str, Any]) -> list[str]:
    """The text report's section on checks not made: one line per (file, reason) with its count and
    the first line it happened on."""
    rows = skipped_summary(report)
    if not rows:
        return []
    first: dict[tuple[str, str], int] = {}
    for k in report["summary"].get("ttgir", ()):
        for sk in k.get("skips", ()):
            first.setdefault((k["file"], sk["reason"]), sk["line"])
    total = sum(n for _, n, _ in rows)
    lines = [f"{total} check(s) skipped (not covered by the models; the reason for each):"]
    for file, n, reason in rows:
        where = f"{file}:{first[(file, reason)]}" if (file, reason) in first else file
        lines.append(f"  skipped {n}x  {where}: {reason}")
    return lines


# ---------------------------------------------------------------- TTGIR findings, as compiler diagnostics

LEVEL_MEANING = {"register": "every thread already holds what it needs (register moves only)",
                 "warp": "data moves between lanes of a warp (shuffles)",
                 "cta": "data moves between warps (through shared memory)",
                 "cross_cta": "data moves between CTAs (distributed shared memory)"}
TRITON_CLASS_LEVEL = {"register": "register", "warp_shuffle": "warp", "shared_memory": "cta"}


def ir_findings(report: Mapping[str, Any]) -> list[tuple[str, int, str, str, str, str, Mapping[str, Any]]]:
    """(file, line, `python_where`, op, severity, message, check) of every finding of a check derived from
    TTGIR, in file and line order (errors, warnings, notes on one line): errors and warnings are failed checks
    (`finding`); every conversion also gets a note with its level (`conversion_note`)."""
    found = []
    for c in report["checks"]:
        src = c.get("source") or {}
        if not src.get("op"):
            continue
        where = python_where(src)
        if not c["passed"]:
            found.append((src["file"], src.get("line") or 0, where, src["op"], c.get("severity", "error"),
                          finding(c), c))
        elif c["property"] == "conversion" and c["verdict"] == "holds":
            found.append((src["file"], src.get("line") or 0, where, src["op"], "note", conversion_note(c), c))
    found.sort(key=lambda f: (f[0], f[1], SEVERITIES.index(f[4])))
    return found


def ir_diagnostics(report: Mapping[str, Any]) -> list[str]:
    """One line per finding of a check derived from TTGIR (`ir_findings`), in file and line order:

        kernel.ttgir:142 (matmul.py:42:5): ttg.local_load: warning: 4-way bank conflict (LDS.32): lanes 0 and 8 ...
        kernel.ttgir:88: ttg.convert_layout: note: cta-level conversion #mma -> #blocked: data moves between warps

    The Python source of the operation (its TTGIR ``loc(...)``, `python_where`) follows the TTGIR line when
    known. The text report prints the same lines, errors first (`findings`)."""
    return [diagnostic(*f[:6]) for f in ir_findings(report)]


def diagnostic(file: str, line: int, where: str, op: str, severity: str, message: str) -> str:
    """'kernel.ttgir:142 (matmul.py:42:5): ttg.local_load: warning: ...': a TTGIR finding as a compiler says it."""
    return f"{file}:{line}{where}: {op}: {severity}: {message}"


def python_where(source: Mapping[str, Any]) -> str:
    """' (matmul.py:42:5)': the file name (without its folder; the report has the full path), line and
    column of a check's Python source, or '' when the TTGIR had no location for it."""
    py = source.get("python")
    if not py:
        return ""
    name = str(py.get("file", "")).replace("\\", "/").rsplit("/", 1)[-1] or "?"
    return f" ({name}:{py.get('line')}:{py.get('col')})"


def finding(check: Mapping[str, Any]) -> str:
    """A failed IR check in one line."""
    prop, d = check["property"], check.get("details") or {}
    cx = check.get("counterexample") or {}
    label = _label(check["id"])
    if check["verdict"] == "unknown":
        return f"{prop} {label}: unknown ({check.get('explanation', '')})"
    if prop == "bank_conflict_free":
        return bank_conflict_message(d, cx)
    if prop == "conversion_cost" and cx.get("kind") == "bank_conflict":
        return conversion_cost_message(d, cx)
    if prop == "aligned_access" and cx.get("kind") == "misaligned_access":
        return aligned_message(cx, check.get("hardware"), (check.get("parameters") or {}).get("access"))
    if prop == "coalesced" and cx.get("kind") in ("split_sectors", "narrow_vector"):
        return coalesced_message(d, cx, check.get("explanation", ""))
    if prop == "fits" and cx.get("kind") == "out_of_bounds" and "size_bytes" in d:
        return f"{prop} fails {label}: {fits_message(d, cx, (check.get('parameters') or {}).get('buffers') or 1)}"
    if prop in STATIC_PROPERTIES:            # direct checks: the explanation names the broken rule
        return f"{prop} {label}: {check.get('explanation', '')}".replace(f"{prop} : ", f"{prop}: ")
    witness = witness_line(check)
    return f"{prop} fails {label}" + (f"; witness: {witness}" if witness else f": {check.get('explanation', '')}")


def fits_message(details: Mapping[str, Any], cx: Mapping[str, Any], copies: int = 1) -> str:
    """A shared buffer past the capacity, in words: its size, and for an allocation of several copies (a pipeline's
    stages: ``3x128x64``) all of them, each checked against its share of the capacity; then the first element
    past it (the witness)."""
    size, share = details["end_bytes"], details["capacity_bytes"]
    if copies > 1:
        lead = (f"its {copies} copies need {copies} x {size} = {copies * size} bytes; one copy gets {share} bytes "
                f"(1/{copies} of the capacity)")
    else:
        lead = f"the buffer needs {size} bytes, past the {share}-byte capacity"
    return f"{lead}; the first element past it is offset {cx.get('offset')} (element {show(cx.get('element'))})"


def bank_conflict_message(details: Mapping[str, Any], cx: Mapping[str, Any]) -> str:
    """'4-way bank conflict (LDS.32): lanes 0 and 8 hit bank 0 (addresses 0x0, 0x400)'."""
    ways = (details.get("conflicts") or 0) + 1
    text = f"{ways}-way bank conflict ({details.get('mnemonic', details.get('instruction', '?'))})"
    accesses = cx.get("accesses") or []
    if len(accesses) >= 2:
        a, b = accesses[0], accesses[1]
        if a.get("lane") != b.get("lane"):
            who = f"lanes {a.get('lane')} and {b.get('lane')}"
        else:
            who = f"lane {a.get('lane')} registers {a.get('register')} and {b.get('register')}"
        text += (f": {who} hit bank {cx.get('bank')} (addresses {hex(a.get('byte_address', 0))}, "
                 f"{hex(b.get('byte_address', 0))})")
    text += f"; {details.get('wavefronts')} wavefronts where {details.get('min_wavefronts')} would do"
    sug = details.get("suggestion")
    if sug:                                  # a local_store / local_load pair: the synthesized layout (synthesis)
        text += (f"; suggested shared layout {sug.get('layout')} (store + load: {sug.get('before')} -> "
                 f"{sug.get('wavefronts')} wavefronts{', proven minimal' if sug.get('proven') else ''})")
    return text


def conversion_cost_message(details: Mapping[str, Any], cx: Mapping[str, Any]) -> str:
    """'round trip through 8192 B of scratch: its load has a 2-way bank conflict (ds_read_b128): lanes 0 and 20
    hit bank 0 (...); 128 wavefronts where 64 would do': the first side that costs more than its minimum (the one
    the witness is of)."""
    side = next((s for s in ("store", "load") if (details.get(s) or {}).get("wavefronts", 0) >
                 (details.get(s) or {}).get("min_wavefronts", 0)), "store")
    return (f"round trip through {details.get('scratch_bytes')} B of scratch: its {side} has a "
            + bank_conflict_message(details.get(side) or {}, cx))


TRITON_LOWERING = {"none": ("nothing (the layouts are the same)", "register"),
                   "register_permutation": ("a register permutation", "register"),
                   "warp_shuffle": ("warp shuffles", "warp"),
                   "shared_memory": ("a round trip through shared memory", "cta"),
                   "distributed_shared_memory": ("a round trip through distributed shared memory", "cross_cta")}


def coalesced_message(details: Mapping[str, Any], cx: Mapping[str, Any], explanation: str) -> str:
    """'uncoalesced store (global_store_dwordx2, 8 B per lane): 512 sectors in 16 requests where 256 would do;
    warp 0's request ...; suggested: ...' or 'narrow load vectors (ld.global.b32, 4 B per lane): ...'."""
    access = details.get("access", "access")
    what = f"{details.get('instruction', '?')}, {details.get('vector_bytes', '?')} B per lane"
    if cx.get("kind") == "split_sectors":
        # a stride known only at run time is counted as rows a sector or more apart (properties.coalesced)
        runtime = None in (details.get("strides_bytes") or ())
        text = (f"uncoalesced {access} ({what}): {details.get('sectors')} sectors in {details.get('requests')} "
                f"requests where {details.get('min_sectors')} would do"
                f"{' if the runtime stride is a sector (32 B) or more' if runtime else ''}; {explanation}")
    else:
        text = f"narrow {access} vectors ({what}): {explanation}"
    sug = details.get("suggestion")
    return text + (f"; suggested: {sug}" if sug else "")


MISALIGNED_EFFECT = {"nvidia": "it faults: cudaErrorMisalignedAddress",
                     "amd": "LDS serves it in the unaligned access mode, split into smaller accesses",
                     "amd direct-to-LDS":
                         "AMD documents no alignment rule for a direct-to-LDS write; Triton accepts it"}


def aligned_message(cx: Mapping[str, Any], hardware: str | None = None, access: str | None = None) -> str:
    """'misaligned 16-byte access (LDS.128): lane 8 register 0 of warp 0 at offset 32 (slot 33) is byte 132 ...',
    with what the target does with it (NVIDIA faults; AMD's LDS splits it; of AMD's direct-to-LDS write nothing
    is documented)."""
    from ..hardware import PRESETS  # lazy: `layoutcheck --version` loads this module; presets only for this message
    vb, byte = cx.get("vector_bytes"), cx.get("byte_address", 0)
    vendor = PRESETS[hardware].vendor if hardware in PRESETS else "nvidia"
    if vendor == "amd" and access in ("cp.async", "direct_to_lds"):
        vendor = "amd direct-to-LDS"
    return (f"misaligned {vb}-byte access ({cx.get('mnemonic')}): lane {cx.get('lane')} register "
            f"{cx.get('register')} of warp {cx.get('warp')} at offset {cx.get('offset')} (slot "
            f"{cx.get('physical_offset')}) is byte {byte}, {byte % vb if vb else '?'} past a {vb}-byte boundary "
            f"({MISALIGNED_EFFECT.get(vendor, MISALIGNED_EFFECT['nvidia'])})")


def conversion_note(check: Mapping[str, Any]) -> str:
    """'cta-level conversion A -> B: data moves between warps (through shared memory); Triton emits a
    round trip through shared memory', saying so plainly when the proof finds a cheaper level."""
    d = check.get("details") or {}
    level = d.get("level", "?")
    text = f"{level}-level conversion {_label(check['id'])}: {LEVEL_MEANING.get(level, '')}"
    lowering = TRITON_LOWERING.get(d.get("triton_lowering"))
    if lowering is None:
        triton = TRITON_CLASS_LEVEL.get(d.get("triton_class"))
        if triton and triton != level:
            text += f" (Triton lowers it as {d.get('triton_class')})"
        return text
    what = lowering[0]
    if more_than_needed(check):
        return text + f"; Triton emits {what}, more than needed: the proof shows {level} level suffices"
    return text + f"; Triton emits {what}"


def more_than_needed(check: Mapping[str, Any]) -> bool:
    """Whether Triton lowers a conversion at a higher level (`LEVEL_MEANING`'s order) than its proven one."""
    d = check.get("details") or {}
    lowering = TRITON_LOWERING.get(d.get("triton_lowering"))
    order = list(LEVEL_MEANING)
    return lowering is not None and d.get("level") in order and order.index(lowering[1]) > order.index(d["level"])


def _label(check_id: str) -> str:
    """The [what] part of an IR check id (the layouts involved), or ''."""
    i = check_id.find("[")
    return check_id[i + 1:-1] if i >= 0 and check_id.endswith("]") else ""
