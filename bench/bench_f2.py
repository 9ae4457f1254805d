"""Why checker/f2.py uses Python int bitmasks: rank of random GF(2) matrices, int XOR basis vs packed numpy rows.

Run: python bench/bench_f2.py   (prints a table; numbers go to the README of bench/)
"""

import random
import statistics
import time

import numpy as np

from checker import f2


def rank_numpy(cols: list[int], nbits: int) -> int:
    """Gaussian elimination on a uint8 bit matrix (rows = vectors), vectorized per pivot."""
    if not cols:
        return 0
    m = np.array([[(c >> b) & 1 for b in range(nbits)] for c in cols], dtype=np.uint8)
    r = 0
    for col in range(nbits):
        rows = np.nonzero(m[r:, col])[0]
        if rows.size == 0:
            continue
        p = r + rows[0]
        m[[r, p]] = m[[p, r]]
        mask = m[:, col].astype(bool)
        mask[r] = False
        m[mask] ^= m[r]
        r += 1
        if r == m.shape[0]:
            break
    return r


def timeit(fn, reps=200):
    samples = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def main():
    rng = random.Random(0)
    print("| in bits x out bits | int bitmask (us) | numpy rows (us) | ratio |")
    print("|---|---|---|---|")
    for n in (8, 16, 26, 40, 64):
        cols = [rng.getrandbits(n) for _ in range(n)]
        assert f2.rank(cols) == rank_numpy(cols, n)
        a = timeit(lambda cols=cols: f2.rank(cols))
        b = timeit(lambda cols=cols, n=n: rank_numpy(cols, n), reps=50)
        print(f"| {n} x {n} | {a * 1e6:.1f} | {b * 1e6:.1f} | {b / a:.0f}x |")


if __name__ == "__main__":
    main()
