"""The reports of ``layoutcheck diff`` (`checker.run.diff`): text (one line per change, at the Python line), JSON
(``diff.json``, docs/diff.md), Markdown (a job summary) and HTML (``diff.html``).

    attn.py:88:12: regression: ttg.local_load: wavefronts 1024 -> 2048 (ldmatrix.x4.trans, conflict-free ->
    ldmatrix.x4.trans, 2x the minimum) [old.ttgir:45 -> new.ttgir:47]
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from html import escape
from typing import Any

FILES = {"text": "diff.txt", "json": "diff.json", "md": "diff.md", "html": "diff.html"}
FORMATS = tuple(FILES)


def where(c: Mapping[str, Any]) -> str:
    """``attn.py:88:12`` (the Python line), else the TTGIR line of the new side (or the old)."""
    py = c.get("python")
    if py:
        return f"{py['file']}:{py['line']}:{py['col']}"
    return c.get("ttgir_new") or c.get("ttgir_old") or f"{c['kernel']} ({c['target']})"


def change_line(c: Mapping[str, Any]) -> str:
    note = f" ({c['note']})" if c.get("note") else ""
    ttgir = f" [{c.get('ttgir_old') or '-'} -> {c.get('ttgir_new') or '-'}]" if c.get("python") else ""
    return f"{where(c)}: {c['class']}: {c['op']}: {c['what']}: {_value(c['old'])} -> {_value(c['new'])}{note}{ttgir}"


def _value(v: Any) -> str:
    return "none" if v is None else str(v)


def headline(result: Mapping[str, Any]) -> str:
    s = result["summary"]
    n, m = s["counts"], s["modules"]
    unmatched = f", {len(m['removed'])} removed, {len(m['added'])} added" if m["removed"] or m["added"] else ""
    return (f"layoutcheck diff: {m['matched']} module(s) matched{unmatched}: {n['regression']} regression(s), "
            f"{n['improvement']} improvement(s), {n['neutral']} neutral change(s) "
            f"(Triton {s['triton_versions']['old']} "
            f"-> {s['triton_versions']['new']})")


def render_text(result: Mapping[str, Any]) -> str:
    lines = [headline(result)]
    m = result["summary"]["modules"]
    lines += [f"removed module: {x}" for x in m["removed"]] + [f"added module: {x}" for x in m["added"]]
    order = {"regression": 0, "improvement": 1, "neutral": 2}
    lines += [change_line(c) for c in sorted(result["changes"], key=lambda c: order[c["class"]])]
    return "\n".join(lines) + "\n"


def render_json(result: Mapping[str, Any]) -> str:
    return json.dumps(result, indent=1) + "\n"


def render_markdown(result: Mapping[str, Any]) -> str:
    s = result["summary"]
    lines = [f"### {headline(result)}", ""]
    if result["changes"]:
        lines += ["| class | where | op | what | old | new | |", "| --- | --- | --- | --- | --- | --- | --- |"]
        for c in result["changes"]:
            lines.append(f"| {c['class']} | `{where(c)}` | {c['op']} | {c['what']} | {_md(c['old'])} | {_md(c['new'])} "
                         f"| {_md(c.get('note') or '')} |")
    for label in ("removed", "added"):
        for x in s["modules"][label]:
            lines.append(f"- {label} module: `{x}`")
    return "\n".join(lines) + "\n"


def _md(v: Any) -> str:
    return _value(v).replace("|", "\\|")


def render_html(result: Mapping[str, Any]) -> str:
    rows = "".join(f'<tr class="{escape(c["class"])}"><td>{escape(c["class"])}</td><td>{escape(where(c))}</td>'
                   f"<td>{escape(c['op'])}</td><td>{escape(c['what'])}</td><td>{escape(_value(c['old']))}</td>"
                   f"<td>{escape(_value(c['new']))}</td><td>{escape(c.get('note') or '')}</td></tr>"
                   for c in result["changes"])
    m = result["summary"]["modules"]
    unmatched = "".join(f"<li>{label} module: {escape(x)}</li>" for label in ("removed", "added") for x in m[label])
    return ("<!doctype html><html><head><meta charset=\"utf-8\"><title>layoutcheck diff</title><style>"
            "body{font:14px system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:.25em .5em;vertical-align:top;font-family:monospace}"
            "tr.regression td:first-child{color:#b00020;font-weight:bold}tr.improvement td:first-child{color:#1b5e20}"
            "</style></head><body><section id=\"diff\"><h1>layoutcheck diff</h1>"
            f"<p id=\"verdict\">{escape(headline(result))}</p><ul>{unmatched}</ul>"
            "<table><tr><th>class</th><th>where</th><th>op</th><th>what</th><th>old</th><th>new</th><th></th></tr>"
            f"{rows}</table></section></body></html>\n")


RENDER = {"text": render_text, "json": render_json, "md": render_markdown, "html": render_html}


def write(result: Mapping[str, Any], formats: list[str], folder: str) -> list[str]:
    """Render every format first, then write each atomically into `folder`; the paths written."""
    from .writer import write_files  # lazy: the writer and its renderers load only when a report folder is given
    return write_files({FILES[f]: RENDER[f](result) for f in formats}, folder)


__all__ = ["render_text", "render_json", "render_markdown", "render_html", "write", "FORMATS", "change_line"]
