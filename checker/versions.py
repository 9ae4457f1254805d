"""Which Triton's semantics a check follows: the supported versions, the one in force, and what differs.

    from checker import versions
    with versions.using("3.6"):               # everything below lowers, parses and prices as Triton 3.6
        L = checker.encodings.lower(enc, [64, 1])
    versions.active()                          # TritonVersion(3, 9) outside any `using`
    versions.follows("blocked_drops_cut_registers")   # whether the active version has that change

Triton's semantics move between releases (a lowering rule, a spelling, the instruction picked for an
access). layoutcheck models each supported release exactly and says which one it used. A difference
between versions is one `Change` in `CHANGES`: a name, the first version that behaves the new way,
the Triton pull request that made it, and one sentence; the code that depends on it asks
`follows(name)` at the one place the rule lives. docs/triton-versions.md lists the same table (a test
keeps them in step).

The version in force is a context variable: `using` sets it for a block (the public API's
``triton_version=`` keyword, the runner for each check, the TTGIR reader for each module), forked
workers inherit it and each check carries its own (`checker.spec.Check.triton_version`), so a spawned
worker or a Ray task sets it again. Caches of derived values are keyed by it where it matters
(`checker.encodings.lower`).

Where the version came from is a `Selection`: ``given`` (an argument, ``--triton-version`` or a spec's
``triton_version:``), ``installed`` (the Triton that compiled the kernel: ``layoutcheck run``,
`checker.triton`, the pytest plugin), ``detected`` (the module's syntax bounds it:
`checker.syntax.version_marks`) or ``default`` (the newest supported).
"""

from __future__ import annotations

import contextvars
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

from .errors import CheckerError, NotModelled


class TritonVersion(NamedTuple):
    """A Triton release line, major.minor (patch releases do not change layout semantics). A tuple, so it
    orders and hashes as one (it is part of every lowering's cache key)."""

    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    def __repr__(self) -> str:
        return f"TritonVersion({self.major}, {self.minor})"


SUPPORTED: tuple[TritonVersion, ...] = tuple(TritonVersion(3, m) for m in (5, 6, 7, 8, 9))
OLDEST, NEWEST = SUPPORTED[0], SUPPORTED[-1]
_VERSION = re.compile(r"\s*v?(\d+)\.(\d+)(?:\.\d+)?(?:[.+-][\w.+-]*)?\s*")


def parse(text: str | TritonVersion, field: str = "triton_version") -> TritonVersion:
    """A supported version from ``"3.6"``, ``"3.6.0"``, ``"3.6.0+git1a2b"`` or a `TritonVersion`; anything
    else, or a release layoutcheck does not model, is a `CheckerError` naming `field` (exit 2)."""
    if isinstance(text, TritonVersion):
        version = text
    elif type(text) is str and text in _PARSED:     # every check names its version: read each text once
        return _PARSED[text]
    else:
        m = _VERSION.fullmatch(text) if isinstance(text, str) else None
        if m is None:
            raise CheckerError(f"a Triton version is written MAJOR.MINOR (e.g. 3.6), got {text!r}", field=field)
        version = TritonVersion(int(m.group(1)), int(m.group(2)))
    if version not in SUPPORTED:
        raise CheckerError(f"Triton {version} is not modelled: layoutcheck follows Triton {supported_text()}",
                           field=field)
    if type(text) is str and len(_PARSED) < 256:
        _PARSED[text] = version
    return version


_PARSED: dict[str, TritonVersion] = {}      # version texts `parse` accepted


def supported_text() -> str:
    return ", ".join(str(v) for v in SUPPORTED)


_ACTIVE: contextvars.ContextVar[TritonVersion] = contextvars.ContextVar("triton_version", default=NEWEST)


def active() -> TritonVersion:
    """The Triton version whose semantics are in force (the newest supported outside any `using`)."""
    return _ACTIVE.get()


class using:
    """Follow `version`'s semantics inside the block (None: keep the one in force); ``as`` gives the version in
    force there. A class rather than a generator-based context manager: it is entered twice per check."""

    __slots__ = ("_version", "_token")

    def __init__(self, version: str | TritonVersion | None) -> None:
        self._version = version
        self._token: contextvars.Token[TritonVersion] | None = None

    def __enter__(self) -> TritonVersion:
        if self._version is None:
            return _ACTIVE.get()
        v = parse(self._version)
        self._token = _ACTIVE.set(v)
        return v

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _ACTIVE.reset(self._token)
            self._token = None


