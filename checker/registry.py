"""The property registry: `PROPERTIES`, the one list of properties, which the proof API and everything after it
read (the spec loader, the runner, the CLI, the reports, the schemas).

A `Property` entry says what a check of it takes and how it is decided:

- ``roles``: its operands, each (role, kind) with kind ``distributed``,
  ``shared`` or ``any``; ``optional`` roles may be left out;
- ``params``: the extra keys a check may give, with their defaults; ``param_schemas``: (name, JSON schema
  of its value) for a key the shipped spec schema does not know yet, which `full_schema` adds (to a check and
  to a sweep);
- ``needs_dtype`` / ``needs_hardware``: an element type, a target;
- ``layout_shape``: whether a spec may lower the operand at another shape
  than the one it is judged over;
- ``in_specs``: usable in spec files, ``layoutcheck prove`` and
  `checker.prove`; the others are derived from TTGIR only (op rules);
- ``static``: decided by a direct check (no engines, no counterexample);
- ``triton_figures``: the check can also report Triton's own view of it (a conversion's
  ``triton_class`` / ``triton_lowering``, a bank access's ``triton_conflicts``), computed only on
  request: the spec key ``triton: true``, ``verify --triton-figures`` (TTGIR conversions ask for it:
  their note shows what Triton emits);
- ``decide``: ``"module:function"`` under `checker`, the function deciding one check (a
  `checker.spec.Check`): ``decide(check, engines) -> Result`` (`checker.verdict.Engines`), or
  ``decide(check)`` for a static property. It is the property module's own ``decide``; the module's
  ``judge`` is the same decision over layouts or encodings, as `checker.prove` offers it. Both are imported
  on first use, so that reading the registry loads no engine;
- ``smt``: ``"module:function"`` under `checker`, building the SMT obligation that
  ``layoutcheck smt`` writes (``function(layouts, shape) -> smt.Obligation``), or None;
- ``suggest``: ``"module:function"`` under `checker`, called with (check, result) on a failure to add a fix
  to the result's details, or None.

Readers: `checker.prove` (a spec property without a hand-written API function gets its module's ``judge``),
`checker.spec` (roles, params, dtype, layout_shape), `checker.run.runner` (``run``),
`checker.cli` (``prove`` and ``smt`` choices), the spec and report schemas (`full_schema`), the report renderers
(``static``: a failure is printed with its explanation).

Adding a property: write its module (``judge`` and ``decide``, or ``decide(check)`` for a static one), add
its entry here, document it in docs/spec-format.md (and, when TTGIR derives it, register the op rule in
`checker.ttgir`).
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from .schema import Schema
from .verdict import Engines, check_timeout

if TYPE_CHECKING:                   # reading the registry loads no engine (`layoutcheck --version`, `--help`)
    from .properties.result import Result

Role = tuple[str, str]


@dataclass(frozen=True)
class Property:
    """What a check of this property takes, and where its decision procedure lives (module docstring)."""

    name: str
    summary: str
    decide: str
    roles: tuple[Role, ...] = ()
    optional: tuple[Role, ...] = ()
    params: tuple[tuple[str, Any], ...] = ()
    needs_dtype: bool = False
    needs_hardware: bool = False
    layout_shape: bool = False
    in_specs: bool = True
    static: bool = False
    smt: str | None = None
    triton_figures: bool = False
    suggest: str | None = None
    param_schemas: tuple[tuple[str, Any], ...] = ()

    @property
    def required(self) -> tuple[Role, ...]:
        return self.roles

    @property
    def all_roles(self) -> tuple[Role, ...]:
        return self.roles + self.optional

    def run(self, check: Any, engine: str, timeout_ms: int | None) -> Result:
        """Decide one check (`checker.spec.Check`) of this property (`timeout_ms`: positive, or None); a static
        property's decide takes the check alone (no engines)."""
        engines = Engines(engine, check_timeout(timeout_ms))
        decide = _function(self.decide)
        result: Result = decide(check) if self.static else decide(check, engines)
        if self.suggest and result.status == "fails":
            _function(self.suggest)(check, result)
        return result

    def judge(self) -> Callable[..., Result]:
        """The property over layouts or encodings (its module's ``judge``), as `checker.prove` offers it."""
        judge: Callable[..., Result] = importlib.import_module(f"checker.{self.decide.partition(':')[0]}").judge
        return judge

    def obligation(self) -> Callable[..., Any] | None:
        """The SMT obligation builder (``layoutcheck smt``), or None."""
        return _function(self.smt) if self.smt else None


