"""`checker.triton`, the public name of the Triton compile hook (README); the module is
`checker.integrations.triton`, and this name is that same module object (its functions, its state)."""

import sys

from .integrations import triton as _module

sys.modules[__name__] = _module