_R = TypeVar("_R")


def keyword(fn: Callable[..., _R]) -> Callable[..., _R]:
    """Give a public function the keyword ``triton_version=None``: the call runs `using` that version (None:
    the one in force). The keyword is part of the function's signature (`inspect.signature`)."""
    import functools
    import inspect

    @functools.wraps(fn)
    def with_version(*args: Any, triton_version: str | TritonVersion | None = None, **kwargs: Any) -> _R:
        if triton_version is None:
            return fn(*args, **kwargs)
        with using(parse(triton_version)):
            return fn(*args, **kwargs)

    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    extra = inspect.Parameter("triton_version", inspect.Parameter.KEYWORD_ONLY, default=None,
                              annotation="str | None")
    at = next((i for i, p in enumerate(params) if p.kind is inspect.Parameter.VAR_KEYWORD), len(params))
    with_version.__signature__ = sig.replace(parameters=params[:at] + [extra] + params[at:])  # type: ignore[attr-defined]
    with_version.__annotations__ = {**fn.__annotations__, "triton_version": "str | None"}
    return with_version


# ------------------------------------------------------------------ what differs


@dataclass(frozen=True)
class Change:
    """One change of Triton's semantics: from `since` on, Triton behaves as `what` says (before, as
    `before` says); `pr` is the Triton pull request; `follows` is the layoutcheck code that reads it."""

    name: str
    since: TritonVersion
    pr: int | None                 # None: not identified (the wheels show the change)
    what: str
    before: str
    follows: str


CHANGES: dict[str, Change] = {}


def _change(name: str, since: str, pr: int | None, what: str, before: str, follows: str) -> None:
    CHANGES[name] = Change(name, TritonVersion(*map(int, since.split("."))), pr, what, before, follows)


_change("blocked_drops_cut_registers", "3.9", 11541,
        "a blocked layout on a tensor smaller than its sizePerThread tile drops the register bases the shape "
        "cuts off", "they stay as zero bases (each such register repeats an element)",
        "checker/encodings/blocked.py")
_change("tmem_block_in_dim", "3.8", 9557,
        "tensor memory layouts (tensor_memory_encoding, tensor_memory_scales_encoding) have a block in-dim for "
        "the CGA; a tcgen05.ld/st needs the register layout's CGA to be the TMEM layout's (cvt quotient over block)",
        "the CGA's bases are the last col bases; a tcgen05.ld/st drops the register layout's block (each CTA "
        "addresses its own TMEM at block 0), so its block bases may move only those columns and no other basis "
        "may (Triton 3.6/3.7 check only that the block bases miss the message's tile)",
        "checker/encodings/tensor_memory.py (and tmem_access, checker/properties/tmem_access.py)")
_change("tmem_scales_broadcast_rows", "3.6", 8148,
        "tensor_memory_scales_encoding's tile has two zero row bases (the 4 warps that broadcast)",
        "no such bases: 32 rows only", "checker/encodings/tensor_memory.py")
_change("tmem_sizes_from_layout", "3.6", 8202,
        "a ttng.tmem_alloc's size (getTmemAllocSizes) is read off its layout: rows the row in-dim (halved when the "
        "row-16 basis is zero), columns the col in-dim over 32 / element bits (before Triton 3.8 also over the "
        "CTA splits, the CGA's bases being col bases then: change tmem_block_in_dim)",
        "from bytes: a scales buffer is ceil(M / 32) x ceil(K / 4) columns of 128 rows; another is its bytes per "
        "CTA (element bits x colStride / 8 each) over 128 rows x 4 bytes, in 64 rows when blockM = 64 and the "
        "tensor is one block", "checker/ttgir/tmem_allocation.py")
_change("nvmma_unswizzled_transposed", "3.8", None,
        "an unswizzled nvmma_shared (swizzlingByteWidth = 0) with transposed = true lowers transposed",
        "transposed is ignored when swizzlingByteWidth = 0", "checker/encodings/nvmma_shared.py")
