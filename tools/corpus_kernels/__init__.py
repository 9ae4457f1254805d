"""Kernels of the real-kernel corpus (tools/compile_corpus.py).  Each module lists ``CASES``."""

ALL = ("cuda80", "cuda90", "cuda100", "gfx942", "gfx950", "gfx1250")
NV = ("cuda80", "cuda90", "cuda100")
AMD = ("gfx942", "gfx950", "gfx1250")

MODULES = ("tl_ops", "tl_dots", "gl_layouts", "gl_nvidia", "gl_amd", "tl_libs")


def case(name, fn, types, constexprs=None, targets=ALL, doc="", **options):
    """One corpus kernel: ``types`` maps every non-constexpr argument to a Triton type string
    (or is a function of the GPUTarget, as ``constexprs`` may be); ``options`` go to triton.compile (num_warps, ...)."""
    options.setdefault("num_warps", 4)
    return {"name": name, "fn": fn, "types": types, "constexprs": constexprs if callable(constexprs) else dict(constexprs or {}),
            "targets": tuple(targets), "doc": doc, "options": options}
