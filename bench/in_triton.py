"""Benchmark sections that time layoutcheck against Triton in one process, run under a Python that has
triton (>= 3.9), with this checkout imported:

    python bench/in_triton.py lowering REPEAT < cases.json > times.json    # bench.lowering_timing
    python bench/in_triton.py bank REPEAT < cases.json > times.json        # bench.bank_timing

cases.json is the list of cases the section's timing function takes; the output maps case id -> timings.
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, ".."), os.path.join(HERE, "..", "tools")]

from triton_oracle import Oracle  # noqa: E402

from bench.bank_timing import time_bank_cases  # noqa: E402
from bench.lowering_timing import time_cases  # noqa: E402

SECTIONS = {"lowering": time_cases, "bank": time_bank_cases}


def main() -> int:
    section, repeat = sys.argv[1], int(sys.argv[2])
    out = SECTIONS[section](json.load(sys.stdin), repeat, Oracle())
    json.dump(out, sys.stdout)
    sys.stdout.flush()
    os._exit(0)  # skip nanobind's leak report at interpreter exit


if __name__ == "__main__":
    sys.exit(main())