_change("mfma_operand_tiles_per_warp", "3.6", 8213,
        "a dot operand of amd_mfma tiles its non-K dim by the parent's tilesPerWarp of that dim",
        "tilesPerWarp is read reversed (operand A tiles M by tilesPerWarp[1])", "checker/encodings/amd_mfma.py")
_change("mma_v5_k_split_refused", "3.7", 8684,
        "ttng.tc_gen5_mma's verifier refuses an A or B operand whose CGA splits K across CTAs (\"LHS CTASplit along K "
        "should be 1\")",
        "accepted: Triton 3.5 and 3.6 compile a 2-CTA matmul whose transposed A tile is split along K, each CTA "
        "holding half of the K its MMA needs whole; layoutcheck reports it under every release",
        "checker/properties/mma_operands.py")
_change("wmma_lowered_from_cta_layout", "3.7", 8946,
        "amd_wmma lowers as its tile times its ctaLayout (then the repetitions, N before M); a dot operand "
        "repeats K by instrShape[2], then takes the ctaLayout with its K components zeroed, and the parent's "
        "CGA with its K components zeroed",
        "warpsPerCTA and tilesPerWarp: the N repetitions come before a warp's M tiles; an operand whose "
        "parent has tilesPerWarp > 1 along its non-K dim repeats K up to max(shape[K], instrShape[2]) before "
        "those tiles; an operand takes the parent's CGA as it is", "checker/encodings/amd_wmma.py")
_change("wmma_operand_parent_tiles_first", "3.8", 9694,
        "a dot operand of a WMMA v3 amd_wmma puts the parent's ctaLayout register tiles before the K repetitions",
        "every register basis along K comes first (v1/v2 parents already put the tiles first)",
        "checker/encodings/amd_wmma.py")
_change("wmma_version_3", "3.6", 8174,
        "amd_wmma takes version 3 (gfx1250's WMMA, instrShape [16, 16, 4|32|64|128])",
        "the version must be 1 or 2 (\"WMMA version must be in the [1, 2] range\")", "checker/encodings/amd_wmma.py")
_change("cvt_matrix_keeps_vector_reps", "3.6", 8655,
        "a convert_layout through shared memory by ldmatrix / stmatrix keeps in the scratch's segment as many "
        "bits that are registers on both sides as the matrix instructions miss for their .x2 / .x4 forms (2)",
        "every such bit becomes a rep: the scratch is smaller (a 32x128 fp16 conversion on sm90: 2,048 bytes where "
        "3.6 allocates 4,096: metadata.shared of 3.5.1) and the matrix instructions narrower",
        "checker/properties/conversion_cost.py (optimal_swizzling)")
_change("wmma_v3_any_k_width", "3.7", 8783,
        "a dot operand of a WMMA v3 amd_wmma takes any power-of-two kWidth",
        "kWidth 2, 8 or 16 only (\"ttg.dot_op kWidth parameter must be 2/8/16 for WMMA v3\")",
        "checker/encodings/amd_wmma.py")
_change("matrix_trans_rows_scored", "3.9", None,
        "ldmatrix.trans / stmatrix.trans rows are picked by scoring each register choice with Triton's bank "
        "model (getLdStMatrixRowPermutation)",
        "the quotient's first register(s) pick the rows (PR #7542's order); e.g. an fp16 64x64 dot operand 1 "
        "from an unswizzled tile loads in 2,048 wavefronts instead of 1,024",
        "checker/properties/smem/plan.py (_row_registers, _first_row_registers)")

_change("stores_skip_repeated_registers", "3.9", None,
        "a global store is issued once per distinct vector: registers that repeat another are skipped",
        "every vector start is stored, repeats included, and ptxas keeps them (an H100 counts 8 store requests "
        "where 3.9 issues 4: tools/coalescing_probe.py's f32_reg_broadcast)", "checker/properties/coalesced.py")

_change("reduce_scratch_by_rounds", "3.8", 9219,
        "a tt.reduce's scratch is its largest cross-warp round, every input's swizzled tile side by side",
        "the tensor's shape with the axis cut to its warps, every input side by side (none in one warp): an 8x1024 "
        "fp32 reduce over 2 warps along the axis takes 8,192 bytes where 3.8 gives 4,096 (metadata.shared of 3.6 "
        "and 3.7)", "checker/properties/reduction.py")
