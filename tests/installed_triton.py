"""The installed Triton's own verifier, for tests that pin a table of verdicts to one release."""

import os
import tempfile
from collections.abc import Iterable

import pytest


def verifier_accepts(modules: Iterable[str], release: str) -> list[bool]:
    """Whether the installed Triton parses and verifies each module text (``ir.parse_mlir_module`` verifies what
    it reads; NVIDIA and AMD dialects loaded); the test skips unless Triton `release` (e.g. "3.9") is installed."""
    triton = pytest.importorskip("triton")
    if not triton.__version__.startswith(release + "."):
        pytest.skip(f"Triton {triton.__version__} is installed; the table is Triton {release}'s")
    import triton._C.libtriton as lt
    from triton._C.libtriton import ir
    ctx = ir.context()
    ir.load_dialects(ctx)
    lt.nvidia.load_dialects(ctx)
    lt.amd.load_dialects(ctx)
    got = []
    for text in modules:
        fd, path = tempfile.mkstemp(suffix=".mlir")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        try:
            ir.parse_mlir_module(path, ctx)
            got.append(True)
        except Exception:
            got.append(False)
        finally:
            os.unlink(path)
    return got
