"""Running a sweep's checks on Ray (``layoutcheck verify --executor ray`` or ``--executor ray://HOST:PORT``).

    pip install ray
    layoutcheck verify big_sweep.yaml --executor ray                 # a local Ray, or the cluster RAY_ADDRESS names
    layoutcheck verify big_sweep.yaml --executor ray://head:10001    # a remote cluster through Ray Client

The parent loads the specs and TTGIR as always, then sends the checks to Ray in batches (`batches`: about
four per CPU of the cluster, at most `MAX_BATCH` checks each), one task per batch running
`checker.run.runner._work` on each check, and reads the answers back in submission order: the records, and
report.json, are byte-identical to ``--jobs 1`` (docs/scale-out.md: running a sweep on a Ray cluster).
Every node needs layoutcheck importable in the Python its Ray workers run (the same
version as the parent's); each worker process lowers the encodings it meets once (its own lowering cache).

When Ray is already initialized in this process (a notebook, a test: ``ray.init(...)``), that session is
used and left running; otherwise ``ray.init`` connects (``ray`` alone: to ``RAY_ADDRESS`` or a running local
cluster, else it starts one) and the session is shut down when the run ends.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from ..errors import CheckerError

MAX_BATCH = 256
PER_CPU = 4


def parse(executor: str) -> str | None:
    """The Ray address of an --executor value: None for "ray" (ray.init's own choice), the address for
    "ray://..." ; anything else is bad input."""
    if executor == "ray":
        return None
    if executor.startswith("ray://") and len(executor) > len("ray://"):
        return executor
    raise CheckerError(f"must be 'processes', 'ray' or 'ray://HOST:PORT', got {executor!r}", field="--executor")


def require_ray():
    try:
        import ray  # lazy: Ray is an optional extra, only for --executor ray
    except ImportError:
        raise CheckerError("--executor ray needs Ray, which is not installed (pip install ray)",
                           field="--executor") from None
    return ray


def batches(n: int, cpus: int) -> list[tuple[int, int]]:
    """[start, stop) ranges covering n tasks: about PER_CPU batches per CPU, each of at most MAX_BATCH."""
    size = max(1, min(MAX_BATCH, -(-n // max(1, cpus * PER_CPU))))
    return [(i, min(n, i + size)) for i in range(0, n, size)]


def ray_answers(tasks: list, executor: str, work_batch: Callable[[Sequence[tuple]], list[tuple]]) -> Iterator[tuple]:
    """Each task's answer, in task order, computed by Ray tasks in batches: `work_batch` (the runner's
    `checker.run.runner.work_batch`, which spawned workers share) on each batch."""
    address = parse(executor)
    ray = require_ray()
    started = not ray.is_initialized()
    if started:
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False,
                     configure_logging=False)
        except Exception as e:            # no cluster at that address, a version mismatch, ...
            raise CheckerError(f"cannot start or reach Ray ({executor}): {type(e).__name__}: {e}",
                               field="--executor") from None
    try:
        cpus = int(ray.cluster_resources().get("CPU", 1))
        work = ray.remote(num_cpus=1)(work_batch)
        refs = [work.remote(tasks[a:b]) for a, b in batches(len(tasks), cpus)]
        for ref in refs:
            yield from ray.get(ref)
    finally:
        if started:
            ray.shutdown()


__all__ = ["MAX_BATCH", "batches", "parse", "ray_answers", "require_ray"]