_change("cvt_scratch_per_cta", "3.8", 9317,
        "a convert_layout's scratch (and a reduction's rounds) in a multi-CTA kernel is one CTA's part: the swizzled "
        "tile's elements over its reps and over the CTAs the source splits the tensor over",
        "every CTA allocates the whole tensor's tile (elements over reps): a 32x32 fp64 conversion (a dot's result) "
        "over 2 CTAs on sm90 takes 8,192 bytes where 3.8 takes 4,096 (metadata.shared of 3.6.0 and 3.7.0)",
        "checker/properties/conversion_cost.py (scratch_elements, lower_conversion)")
_change("swizzle_spans_target_banks", "3.8", 9662,
        "a swizzled scratch tile (convert_layout, a reduction's rounds) on AMD spans the target's banks (64 on gfx950 "
        "and gfx1250: a segment of banks x 32 bits) and its lane phases (from the bank count; ds_read_b128's lane "
        "order for 16-byte loads)",
        "32 banks' segments on every target: a 16x4 i32 conversion of 4 warps' columns into lanes takes 128 bytes on "
        "gfx950 in Triton 3.6.0, 256 in 3.8.0 and 3.9.0 (metadata.shared)",
        "checker/properties/conversion_cost.py (ldst_target)")
_change("cvt_shuffle_lanes_picked_by_warp", "3.9", 11646,
        "a convert_layout whose source is broadcast over the warps (or CTAs) its destination spreads over lanes stays "
        "inside each warp: shuffles whose source lane depends on the warp",
        "it goes through shared memory (Triton 3.8.0 on the 36 such conversions of tools/compile_conversions.py's "
        "warp_broadcast set, and on 3 of 456 seeded AMD conversions: a scratch of 256 to 1,024 bytes where 3.9 has "
        "none)", "checker/properties/triton_conversion.py (warp_conversion)")
_change("ldst_banks_in_order_64", "3.9", 11169,
        "the ld/st-only swizzle of a convert_layout on a 64-bank target (gfx950, gfx1250) keeps its bank bases in "
        "order: a vector under 64 bits widens neither side's accesses (Triton 3.9.0's AMDGCN for 804 seeded "
        "AMD conversions: every LDS instruction as scored, 43 of them only so)",
        "the bank bases that are registers of the side that filled the 32-bit word (or of the side with more of them) "
        "come first, on every target, so that side's accesses widen over them (Triton 3.8.0's AMDGCN for 456 "
        "conversions: 26 need it on gfx950 / gfx1250)", "checker/properties/conversion_cost.py (ldst_target)")
_change("reduce_round_store_lanes", "3.9", None,
        "a tt.reduce's cross-warp rounds are sized on AMD with ds_read_b128's lane order on the round's store side "
        "(the first lanes on its load side), the other way round from a convert_layout's scratch: a reduce of "
        "512x8 f32 over 8 warps ([1, 8] per thread, 64 lanes along the axis) takes 128 bytes on gfx942 (Triton "
        "3.9.0's metadata.shared; lmdeploy's GPTQ GEMV)",
        "the load side takes that order, as a conversion's does (the same reduce takes 256 bytes in Triton 3.8.0's "
        "sizing of the same rounds; 300 of 300 random reductions of 64-lane waves agree with 3.8.0 that way)",
        "checker/properties/conversion_cost.py (reduction_target)")
_change("lds_reads_single_for_mma", "3.9", None,
        "on AMD, two LDS reads LLVM would fuse into one ds_read2* / ds_load_2addr* stay two single reads when, in a "
        "loop of one basic block, each feeds an MFMA/WMMA and together they feed every MFMA/WMMA of it (Triton "
        "3.9.0's LLVM: the mxfp4 scales of tt.dot_scaled in a gfx1250 K loop are two ds_load_b32 where the "
        "epilogue's copy of the same read is one ds_load_2addr_stride64_b32)",
        "they are fused as anywhere else (Triton 3.8.0's LLVM pairs the same hand-written loops on gfx942 and "
        "gfx950)", "checker/properties/smem/plan.py (paired_plan), checker/ttgir/ops_memory.py (mma_feed)")
