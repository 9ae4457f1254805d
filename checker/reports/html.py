"""One self-contained HTML page from a JSON report: a summary, a table of the
checks, and per check its details and a figure of every layout it involves
with the witness drawn on it.

Self-contained means no network and no scripts: inline CSS, inline SVG
(``checker.reports.svg``). A check's layouts come from LinearLayout dicts
when the record carries them (``layouts``: {name: {"bases", "out_dims"}} or
Triton's {"in_dims", "in", "shape"}), else they are lowered again from each
operand's attribute text (``operands``: {name: text or {"canonical": text,
"shape": [...]}}) at the operand's or the check's shape. The witness is the
check's ``counterexample``, drawn on every figure, each figure's name being
its role in it (``src_index`` is drawn on ``src``). A layout that cannot be
rebuilt gets a one-line note in place of its figure; the page is still
written.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any, Mapping

from ..errors import CheckerError
from ..layout import LinearLayout
from . import svg

FIGURE_CELLS = 32        # cells per side in the page's figures (show --svg draws up to 64)

CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; border-top: 1px solid #ccc; padding-top: .8em; }
table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: .2em .6em; text-align: left; }
th { background: #f0f0f0; } code, pre { font-family: "DejaVu Sans Mono", monospace; font-size: .85em; }
pre { background: #f7f7f7; padding: .6em; white-space: pre-wrap; }
.pass { color: #176b1f; font-weight: bold; } .fail { color: #c00000; font-weight: bold; }
dl { display: grid; grid-template-columns: max-content auto; gap: .2em 1em; } dt { font-weight: bold; } dd { margin: 0; }
figure { margin: 1em 0; overflow-x: auto; }
.missing { color: #a05a00; }
"""


def write_html(report: Mapping[str, Any], path: str) -> None:
    """Write the page for `report` to `path` atomically (temporary file, then os.replace)."""
    from .writer import write_atomic
    write_atomic(path, render_html(report))


def render_html(report: Mapping[str, Any]) -> str:
    checks = list(report.get("checks") or [])
    parts = ['<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
             "<title>layoutcheck report</title>", f"<style>{CSS}</style></head><body>",
             "<h1>layoutcheck report</h1>", _summary(report.get("summary") or {}, checks),
             _table(checks)]
    parts += [_section(c, n) for n, c in enumerate(checks)]
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _outcome(check: Mapping[str, Any]) -> str:
    passed = check.get("passed")
    if passed is None:
        return '<span>-</span>'
    return '<span class="pass">pass</span>' if passed else '<span class="fail">FAIL</span>'


def _summary(summary: Mapping[str, Any], checks: list) -> str:
    items = "".join(f"<dt>{escape(str(k))}</dt><dd>{escape(_plain(v))}</dd>" for k, v in summary.items())
    return f'<dl class="summary">{items}</dl>' if items else f"<p>{len(checks)} checks</p>"


def _table(checks: list) -> str:
    rows = ["<table><tr><th>check</th><th>property</th><th>shape</th><th>verdict</th>"
            "<th>expected</th><th>result</th></tr>"]
    for n, c in enumerate(checks):
        rows.append(f'<tr><td><a href="#check-{n}">{escape(str(c.get("id", n)))}</a></td>'
                    f'<td>{escape(str(c.get("property", "")))}</td><td>{escape(_shape_text(c.get("shape")))}</td>'
                    f'<td>{escape(_plain(c.get("verdict", "")))}</td><td>{escape(_plain(c.get("expect", "")))}</td>'
                    f"<td>{_outcome(c)}</td></tr>")
    rows.append("</table>")
    return "\n".join(rows)


def _section(check: Mapping[str, Any], n: int) -> str:
    shown = ("property", "shape", "verdict", "expect", "explanation")
    details = "".join(f"<dt>{k}</dt><dd>{escape(_plain(check[k]) if k != 'shape' else _shape_text(check[k]))}</dd>"
                      for k in shown if k in check)
    for name, text in _operand_texts(check):
        details += f"<dt>{escape(name)}</dt><dd><code>{escape(text)}</code></dd>"
    out = [f'<section class="check" id="check-{n}">',
           f"<h2>{escape(str(check.get('id', n)))} {_outcome(check)}</h2>", f"<dl>{details}</dl>"]
    witness = check.get("counterexample")
    if witness:
        out.append("<p>counterexample:</p><pre>" + escape(json.dumps(witness, sort_keys=True)) + "</pre>")
    for name, built in _layouts(check):
        if isinstance(built, str):
            out.append(f'<p class="missing">{escape(name)}: no figure ({escape(built)})</p>')
            continue
        figure = svg.layout_figure(built, title=name, witness=witness if isinstance(witness, Mapping) else None,
                                   role=name, elem_bytes=_elem_bytes(check), max_cells=FIGURE_CELLS)
        out.append(f"<figure>{figure}</figure>")
    out.append("</section>")
    return "\n".join(out)


def _plain(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v, sort_keys=True)


def _shape_text(shape: Any) -> str:
    if isinstance(shape, (list, tuple)):
        return "x".join(str(s) for s in shape)
    return "" if shape is None else str(shape)


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
    if isinstance(given, Mapping) and given:
        out = []
        for name, d in given.items():
            try:
                is_triton = isinstance(d, Mapping) and "in" in d
                out.append((str(name), LinearLayout.from_triton_json(d) if is_triton else LinearLayout.from_dict(d)))
            except CheckerError as e:
                out.append((str(name), str(e)))
        return out
    texts = _operand_texts(check)
    if not texts:
        return []
    from ..encodings import lower
    from ..syntax.mlir_attr import parse_attribute
    out = []
    for name, text in texts:
        try:
            out.append((name, lower(parse_attribute(text), _shape(check, name))))
        except CheckerError as e:
            out.append((name, str(e)))
    return out


def _shape(check: Mapping[str, Any], operand: str) -> list[int]:
    ops = check.get("operands")
    op = ops.get(operand) if isinstance(ops, Mapping) else None
    shape = op.get("shape") if isinstance(op, Mapping) and op.get("shape") else check.get("shape")
    if isinstance(shape, str):
        shape = shape.lower().split("x")
    try:
        return [int(s) for s in shape]
    except (TypeError, ValueError):
        raise CheckerError(f"check has no usable shape ({shape!r})", field="shape") from None
