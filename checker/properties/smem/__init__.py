"""Shared-memory accesses, the stage below the bank and alignment properties.

What each module owns (they import each other in this order only, and no property module):

* `pairs`: which AMD LDS accesses LLVM fuses into one paired instruction (ds_read2*, ds_write2*,
  ds_*_2addr*): `Pairing`, `pairing`, `pair_mnemonic`, `amd_generation`.
* `plan`: the access plan. Inputs brought to one frame (`normalize`, `frame_columns`, `element_bits`),
  cvt = R.invert_and_compose(S) per CTA (`local_conversion`), the instruction Triton emits and how its
  register and lane bits split into phase / select / instruction bits and lane groups (`plan`, `Plan`,
  `vector_plan`, `matrix_plan`, `trans_load_plan`, `paired_plan`, `largest_vectorisation`), the word
  map (word = (offset * bytes + sub * bank bytes) // bank bytes, bank = word mod banks: `word_map`,
  `WordMap`) and the phase's free directions (`free_bits`; a phase costs 2^(rank W - rank b∘W)).
* `triton_count`: Triton's own count, bank_conflicts(R, S, bits) as its lowering computes it:
  conflicts = 2^dim(span(segment) ∩ span(wavefront lanes)) - 1 (`triton_count`, `TritonCount`).
* `witness`: the counterexample of a conflict, two accesses of one phase in one bank at different
  words, and its replay on integers (`hardware_witness`, `describe`, `access_index`, the Z3 query
  `same_phase_bank_pair`); Triton's model's witness (`triton_witness`, `first_common`).

The property `bank_conflict_free` (`checker.properties.bank_conflicts`) is built on these; so are
`aligned_access`, `padded_access` and `conversion_cost`.
"""