_change("lds_offset_phi_unfolded", "3.9", None,
        "on AMD, a local_load after a loop that may not run, of a buffer the loop reads the same way, whose lanes' "
        "offset stays in the loop's exit block, may get it through a phi, and LLVM then folds none of its XOR "
        "constants with lane bits into immediates: tl_dot_f16's epilogue reads of its amd_rotating_shared B tile on "
        "gfx942 are one ds_read2st64_b64 and six ds_read_b64 (Triton 3.9.0's AMDGCN); whether the phi forms is "
        "partly LLVM's code placement, and the check names the other form too",
        "those reads pair as the loop's do (four ds_read2st64_b64: Triton 3.5.1, 3.6.0, 3.7.0 and 3.8.0's AMDGCN of "
        "the same kernel)", "checker/ttgir/mma_feed.py (offset_phi), checker/properties/smem/pairs.py")
_change("tmem_subslice_tile_rules", "3.8", 7777,
        "ttng.tmem_subslice's result has the source's encoding, element type, allocation shape and rows, rank 2, "
        "its N a multiple of its width inside the source",
        "only a 128xN or 64xN source and its blockM, CTA split and column stride in the result (3.6 and 3.7 print a "
        "result of blockN 128 over a source of 256 and accept N = 64 for a 128-wide view)",
        "checker/properties/tmem_views.py")
_change("tmem_subslice_offset_dim", "3.9", None,
        "ttng.tmem_subslice takes {offset, dim} (dim 1 by default): a 2-D or 3-D view sliced along any dim, at an "
        "offset that need not be a multiple of the width where the sliced bits stay inside the tile",
        "{N}: the column of a 2-D view, a multiple of its width (3.8 rejects offset: \"requires attribute 'N'\")",
        "checker/properties/tmem_views.py (and the op rule, checker/ttgir/ops_nvidia.py)")
_change("amd_tdm_capture_dwords", "3.8", 9506,
        "on AMD a tensor descriptor captured by ttg.warp_specialize takes its TDM descriptor's dwords in the "
        "captures' scratch: 12 x 4 bytes for a 2-D one, 20 x 4 for 3-D to 5-D",
        "8 bytes, as a pointer (NVIDIA's size for it)", "checker/ttgir/allocation.py (capture_bytes)")
_change("tdm_store_padding", "3.7", None,
        "amdg.async_tdm_copy_local_to_global takes a padded_shared buffer of one interval equal to the block's "
        "innermost dim per CTA", "a padded buffer is refused (\"TDM store does not support padding\": Triton 3.6.0's "
        "verifier)", "checker/properties/tdm.py")
_change("tdm_layout_consistency", "3.8", None,
        "a TDM op's buffer layout must describe its descriptor's layout: padded ones the same intervals and "
        "paddings, others the same attribute (verifyTDMLayoutConsistency)",
        "nothing is compared: Triton 3.7.0's verifier accepts a descriptor padded [32:+4] over a buffer padded "
        "[64:+8] (no released verifier has the rule that refuses only when both intervals and paddings differ)",
        "checker/properties/tdm.py")
_change("tdm_rank_reducing_layout", "3.9", None,
        "a swizzled descriptor block of k leading unit dims over a buffer of the remaining dims matches the buffer "
        "layout that is the descriptor's with those dims dropped", "the two layouts must be the same attribute "
        "(3.8 refuses a 1x64x64 order [2, 1, 0] descriptor over a 64x64 order [1, 0] buffer)",
        "checker/properties/tdm.py")
_change("tdm_gather_scatter_padding", "3.8", None,
        "amdg.async_tdm_gather takes a padded buffer of one pair whose interval divides the block's innermost dim; "
        "amdg.async_tdm_scatter one interval equal to it", "a padded buffer is refused (\"TDM gather/scatter does not "
        "support padding\": Triton 3.7.0's verifier)", "checker/properties/tdm.py")
_change("tdm_gather_layout_rules", "3.8", None,
        "TDM gather/scatter need elements of at least 8 bits; a gather needs a row-major buffer, an index layout "
        "that gives every lane of a warp the same indices, and its block -> row bases to be the buffer's; a "
        "multi-CTA gather lowers", "none of these rules (Triton 3.7.0's verifier accepts a column-major buffer and "
        "indices spread over lanes); the lowering refuses a multi-CTA gather", "checker/properties/tdm.py")
