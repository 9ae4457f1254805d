"""checker/run/executors.py: --executor values, the batches a sweep is cut into, and `ray_answers` (on a stand-in for
Ray that records what it is asked: batches submitted in order, answers read back in order, a session started here
shut down, one already running left alone). The real Ray: tests/verify/test_scale_out.py."""

import sys
import types

import pytest

from checker.errors import CheckerError
from checker.run import runner
from checker.run.executors import MAX_BATCH, batches, parse, ray_answers, require_ray
from checker.spec import load_spec


def test_batches_cover_every_task_in_order():
    assert batches(10, 2) == [(0, 2), (2, 4), (4, 6), (6, 8), (8, 10)]
    cut = batches(100_000, 8)
    assert cut[0] == (0, MAX_BATCH) and cut[-1][1] == 100_000
    assert all(a == b for (_, a), (b, _) in zip(cut, cut[1:]))
    assert parse("ray") is None and parse("ray://head:10001") == "ray://head:10001"
    with pytest.raises(CheckerError, match="--executor"):
        parse("dask")


def test_batch_sizes():
    assert batches(0, 4) == []
    assert batches(3, 0) == [(0, 3)]                                        # no CPU reported: counted as one
    assert batches(1000, 2) == [(i, i + 125) for i in range(0, 1000, 125)]     # 4 per CPU
    assert len(batches(10_000, 1)) == -(-10_000 // MAX_BATCH)


@pytest.mark.parametrize("value", ["ray://", "Ray", "processes ", "ray:/head"])
def test_bad_executor_values(value):
    with pytest.raises(CheckerError) as e:
        parse(value)
    assert str(e.value) == f"field '--executor': must be 'processes', 'ray' or 'ray://HOST:PORT', got {value!r}"


class FakeRay(types.ModuleType):
    """What ray_answers uses of Ray, run in this process."""

    def __init__(self, running=False, cpus=2, fail=None):
        super().__init__("ray")
        self.running, self.cpus, self.fail, self.calls = running, cpus, fail, []

    def is_initialized(self):
        return self.running

    def init(self, address=None, **options):
        self.calls.append(("init", address, options))
        if self.fail:
            raise self.fail
        self.running = True

    def cluster_resources(self):
        return {"CPU": float(self.cpus)}

    def remote(self, num_cpus):
        def wrap(fn):
            return types.SimpleNamespace(remote=lambda tasks: (self.calls.append(("submit", len(tasks))), fn(tasks)))
        return wrap

    def get(self, ref):
        self.calls.append(("get",))
        return ref[1]

    def shutdown(self):
        self.calls.append(("shutdown",))
        self.running = False


@pytest.fixture
def tasks(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("version: 1\nencodings:\n  b: {kind: blocked, size_per_thread: [1, 1], threads_per_warp: [8, 4], "
                    "warps_per_cta: [4, 1], order: [1, 0]}\nchecks:\n"
                    + "".join(f"  - {{id: c{n}, prove: surjective, layout: b, shape: [{n}, 32]}}\n"
                              for n in (16, 32, 64, 128, 256)))
    return [runner.Task(ob, "f2", 1000, "none") for ob in load_spec(str(path))]


def test_ray_answers_in_submission_order(monkeypatch, tasks):
    fake = FakeRay(cpus=1)
    monkeypatch.setitem(sys.modules, "ray", fake)
    answers = list(ray_answers(tasks, "ray", runner.work_batch))
    assert [a[:2] for a in answers] == [runner._work(t)[:2] for t in tasks]     # (kind, record): seconds differ
    assert [(a[0], a[1]["id"], a[1]["verdict"]) for a in answers] == [
        ("ok", f"c{n}", "holds") for n in (16, 32, 64, 128, 256)]
    assert fake.calls[0] == ("init", None, {"include_dashboard": False, "log_to_driver": False,
                                            "configure_logging": False})
    assert fake.calls[1:] == [("submit", 2), ("submit", 2), ("submit", 1), ("get",), ("get",), ("get",),
                              ("shutdown",)]                            # all submitted before the first is read


def test_ray_session_already_running_is_left_running(monkeypatch, tasks):
    fake = FakeRay(running=True, cpus=64)
    monkeypatch.setitem(sys.modules, "ray", fake)
    assert len(list(ray_answers(tasks, "ray://head:10001", runner.work_batch))) == 5
    assert fake.calls == [("submit", 1)] * 5 + [("get",)] * 5 and fake.running


def test_ray_that_cannot_start_is_one_line(monkeypatch, tasks):
    monkeypatch.setitem(sys.modules, "ray", FakeRay(fail=ConnectionError("no cluster at head:10001")))
    with pytest.raises(CheckerError) as e:
        list(ray_answers(tasks, "ray://head:10001", runner.work_batch))
    assert str(e.value) == ("field '--executor': cannot start or reach Ray (ray://head:10001): ConnectionError: "
                            "no cluster at head:10001")


def test_without_ray_installed(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)                           # import ray raises ImportError
    with pytest.raises(CheckerError) as e:
        require_ray()
    assert str(e.value) == ("field '--executor': --executor ray needs Ray, which is not installed "
                            "(pip install ray)")
    fake = FakeRay()
    monkeypatch.setitem(sys.modules, "ray", fake)
    assert require_ray() is fake


def test_a_batch_is_the_runners_work_on_each_task(tasks):
    done = runner.work_batch(tasks[:2])
    assert [a[:2] for a in done] == [runner._work(t)[:2] for t in tasks[:2]]
    assert [a[1]["id"] for a in done] == ["c16", "c32"]
