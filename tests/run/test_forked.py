"""checker.run.forked: chunks proved by forked workers come back in chunk order; a worker that fails or dies
is an InternalError naming the chunk, never a hang; every worker is reaped however the run ends."""

import os
import pathlib
import signal
import sys
import time

import pytest

from checker.errors import InternalError
from checker.run import forked

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers are forked on Linux only")


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_answers_come_in_chunk_order_whatever_order_they_finish_in():
    def prove(k):           # early chunks are the slow ones: the later ones finish first
        time.sleep(0.02 if k < 3 else 0)
        return [(k, i, os.getpid()) for i in range(k % 4)]
    got = list(forked.forked_answers(prove, 12, workers=3))
    assert [[a[:2] for a in answers] for answers in got] == [[(k, i) for i in range(k % 4)] for k in range(12)]
    pids = {a[2] for answers in got for a in answers}
    assert len(pids) == 3 and os.getpid() not in pids      # three workers, none of them this process
    assert all(_gone(p) for p in pids) and forked._OPEN == []


def test_more_workers_than_chunks_starts_one_per_chunk():
    got = list(forked.forked_answers(lambda k: [os.getpid()], 2, workers=8))
    assert len({answers[0] for answers in got}) == 2


def test_an_exception_that_escapes_the_chunk_is_an_internal_error():
    def prove(k):
        if k == 2:
            raise ValueError("boom")
        return [k]
    with pytest.raises(InternalError) as e:
        list(forked.forked_answers(prove, 5, workers=2))
    assert str(e.value) == "a worker process failed on chunk 2: ValueError: boom"
    assert forked._OPEN == []


def test_answers_that_do_not_pickle_are_an_internal_error():
    with pytest.raises(InternalError) as e:
        list(forked.forked_answers(lambda k: [lambda: k], 1, workers=1))
    assert str(e.value).startswith("a worker process failed on chunk 0: ") and "pickle" in str(e.value)


def test_a_worker_killed_while_proving_is_an_internal_error_not_a_hang():
    def prove(k):
        if k == 3:
            os.kill(os.getpid(), signal.SIGKILL)
        return [k]
    with pytest.raises(InternalError) as e:
        list(forked.forked_answers(prove, 6, workers=2))
    assert str(e.value) == "a worker process was killed by signal 9 before it answered chunk 3 (out of memory?)"
    assert forked._OPEN == []


def test_a_run_stopped_early_kills_and_reaps_its_workers(monkeypatch):
    started = []
    start_worker = forked._start
    monkeypatch.setattr(forked, "_start", lambda prove: started.append(start_worker(prove)) or started[-1])

    def prove(k):
        if k > 0:
            time.sleep(30)          # still proving when the caller stops reading
        return [os.getpid()]
    answers = forked.forked_answers(prove, 4, workers=2)
    assert next(answers) == [started[0].pid]
    start = time.monotonic()
    answers.close()
    assert time.monotonic() - start < 5 and forked._OPEN == []
    for w in started:
        with pytest.raises(ChildProcessError):
            os.waitpid(w.pid, os.WNOHANG)       # reaped already: no zombie left


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_stops_a_verify_run_with_one_line_and_exit_130(tmp_path, jobs):
    import subprocess

    from bench.sections import sweep_spec
    spec, _ = sweep_spec(str(tmp_path), quick=False)            # 10,080 checks: seconds of work
    run = subprocess.Popen([sys.executable, "-m", "checker", "verify", spec, "--jobs", jobs, "--quiet",
                            "--format", "json", "--report-dir", str(tmp_path / "reports")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))   # (CI may ignore it)
    deadline = time.monotonic() + 30
    workers = 0 if jobs == "1" else int(jobs)
    seen = 0
    while time.monotonic() < deadline and run.poll() is None:         # until the checks are being proved
        try:
            children = pathlib.Path(f"/proc/{run.pid}/task/{run.pid}/children").read_text().split()
        except OSError:                 # a kernel without that file: a second into the run will do
            children, workers = [], 0
        seen = seen + 1 if workers and len(children) == workers else 0
        if seen >= 4:                   # the same workers for 0.2 s: the run is proving, not starting up
            break
        time.sleep(0.05)
        if not workers and time.monotonic() > deadline - 29.2:       # one process: 0.8 s in (past start-up;
            break                                                        # the 10,080 checks take about 1.9 s)
    time.sleep(0.3)
    os.killpg(run.pid, signal.SIGINT)                                  # Ctrl-C: the whole foreground group
    out, err = run.communicate(timeout=30)
    assert (run.returncode, err, out) == (130, "layoutcheck: interrupted\n", "")
    assert not (tmp_path / "reports").exists()                         # nothing written half-way


def test_a_refused_fork_leaves_the_run_to_the_workers_started(monkeypatch):
    from checker.errors import CheckerError
    real_fork, forks = os.fork, []

    def fork():
        forks.append(1)
        if len(forks) > 1:
            raise OSError(11, "Resource temporarily unavailable")
        return real_fork()
    monkeypatch.setattr(os, "fork", fork)
    got = list(forked.forked_answers(lambda k: [(k, os.getpid())], 5, workers=3))
    assert [a[0][0] for a in got] == [0, 1, 2, 3, 4] and len({a[0][1] for a in got}) == 1   # one worker did all
    assert forked._OPEN == []
    forks.append(1)                                         # now every fork is refused
    with pytest.raises(CheckerError) as e:
        list(forked.forked_answers(lambda k: [k], 5, workers=3))
    assert str(e.value) == ("field '--jobs': cannot start a worker process: Resource temporarily unavailable "
                            "(try --jobs 1)")
    assert forked._OPEN == []