_change("tdm_warp_used_hint", "3.8", None,
        "amdg.async_tdm_copy_global_to_local's warp_used_hint is verified: a power-of-two num_warps below 32, an "
        "axis-aligned non-empty power-of-two set of existing warps, divisible by a partitioned buffer's pieces",
        "the attribute is not read (Triton 3.7.0 accepts any value)", "checker/properties/tdm.py")


def follows(name: str) -> bool:
    """Whether the active version has change `name` (a key of `CHANGES`)."""
    return _ACTIVE.get() >= CHANGES[name].since


# ------------------------------------------------------------------ what is modelled for some versions only


@dataclass(frozen=True)
class Gap:
    """A behaviour layoutcheck models from `since` on only: before, a check that needs it is skipped (never
    answered with a newer version's rule); `evidence` says what showed the older versions differ."""

    name: str
    since: TritonVersion
    what: str
    evidence: str


GAPS: dict[str, Gap] = {}


def _gap(name: str, since: str, what: str, evidence: str) -> None:
    GAPS[name] = Gap(name, TritonVersion(*map(int, since.split("."))), what, evidence)


_gap("tmem_scales_access", "3.6", "the tcgen05 access to a TMEM scales layout",
     "3.5's scales layout has no broadcast rows (change tmem_scales_broadcast_rows)")
_gap("padded_direct_to_lds", "3.9", "the direct-to-LDS vector of a copy into a padded layout where the padding's cap "
     "binds (canLoadDirectToLDS)", "Triton 3.6 emits buffer_load_dwordx4 lds into padded_shared<[64:+8]> on gfx950, "
     "which 3.9's cap refuses; where the cap does not bind, both give one vector (Triton 3.8 emits "
     "global_load_lds_dwordx4 into padded_shared<[512:+8]> as 3.9 does)")


def require_modelled(name: str) -> None:
    """A `NotModelled` (the check is skipped with this reason) when the active version predates gap `name`."""
    gap = GAPS[name]
    v = _ACTIVE.get()
    if v < gap.since:
        raise NotModelled(f"Triton {v}: {gap.what} is modelled from Triton {gap.since} on ({gap.evidence})")


# ------------------------------------------------------------------ where the version came from


@dataclass(frozen=True)
class Selection:
    """The version a run (or a module) is checked with and why: `reason` is ``given``, ``installed``,
    ``detected`` or ``default``; `detail` says more in a few words (the construct that bounded it); `allowed`:
    every supported version the text's syntax allows, when the version was chosen from it (detected, default;
    empty otherwise)."""

    version: TritonVersion
    reason: str
    detail: str = ""
    allowed: tuple[TritonVersion, ...] = ()

    def describe(self) -> str:
        """``3.6 (detected: tensor_memory_encoding 'unpacked')``."""
        return f"{self.version} ({self.reason}{': ' + self.detail if self.detail else ''})"

    def to_dict(self) -> dict[str, str]:
        return {"version": str(self.version), "reason": self.reason, "detail": self.detail}


@dataclass(frozen=True)
class VersionRequest:
    """What a run asks for: a version `given` (and by what: ``given`` for an argument, ``spec`` for a spec
    file's key) or the `installed` Triton's; neither: what each module's syntax says (detected)."""

    given: TritonVersion | None = None
    given_by: str = "given"
    installed: TritonVersion | None = None


def installed() -> TritonVersion | None:
    """The installed Triton's release line when layoutcheck models it, else None (not installed, or a
    release outside `SUPPORTED`). Triton is not imported."""
    try:
        from importlib.metadata import PackageNotFoundError, version
        text = version("triton")
    except PackageNotFoundError:
        return None
    try:
        return parse(text)
    except CheckerError:
        return None


__all__ = ["TritonVersion", "SUPPORTED", "OLDEST", "NEWEST", "parse", "active", "using", "Change", "CHANGES",
           "follows", "Gap", "GAPS", "require_modelled", "Selection", "VersionRequest", "installed", "supported_text",
           "keyword"]
