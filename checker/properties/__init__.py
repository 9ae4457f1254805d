"""Properties of layouts, one module per property: each module's docstring states the definition, how each
engine decides it (GF(2) algebra and Z3, which must agree) and how a counterexample is replayed. `result` holds
the `Result` every property returns and `run_engines`, which folds the engines' verdicts (`checker.verdict`). The list
of properties, what a check of each takes and where it is decided, is `checker.registry.PROPERTIES`.
"""

from __future__ import annotations

from .result import Counterexample, EngineVerdict, Result

__all__ = ["Counterexample", "EngineVerdict", "Result"]
