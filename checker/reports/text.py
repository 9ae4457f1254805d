"""The text report: a summary table grouped by spec file and property, then one line per failed check.

    layoutcheck verify: 12 checks, 11 passed, 1 failed (engine both, Triton 3.9: default)

    spec                 property            checks  passed  failed
    specs/ampere.yaml    bank_conflict_free       4       4       0
                         conversion               2       1       1
    total                                         6       5       1

    FAIL ampere-epilogue  specs/ampere.yaml:40  expected holds, got fails
         witness: missing_coordinate: coordinate=(dim0=0, dim1=64) certificate=64

`witness_line` (a counterexample in one line) and `failure_line` are shared
with the Markdown and JUnit reports.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..properties import STATIC_PROPERTIES

WITNESS_CHARS = 320


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


def render_text(report: Mapping[str, Any]) -> str:
    checks = report["checks"]
    warned = any(c.get("severity") == "warning" for c in checks)
    groups: dict[tuple[str, str], list[int]] = {}
    for c in checks:
        row = groups.setdefault((c["source"]["file"], c["property"]), [0, 0, 0])
        row[0] += 1
        row[1] += c["passed"]
        row[2] += not c["passed"] and c.get("severity") == "warning"
    head = ("file", "property", "checks", "passed", "failed") + (("warnings",) if warned else ())
    rows = [head]
    last_file = None
    for (file, prop), (n, ok, warn) in sorted(groups.items(), key=lambda kv: kv[0]):
        rows.append((file if file != last_file else "", prop, str(n), str(ok), str(n - ok - warn))
                    + ((str(warn),) if warned else ()))
        last_file = file
    s = report["summary"]
    rows.append(("total", "", str(s["checks"]), str(s["passed"]), str(s["failed"]))
                + ((str(s.get("warnings", 0)),) if warned else ()))
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = [headline(report), ""]
    for r in rows:
        lines.append("  ".join(r[i].ljust(widths[i]) if i < 2 else r[i].rjust(widths[i])
                               for i in range(len(head))).rstrip())
    failed = [c for c in checks if not c["passed"] and not (c.get("source") or {}).get("op")]
    diagnostics = ir_diagnostics(report)
    if failed or diagnostics:
        lines.append("")
    for c in failed:
        reason = c.get("failure") or ""
        lines.append(f"FAIL {c['id']}  {source_text(c)}  {reason}")
        if witness_line(c):
            lines.append(f"     witness: {witness_line(c)}")
    lines += diagnostics
    lines += skipped_lines(report)
    problems = [f"{file}:{line}: error: {message}" for file, line, message in input_problems(report)]
    if problems:
        lines += ["", f"{len(problems)} problem(s) in the TTGIR input (the rest was checked):"] + problems
    return "\n".join(lines) + "\n"


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
    lines = ["", f"{total} check(s) skipped (not covered by the models; the reason for each):"]
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


def ir_diagnostics(report: Mapping[str, Any]) -> list[str]:
    """One line per finding of a check derived from TTGIR, in file and line order:

        kernel.ttgir:142 (matmul.py:42:5): ttg.local_load: warning: 4-way bank conflict (LDS.32): lanes 0 and 8 ...
        kernel.ttgir:88: ttg.convert_layout: note: cta-level conversion #mma -> #blocked: data moves between warps

    errors and warnings are failed checks; every conversion also gets a note with its level. The Python
    source of the operation (its TTGIR ``loc(...)``, `python_where`) follows the TTGIR line when known."""
    found = []
    for c in report["checks"]:
        src = c.get("source") or {}
        if not src.get("op"):
            continue
        where = python_where(src)
        if not c["passed"]:
            found.append((src["file"], src.get("line") or 0, where, src["op"], c.get("severity", "error"),
                          finding(c)))
        elif c["property"] == "conversion" and c["verdict"] == "holds":
            found.append((src["file"], src.get("line") or 0, where, src["op"], "note", conversion_note(c)))
    order = {"error": 0, "warning": 1, "note": 2}
    found.sort(key=lambda f: (f[0], f[1], order[f[4]]))
    return [f"{file}:{line}{where}: {op}: {severity}: {message}" for file, line, where, op, severity, message in found]


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
    if prop == "aligned_access" and cx.get("kind") == "misaligned_access":
        return aligned_message(cx, check.get("hardware"))
    if prop in STATIC_PROPERTIES:            # direct checks: the explanation names the broken rule
        return f"{prop} {label}: {check.get('explanation', '')}".replace(f"{prop} : ", f"{prop}: ")
    witness = witness_line(check)
    return f"{prop} fails {label}" + (f"; witness: {witness}" if witness else f": {check.get('explanation', '')}")


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


TRITON_LOWERING = {"none": ("nothing (the layouts are the same)", "register"),
                   "register_permutation": ("a register permutation", "register"),
                   "warp_shuffle": ("warp shuffles", "warp"),
                   "shared_memory": ("a round trip through shared memory", "cta"),
                   "distributed_shared_memory": ("a round trip through distributed shared memory", "cross_cta")}


MISALIGNED_EFFECT = {"nvidia": "it faults: cudaErrorMisalignedAddress",
                     "amd": "LDS serves it in the unaligned access mode, split into smaller accesses"}


def aligned_message(cx: Mapping[str, Any], hardware: str | None = None) -> str:
    """'misaligned 16-byte access (LDS.128): lane 8 register 0 of warp 0 at offset 32 (slot 33) is byte 132 ...',
    with what the target does with it (NVIDIA faults; AMD's LDS splits it)."""
    from ..hardware import PRESETS
    vb, byte = cx.get("vector_bytes"), cx.get("byte_address", 0)
    vendor = PRESETS[hardware].vendor if hardware in PRESETS else "nvidia"
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
    what, triton_level = lowering
    order = list(LEVEL_MEANING)
    if level in order and order.index(triton_level) > order.index(level):
        return text + f"; Triton emits {what}, more than needed: the proof shows {level} level suffices"
    return text + f"; Triton emits {what}"


def _label(check_id: str) -> str:
    """The [what] part of an IR check id (the layouts involved), or ''."""
    i = check_id.find("[")
    return check_id[i + 1:-1] if i >= 0 and check_id.endswith("]") else ""
