"""Properties of layouts, each decided by two engines (GF(2) algebra and Z3) that must agree.

One module per property; each module's docstring states the definition, how
each engine decides it and how a counterexample is replayed. `result` holds
the shared `Result` / `Counterexample` types and the engine protocol.
"""

from .conversion import conversion
from .equivalence import equivalent
from .fits import fits
from .injective import injective, injective_up_to_broadcast
from .invertible import invertible
from .result import Counterexample, EngineVerdict, Result
from .surjective import surjective

__all__ = ["Counterexample", "EngineVerdict", "Result", "conversion", "equivalent", "fits", "injective",
           "injective_up_to_broadcast", "invertible", "surjective"]
