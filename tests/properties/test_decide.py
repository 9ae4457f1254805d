"""Each property module's ``decide(check, engines)``: a spec check or a TTGIR check decided with its operands
lowered at its layout_shape and its parameters passed on, and the whole kernel's shared-memory budget (kernel_fits),
by value on specs/negatives.yaml, tests/verify/ttgir/ampere_tile.ttgir and hand-made budgets."""

import dataclasses
import pathlib

from checker.hardware import PRESETS
from checker.properties import bank_conflicts, fits, injective, surjective
from checker.spec import load_spec
from checker.syntax.ttgir import read_ttgir
from checker.ttgir.kernel import kernel_checks
from checker.verdict import Engines

ROOT = pathlib.Path(__file__).resolve().parents[2]
NEGATIVES = {c.id: c for c in load_spec(str(ROOT / "specs" / "negatives.yaml"))}


def test_a_layout_built_for_a_smaller_tile_is_lowered_there():
    check = NEGATIVES["neg-blocked-from-smaller-tile-not-surjective"]
    assert (check.shape, check.layout_shape) == ((128, 64), (64, 64))
    r = surjective.decide(check, Engines("both", None))
    assert r.fails and r.counterexample.to_dict() == {"kind": "missing_coordinate",
                                                      "coordinate": {"dim0": 64, "dim1": 0}, "certificate": 64}
    assert r.explanation == ("coordinate (dim0=64, dim1=0) is held by no hardware index: the bases span only 12 of "
                             "the 13 coordinate bits of the shape (dim0=128, dim1=64)")
    r = injective.decide(check, Engines("both", None))                # lowered at 64x64: 12 bases
    assert r.holds and r.explanation == "the 12 bases are linearly independent"


def test_bank_conflicts_of_a_spec_check():
    r = bank_conflicts.decide(NEGATIVES["neg-transposed-store-unswizzled"], Engines("both", None))
    assert r.fails and (r.details["mnemonic"], r.details["conflicts"], r.details["wavefronts"],
                        r.details["min_wavefronts"]) == ("STS.U16", 7, 1024, 128)
    r = bank_conflicts.decide(NEGATIVES["fix-transposed-store-swizzled"], Engines("both", None))
    assert r.holds and (r.details["conflicts"], r.details["wavefronts"]) == (0, 128)


def test_fits_takes_capacity_and_base_from_the_check():
    check = NEGATIVES["neg-four-stages-128x256x64-do-not-fit"]
    r = fits.decide(check, Engines("both", None))
    assert r.fails and r.explanation == (
        "the buffer needs 196608 bytes (16384 slots of 16 bits from byte 163840), past the 166912-byte capacity; "
        "the first element past it is offset 1536 (slot 1536, element (dim0=6, dim1=48))")
    assert (r.details["start_bytes"], r.details["end_bytes"], r.details["capacity_bytes"]) == (163840, 196608, 166912)


def test_the_kernel_budget_is_decided_directly():
    tile = "tests/verify/ttgir/ampere_tile.ttgir"
    k = kernel_checks(read_ttgir((ROOT / tile).read_text(), tile), tile)
    ob = next(ob for ob in k.obligations if ob.id == f"{tile}:10:tt.func:fits[kernel]")
    r = fits.decide(ob, Engines("both", None))
    assert (r.status, r.verdicts, r.counterexample) == ("holds", {}, None)
    # the epilogue conversions' results are never used, nor the dot that reads buffer 14: Triton erases them
    # before allocating (no scratch, one buffer: the double-buffered one of line 17)
    assert r.explanation == "the kernel needs 16384 bytes of shared memory (1 buffer), within the 166912-byte " \
                            "capacity of sm80"
    assert (r.details["explicit_bytes"], r.details["scratch_bytes"], r.details["exact"]) == (16384, 0, True)
    check = dataclasses.replace(NEGATIVES["neg-four-stages-128x256x64-do-not-fit"],
                                params=(("kernel_bytes", 49152), ("capacity_bytes", 65536), ("breakdown", [])))
    r = fits.decide(check, Engines("both", None))
    assert r.holds and r.explanation == ("the kernel needs 49152 bytes of shared memory (0 buffers), within the "
                                         "65536-byte capacity of sm80")


def test_kernel_fits_names_the_three_largest_buffers():
    rows = [(5, "ttg.local_alloc", "explicit", 32768, 16, 0, "#shared 64x256xf16"),
            (6, "ttg.local_alloc", "explicit", 16384, 16, 32768, "#shared1 64x128xf16"),
            (9, "ttg.convert_layout", "scratch", 8192, 128, 49152, ""),
            (12, "tt.reduce", "scratch", 1024, 128, 49152, "")]
    r = fits.kernel_fits(57344, 49152, rows, PRESETS["sm80"])
    assert r.fails and r.explanation == (
        "the kernel needs 57344 bytes of shared memory, past the 49152-byte capacity of sm80; largest: 32768 B "
        "explicit at line 5 (ttg.local_alloc #shared 64x256xf16), 16384 B explicit at line 6 (ttg.local_alloc "
        "#shared1 64x128xf16), 8192 B scratch at line 9 (ttg.convert_layout)")
    assert {k: v for k, v in r.details.items() if k != "buffers"} == {
        "kernel_bytes": 57344, "capacity_bytes": 49152, "explicit_bytes": 49152, "scratch_bytes": 8192,
        "exact": True}
    assert r.details["buffers"][3] == {"line": 12, "op": "tt.reduce", "kind": "scratch", "bytes": 1024,
                                       "alignment": 128, "offset": 49152, "what": ""}
    assert fits.kernel_fits(0, 49152, ()).explanation == ("the kernel needs 0 bytes of shared memory (0 buffers), "
                                                            "within the 49152-byte capacity")


def test_a_kernel_figure_the_model_cannot_reproduce_is_an_estimate_that_warns():
    tile = "tests/verify/ttgir/ampere_tile.ttgir"
    text = (ROOT / tile).read_text().replace("tt.return\n", "tt.call @elsewhere() : () -> ()\n    tt.return\n", 1)
    k = kernel_checks(read_ttgir(text, tile), tile)
    ob = next(ob for ob in k.obligations if ob.property == "fits" and ob.op == "tt.func")
    assert ob.severity == "warning"
    assert ob.param("uncertain") == ("line 25: tt.call @elsewhere: the callee is not in the module",)
    rows = [(5, "ttg.local_alloc", "explicit", 65536, 16, 0, "")]
    r = fits.kernel_fits(65536, 49152, rows, PRESETS["sm80"], uncertain=("line 7: the scratch of tt.scan is not "
                                                                           "modelled (x)",))
    assert r.fails and r.details["exact"] is False and r.explanation == (
        "the kernel needs about 65536 bytes of shared memory, past the 49152-byte capacity of sm80; largest: 65536 B "
        "explicit at line 5 (ttg.local_alloc) (an estimate: line 7: the scratch of tt.scan is not modelled (x))")
