"""The benchmark's Markdown tables and its scaling plot, from latest.json's data."""

from __future__ import annotations


def _fmt(v, digits: int = 1) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{digits}f}" if abs(v) >= 10 ** -digits else f"{v:.2g}"
    return str(v)


def render_markdown(r: dict) -> str:
    m = r["machine"]
    lines = [f"# layoutcheck benchmark ({'quick' if r['quick'] else 'full'} run, {r['date']})", "",
             f"Machine: {m.get('cpu')}, {m.get('cpus')} CPUs, {m.get('memory_gib')} GiB; Python {m['python']}, "
             f"z3 {m['z3']}, numpy {m['numpy']}, tensor-layouts {m.get('tensor_layouts')}; commit "
             f"{m.get('commit')}. Whole run: {r.get('seconds')} s.", ""]
    if "lowering" in r:
        low = r["lowering"]
        lines += ["## 1. Lowering (µs per call; median [p10-p90])", "", low["triton_note"], "",
                  "| family | cases | layoutcheck cold | Triton first call | cold / first | layoutcheck warm "
                  "(cache hit) | Triton repeated call | warm / repeated | cold / repeated |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for fam, row in low["families"].items():
            lines.append(f"| {fam} | {row['cases']} | {_cell(row['layoutcheck_cold'])} | "
                         f"{_cell(row['triton_first'])} | {_fmt(row['ratio_cold_vs_triton_first'], 2)} | "
                         f"{_cell(row['layoutcheck_warm'])} | {_cell(row['triton'])} | "
                         f"{_fmt(row['ratio_warm_vs_triton'], 3)} | {_fmt(row['ratio_cold_vs_triton'], 2)} |")
        lines += ["", "Large shapes (µs, cold): " + ", ".join(
            f"{k.removeprefix('large-')} {_fmt(v['layoutcheck_cold_us'])} (Triton {_fmt(v['triton_us'])})"
            for k, v in low["large_shapes"].items()), ""]
    if "proofs" in r:
        p = r["proofs"]
        c = p["corpus"]
        lines += ["## 2. Proofs (ms per property; p50 / p99)", "",
                  f"Corpus: {c['layouts']} conformance layouts (surjective, injective), {c['conversion_pairs']} "
                  f"conversion pairs (equivalent, conversion), {c['bank_pairs']} register/shared pairs "
                  f"(bank_conflict_free).", "", "| property | F2 p50 | F2 p99 | Z3 p50 | Z3 p99 |",
                  "| --- | ---: | ---: | ---: | ---: |"]
        for prop, per in p.items():
            if prop in ("unit", "corpus", "dense_random_injective"):
                continue
            lines.append(f"| {prop} | {_fmt(per['f2'].get('median'), 3)} | {_fmt(per['f2'].get('p99'), 3)} | "
                         f"{_fmt(per['z3'].get('median'), 2)} | {_fmt(per['z3'].get('p99'), 2)} |")
        lines += ["", "Dense random layouts (n random n-bit bases), injective: " + "; ".join(
            f"{r['bits']} bits {r['verdict']}: F2 {r['f2']} ms, Z3 {r['z3']} ms" for r in p["dense_random_injective"]),
            ""]
    if "scaling" in r:
        s = r["scaling"]
        lines += ["## 3. Scaling (seconds per property)", "",
                  f"Blocked register layouts of 4 to 16 warps, a second blocked layout and a swizzled shared layout "
                  f"(f16) over square tensors; enumeration (numpy) up to 2^{s['enumeration_limit_log2']} elements, "
                  f"tensor-layouts' enumeration up to 2^{s['tensor_layouts_limit_log2']}. "
                  f"All five properties at 2^{s['all_properties_at_largest']['log2_elements']} elements: F2 "
                  f"{s['all_properties_at_largest']['f2_seconds']} s, Z3 {s['all_properties_at_largest']['z3_seconds']}"
                  f" s.", "", "| elements | property | verdict | F2 | Z3 | numpy enumeration | tensor-layouts |"
                  " enumeration / F2 | enumeration agrees |", "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
        for row in s["rows"]:
            lines.append(f"| 2^{row['log2_elements']} | {row['property']} | {row['verdict']} | {_sci(row['f2'])} | "
                         f"{_sci(row['z3'])} | {_sci(row['enumeration'])} | {_sci(row['tensor_layouts'])} | "
                         f"{_fmt(row['enumeration_over_f2'], 0)} | {_fmt(row.get('enumeration_agrees'))} |")
        lines += ["", "![time against size](scaling.png)", ""]
    if "end_to_end" in r:
        lines += ["## 4. End to end", "", "| run | checks | exit | wall (s) | peak RSS (MiB) |",
                  "| --- | ---: | ---: | ---: | ---: |"]
        for name, e in r["end_to_end"].items():
            lines.append(f"| {name} | {e['checks']} | {e['exit_code']} | {e['wall_seconds']} | {e['peak_rss_mib']} |")
        lines.append("")
    return "\n".join(lines)


def _sci(v) -> str:
    return "-" if v is None else f"{v:.2e}"


def _cell(s: dict) -> str:
    if not s.get("n"):
        return "-"
    return f"{_fmt(s['median'])} [{_fmt(s['p10'])}-{_fmt(s['p90'])}]"


def render_plot(scaling: dict, path: str) -> None:
    """Time against elements, log-log: one line per (property, method)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(9, 5.5))
    props = sorted({r["property"] for r in scaling["rows"]})
    styles = {"f2": "-", "z3": "--", "enumeration": ":", "tensor_layouts": "-."}
    colours = dict(zip(props, ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]))
    for prop in props:
        rows = [r for r in scaling["rows"] if r["property"] == prop]
        for method, style in styles.items():
            pts = [(2 ** r["log2_elements"], r[method]) for r in rows if r.get(method)]
            if pts:
                ax.plot(*zip(*pts), style, color=colours[prop], marker="o", ms=3,
                        label=f"{prop} ({method.replace('_', '-')})")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("tensor elements")
    ax.set_ylabel("seconds per property")
    ax.set_title("layoutcheck (F2, Z3) against enumeration")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
