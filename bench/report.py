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
    if r.get("previous"):
        p = r["previous"]
        lines += [f"Sections not run this time are kept from the run of {p.get('date')} (commit "
                  f"{(p.get('machine') or {}).get('commit')}, {p.get('seconds')} s).", ""]
    if "lowering" in r:
        low = r["lowering"]
        t = r.get("targets", {})
        lines += ["## 1. Lowering: attribute text -> LinearLayout (µs per call; median [p10-p90])", "",
                  low["triton_note"] + ".", "",
                  f"Baseline: the code before closed forms and parse-once (its parser, the generic composition), "
                  f"run interleaved with ours. {low.get('statistic', '')}. Ratios are medians [p10-p90] of the "
                  f"per-case ratios. Targets: cold <= {t.get('lowering_ratio_cold')}x Triton, warm <= "
                  f"{t.get('lowering_ratio_warm')}x Triton.", "",
                  "| family | cases | cold | baseline cold | cold / baseline | Triton cold (build + first call) | "
                  "**cold / Triton** | warm (same text) | baseline warm | Triton warm | **warm / Triton** |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for fam, row in low["families"].items():
            lines.append(f"| {fam} | {row['cases']} | {_cell(row['layoutcheck_cold'])} | "
                         f"{_cell(row['baseline_cold'])} | "
                         f"{_rcell(row['ratio_cold_vs_baseline'])} | {_cell(row['triton_cold'])} | "
                         f"{_met(row['ratio_cold_vs_triton_cold'], t.get('lowering_ratio_cold'))} | "
                         f"{_cell(row['layoutcheck_warm'])} | {_cell(row['baseline_warm'])} | {_cell(row['triton'])} | "
                         f"{_met(row['ratio_warm_vs_triton_warm'], t.get('lowering_ratio_warm'))} |")
        pub = low.get("public_api") or {}
        if pub.get("geometric_mean") is not None:
            lines += ["", "### 1a. Through the public API: `checker.lower(checker.parse_encoding(text), shape)`", "",
                      f"What users, the CLI, `run` and the pytest plugin call, cold (caches cleared), one sample just "
                      f"before Triton's cold one, case by case, after both sides ran {pub['warmup_per_family']} other "
                      f"encodings of each family. Per family the ratio of sums over its cases (and the median of the "
                      f"per-case ratios). **Geometric mean over families: {_fmt(pub['geometric_mean'], 2)}; worst: "
                      f"{pub['worst_family']} {_fmt(pub['worst'], 2)}** (target <= {t.get('lowering_ratio_cold')} "
                      f"for every family).", "",
                      "| family | cases | public API cold | internal cold | public / internal | Triton cold | "
                      "**public / Triton (sums)** | public / Triton (median [p10-p90]) |",
                      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
            for fam, row in low["families"].items():
                if "public_cold" not in row:
                    continue
                sums = row.get("public_sum_ratio")
                met = "" if sums is None else " met" if sums <= t.get("lowering_ratio_cold", 0.5) else " **not met**"
                lines.append(f"| {fam} | {row['cases']} | {_cell(row['public_cold'])} | "
                             f"{_cell(row['layoutcheck_cold'])} | "
                             f"{_rcell(row['ratio_public_vs_internal'])} | {_cell(row['triton_cold'])} | "
                             f"{_fmt(sums, 2)}{met} | {_rcell(row['ratio_public_cold_vs_triton_cold'])} |")
        lines += ["", "Against Triton's first call alone (attribute already built): " + ", ".join(
            f"{fam} {_rcell(row['ratio_cold_vs_triton_first'])}" for fam, row in low["families"].items()), "",
            "Each side cold in a loop of its own instead (ours case after case, then Triton case after case in a "
            "fresh context, one sample each; the way this section measured before: Triton's code then stays in "
            "the CPU's caches from one case to the next, as it does not between a compiler's passes), cold / "
            "Triton: " + ", ".join(f"{fam} {_rcell(row['ratio_alone_cold_vs_triton_alone_cold'])}"
                                   for fam, row in low["families"].items()
                                   if (row.get("ratio_alone_cold_vs_triton_alone_cold") or {}).get("n")), "",
            "Large shapes (µs, cold): " + ", ".join(
            f"{k.removeprefix('large-')} {_fmt(v['layoutcheck_cold_us'])} (baseline {_fmt(v.get('baseline_cold_us'))}"
            f", Triton {_fmt(v.get('triton_cold_us'))})" for k, v in low["large_shapes"].items()), ""]
    if "startup" in r and "commands" in r["startup"]:
        st = r["startup"]
        t = r.get("targets", {})
        lines += ["## 1b. Start-up (whole process, seconds; median [p10-p90] of paired runs)", "",
                  f"`python -m checker ...` from bytecode, alternating with the tree of commit {st['baseline_commit']} "
                  f"(before this work), {st['repeat']} pairs. Target <= {t.get('process_s')} s.", "",
                  "| command | now | baseline | now / baseline | target |", "| --- | ---: | ---: | ---: | --- |"]
        for name, row in st["commands"].items():
            ok = "met" if row["new"]["median"] <= t.get("process_s", 0) else "missed"
            lines.append(f"| `layoutcheck {name}` | {_cell(row['new'])} | {_cell(row['baseline'])} | "
                         f"{_rcell(row['ratio'])} | {ok} |")
        imp = st["import_checker_prove_ms"]
        lines += ["", f"`python -X importtime -c 'import checker.prove'` (ms, cumulative): now {_cell(imp['new'])}, "
                      f"baseline {_cell(imp['baseline'])}, ratio {_rcell(imp['ratio'])}; z3 imported: now "
                      f"{imp['z3_loaded']['new']}, baseline {imp['z3_loaded']['baseline']}.", ""]
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
                  " enumeration / F2 | enumeration agrees |",
                  "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
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
    if "scale_out" in r:
        lines += _scale_out(r["scale_out"], r.get("targets", {}), r.get("scale_out_date"))
    return "\n".join(lines)


def _s(d, digits=3) -> str:
    """median [min-max] of a bench.scale.spread dict."""
    if not d or not d.get("n"):
        return "-"
    return f"{d['median']:.{digits}f} [{d['min']:.{digits}f}-{d['max']:.{digits}f}]"


def _scale_out(s: dict, t: dict, date) -> list[str]:
    k = s.get("kernels") or {}
    lines = ["## 5. Scale-out: kernels against Triton's compiler, start-up, sweep throughput, bank figure", "",
             (f"Measured {date}. " if date else "") + "Every figure is the median [min-max] of paired samples "
             "taken alternately (Triton in a long-lived worker under --triton-python, asked between our calls); "
             "no side hits a cache an earlier sample filled (Triton: TRITON_ALWAYS_COMPILE, a fresh cache folder "
             "per compile; ours: a new process for 'process', the lowering cache cleared for 'cold'; 'warm' says "
             "so); peak RSS is summed over the process tree (workers, Ray's processes).", "",
             f"### Verify a kernel's TTGIR vs triton.compile of the same kernel ({k.get('pairs_per_kernel')} "
             f"pair(s) per kernel; Triton's first compile in its worker, start-up included: "
             f"{k.get('triton_first_compile_s')} s, not counted)", "",
             "Two Triton columns: triton.compile in its warm worker (in-process), and a new process that imports "
             "Triton and compiles the kernel once (whole process, bench/triton_worker.py --once). Ours whole "
             "process is `layoutcheck verify K --engine both --jobs 1`; ours in-process (checker.verify, this process "
             "having lowered the kernel's encodings before) is per sample the median of 3 calls per engine, the "
             "engines alternating; \"cold\" is both engines with the lowering and SMT caches cleared before each "
             "call (a kernel the process has never seen). \"Same process\" is issue 29's own measure: in Triton's "
             "worker, triton.compile, then at once checker.verify of the TTGIR that compile printed (locations "
             "in it), both engines, cold, over the compile's time.", "",
             "| kernel | target | checks | triton.compile in-process (s) | Triton whole process (s) | "
             "verify, whole process (s) | / Triton in-process "
             f"(target <= {t.get('kernel_process_ratio')}) | / Triton whole process | checker.verify in-process, "
             f"both (s) | / Triton | in-process, f2 (s) | / Triton (target <= {t.get('kernel_in_process_ratio')}) "
             "| in-process cold, both (s) | / Triton | same process, cold, both / its compile | process peak MiB |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
             "| ---: |"]
    for row in k.get("rows", []):
        lines.append(f"| {row['kernel']} | {row['target']} | {row['checks']} | {_s(row['triton'])} | "
                     f"{_s(row.get('triton_process', {}))} | {_s(row['process'])} | {_s(row['process_over_triton'])} | "
                     f"{_s(row.get('process_over_triton_process', {}))} | {_s(row['in_process_both'])} | "
                     f"{_s(row['in_process_both_over_triton'])} | {_s(row['in_process_f2'])} | "
                     f"{_s(row['in_process_f2_over_triton'])} | {_s(row.get('in_process_cold_both', {}))} | "
                     f"{_s(row.get('in_process_cold_both_over_triton', {}))} | "
                     f"{_s(row.get('same_process_cold_both_over_triton', {}))} | {_s(row['process_mib'], 0)} |")
    lines += ["", f"Over the kernels (median of the per-kernel medians [min-max]): whole process "
              f"{_s(k.get('process_over_triton'))}x of Triton in-process and "
              f"{_s(k.get('process_over_triton_process'))}x of Triton's whole process, in-process both engines "
              f"{_s(k.get('in_process_both_over_triton'))}x, in-process F2 {_s(k.get('in_process_f2_over_triton'))}x, "
              f"in-process cold, both engines {_s(k.get('in_process_cold_both_over_triton'))}x of triton.compile "
              f"({_s(k.get('in_process_cold_both_over_triton_named'))}x over the 12 kernels issue 29 names: no "
              f"vector_add); in the compile's own process, its TTGIR, cold, both engines "
              f"{_s(k.get('same_process_cold_both_over_triton'))}x "
              f"({_s(k.get('same_process_cold_both_over_triton_named'))}x over the 12).", "",
              "### Start-up per command (whole process, s; a new process each, commands alternating)", "",
              "| command | wall |", "| --- | ---: |"]
    for name, d in (s.get("startup") or {}).items():
        lines.append(f"| `layoutcheck {name}` | {_s(d)} |")
    sw = s.get("sweep") or {}
    lines += ["", f"### Sweep throughput ({sw.get('checks')} distinct checks)", "",
              "| run | exit | wall (s) | checks/s | peak RSS, process tree (MiB) |",
              "| --- | ---: | ---: | ---: | ---: |"]
    for name, e in (sw.get("runs") or {}).items():
        if e is None:
            lines.append(f"| `{name}` | - | - | - | - (Ray not installed) |")
            continue
        lines.append(f"| `{name}` | {e['exit_code']} | {e['wall_s']} | {e['checks_per_s']} | {e['peak_rss_mib']} |")
    ray = (sw.get("runs") or {}).get("both --executor ray") or {}
    lines += ["", f"`--jobs 2` over `--jobs 1` (engine both, paired runs): {_s(sw.get('jobs2_speedup'), 2)}x "
              f"(target >= {t.get('jobs2_speedup')}x on an idle machine); engine both with `--jobs 2`: "
              f"{_s(sw.get('both_jobs2_s'), 1)} s (target <= {t.get('sweep_both_s')} s); report.json identical for "
              f"--jobs 1 and 2: {sw.get('jobs2_report_identical_to_jobs1')}, and on Ray: "
              f"{ray.get('report_identical_to_jobs1', '-')}.", ""]
    b = s.get("bank") or {}
    if b:
        lines += [f"### model=\"triton\" bank figure vs Triton's own bank_conflicts helper ({b['cases']} cases, µs)",
                  "",
                  "| | ours (prove.bank_conflict_free, F2, from encodings) | Triton (get_shared_bank_conflicts) | "
                  f"ours / Triton (target <= {t.get('bank_ratio')}) |", "| --- | ---: | ---: | ---: |",
                  f"| cold, interleaved in one process (ours: encodings parsed afresh, lowering caches cleared; "
                  f"Triton: attributes just built, not lowered before: both lower the two layouts and count) | "
                  f"{_s(b['ours_cold_us'], 1)} | {_s(b['triton_first_us'], 1)} | {_s(b['cold_ratio'], 2)} |",
                  f"| cold, each side in a loop of its own (Triton in a fresh context) | "
                  f"{_s(b.get('ours_alone_cold_us'), 1)} | {_s(b.get('triton_alone_cold_us'), 1)} | "
                  f"{_s(b.get('alone_cold_ratio'), 2)} |",
                  f"| warm (repeated, interleaved) | {_s(b['ours_warm_us'], 1)} | {_s(b['triton_repeat_us'], 1)} | "
                  f"{_s(b['warm_ratio'], 2)} |", "",
                  "Before this run the bench built Triton's attributes with a helper that also lowered them, so its "
                  "\"first call\" found both layouts lowered already (30-50 µs less than a cold one).", ""]
    return lines


def _sci(v) -> str:
    return "-" if v is None else f"{v:.2e}"


def _rcell(s: dict) -> str:
    if not s or not s.get("n"):
        return "-"
    return f"{s['median']:.2f} [{s['p10']:.2f}-{s['p90']:.2f}]"


def _met(s: dict, target) -> str:
    if not s or not s.get("n"):
        return "-"
    return _rcell(s) + (" met" if target is not None and s["median"] <= target else " missed")


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
