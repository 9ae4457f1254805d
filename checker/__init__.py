"""layoutcheck: Triton's TritonGPU layout encodings as exact F2 LinearLayouts, and proofs about them.

    import checker
    enc = checker.parse_encoding("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], "
                                 "warpsPerCTA = [4, 1], order = [1, 0]}>")
    L = checker.lower(enc, [128, 32])          # a checker.LinearLayout, as Triton 3.9 builds it
    r = checker.prove.injective(L)             # a Result: bool(r) is True exactly when it holds
"""

from __future__ import annotations

from typing import Any, Mapping

from .encodings import lower
from .encodings.base import Encoding
from .errors import ParseError
from .layout import LinearLayout


def parse_encoding(spec: str | Mapping[str, Any]) -> Encoding:
    """An encoding from any of its written forms, validated by Triton's verifier rules.

    - ``"#ttg.blocked<{...}>"``: Triton attribute text;
    - ``{"kind": "blocked", "size_per_thread": [...], ...}`` or ``{"attr": "..."}``:
      a declaration as written in ``encodings/*.yaml`` (docs/encodings.md);
    - ``{"class": "BlockedLayout", "params": {...}}``: a Gluon layout spec.
    """
    if isinstance(spec, str):
        if not spec.lstrip().startswith("#"):
            raise ParseError(f"attribute text starts with '#', got {spec[:40]!r}")
        from .syntax.mlir_attr import parse_attribute
        enc = parse_attribute(spec.strip())
    elif isinstance(spec, Mapping) and "class" in spec:
        from .syntax.gluon import from_gluon
        enc = from_gluon(spec)
    elif isinstance(spec, Mapping):
        from .syntax.yaml_decl import encoding_from_mapping
        return encoding_from_mapping(spec)
    else:
        raise ParseError(f"an encoding is attribute text or a mapping, got {type(spec).__name__}")
    enc.validate()
    return enc


def __getattr__(name: str) -> Any:
    """``checker.prove`` (the proof API) is imported on first use, so ``import checker`` stays light."""
    if name == "prove":
        import importlib
        return importlib.import_module(".prove", __name__)
    raise AttributeError(f"module 'checker' has no attribute {name!r}")


__all__ = ["parse_encoding", "lower", "prove", "LinearLayout", "Encoding"]
