"""Timing helpers shared by the benchmark sections: repeat a call, summarize as median and spread."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence


def clock(fn: Callable[[], object], repeat: int = 5) -> list[float]:
    """Wall seconds of `repeat` calls of fn."""
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def percentile(xs: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by nearest rank."""
    s = sorted(xs)
    if not s:
        return float("nan")
    k = min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))
    return s[k]


def summary(xs: Sequence[float], scale: float = 1e6) -> dict:
    """median, p10, p90, p99 and count of xs (seconds), in units of 1/scale seconds (default µs)."""
    if not xs:
        return {"n": 0}
    return {"n": len(xs), "median": round(statistics.median(xs) * scale, 3),
            "p10": round(percentile(xs, 10) * scale, 3), "p90": round(percentile(xs, 90) * scale, 3),
            "p99": round(percentile(xs, 99) * scale, 3)}


def ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 3) if a and b else None