def _function(ref: str) -> Callable[..., Any]:
    module, _, name = ref.partition(":")
    function: Callable[..., Any] = getattr(importlib.import_module(f"checker.{module}"), name)
    return function


LAYOUT = (("layout", "any"),)
SHARED = (("layout", "shared"),)
PAIR = (("src", "any"), ("dst", "any"))
ACCESS = (("reg", "distributed"), ("shared", "shared"))
POSITIVE = {"type": "integer", "minimum": 1}

_ENTRIES = (
    Property("surjective", "every element of the shape is held by some hardware index", "properties.surjective:decide",
             LAYOUT, layout_shape=True, smt="properties.surjective:smt_obligation"),
    Property("injective", "no two hardware indices hold the same element", "properties.injective:decide",
             LAYOUT, layout_shape=True, smt="properties.injective:smt_obligation"),
    Property("injective_up_to_broadcast", "only declared broadcasts (zero bases) repeat elements",
             "properties.injective:decide", LAYOUT, layout_shape=True,
             smt="properties.injective:smt_obligation_up_to_broadcast"),
    Property("invertible", "a shared layout puts offsets and elements in bijection, per CTA",
             "properties.invertible:decide", SHARED, layout_shape=True),
    Property("equivalent", "two layouts are the same layout: indices, out range and map",
             "properties.equivalence:decide", PAIR, layout_shape=True,
             smt="properties.equivalence:smt_obligation"),
    Property("conversion", "every element dst needs is in src, and at which level it moves",
             "properties.conversion:decide", (("src", "distributed"), ("dst", "distributed")),
             optional=(("via", "shared"),), triton_figures=True),
    Property("fits", "a shared buffer fits in the capacity", "properties.fits:decide", SHARED, needs_dtype=True,
             params=(("capacity_bytes", None), ("base_bytes", 0), ("alignment_bytes", None))),
    Property("bank_conflict_free", "the shared-memory access costs its conflict-free wavefronts",
             "properties.bank_conflicts:decide", ACCESS, needs_dtype=True, needs_hardware=True,
             params=(("direction", "store"), ("access", "auto"), ("model", "hardware")), triton_figures=True,
             suggest="properties.suggestions:shared_layout"),
    Property("conversion_cost", "Triton's lowering of a conversion costs its minimum wavefronts",
             "properties.conversion_cost:decide", (("src", "distributed"), ("dst", "distributed")), needs_dtype=True,
             needs_hardware=True),
    Property("aligned_access", "every vector access starts at a multiple of its width", "properties.aligned:decide",
             ACCESS, needs_dtype=True, needs_hardware=True, params=(("direction", "store"),)),
    Property("well_formed", "the encoding is valid for the module's lanes, warps and CTAs",
             "properties.well_formed:decide", LAYOUT, in_specs=False, static=True),
    Property("dot_operands", "A, B and the accumulator of a dot agree", "properties.well_formed:decide",
             (("a", "any"), ("b", "any"), ("acc", "distributed")), in_specs=False, static=True),
    Property("view_consistent", "a memdesc view addresses the buffer it came from", "properties.views:decide",
             (("source", "shared"), ("view", "shared")), in_specs=False),
    Property("tmem_access", "a tcgen05.ld/st message moves the register layout", "properties.tmem_access:decide",
             (("reg", "distributed"), ("tmem", "any")), in_specs=False, static=True),
    Property("mma_operands", "tc_gen5_mma operands agree", "properties.mma_operands:decide", in_specs=False,
             static=True),
    Property("tma_copy", "a TMA copy's buffer and box suit the descriptor", "properties.tma:decide",
             in_specs=False, static=True),
    Property("tmem_subslice", "a tensor-memory subslice is a valid column window",
             "properties.tmem_views:decide", in_specs=False, static=True),
    Property("tmem_copy", "a tcgen05.cp source and destination agree", "properties.tmem_views:decide",
             in_specs=False, static=True),
    Property("local_gather", "a shared gather/scatter's buffer, indices and values agree",
             "properties.gather:decide", in_specs=False, static=True),
    Property("data_movement", "a shape op (trans, reshape, join, split) keeps every element in its thread",
             "properties.data_movement:decide", (("operand", "distributed"), ("result", "distributed")),
             in_specs=False),
    Property("reduction", "the levels a reduction, scan or gather crosses along its axis, and their cost",
             "properties.reduction:decide", (("layout", "distributed"),), optional=(("index", "distributed"),),
             in_specs=False),
    Property("scaled_dot", "a scaled dot's operands and scales agree", "properties.scaled_dot:decide", in_specs=False,
             static=True),
    Property("tdm_copy", "a TDM copy's buffer and descriptor agree", "properties.tdm:decide", in_specs=False,
             static=True),
    Property("coalesced", "a global load or store is as wide as its layout allows and touches its minimum sectors",
             "properties.coalesced:decide", (("layout", "distributed"),), needs_dtype=True, needs_hardware=True,
             params=(("direction", "load"), ("strides", None), ("contiguity", None), ("divisibility", None),
                     ("mask_alignment", None), ("l1_cached", None)),
             param_schemas=(("strides", {"type": "array", "minItems": 1, "items": {"anyOf": [
                                 {"type": "integer", "minimum": 0}, {"type": "null"}]}}),
                            ("contiguity", {"type": "array", "minItems": 1, "items": POSITIVE}),
                            ("divisibility", {"type": "array", "minItems": 1, "items": POSITIVE}),
                            ("mask_alignment", POSITIVE), ("l1_cached", {"type": "boolean"}))),
    Property("matches_triton", "layoutcheck's lowering is the installed Triton's, bit for bit",
             "properties.matches_triton:decide", LAYOUT, in_specs=False, static=True),
)

