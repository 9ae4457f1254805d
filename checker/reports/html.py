"""One self-contained HTML page from a JSON report, for a person to read in a minute.

What the page shows, top to bottom:

- the verdict in one line and the counts (checks, passed, failed, warnings, errors, unknown,
  skipped), then the failed checks and the warnings, each a link to its details, then the checks
  that were not made (with their reasons) and the problems of the TTGIR input;
- a filter bar: status (failed, warning, error, unknown, passed) and property; plain JavaScript
  inline in the page (no network, nothing loaded from elsewhere), hiding the checks that do not
  match and the groups left empty;
- one section per input file (spec or TTGIR module), in the report's file order. A spec's checks
  are listed in spec order; a TTGIR module's are grouped by operation (its line and name, and
  its Python source when the record has ``source.python``), followed by the module's source lines
  with each failed check's diagnostic inline under its line;
- per check a ``<details>`` row: status, id, property, shape, verdict, expectation. It opens on the
  check's failure, explanation, operands, engines, details, the witness as a table and figures.

Warnings (``severity: warning``) are shown as warnings everywhere, in amber, never as failures.

Figures (``checker.reports.svg``) are drawn for the checks that did not pass (``figures="failed"``,
the default), for every check (``"all"``) or none (``"none"``); at most one set per distinct
(operand layouts, shape): a later check with the same layouts links to the first one's figures.
The witness is drawn on them (conflicting lanes and cells outlined in red; on a shared layout
the cells of the conflicting bank outlined, dashed).

Where the layouts come from: a record's ``layouts`` (the runner puts them on every check that did
not pass: `checker.runner.shown_layouts`) or ``details.layouts`` ({name: LinearLayout dict, or
Triton's {"in_dims", "in", "shape"}}). The page never parses attribute text or lowers an encoding;
a check without them gets no figure. A layout that cannot be rebuilt gets a one-line note in place
of its figure; the page is still written.

The same report gives the same bytes.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any, Mapping

from ..errors import CheckerError
from ..layout import LinearLayout
from . import svg
from .text import finding, python_where, show, skipped_summary, version_text

FIGURE_CELLS = 32        # cells per side in the page's figures (show --svg draws up to 64)
FIGURES = ("failed", "all", "none")
SOURCE_MAX_LINES = 5000  # a module longer than this is not listed

STATUS_LABEL = {"fail": "FAIL", "warn": "warning", "error": "error", "unknown": "unknown", "pass": "pass"}
STATUS_ORDER = ("fail", "error", "warn", "unknown", "pass")
COLUMN = {"fail": "failed", "warn": "warnings", "error": "errors", "unknown": "unknown", "pass": "passed"}

CSS = """
:root { --fail: #b00020; --fail-bg: #fde7ea; --warn: #8a5300; --warn-bg: #fff3d6; --pass: #176b1f;
  --pass-bg: #e6f4e7; --muted: #666; --line: #ddd; }
* { box-sizing: border-box; }
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; padding: 1em 1.5em;
  color: #222; max-width: 1800px; }
h1 { font-size: 1.5em; margin: .2em 0; } h2 { font-size: 1.2em; margin: 0; }
h3 { font-size: 1em; margin: 1.2em 0 .4em; }
a { color: #0645ad; } code, pre, .mono { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12px; }
.verdict { font-size: 1.15em; font-weight: 600; padding: .5em .8em; border-radius: 6px; margin: .6em 0; }
.verdict.fail { background: var(--fail-bg); color: var(--fail); }
.verdict.warn { background: var(--warn-bg); color: var(--warn); }
.verdict.pass { background: var(--pass-bg); color: var(--pass); }
.counts { display: flex; flex-wrap: wrap; gap: .5em; margin: .5em 0 1em; padding: 0; list-style: none; }
.counts li { border: 1px solid var(--line); border-radius: 6px; padding: .3em .8em; min-width: 6em; }
.counts b { display: block; font-size: 1.4em; }
.counts .fail b { color: var(--fail); } .counts .warn b { color: var(--warn); } .counts .pass b { color: var(--pass); }
.badge { display: inline-block; min-width: 5.2em; text-align: center; border-radius: 4px; padding: 0 .4em;
  font-weight: 600; font-size: 12px; }
.badge.fail, .badge.error { background: var(--fail); color: #fff; }
.badge.warn { background: #f0b429; color: #3d2600; }
.badge.unknown { background: #777; color: #fff; }
.badge.pass { background: var(--pass-bg); color: var(--pass); }
ul.findings { margin: .3em 0 1em; padding-left: 1.2em; } ul.findings li { margin: .15em 0; }
.where { color: var(--muted); }
table { border-collapse: collapse; } td, th { border: 1px solid var(--line); padding: .15em .5em; text-align: left;
  vertical-align: top; } th { background: #f4f4f4; font-weight: 600; }
#filters { position: sticky; top: 0; background: #fff; border-bottom: 1px solid var(--line); padding: .5em 0;
  z-index: 2; display: flex; flex-wrap: wrap; gap: .4em 1.2em; align-items: center; }
#filters label { white-space: nowrap; }
section.file { margin: 1.2em 0; border: 1px solid var(--line); border-radius: 6px; }
section.file > header { background: #f7f7f7; padding: .5em .8em; border-bottom: 1px solid var(--line); }
section.file > header .tally { color: var(--muted); margin-left: .8em; font-size: .9em; }
.op { margin: .3em .8em .6em; } .op > h4 { margin: .6em 0 .2em; font-size: .95em; font-weight: 600; }
.rows { margin: 0 .8em .6em; }
details.check { border-bottom: 1px solid #eee; }
details.check > summary { display: grid; grid-template-columns: 6em minmax(0, 1fr) 13em 7em 6em 6em;
  gap: .6em; align-items: baseline; padding: .2em .3em; cursor: pointer; list-style: none; }
details.check > summary::-webkit-details-marker { display: none; }
details.check > summary:hover { background: #f5f8ff; }
details.check.st-fail > summary, details.check.st-error > summary { background: var(--fail-bg); }
details.check.st-warn > summary { background: var(--warn-bg); }
.cid { overflow-wrap: anywhere; font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12px; }
.head { display: grid; grid-template-columns: 6em minmax(0, 1fr) 13em 7em 6em 6em; gap: .6em; padding: .2em .3em;
  color: var(--muted); font-size: 12px; margin: 0 .8em; border-bottom: 1px solid var(--line); }
.body { padding: .4em 1em .8em 7em; }
dl.kv { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .15em 1em; margin: .3em 0; }
dl.kv dt { font-weight: 600; } dl.kv dd { margin: 0; overflow-wrap: anywhere; }
.failure.fail, .failure.error { color: var(--fail); font-weight: 600; } .failure.warn { color: var(--warn); font-weight: 600; }
figure { margin: .8em 0; overflow-x: auto; } .figures { display: flex; flex-wrap: wrap; gap: 1em; }
.missing { color: #a05a00; }
details.source { margin: .4em .8em .8em; } details.source > summary { cursor: pointer; color: #0645ad; }
pre.src { margin: .3em 0; padding: .4em 0; background: #fafafa; border: 1px solid #eee; overflow-x: auto;
  white-space: pre; line-height: 1.35; }
pre.src .ln { display: inline-block; width: 4.5em; padding-right: .8em; text-align: right; color: #999;
  user-select: none; }
pre.src .hit { background: #fff8e1; display: block; }
pre.src .diag { display: block; white-space: pre-wrap; margin: .1em 0 .3em 5.3em; padding: .15em .5em;
  border-left: 3px solid; font-family: system-ui, sans-serif; font-size: 12.5px; }
pre.src .diag.fail, pre.src .diag.error { border-color: var(--fail); background: var(--fail-bg); }
pre.src .diag.warn { border-color: #f0b429; background: var(--warn-bg); }
pre.src .diag.unknown { border-color: #777; background: #f0f0f0; }
[hidden] { display: none !important; }
"""

SCRIPT = """
(function () {
  var boxes = document.querySelectorAll('#filters input[name=status]');
  var prop = document.getElementById('f-property');
  var text = document.getElementById('f-text');
  var shown = document.getElementById('f-shown');
  function apply() {
    var want = {};
    boxes.forEach(function (b) { want[b.value] = b.checked; });
    var p = prop.value, q = text.value.toLowerCase(), n = 0;
    document.querySelectorAll('details.check').forEach(function (d) {
      var ok = want[d.dataset.status] && (!p || d.dataset.property === p) &&
               (!q || d.querySelector('.cid').textContent.toLowerCase().indexOf(q) >= 0);
      d.hidden = !ok; if (ok) n++;
    });
    document.querySelectorAll('.group').forEach(function (g) {
      g.hidden = !g.querySelector('details.check:not([hidden])');
    });
    shown.textContent = n + ' shown';
  }
  boxes.forEach(function (b) { b.addEventListener('change', apply); });
  prop.addEventListener('change', apply);
  text.addEventListener('input', apply);
  window.layoutcheckFilter = apply;
  apply();
})();
"""


def write_html(report: Mapping[str, Any], path: str, figures: str = "failed") -> None:
    """Write the page for `report` to `path` atomically (temporary file, then os.replace)."""
    from .writer import write_atomic
    write_atomic(path, render_html(report, figures=figures))


def render_html(report: Mapping[str, Any], figures: str = "failed") -> str:
    if figures not in FIGURES:
        raise CheckerError(f"unknown figures choice {figures!r} (choices: {', '.join(FIGURES)})", field="--figures")
    checks = list(report.get("checks") or [])
    summary = report.get("summary") or {}
    page = _Page(checks, figures)
    parts = ['<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<title>layoutcheck report</title>", f"<style>{CSS}</style></head><body>",
             '<header id="summary"><h1>layoutcheck report</h1>', page.verdict(summary), page.counts(summary),
             page.findings(), _skipped(report), _problems(summary), page.index(summary), "</header>",
             page.filters()]
    parts += page.files(summary)
    parts.append(f"<script>{SCRIPT}</script>\n</body></html>\n")
    return "\n".join(p for p in parts if p)


# ------------------------------------------------------------------ status

def status(check: Mapping[str, Any]) -> str:
    """fail, warn, error, unknown or pass: what the page calls a check."""
    if check.get("passed"):
        return "pass"
    if check.get("verdict") == "error":
        return "error"
    if check.get("severity") == "warning":
        return "warn"
    if check.get("verdict") == "unknown" and check.get("passed") is None:
        return "unknown"
    return "fail"


def _badge(st: str) -> str:
    return f'<span class="badge {st}">{STATUS_LABEL[st]}</span>'


class _Page:
    def __init__(self, checks: list, figures: str):
        self.checks = checks
        self.figures = figures
        self.status = [status(c) for c in checks]
        self.figure_of: dict[tuple, int] = {}       # (layouts, shape) -> the check that has its figures

    # ---------------------------------------------------------------- top

    def verdict(self, s: Mapping[str, Any]) -> str:
        n = s.get("checks", len(self.checks))
        failed = s.get("failed", self.status.count("fail") + self.status.count("error"))
        warnings = s.get("warnings", self.status.count("warn"))
        if failed:
            cls, text = "fail", f"{failed} of {n} checks failed" + (f", {warnings} warned" if warnings else "")
        elif warnings:
            cls, text = "warn", f"No check failed; {warnings} of {n} checks warned"
        else:
            cls, text = "pass", f"All {n} checks passed"
        engine = f" (engine {escape(str(s['engine']))}{escape(version_text(s))})" if s.get("engine") else ""
        return f'<p class="verdict {cls}" id="verdict">{escape(text)}{engine}</p>'

    def counts(self, s: Mapping[str, Any]) -> str:
        skipped = sum(n for k in s.get("ttgir", ()) for n in (k.get("skipped_checks") or {}).values())
        verdicts = s.get("verdicts") or {}
        items = [("checks", s.get("checks", len(self.checks)), ""), ("passed", s.get("passed", self.status.count("pass")), "pass"),
                 ("failed", s.get("failed", self.status.count("fail")), "fail" if s.get("failed") else ""),
                 ("warnings", s.get("warnings", self.status.count("warn")), "warn" if s.get("warnings") else "")]
        if verdicts.get("error"):
            items.append(("internal errors", verdicts["error"], "fail"))
        if verdicts.get("unknown"):
            items.append(("unknown", verdicts["unknown"], "warn"))
        if skipped:
            items.append(("not checked", skipped, ""))
        if s.get("files"):
            items.append(("files", len(s["files"]), ""))
        lis = "".join(f'<li class="{cls}"><b>{escape(str(v))}</b>{escape(k)}</li>' for k, v, cls in items)
        return f'<ul class="counts" id="counts">{lis}</ul>'

    def findings(self) -> str:
        out = []
        for title, wanted in (("Failures", ("fail", "error")), ("Warnings", ("warn",)), ("Unknown", ("unknown",))):
            rows = [n for n, st in enumerate(self.status) if st in wanted]
            if not rows:
                continue
            out.append(f'<h3>{title} ({len(rows)})</h3><ul class="findings" id="{title.lower()}">')
            for n in rows:
                c = self.checks[n]
                src = c.get("source") or {}
                if src.get("op"):       # a TTGIR check: its place and operation say what its long id says
                    name = f"{_where(c)} {src['op']}"
                    where = python_where(src).strip()
                else:
                    name, where = str(c.get("id", n)), _where(c)
                where = f' <span class="where">{escape(where)}</span>' if where else ""
                out.append(f'<li>{_badge(self.status[n])} <a href="#check-{n}">{escape(name)}</a>{where}: '
                           f'{escape(_one_line(c))}</li>')
            out.append("</ul>")
        return "\n".join(out)

    def index(self, s: Mapping[str, Any]) -> str:
        """The input files with their tallies, each a link to its section."""
        rows = []
        present = [st for st in STATUS_ORDER if st in self.status]
        for k, (file, members) in enumerate(self._by_file(s)):
            sts = [self.status[n] for n in members]
            cells = "".join(f"<td>{sts.count(st) or ''}</td>" for st in present)
            rows.append(f'<tr><td><a href="#file-{k}">{escape(file)}</a></td><td>{len(members)}</td>{cells}</tr>')
        head = "".join(f"<th>{COLUMN[st]}</th>" for st in present)
        return (f'<details id="index"><summary>Files ({len(rows)})</summary><table><tr><th>file</th><th>checks</th>'
                f'{head}</tr>{"".join(rows)}</table></details>')

    def _by_file(self, s: Mapping[str, Any]) -> list[tuple[str, list[int]]]:
        by_file: dict[str, list[int]] = {}
        for n, c in enumerate(self.checks):
            by_file.setdefault(str((c.get("source") or {}).get("file", "")), []).append(n)
        files = list(s.get("files") or [])
        order = [f for f in files if f in by_file] + [f for f in by_file if f not in files]
        return [(f, by_file[f]) for f in order]

    def filters(self) -> str:
        props = sorted({str(c.get("property", "")) for c in self.checks})
        boxes = []
        for st in STATUS_ORDER:
            n = self.status.count(st)
            if n:
                boxes.append(f'<label><input type="checkbox" name="status" value="{st}" checked> '
                             f'{_badge(st)} {n}</label>')
        options = "".join(f'<option value="{escape(p)}">{escape(p)}</option>' for p in props)
        return ('<nav id="filters"><b>Show</b>' + "".join(boxes) +
                f'<label>property <select id="f-property"><option value="">all</option>{options}</select></label>'
                '<label>id <input id="f-text" type="search" placeholder="filter by id" size="24"></label>'
                f'<span id="f-shown" class="where">{len(self.checks)} shown</span></nav>')

    # ---------------------------------------------------------------- files

    def files(self, s: Mapping[str, Any]) -> list[str]:
        out = []
        for k, (file, rows) in enumerate(self._by_file(s)):
            sts = [self.status[n] for n in rows]
            tally = ", ".join(f"{sts.count(st)} {COLUMN[st]}" for st in STATUS_ORDER if sts.count(st))
            is_ir = any((self.checks[n].get("source") or {}).get("op") for n in rows)
            out.append(f'<section class="file group" id="file-{k}"><header><h2>{escape(file)}</h2>'
                       f'<span class="tally">{len(rows)} checks: {escape(tally)}</span></header>')
            out.append(_HEAD)
            if is_ir:
                out += self._ops(rows)
                out.append(self._source(file, rows))
            else:
                out.append('<div class="rows">' + "".join(self._check(n) for n in rows) + "</div>")
            out.append("</section>")
        return out

    def _ops(self, rows: list[int]) -> list[str]:
        ops: dict[tuple, list[int]] = {}
        for n in rows:
            src = self.checks[n].get("source") or {}
            ops.setdefault((src.get("line") or 0, str(src.get("op") or "")), []).append(n)
        out = []
        for (line, op), members in sorted(ops.items(), key=lambda kv: kv[0]):
            src = self.checks[members[0]].get("source") or {}
            py = python_where(src)
            file = str(src.get("file", ""))
            out.append(f'<div class="op group"><h4><a href="#{_line_id(file, line)}">line {line}</a> '
                       f'<code>{escape(op)}</code><span class="where">{escape(py)}</span></h4>')
            out.append('<div class="rows">' + "".join(self._check(n) for n in members) + "</div></div>")
        return out

    def _source(self, file: str, rows: list[int]) -> str:
        """The module's lines, each failed check's diagnostic inline under its line."""
        try:
            with open(file, encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError:
            return ""
        if len(lines) > SOURCE_MAX_LINES:
            return f'<p class="where">source not listed ({len(lines)} lines)</p>'
        diags: dict[int, list[int]] = {}
        for n in rows:
            if self.status[n] != "pass":
                diags.setdefault((self.checks[n].get("source") or {}).get("line") or 0, []).append(n)
        out = []
        for i, text in enumerate(lines, 1):
            ln = f'<span class="ln" id="{_line_id(file, i)}">{i}</span>{escape(text)}'
            if i in diags:
                out.append(f'<span class="hit">{ln}</span>')
                for n in diags[i]:
                    c, st = self.checks[n], self.status[n]
                    src = c.get("source") or {}
                    sev = {"warn": "warning", "fail": "error", "error": "internal error"}.get(st, st)
                    out.append(f'<span class="diag {st}">{escape(str(src.get("op", "")))}{escape(python_where(src))}: '
                               f'<b>{sev}</b>: {escape(_one_line(c))} <a href="#check-{n}">details</a></span>')
            else:
                out.append(ln + "\n")
        is_open = " open" if diags else ""
        return (f'<details class="source"{is_open}><summary>source: {len(lines)} lines'
                f'{", " + str(sum(map(len, diags.values()))) + " diagnostic(s) inline" if diags else ""}</summary>'
                f'<pre class="src">{"".join(out)}</pre></details>')

    # ---------------------------------------------------------------- one check

    def _check(self, n: int) -> str:
        c, st = self.checks[n], self.status[n]
        cid = str(c.get("id", n))
        is_open = " open" if st != "pass" else ""
        head = (f'<summary>{_badge(st)}<span class="cid">{escape(cid)}</span>'
                f'<span>{escape(str(c.get("property", "")))}</span><span>{escape(_shape_text(c.get("shape")))}</span>'
                f'<span>{escape(_plain(c.get("verdict", "")))}</span><span>{escape(_plain(c.get("expect", "")))}</span>'
                "</summary>")
        return (f'<details class="check st-{st}" id="check-{n}" data-status="{st}" '
                f'data-property="{escape(str(c.get("property", "")))}"{is_open}>'
                f'{head}<div class="body">{self._body(n)}</div></details>')

    def _body(self, n: int) -> str:
        c, st = self.checks[n], self.status[n]
        out = []
        if st != "pass":
            out.append(f'<p class="failure {st}">{escape(_one_line(c, witness=False))}</p>')
        kv = []
        if c.get("explanation"):
            kv.append(("explanation", escape(str(c["explanation"]))))
        for name, text in _operand_texts(c):
            kv.append((name, f"<code>{escape(text)}</code>"))
        if c.get("layout_shape"):
            kv.append(("lowered at", escape(_shape_text(c["layout_shape"]))))
        for key in ("dtype", "hardware"):
            if c.get(key):
                kv.append((key, escape(str(c[key]))))
        if c.get("parameters"):
            kv.append(("parameters", escape(show(c["parameters"]))))
        if c.get("engines"):
            kv.append(("engines", escape(", ".join(f"{k}: {v}" for k, v in c["engines"].items()))))
        details = {k: v for k, v in (c.get("details") or {}).items() if k != "layouts" and v is not None}
        if details:
            kv.append(("details", escape(show(details))))
        src = c.get("source") or {}
        if src:
            where = _where(c) + python_where(src)
            kv.append(("source", escape(where)))
        out.append('<dl class="kv">' + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in kv) + "</dl>")
        witness = c.get("counterexample")
        if isinstance(witness, Mapping) and witness:
            out.append("<h3>Witness" + (f" ({escape(str(witness['kind']))})" if witness.get("kind") else "") +
                       "</h3>" + witness_table(witness))
        if self.figures == "all" or (self.figures == "failed" and st != "pass"):
            out.append(self._figures(n))
        return "\n".join(out)

    def _figures(self, n: int) -> str:
        c = self.checks[n]
        key = (tuple(text for _, text in _operand_texts(c)), _shape_text(c.get("shape")),
               _shape_text(c.get("layout_shape")), json.dumps((c.get("parameters") or {}).get("view_of")))
        if key[0] and key in self.figure_of:
            first = self.figure_of[key]
            return (f'<p class="where">Same layouts and shape as <a href="#check-{first}">'
                    f'{escape(str(self.checks[first].get("id", first)))}</a>: figures there.</p>')
        self.figure_of[key] = n
        witness = c.get("counterexample") if isinstance(c.get("counterexample"), Mapping) else None
        out = []
        for name, built in _layouts(c):
            if isinstance(built, str):
                out.append(f'<p class="missing">{escape(name)}: no figure ({escape(built)})</p>')
                continue
            figure = svg.layout_figure(built, title=name, witness=witness, role=name, elem_bytes=_elem_bytes(c),
                                       max_cells=FIGURE_CELLS, highlight_bank=_is_bank_check(c))
            out.append(f"<figure>{figure}</figure>")
        return '<div class="figures">' + "".join(out) + "</div>" if out else ""


_HEAD = ('<div class="head"><span>status</span><span>check</span><span>property</span><span>shape</span>'
         "<span>verdict</span><span>expected</span></div>")


# ------------------------------------------------------------------ witness table

def witness_table(witness: Mapping[str, Any]) -> str:
    """A witness as a two-column table (field, value); a list of records (e.g. a bank conflict's
    accesses) as a table of its own with one row per record."""
    rows = []
    for k, v in witness.items():
        if k == "kind":
            continue
        rows.append(f"<tr><th>{escape(str(k))}</th><td>{_value(v)}</td></tr>")
    return f'<table class="witness">{"".join(rows)}</table>'


def _value(v: Any) -> str:
    if isinstance(v, (list, tuple)) and v and all(isinstance(x, Mapping) for x in v):
        cols = list(dict.fromkeys(k for x in v for k in x))
        if all(not isinstance(x.get(k), (Mapping, list)) for x in v for k in cols):
            head = "".join(f"<th>{escape(str(k))}</th>" for k in cols)
            body = "".join("<tr>" + "".join(f"<td>{escape(show(x.get(k, '')))}</td>" for k in cols) + "</tr>"
                           for x in v)
            return f'<table class="records"><tr>{head}</tr>{body}</table>'
    if isinstance(v, Mapping) and v and all(not isinstance(x, (Mapping, list)) for x in v.values()):
        return escape(", ".join(f"{k}={show(x)}" for k, x in v.items()))
    if isinstance(v, Mapping) and v:
        return witness_table(v)
    return escape(show(v))


# ------------------------------------------------------------------ helpers

def _line_id(file: str, line: int) -> str:
    return "L-" + "".join(ch if ch.isalnum() else "-" for ch in file) + f"-{line}"


def _where(check: Mapping[str, Any]) -> str:
    src = check.get("source") or {}
    if not src:
        return ""
    return f"{src.get('file')}:{src.get('line')}"


def _one_line(check: Mapping[str, Any], witness: bool = True) -> str:
    """A failed check in one line: a TTGIR finding as the text report words it, else its reason."""
    if (check.get("source") or {}).get("op") and check.get("property"):
        try:
            return finding(check)
        except (KeyError, TypeError, AttributeError):
            pass
    reason = check.get("failure") or f"expected {check.get('expect')}, got {check.get('verdict')}"
    return str(reason)


def _skipped(report: Mapping[str, Any]) -> str:
    try:
        rows = skipped_summary(report)
    except (KeyError, TypeError):
        return ""
    if not rows:
        return ""
    body = "".join(f"<tr><td>{escape(file)}</td><td>{n}</td><td>{escape(reason)}</td></tr>" for file, n, reason in rows)
    return (f'<h3>Not checked ({sum(n for _, n, _ in rows)}; not covered by the models)</h3>'
            f'<table id="skipped"><tr><th>file</th><th>checks</th><th>reason</th></tr>{body}</table>')


def _problems(summary: Mapping[str, Any]) -> str:
    rows = [(k.get("file"), p.get("line"), p.get("message")) for k in summary.get("ttgir", ()) or ()
            for p in k.get("problems", ())]
    if not rows:
        return ""
    items = "".join(f"<li>{escape(f'{f}:{ln}')}: {escape(str(m))}</li>" for f, ln, m in rows)
    return f'<h3>Problems in the TTGIR input ({len(rows)}; the rest was checked)</h3><ul class="findings">{items}</ul>'


def _plain(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v, sort_keys=True)


def _shape_text(shape: Any) -> str:
    if isinstance(shape, (list, tuple)):
        return "x".join(str(s) for s in shape)
    return "" if shape is None else str(shape)


def _is_bank_check(check: Mapping[str, Any]) -> bool:
    return check.get("property") in ("bank_conflict_free", "bank_conflicts")


def _elem_bytes(check: Mapping[str, Any]) -> int:
    for key, scale in (("elem_bytes", 1), ("element_bytes", 1), ("element_bit_width", 8), ("elem_bits", 8),
                       ("bitwidth", 8)):
        v = check.get(key)
        if isinstance(v, int) and v > 0:
            return max(1, v // scale)
    return 2


def _operand_texts(check: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(name, attribute text) of each operand, in record order."""
    ops = check.get("operands")
    if isinstance(ops, Mapping):
        items = list(ops.items())
    elif isinstance(ops, (list, tuple)):
        items = [(str(o.get("name", f"operand {i}")) if isinstance(o, Mapping) else f"operand {i}", o)
                 for i, o in enumerate(ops)]
    else:
        items = []
    out = []
    for name, op in items:
        if isinstance(op, Mapping):
            op = op.get("canonical") or op.get("attribute") or op.get("encoding") or op.get("text")
        if isinstance(op, str):
            out.append((str(name), op))
    return out


def _layouts(check: Mapping[str, Any]) -> list[tuple[str, LinearLayout | str]]:
    """Each layout of the check, built, or the reason it could not be (a string)."""
    given = check.get("layouts")
    if not (isinstance(given, Mapping) and given):
        given = (check.get("details") or {}).get("layouts") if isinstance(check.get("details"), Mapping) else None
    if isinstance(given, Mapping) and given:
        out = []
        for name, d in given.items():
            try:
                is_triton = isinstance(d, Mapping) and "in" in d
                out.append((str(name), LinearLayout.from_triton_json(d) if is_triton else LinearLayout.from_dict(d)))
            except CheckerError as e:
                out.append((str(name), str(e)))
        return out
    return []


def _shape(check: Mapping[str, Any], operand: str) -> list[int]:
    ops = check.get("operands")
    op = ops.get(operand) if isinstance(ops, Mapping) else None
    view_of = (check.get("parameters") or {}).get("view_of") if isinstance(check.get("parameters"), Mapping) else None
    if isinstance(op, Mapping) and op.get("shape"):
        shape = op["shape"]
    elif operand == "shared" and view_of:
        shape = view_of
    else:
        shape = check.get("layout_shape") or check.get("shape")
    if isinstance(shape, str):
        shape = shape.lower().split("x")
    try:
        return [int(s) for s in shape]
    except (TypeError, ValueError):
        raise CheckerError(f"check has no usable shape ({shape!r})", field="shape") from None
