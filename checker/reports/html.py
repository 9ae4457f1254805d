"""One self-contained HTML page from a JSON report, for a person to read in a minute, small and
quick to open at tens of thousands of checks.

What the page shows, top to bottom:

- the verdict in one line and the counts (checks, passed, failed, warnings, errors, unknown,
  skipped), then the failed checks and the warnings, each a link to its details, then the checks
  that were not made (with their reasons) and the problems of the TTGIR input;
- a filter bar, sticky at the top: status (failed, warning, error, unknown, passed), property and
  id text; plain JavaScript inline in the page (no network, nothing loaded from elsewhere), hiding
  the checks that do not match and the groups and files left empty;
- one section per input file (spec or TTGIR module), in the report's file order. A spec's checks
  are listed in spec order; a TTGIR module's are grouped by operation (its line and name, and
  its Python source when the record has ``source.python``), followed, when a check of the module
  did not pass, by the module's source lines around each such check's line (the lines between
  left out, their count said), its diagnostic inline under its line;
- per check a ``<details>`` row: status, id, property, shape, verdict, expectation. It opens on the
  check's failure, explanation, operands, engines, details, the witness as a table and figures.

Warnings (``severity: warning``) are shown as warnings everywhere, in amber, never as failures.

How it stays small and fast. The summary, the filter bar and an empty section per file are HTML;
everything under a section is one JSON block (``<script type="application/json" id="data">``)
from which the page's script builds a section's rows when the section comes near the screen (after
the first screen is laid out), a row's details when the row opens, and any section a link
(``#check-<n>``, ``#L-<section>-<line>``) points into before following it. In the block each distinct
value is stored once and referred to by its index:

    html   fragments of the page, escaped: a row's shape, verdict and expectation, each line of a
           check's details (``<dt>k</dt><dd>v</dd>``; a details entry k=v alone), witness tables,
           figures' heads and tails, notes, source lines, diagnostics
    text   raw text: ids (a TTGIR check's id after its ``file:line:op:property``, which the script
           puts back), properties, operation names, file names
    files  per section [file, groups, source]; a group [line, op, Python source, runs of checks
           ([first, count] each)], op -1 for a spec's rows (no heading); source [runs of lines
           ([first line, lines] each: the lines around the diagnostics), {line: diagnostics}, the
           module's length], a note, or null (not listed: every check of the module passed)
    checks per check [kind, id (negative: -1 - the text after the TTGIR prefix), body, source line]
    kinds  [status, property, shape, verdict, expectation]
    bodies [html before the details entry, details (a list, or -1), html after the list of facts]
           (the script puts the source line and the list's end between them); an item < 0 is a
           figure, drawing -1 - item
    lists  a details entry's k=v fragments
    drawings, grids, labels   a figure: `checker.reports.svg.Drawing`'s head and tail, its grid's
           top and its grid [left, cw, ch, rows, cols, row step, column step, labels, others, count,
           digits, owners] (`svg.Grid`): each cell's first owner plus one (0: none) a base-64 number
           of `digits` characters; the script writes the owner lines and fills from them as
           `svg._Labeler` does and draws the grid as `svg.grid_svg` does, byte for byte

``<body data-ready-ms>`` is set to ``performance.now()`` when the first screen is laid out.

Figures (``checker.reports.svg``) are drawn for the checks that did not pass (``figures="failed"``,
the default), for every check (``"all"``) or none (``"none"``); at most one set per distinct
(operand layouts, shape): a later check with the same layouts links to the first one's figures.
The witness is drawn on them (conflicting lanes and cells outlined in red; on a shared layout
the cells of the conflicting bank outlined, dashed; a misaligned access's elements outlined).

Where the layouts come from: a record's ``layouts`` (the runner puts them on every check that did
not pass: `checker.run.runner.shown_layouts`) or ``details.layouts`` ({name: LinearLayout dict, or
Triton's {"in_dims", "in", "shape"}}). The page never parses attribute text or lowers an encoding;
a check without them gets no figure. A layout that cannot be rebuilt gets a one-line note in place
of its figure; the page is still written.

The same report gives the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from html import escape
from typing import Any

from ..errors import CheckerError
from ..layout import LinearLayout
from . import svg
from .text import finding, python_where, show, skipped_summary, version_text

FIGURE_CELLS = 32        # cells per side in the page's figures (show --svg draws up to 64)
FIGURES = ("failed", "all", "none")
SOURCE_MAX_LINES = 5000  # a module longer than this is not listed
SOURCE_CONTEXT = 6       # lines listed before and after each diagnostic's line

STATUS_LABEL = {"fail": "FAIL", "warn": "warning", "error": "error", "unknown": "unknown", "pass": "pass"}
STATUS_ORDER = ("fail", "error", "warn", "unknown", "pass")
COLUMN = {"fail": "failed", "warn": "warnings", "error": "errors", "unknown": "unknown", "pass": "passed"}
DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"   # base 64 of the cell indices

CSS = """
:root { --fail: #b00020; --fail-bg: #fde7ea; --warn: #8a5300; --warn-bg: #fff3d6; --pass: #176b1f;
  --pass-bg: #e6f4e7; --muted: #666; --line: #ddd; --bar: 3em; }
* { box-sizing: border-box; }
[id] { scroll-margin-top: calc(var(--bar) + .5em); }
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
.failure.fail, .failure.error { color: var(--fail); font-weight: 600; } \
.failure.warn { color: var(--warn); font-weight: 600; }
figure { margin: .8em 0; overflow-x: auto; } .figures { display: flex; flex-wrap: wrap; gap: 1em; }
.missing { color: #a05a00; }
details.source { margin: .4em .8em .8em; } details.source > summary { cursor: pointer; color: #0645ad; }
pre.src { margin: .3em 0; padding: .4em 0; background: #fafafa; border: 1px solid #eee; overflow-x: auto;
  white-space: pre; line-height: 1.35; }
pre.src .ln { display: inline-block; width: 4.5em; padding-right: .8em; text-align: right; color: #999;
  user-select: none; }
pre.src .hit { background: #fff8e1; display: block; }
pre.src .gap { display: block; color: #999; padding-left: 5.3em; font-style: italic; }
pre.src .diag { display: block; white-space: pre-wrap; margin: .1em 0 .3em 5.3em; padding: .15em .5em;
  border-left: 3px solid; font-family: system-ui, sans-serif; font-size: 12.5px; }
pre.src .diag.fail, pre.src .diag.error { border-color: var(--fail); background: var(--fail-bg); }
pre.src .diag.warn { border-color: #f0b429; background: var(--warn-bg); }
pre.src .diag.unknown { border-color: #777; background: #f0f0f0; }
[hidden] { display: none !important; }
"""

# The page's script: the data block (module docstring) made into sections, rows and figures, the filter, and
# links into sections not built yet.
SCRIPT = """
(function () {
  var D = JSON.parse(document.getElementById('data').textContent);
  var H = D.html, T = D.text, C = D.checks, K = D.kinds, B = D.bodies, F = D.files, ST = D.statuses;
  var sections = document.querySelectorAll('section.file'), built = [], place = [], ok = [], lower = [];
  var boxes = document.querySelectorAll('#filters input[name=status]'), bar = document.getElementById('filters');
  var prop = document.getElementById('f-property'), text = document.getElementById('f-text');
  var shown = document.getElementById('f-shown'), value = {};
  for (var i = 0; i < D.alphabet.length; i++) value[D.alphabet[i]] = i;
  F.forEach(function (f, k) {
    f[1].forEach(function (g) { g[4] = members(g[3]); g[4].forEach(function (n) { place[n] = [k, g]; }); });
  });

  function members(runs) {
    var out = [];
    runs.forEach(function (r) { for (var n = r[0]; n < r[0] + r[1]; n++) out.push(n); });
    return out;
  }
  function esc(s) {
    return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
                    .replace(/'/g, '&#x27;');
  }
  function number(s, at, width) {
    for (var v = 0, n = 0; n < width; n++) v = v * D.alphabet.length + value[s[at + n]];
    return v;
  }
  function id(n) {       // a TTGIR id: file:line:op:property, then its stored rest
    var c = C[n], p = place[n];
    return c[1] >= 0 ? T[c[1]] : T[F[p[0]][0]] + ':' + c[3] + ':' + T[p[1][1]] + ':' + T[K[c[0]][1]] + T[-1 - c[1]];
  }
  function xor(a, b) {   // a ^ b of integers up to 2^52
    var s = 67108864;
    return (Math.floor(a / s) ^ Math.floor(b / s)) * s + ((a % s) ^ (b % s));
  }
  function owner(labels, x) {   // [line, fill] of owner x: checker.reports.svg._Labeler.text and .fill
    var ins = {}, values = [], fills = labels[6];
    labels[1].forEach(function (d) {
      var size = Math.pow(2, d[1]);
      ins[d[0]] = x % size; values.push(x % size); x = Math.floor(x / size);
    });
    var block = labels[3] > 1 ? 'B' + (ins.block || 0) + ':' : '';
    if (labels[0] === 'distributed')
      return [block + 'T' + ((ins.lane || 0) + (ins.warp || 0) * labels[2]) + ':' + (ins.register || 0),
              fills[(ins.warp || 0) % fills.length]];
    if (labels[0] === 'shared') {
      var bank = Math.floor(ins.offset * labels[4] / D.bank_width) % labels[5];
      return [block + ins.offset + ' b' + bank, fills[bank]];
    }
    return [values.join(':'), fills[0]];
  }
  function grid(g, top) {   // checker.reports.svg.grid_svg
    var left = g[0], cw = g[1], ch = g[2], rows = g[3], cols = g[4], labels = D.labels[g[7]], others = g[8];
    var count = g[9], width = g[10], s = g[11], out = [], fills = [], lines = [], i, j, k, n;
    for (k = 0; k < s.length; k += width) {
      var first = number(s, k, width) - 1;
      if (first < 0) { fills.push(D.empty); lines.push(['-']); continue; }
      var own = others.map(function (m) { return owner(labels, xor(first, m))[0]; });
      if (count > D.max_lines) own = own.slice(0, D.max_lines - 1).concat(['+' + (count - D.max_lines + 1)]);
      fills.push(owner(labels, first)[1]);
      lines.push(own);
    }
    for (j = 0; j < cols; j++)
      out.push('<text x="' + (left + j * cw + (cw >> 1)) + '" y="' + (top - 3) + '" text-anchor="middle" fill="#555">' +
               j * g[6] + '</text>');
    for (i = 0; i < rows; i++)
      out.push('<text x="' + (left - 4) + '" y="' + (top + i * ch + (ch >> 1) + 3) +
               '" text-anchor="end" fill="#555">' + i * g[5] + '</text>');
    out.push('<g class="cells" stroke="#999" stroke-width="0.5">');
    for (k = 0; k < fills.length; k++)
      out.push('<rect x="' + (left + k % cols * cw) + '" y="' + (top + Math.floor(k / cols) * ch) + '" width="' + cw +
               '" height="' + ch + '" fill="' + fills[k] + '"/>');
    out.push('</g><g class="labels" text-anchor="middle">');
    for (k = 0; k < lines.length; k++)
      for (n = 0; n < lines[k].length; n++)
        out.push('<text x="' + (left + k % cols * cw + (cw >> 1)) + '" y="' + (top + Math.floor(k / cols) * ch + 12 +
                 n * D.line) + '">' + lines[k][n] + '</text>');
    out.push('</g>');
    return out.join('\\n') + '\\n';
  }
  function part(items) {
    return items.map(function (i) {
      if (i >= 0) return H[i];
      var d = D.drawings[-1 - i];
      return '<figure>' + H[d[0]] + grid(D.grids[d[3]], d[2]) + H[d[1]] + '</figure>';
    }).join('');
  }
  function body(n) {
    var c = C[n], b = B[c[2]], p = place[n];
    var details = b[1] < 0 ? '' : '<dt>details</dt><dd>(' + D.lists[b[1]].map(function (i) { return H[i]; })
                                                                       .join(', ') + ')</dd>';
    var src = c[3] === null ? '' : '<dt>source</dt><dd>' + esc(T[F[p[0]][0]] + ':' + c[3]) + H[p[1][2]] + '</dd>';
    return part(b[0]) + details + src + '</dl>' + part(b[2]);
  }
  function row(n) {
    var c = C[n], kind = K[c[0]], st = ST[kind[0]], open = st !== 'pass', property = esc(T[kind[1]]);
    return '<details class="check st-' + st + '" id="check-' + n + '" data-status="' + st + '" data-property="' +
           property + '"' + (open ? ' open' : '') + '><summary>' + D.badges[kind[0]] + '<span class="cid">' +
           esc(id(n)) + '</span><span>' + property + '</span><span>' + H[kind[2]] + '</span><span>' + H[kind[3]] +
           '</span><span>' + H[kind[4]] + '</span></summary><div class="body">' + (open ? body(n) : '') +
           '</div></details>';
  }
  function gap(n) { return n > 0 ? '<span class="gap">' + n + ' line(s) not shown</span>' : ''; }
  function source(k, s) {
    var out = [], next = 1, count = 0;
    s[0].forEach(function (run) {
      out.push(gap(run[0] - next));
      run[1].forEach(function (text, j) {
        var i = run[0] + j, ln = '<span class="ln" id="L-' + k + '-' + i + '">' + i + '</span>' + H[text];
        if (!s[1][i]) { out.push(ln + '\\n'); return; }
        out.push('<span class="hit">' + ln + '</span>');
        s[1][i].forEach(function (x) { out.push(H[x]); count++; });
      });
      next = run[0] + run[1].length;
    });
    out.push(gap(s[2] + 1 - next));
    return '<details class="source" open><summary>source: ' + s[2] + ' lines, ' + count +
           ' diagnostic(s) inline</summary><pre class="src">' + out.join('') + '</pre></details>';
  }
  function listed(s, line) {
    return Array.isArray(s) && s[0].some(function (run) { return run[0] <= line && line < run[0] + run[1].length; });
  }
  function build(k) {
    if (built[k]) return;
    built[k] = true;
    if (observer) observer.unobserve(sections[k]);
    var f = F[k], out = [D.head];
    f[1].forEach(function (g) {
      var rows = '<div class="rows">' + g[4].map(row).join('') + '</div>';
      if (g[1] < 0) { out.push(rows); return; }
      var line = listed(f[2], g[0]) ? '<a href="#L-' + k + '-' + g[0] + '">line ' + g[0] + '</a>' : 'line ' + g[0];
      out.push('<div class="op group"><h4>' + line + ' <code>' + esc(T[g[1]]) + '</code><span class="where">' +
               H[g[2]] + '</span></h4>' + rows + '</div>');
    });
    if (Array.isArray(f[2])) out.push(source(k, f[2]));
    else if (f[2] !== null) out.push(H[f[2]]);
    sections[k].insertAdjacentHTML('beforeend', out.join(''));
    filter(k);
  }
  function filter(k) {   // the built section k's rows and groups as `ok` says
    sections[k].querySelectorAll('details.check').forEach(function (d) { d.hidden = !ok[+d.id.slice(6)]; });
    sections[k].querySelectorAll('.op.group').forEach(function (g) {
      g.hidden = !g.querySelector('details.check:not([hidden])');
    });
  }
  function apply() {
    var want = {}, p = prop.value, q = text.value.toLowerCase(), n = 0;
    boxes.forEach(function (b) { want[b.value] = b.checked; });
    for (var m = 0; m < C.length; m++) {
      var kind = K[C[m][0]];
      if (q && lower[m] === undefined) lower[m] = id(m).toLowerCase();
      ok[m] = want[ST[kind[0]]] && (!p || T[kind[1]] === p) && (!q || lower[m].indexOf(q) >= 0);
      if (ok[m]) n++;
    }
    F.forEach(function (f, k) {
      sections[k].hidden = !f[1].some(function (g) { return g[4].some(function (m) { return ok[m]; }); });
      if (built[k]) filter(k);
    });
    shown.textContent = n + ' shown';
  }
  function reveal(e) {   // follow a link into a section not built yet (or hidden by the filter)
    var h = decodeURIComponent((e ? new URL(e.newURL) : location).hash.slice(1));
    var m = /^(?:check-(\\d+)|L-(\\d+)-\\d+)$/.exec(h);
    var k = !m ? -1 : m[1] !== undefined ? (place[+m[1]] || [-1])[0] : +m[2];
    if (!sections[k]) return;
    build(k);
    var el = document.getElementById(h);
    if (!el) return;
    if (el.closest('[hidden]')) {
      boxes.forEach(function (b) { b.checked = true; });
      prop.value = text.value = '';
      apply();
    }
    for (var d = el; d; d = d.parentElement) if (d.tagName === 'DETAILS') d.open = true;
    el.scrollIntoView();
  }
  function fit() { document.documentElement.style.setProperty('--bar', bar.offsetHeight + 'px'); }

  var observer = window.IntersectionObserver ? new IntersectionObserver(function (entries) {
    entries.forEach(function (e) { if (e.isIntersecting) build(+e.target.id.slice(5)); });
  }, {rootMargin: '1500px 0px'}) : null;
  apply();
  sections.forEach(function (section, k) { if (observer) observer.observe(section); else build(k); });
  document.addEventListener('toggle', function (e) {
    var d = e.target, b = d.open && d.classList.contains('check') && d.querySelector('.body');
    if (b && !b.firstChild) b.innerHTML = body(+d.id.slice(6));
  }, true);
  boxes.forEach(function (b) { b.addEventListener('change', apply); });
  prop.addEventListener('change', apply);
  text.addEventListener('input', apply);
  window.addEventListener('hashchange', reveal);
  window.addEventListener('resize', fit);
  window.layoutcheckFilter = apply;
  fit();
  reveal();
  void document.body.offsetHeight;      // the first screen laid out
  document.body.dataset.readyMs = Math.round(performance.now());
})();
"""


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
    parts += page.sections(summary)
    parts.append(f'<script type="application/json" id="data">{_script_json(page.data(summary))}</script>')
    parts.append(f"<script>{SCRIPT}</script>\n</body></html>\n")
    return "\n".join(p for p in parts if p)


def _script_json(data: Any) -> str:
    """JSON that cannot end its <script> element: '</' written '<\\/', '<!--' written '<\\u0021--'."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("</", "<\\/").replace("<!--", "<\\u0021--")


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


class _Table:
    """Distinct values in first-seen order; calling it with a value gives the value's index."""

    def __init__(self):
        self.index: dict[Any, int] = {}

    def __call__(self, value: Any) -> int:
        return self.index.setdefault(value, len(self.index))

    def values(self) -> list:
        return list(self.index)


class _Page:
    def __init__(self, checks: list, figures: str):
        self.checks = checks
        self.figures = figures
        self.status = [status(c) for c in checks]
        self.figure_of: dict[tuple, int] = {}       # (layouts, shape) -> the check that has its figures
        self.html, self.text, self.kinds, self.bodies, self.lists = _Table(), _Table(), _Table(), _Table(), _Table()
        self.grids, self.labels = _Table(), _Table()
        self.drawings: list[list] = []

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
        items = [("checks", s.get("checks", len(self.checks)), ""),
                 ("passed", s.get("passed", self.status.count("pass")), "pass"),
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

    def sections(self, s: Mapping[str, Any]) -> list[str]:
        """Each file's section, its header only: the script builds the rest from the data block."""
        out = []
        for k, (file, rows) in enumerate(self._by_file(s)):
            sts = [self.status[n] for n in rows]
            tally = ", ".join(f"{sts.count(st)} {COLUMN[st]}" for st in STATUS_ORDER if sts.count(st))
            out.append(f'<section class="file group" id="file-{k}"><header><h2>{escape(file)}</h2>'
                       f'<span class="tally">{len(rows)} checks: {escape(tally)}</span></header></section>')
        return out

    def data(self, s: Mapping[str, Any]) -> dict[str, Any]:
        """The data block (module docstring)."""
        files = []
        for file, rows in self._by_file(s):
            is_ir = any((self.checks[n].get("source") or {}).get("op") for n in rows)
            groups = self._ops(rows) if is_ir else [[0, -1, self.html(""), _runs(rows)]]
            files.append([self.text(file), groups, self._source(file, rows) if is_ir else None])
        checks = [self._check(n) for n in range(len(self.checks))]
        badges = [_badge(st) if st in self.status else None for st in STATUS_ORDER]
        return {"statuses": STATUS_ORDER, "badges": badges, "head": _HEAD, "line": svg.LINE,
                "max_lines": svg.MAX_LINES, "empty": svg.EMPTY_FILL, "bank_width": svg.BANK_WIDTH_BYTES,
                "alphabet": DIGITS, "files": files, "checks": checks,
                "kinds": self.kinds.values(), "bodies": self.bodies.values(), "lists": self.lists.values(),
                "drawings": self.drawings, "grids": self.grids.values(), "labels": self.labels.values(),
                "html": self.html.values(), "text": self.text.values()}

    def _ops(self, rows: list[int]) -> list[list]:
        """A module's checks grouped by operation: [line, op, Python source, checks], by line."""
        ops: dict[tuple, list[int]] = {}
        for n in rows:
            src = self.checks[n].get("source") or {}
            ops.setdefault((src.get("line") or 0, str(src.get("op") or "")), []).append(n)
        return [[line, self.text(op), self.html(escape(python_where(self.checks[members[0]].get("source") or {}))),
                 _runs(members)] for (line, op), members in sorted(ops.items(), key=lambda kv: kv[0])]

    def _source(self, file: str, rows: list[int]) -> list | int | None:
        """The module's lines around the diagnostics of its checks that did not pass (SOURCE_CONTEXT lines
        before and after each), as runs [first line, lines], the diagnostics by line and the module's
        length; None when all passed (or the file cannot be read), a note when it is too long to list."""
        diags: dict[int, list[int]] = {}
        for n in rows:
            if self.status[n] != "pass":
                diags.setdefault((self.checks[n].get("source") or {}).get("line") or 0, []).append(n)
        if not diags:
            return None
        try:
            with open(file, encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError:
            return None
        if len(lines) > SOURCE_MAX_LINES:
            return self.html(f'<p class="where">source not listed ({len(lines)} lines)</p>')
        shown = {str(line): [self.html(self._diagnostic(n)) for n in members]
                 for line, members in diags.items() if 1 <= line <= len(lines)}
        listed = sorted({i for line in map(int, shown) for i in range(max(1, line - SOURCE_CONTEXT),
                                                                       min(len(lines), line + SOURCE_CONTEXT) + 1)})
        runs = _runs(listed)
        return [[[first, [self.html(escape(lines[i - 1])) for i in range(first, first + count)]]
                 for first, count in runs], shown, len(lines)]

    def _diagnostic(self, n: int) -> str:
        c, st = self.checks[n], self.status[n]
        src = c.get("source") or {}
        sev = {"warn": "warning", "fail": "error", "error": "internal error"}.get(st, st)
        return (f'<span class="diag {st}">{escape(str(src.get("op", "")))}{escape(python_where(src))}: '
                f'<b>{sev}</b>: {escape(_one_line(c))} <a href="#check-{n}">details</a></span>')

    # ---------------------------------------------------------------- one check

    def _check(self, n: int) -> list:
        """[kind, id, body, source line]; the kind [status, property, shape, verdict, expectation]."""
        c, st = self.checks[n], self.status[n]
        cid, prop = str(c.get("id", n)), str(c.get("property", ""))
        src = c.get("source") or {}
        prefix = f"{src.get('file')}:{src.get('line')}:{src.get('op')}:{prop}"
        line = (src.get("line") if isinstance(src.get("line"), int) else 0) if src else None
        by_place = src.get("op") and isinstance(src.get("line"), int) and cid.startswith(prefix)
        ident = -1 - self.text(cid[len(prefix):]) if by_place else self.text(cid)
        kind = (STATUS_ORDER.index(st), self.text(prop), self.html(escape(_shape_text(c.get("shape")))),
                self.html(escape(_plain(c.get("verdict", "")))), self.html(escape(_plain(c.get("expect", "")))))
        return [self.kinds(kind), ident, self._body(n), line]

    def _body(self, n: int) -> int:
        """The check's details (module docstring: bodies): its failure, the list of its facts
        (explanation, operands, ..., details; the script adds the source and closes the list), then
        the witness and the figures."""
        c, st = self.checks[n], self.status[n]
        head = []
        if st != "pass":
            head.append(f'<p class="failure {st}">{escape(_one_line(c, witness=False))}</p>')
        head.append('<dl class="kv">')
        if c.get("explanation"):
            head.append(_kv("explanation", escape(str(c["explanation"]))))
        for name, text in _operand_texts(c):
            head.append(_kv(name, f"<code>{escape(text)}</code>"))
        if c.get("layout_shape"):
            head.append(_kv("lowered at", escape(_shape_text(c["layout_shape"]))))
        for key in ("dtype", "hardware"):
            if c.get(key):
                head.append(_kv(key, escape(str(c[key]))))
        if c.get("parameters"):
            head.append(_kv("parameters", escape(show(c["parameters"]))))
        if c.get("engines"):
            head.append(_kv("engines", escape(", ".join(f"{k}: {v}" for k, v in c["engines"].items()))))
        details = {k: v for k, v in (c.get("details") or {}).items() if k != "layouts" and v is not None}
        # show(details), an entry a piece: the entries recur more than their sets
        entries = self.lists(tuple(self.html(escape(f"{k}={show(v)}")) for k, v in details.items())) if details else -1
        tail = []
        witness = c.get("counterexample")
        if isinstance(witness, Mapping) and witness:
            tail.append("<h3>Witness" + (f" ({escape(str(witness['kind']))})" if witness.get("kind") else "") +
                        "</h3>" + witness_table(witness))
        if self.figures == "all" or (self.figures == "failed" and st != "pass"):
            tail += self._figures(n)
        return self.bodies((tuple(map(self.html, head)), entries, tuple(i if isinstance(i, int) else self.html(i)
                                                                          for i in tail)))

    def _figures(self, n: int) -> list[str | int]:
        """The check's figures as body items: html and drawings (-1 - drawing)."""
        c = self.checks[n]
        key = (tuple(text for _, text in _operand_texts(c)), _shape_text(c.get("shape")),
               _shape_text(c.get("layout_shape")), json.dumps((c.get("parameters") or {}).get("view_of")))
        if key[0] and key in self.figure_of:
            first = self.figure_of[key]
            return [f'<p class="where">Same layouts and shape as <a href="#check-{first}">'
                    f'{escape(str(self.checks[first].get("id", first)))}</a>: figures there.</p>']
        self.figure_of[key] = n
        witness = c.get("counterexample") if isinstance(c.get("counterexample"), Mapping) else None
        out = []
        for name, built in _layouts(c):
            if isinstance(built, str):
                out.append(f'<p class="missing">{escape(name)}: no figure ({escape(built)})</p>')
                continue
            d = svg.drawing(built, title=name, witness=witness, role=name, elem_bytes=_elem_bytes(c),
                            max_cells=FIGURE_CELLS, highlight_bank=_is_bank_check(c))
            g = d.grid
            digits = _digits(max(g.owners) + 2)
            grid = self.grids((g.left, g.cw, g.ch, g.rows, g.cols, *g.step, self.labels(g.labels), g.others, g.count,
                               digits, "".join(_base(x + 1, digits) for x in g.owners)))
            self.drawings.append([self.html(d.head), self.html(d.tail), g.top, grid])
            out.append(-len(self.drawings))
        return ['<div class="figures">', *out, "</div>"] if out else []


_HEAD = ('<div class="head"><span>status</span><span>check</span><span>property</span><span>shape</span>'
         "<span>verdict</span><span>expected</span></div>")


def _kv(name: str, value_html: str) -> str:
    return f"<dt>{name}</dt><dd>{value_html}</dd>"


def _runs(members: list[int]) -> list[list[int]]:
    """[0, 1, 2, 5] -> [[0, 3], [5, 1]]: increasing indices as runs [first, count]."""
    runs: list[list[int]] = []
    for n in members:
        if runs and runs[-1][0] + runs[-1][1] == n:
            runs[-1][1] += 1
        else:
            runs.append([n, 1])
    return runs


def _digits(n: int) -> int:
    """How many base-64 digits write 0 .. n - 1."""
    digits = 1
    while len(DIGITS) ** digits < n:
        digits += 1
    return digits


def _base(i: int, digits: int) -> str:
    """i in base len(DIGITS), `digits` characters, most significant first."""
    out = ""
    for _ in range(digits):
        i, r = divmod(i, len(DIGITS))
        out = DIGITS[r] + out
    return out


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