PROPERTIES: dict[str, Property] = {p.name: p for p in _ENTRIES}
SPEC_PROPERTIES: dict[str, Property] = {n: p for n, p in PROPERTIES.items() if p.in_specs}
STATIC_PROPERTIES: tuple[str, ...] = tuple(n for n, p in PROPERTIES.items() if p.static)
SMT_PROPERTIES: tuple[str, ...] = tuple(n for n, p in SPEC_PROPERTIES.items() if p.smt)



@cache
def full_schema(name: str) -> Schema:
    """A shipped schema (``checker/schemas``) with the registry filled in, so that a new property needs no edit
    of a schema file (``layoutcheck schema NAME`` prints the whole document):

    - ``spec.schema.json``: the properties a check may prove (`SPEC_PROPERTIES`), and each parameter a
      property declares in ``param_schemas`` (in a check, and as a list in a sweep);
    - ``report.schema.json``: every property a report's check may have (`PROPERTIES`);
    - any other: as shipped."""
    shipped = Schema.load(name)
    if name not in ("spec.schema.json", "report.schema.json"):
        return shipped
    doc = copy.deepcopy(shipped.document)
    check = doc["$defs"]["check"]["properties"]
    if name == "report.schema.json":
        check["property"] = {"enum": list(PROPERTIES)}
        return Schema(doc, name)
    sweep = doc["$defs"]["sweep"]["properties"]
    check["prove"] = {"enum": list(SPEC_PROPERTIES)}
    for prop in SPEC_PROPERTIES.values():
        for key, value in prop.param_schemas:
            check.setdefault(key, value)
            sweep.setdefault(key, {"type": "array", "minItems": 1, "items": value})
    return Schema(doc, name)


__all__ = ["PROPERTIES", "Property", "SMT_PROPERTIES", "SPEC_PROPERTIES", "STATIC_PROPERTIES", "full_schema"]
