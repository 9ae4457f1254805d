"""Per-version kernel corpus: compile a selection of the corpus cases with one Triton version.

    /work/tv/3.6.0/bin/python tools/version_corpus.py --out tests/versions/corpus/3.6
    /work/tv/3.5.1/bin/python tools/version_corpus.py --out /tmp/v35 --only 'gl_*' --targets cuda100
    /work/tv/3.8.0/bin/python tools/version_corpus.py --out /tmp/x --list        # the selection

Run it with the Python of the Triton version wanted (the ``tv`` venvs); Triton 3.9's corpus is
tests/corpus (tools/compile_corpus.py), not redone here.  The machinery is compile_corpus.py's,
imported: every (case, target) pair of ``SELECTION`` is compiled in a forked child, to the same
outputs in ``--out``:

* ``<case>.<target>.ttgir``: the TTGIR with locations after a two-line ``//`` header that names
  the Triton version (``compiled by Triton 3.6.0 on CPU``) and this tool's command line;
* ``asm.json``: per module ``metadata.shared``, num_warps, num_ctas, per TTGIR line the
  shared-memory instructions of the PTX/AMDGCN (``lines``), Triton's own LLVM accesses
  (``triton_llvm``), ... exactly as tests/corpus/asm.json, plus ``"triton": "<version>"``;
* ``skipped.json``: pairs this version cannot compile, with the reason (Gluon API names that do
  not exist in this version are reported as such: ``<module>.<name> does not exist in Triton X``).

Older Tritons' Gluon lacks some names the kernels import (3.5: ``ampere.mma_v2``,
``PaddedSharedLayout.with_identity_for``, ...).  The kernel modules are imported through
`import_kernels`: a missing imported name becomes a stub that raises when a kernel calls it (the
pair is then skipped with that reason), and ``PaddedSharedLayout.with_identity_for`` (identity
linear component) is mapped to 3.5's ``PaddedSharedLayout(interval_padding_pairs, order)``, the
same layout; likewise for 3.5 (`_shim_gluon`, printed at start): tma/async_copy ``async_load`` /
``async_store`` -> ``async_copy_global_to_shared`` / ``async_copy_shared_to_global``,
``TensorMemoryLayout(col_stride=1)`` -> ``unpacked=True``, ``AMDMFMALayout(instr_shape=[M, N, K])`` ->
``[M, N]``, ``cga_layout`` bases -> ``ctas_per_cga/cta_split_num/cta_order``.  Nothing changes for
Triton >= 3.6 but the stubs (3.6/3.7 lack nothing the kernels import).
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib
import json
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import compile_corpus as cc  # noqa: E402  (imports triton)
import triton  # noqa: E402

VERSION = triton.__version__
_ALL5 = ("cuda80", "cuda90", "cuda100", "gfx942", "gfx950")

# (case, targets): spread over kinds and the five targets; ~80 pairs, some skipped per version
SELECTION = {
    # tl_ops
    "tl_trans_f16_128x64": _ALL5,
    "tl_reduce_axes": _ALL5,
    "tl_scan_axes": ("cuda80", "gfx942"),
    "tl_histogram": ("cuda90", "gfx950"),
    "tl_gather_rows": ("cuda100", "gfx942"),
    "tl_join_split": ("cuda80", "gfx950"),
    "tl_softmax_rows": ("cuda90", "gfx942"),
    "tl_interleave": ("cuda100",),
    "tl_permute3d": ("cuda80", "gfx950"),
    "tl_reduce3d": ("cuda80", "gfx942"),
    "tl_argmax": ("cuda90",),
    "tl_layernorm_rows": ("cuda100",),
    # tl_dots
    "tl_dot_f16": _ALL5,
    "tl_dot_f16_ta": ("cuda80", "cuda100", "gfx942"),
    "tl_dot_bf16_tb_w8": ("cuda90", "gfx950"),
    "tl_dot_fp32_ieee": ("cuda90", "gfx942"),
    "tl_dot_fp8_tb": ("cuda90", "cuda100", "gfx950"),
    "tl_dot_i8_ta": ("cuda80", "gfx942"),
    "tl_dot_tf32_tb": ("cuda80", "cuda90"),
    "tl_chained_dots": ("cuda80", "gfx950"),
    "tl_persistent_tma": ("cuda90", "cuda100"),
    "tl_device_tma": ("cuda100",),
    "tl_dot_scaled_mxfp4": ("cuda100", "gfx950"),
    "tl_dot_f16_small": ("cuda80", "gfx950"),
    "tl_bmm3d": ("cuda90",),
    "tl_split_k": ("gfx942",),
    # gl_layouts
    "gl_convert_f32_64x64": _ALL5,
    "gl_rt_swz_f16": ("cuda80", "gfx942"),
    "gl_rt_padded_f16": ("cuda90", "gfx950"),
    "gl_rt_nvmma128_f16": ("cuda90", "cuda100"),
    "gl_views_swz": ("cuda80", "gfx950"),
    "gl_views_padded": ("gfx942",),
    "gl_reshape_nvmma": ("cuda100",),
    # gl_nvidia
    "gl_cp_async_mma_v2": ("cuda80",),
    "gl_cp_async_mma_v2_w8": ("cuda90",),
    "gl_tma_mbarrier": ("cuda90", "cuda100"),
    "gl_wgmma_smem_a": ("cuda90",),
    "gl_wgmma_reg_a": ("cuda90",),
    "gl_tcgen05": ("cuda100",),
    "gl_tcgen05_tmem_a": ("cuda100",),
    "gl_ws_tcgen05": ("cuda100",),
    "gl_two_cta_tcgen05": ("cuda100",),
    "gl_multicta_reduce": ("cuda90", "cuda100"),
    # gl_amd
    "gl_mfma32": ("gfx942", "gfx950"),
    "gl_mfma16_buffer": ("gfx942",),
    "gl_mfma16_padded": ("gfx950",),
    "gl_lds_direct_mfma": ("gfx950",),
}


# ---------------------------------------------------------------------------------------------
# importing the kernel modules under an older Gluon


def _missing(qualname: str):
    """A stand-in for a Gluon name this Triton lacks: a builtin (so a kernel may reference it)
    that refuses when called; also usable as a namespace (attribute access gives more stubs)."""

    class Missing:
        __triton_builtin__ = True

        def __init__(self, name):
            self.__name__ = name

        def __call__(self, *args, **kwargs):
            raise NotImplementedError(f"{self.__name__} does not exist in Triton {VERSION}")

        def __getattr__(self, attr):
            if attr.startswith("__"):
                raise AttributeError(attr)
            return Missing(f"{self.__name__}.{attr}")

    return Missing(qualname)


def _shim_gluon() -> list[str]:
    """Small API adapters where an older Gluon spells the same thing differently."""
    done = []
    try:
        from triton.experimental.gluon import language as gl
    except ImportError:
        return done
    P = getattr(gl, "PaddedSharedLayout", None)
    if P is not None and not hasattr(P, "with_identity_for"):
        def with_identity_for(cls, interval_padding_pairs, shape, order, *args, **kwargs):
            # 3.5: no linear component; identity mapping for `shape` in `order` is its only layout
            return cls(interval_padding_pairs, order)
        P.with_identity_for = classmethod(with_identity_for)
        done.append("PaddedSharedLayout.with_identity_for -> PaddedSharedLayout(pairs, order)")
    # 3.5: TMA / cp.async copies are async_copy_global_to_shared / async_copy_shared_to_global
    for modname in ("nvidia.ampere.async_copy", "nvidia.hopper.tma", "nvidia.blackwell.tma"):
        try:
            mod = importlib.import_module(f"triton.experimental.gluon.language.{modname}")
        except ImportError:
            continue
        for new, old in (("async_load", "async_copy_global_to_shared"), ("async_store", "async_copy_shared_to_global")):
            if not hasattr(mod, new) and hasattr(mod, old):
                setattr(mod, new, getattr(mod, old))
                done.append(f"{modname}.{new} -> {old}")
    # 3.5: TensorMemoryLayout(block, unpacked): col_stride=1 (one element per 32-bit column) is unpacked=True
    try:
        from triton.experimental.gluon.language.nvidia import blackwell
        T = blackwell.TensorMemoryLayout
        if "unpacked" in getattr(T, "__dataclass_fields__", {}) and "col_stride" not in T.__dataclass_fields__:
            real_init = T.__init__

            def tmem_init(self, block, unpacked=None, cta_split_num=None, col_stride=None, **kw):
                if col_stride is not None:
                    if unpacked is not None or col_stride != 1:
                        raise NotImplementedError(f"TensorMemoryLayout(col_stride={col_stride}) has no form in "
                                                  f"Triton {VERSION}")
                    unpacked = True
                real_init(self, block, unpacked, cta_split_num, **kw)
            T.__init__ = tmem_init
            done.append("TensorMemoryLayout(col_stride=1) -> TensorMemoryLayout(unpacked=True)")
    except ImportError:
        pass
    # 3.5: AMDMFMALayout.instr_shape is (M, N): the K of [M, N, K] follows from the operands there
    try:
        from triton.experimental.gluon.language import amd
        M = amd.AMDMFMALayout
        if "(M, N)" in (M.__doc__ or ""):
            real_mfma = M.__init__

            def mfma_init(self, *args, **kw):
                if "instr_shape" in kw and len(list(kw["instr_shape"])) == 3:
                    kw["instr_shape"] = list(kw["instr_shape"])[:2]
                real_mfma(self, *args, **kw)
            M.__init__ = mfma_init
            done.append("AMDMFMALayout(instr_shape=[M, N, K]) -> instr_shape=[M, N]")
    except (ImportError, AttributeError):
        pass
    # 3.5: CTA placement is ctas_per_cga / cta_split_num / cta_order, not a cga_layout of bases
    for cname in ("BlockedLayout", "NVMMASharedLayout", "SwizzledSharedLayout", "NVMMADistributedLayout"):
        cls = getattr(gl, cname, None)
        fields = getattr(cls, "__dataclass_fields__", {})
        if cls is None or "cga_layout" in fields or "ctas_per_cga" not in fields:
            continue
        cls.__init__ = _accept_cga_layout(cls.__init__)
        if cname == "NVMMASharedLayout":
            cls.get_default_for = staticmethod(_accept_cga_layout(cls.get_default_for))
        done.append(f"{cname}(cga_layout=bases) -> ctas_per_cga/cta_split_num/cta_order")
    return done


def _cga_legacy(bases):
    """cga_layout bases (CTA id bit i -> a unit offset of dim d, in CTA tiles) as Triton 3.5's
    CTAsPerCGA / CTASplitNum / CTAOrder; broadcast (zero) bases have no unambiguous legacy form."""
    rank = len(bases[0])
    split = [1] * rank
    order = []
    for b in bases:
        dims = [d for d, v in enumerate(b) if v]
        if len(dims) != 1 or b[dims[0]] != split[dims[0]]:
            raise NotImplementedError(f"cga_layout {bases} has no CTAsPerCGA/CTASplitNum form in Triton {VERSION}")
        split[dims[0]] *= 2
        if dims[0] not in order:
            order.append(dims[0])
    order += [d for d in reversed(range(rank)) if d not in order]
    return {"ctas_per_cga": list(split), "cta_split_num": list(split), "cta_order": order}


def _accept_cga_layout(fn):
    import functools

    @functools.wraps(fn)
    def wrapper(*args, cga_layout=None, **kwargs):
        if cga_layout:
            kwargs.update(_cga_legacy([list(b) for b in cga_layout]))
        return fn(*args, **kwargs)
    return wrapper


_IMPORT_ERR = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'")


def import_kernels(modname: str, stubs: list[str]):
    """Import corpus_kernels.<modname>; names its imports lack in this Triton become stubs."""
    for _ in range(50):
        try:
            return importlib.import_module(f"corpus_kernels.{modname}")
        except ImportError as e:
            m = _IMPORT_ERR.search(str(e))
            if not m:
                raise
            name, where = m.group(1), m.group(2)
            setattr(importlib.import_module(where), name,
                    _missing(f"{where.replace('triton.experimental.', '')}.{name}"))
            stubs.append(f"{where}.{name}")
            sys.modules.pop(f"corpus_kernels.{modname}", None)
    raise RuntimeError(f"too many missing names importing {modname}")


def all_cases(stubs: list[str]) -> list[dict]:
    from corpus_kernels import MODULES
    cases = []
    for modname in MODULES:
        try:
            cases.extend(import_kernels(modname, stubs).CASES)
        except Exception as e:  # noqa: BLE001 - a whole module this Triton cannot even import
            print(f"cannot import corpus_kernels.{modname}: {type(e).__name__}: {e}", file=sys.stderr)
    return cases


def _header(case, name, tag, target, md, argv_hint):
    text = _real_header(case, name, tag, target, md, argv_hint)
    first = text.split("\n", 1)[0]
    return f"{first}\n// python tools/version_corpus.py --out {argv_hint} --only {name} --targets {tag}\n"


_real_header = cc.header
cc.header = _header


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="folder for <case>.<target>.ttgir, asm.json, skipped.json")
    ap.add_argument("--only", nargs="*", help="case names or fnmatch patterns (default: the whole selection)")
    ap.add_argument("--targets", nargs="*", choices=_ALL5, help="target tags (default: all five)")
    ap.add_argument("--list", action="store_true", help="list the selected pairs and exit")
    args = ap.parse_args(argv)
    stubs: list[str] = []
    shims = _shim_gluon()
    cases = {c["name"]: c for c in all_cases(stubs)}
    unknown = sorted(set(SELECTION) - set(cases))
    if stubs or shims or unknown:
        print(f"Triton {VERSION}: shims {shims}; stubbed missing names {stubs}; cases not importable {unknown}",
              file=sys.stderr)
    pairs = [(n, t) for n, ts in SELECTION.items() for t in ts
             if (not args.only or any(fnmatch.fnmatch(n, p) for p in args.only))
             and (not args.targets or t in args.targets)]
    if args.list:
        for n, t in pairs:
            print(n, t)
        return 0
    os.makedirs(args.out, exist_ok=True)
    asm_path, skip_path = os.path.join(args.out, "asm.json"), os.path.join(args.out, "skipped.json")
    asm = json.load(open(asm_path)) if os.path.exists(asm_path) else {}
    skipped = json.load(open(skip_path)) if os.path.exists(skip_path) else {}
    out_hint = os.path.relpath(os.path.abspath(args.out), cc.ROOT)
    written = 0
    for n, tag in pairs:
        name = f"{n}.{tag}.ttgir"
        t0 = time.time()
        if n not in cases:
            fixture, fact, reason = None, None, f"case not importable with Triton {VERSION}"
        else:
            try:
                fixture, fact, reason = cc.run_isolated(cases[n], tag, out_hint)
            except RuntimeError as e:           # the child raised outside Triton's compile: keep going, say so
                fixture, fact, reason = None, None, f"TOOL FAILURE: {str(e)[-500:]}"
        if fixture is None:
            skipped[name] = reason
            asm.pop(name, None)
            if os.path.exists(os.path.join(args.out, name)):
                os.remove(os.path.join(args.out, name))
            print(f"SKIP {name}: {reason[:300]}", file=sys.stderr)
            continue
        skipped.pop(name, None)
        asm[name] = {**fact, "triton": VERSION}
        with open(os.path.join(args.out, name), "w", encoding="utf-8") as f:
            f.write(fixture)
        written += 1
        mismatch = ("" if fact.get("recompile_matches", False)
                    else " (RECOMPILE MISMATCH: " + fact.get("error", "counts differ") + ")")
        print(f"{name}: {len(fixture.splitlines())} lines, shared={fact['shared']}, {len(fact['lines'])} smem lines"
              f"{mismatch} [{time.time() - t0:.1f}s]", file=sys.stderr)
    with open(asm_path, "w", encoding="utf-8") as f:
        json.dump(dict(sorted(asm.items())), f, indent=1)
        f.write("\n")
    with open(skip_path, "w", encoding="utf-8") as f:
        json.dump(dict(sorted(skipped.items())), f, indent=1)
        f.write("\n")
    print(f"Triton {VERSION}: {written} modules written, {len(skipped)} pairs skipped", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
