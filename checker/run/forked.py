"""Worker processes forked for one run (Linux): each proves chunks of the run's tasks, the parent reads
the answers back and hands out the next chunks.

    for answers in forked_answers(prove_chunk, chunks, workers=2):    # one list per chunk, in chunk order
        ...

A forked worker starts with the parent's memory: the tasks, the encodings parsed and lowered so far,
the proofs shared so far. So a chunk is sent as its number alone, 4 bytes, and only the answers are
pickled. Why not `multiprocessing.Pool`: its three threads in the parent (task feeder, result reader,
worker keeper) used 0.2 s of CPU over a 10,080-check sweep with two workers on two cores, time the
workers lost; here the parent only waits in `select` and unpickles what comes back.

The exchange with worker k, over two pipes of its own:

* parent -> worker: a chunk number (4 bytes, little-endian, signed); -1 (or the pipe's end) stops it;
* worker -> parent: per chunk, one message: its length (8 bytes) and the pickle of (chunk number,
  answers), or (chunk number, None, why) when proving the chunk raised (`prove_chunk` catches what
  a check raises: this is what it could not, MemoryError, a value that does not pickle).

Each worker has two chunks queued (one it is proving, one it reads next); the next chunk goes to
whichever worker answers, so a slow chunk holds up no other. Answers are yielded in chunk order.
A worker that stops before it answers its chunks (killed, out of memory) is an `InternalError` naming
its exit status and the chunk it had, never a hang; one stopped by Ctrl-C (SIGINT) is the parent's
KeyboardInterrupt. When the caller stops reading (an error in an answer, Ctrl-C) or everything is
read, every worker is stopped and reaped. Where the system refuses another process (fork's EAGAIN),
the run goes on with the workers it has; with none, it is a `CheckerError` about --jobs.
"""

from __future__ import annotations

import os
import pickle
import selectors
import signal
from collections.abc import Callable, Iterator, Sequence

from ..errors import CheckerError, InternalError

QUEUED = 2          # chunks handed to a worker ahead of its answers
_LENGTH = 8         # bytes of a message's length prefix
_STOP = (-1).to_bytes(4, "little", signed=True)


def forked_answers(prove_chunk: Callable[[int], list], chunks: int, workers: int) -> Iterator[list]:
    """prove_chunk(i) for i in 0..chunks-1, computed by `workers` forked processes: yields each
    chunk's list of answers in chunk order."""
    pool: list[_Worker] = []
    try:
        for _ in range(max(1, min(workers, chunks))):
            try:
                pool.append(_start(prove_chunk))
            except OSError as e:            # no more processes (ulimit -u, memory): go on with those started
                if not pool:
                    raise CheckerError(f"cannot start a worker process: {e.strerror} (try --jobs 1)",
                                       field="--jobs") from None
                break
        yield from _collect(pool, chunks)
    finally:
        _stop(pool)


class _Worker:
    def __init__(self, pid: int, to_worker: int, from_worker: int):
        self.pid, self.to_worker, self.from_worker = pid, to_worker, from_worker
        self.queued: list[int] = []         # chunk numbers sent, not answered yet (oldest first)
        self.buffer = bytearray()

    def send(self, chunk: int) -> None:
        os.write(self.to_worker, chunk.to_bytes(4, "little", signed=True))
        self.queued.append(chunk)

    def messages(self, data: bytes) -> list[bytes]:
        """The whole messages that `data`, read from the worker, completes."""
        self.buffer += data
        out = []
        while len(self.buffer) >= _LENGTH:
            size = int.from_bytes(self.buffer[:_LENGTH], "little")
            if len(self.buffer) < _LENGTH + size:
                break
            out.append(bytes(self.buffer[_LENGTH:_LENGTH + size]))
            del self.buffer[:_LENGTH + size]
        return out


_OPEN: list[int] = []       # the parent's pipe ends of the workers started so far (a new worker closes them)


def _start(prove_chunk: Callable[[int], list]) -> _Worker:
    task_read, task_write = os.pipe()
    answer_read, answer_write = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        for fd in (task_read, task_write, answer_read, answer_write):
            os.close(fd)
        raise
    if pid == 0:                            # the worker: it never returns into the parent's code
        status = 1
        try:
            if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
                signal.signal(signal.SIGINT, signal.SIG_DFL)     # Ctrl-C stops the worker at once, quietly
            for fd in (task_write, answer_read, *_OPEN):
                os.close(fd)
            _serve(prove_chunk, task_read, answer_write)
            status = 0
        finally:
            os._exit(status)            # no interpreter teardown, no atexit handler of the parent's
    os.close(task_read)
    os.close(answer_write)
    _OPEN.extend((task_write, answer_read))
    return _Worker(pid, task_write, answer_read)


def _serve(prove_chunk: Callable[[int], list], tasks: int, answers: int) -> None:
    """The worker's loop: read a chunk number, prove that chunk, write its answers; until told to stop."""
    while True:
        head = _read_exactly(tasks, 4)
        chunk = int.from_bytes(head, "little", signed=True) if len(head) == 4 else -1
        if chunk < 0:
            return
        try:
            payload = pickle.dumps((chunk, prove_chunk(chunk)), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as e:  # what prove_chunk did not catch, or answers that do not pickle
            payload = pickle.dumps((chunk, None, f"{type(e).__name__}: {e}"), protocol=pickle.HIGHEST_PROTOCOL)
        _write_all(answers, len(payload).to_bytes(_LENGTH, "little") + payload)


def _read_exactly(fd: int, size: int) -> bytes:
    data = b""
    while len(data) < size:
        part = os.read(fd, size - len(data))
        if not part:
            break
        data += part
    return data


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _collect(pool: Sequence[_Worker], chunks: int) -> Iterator[list]:
    done: dict[int, list] = {}
    following = 0                       # the next chunk to hand out
    for _ in range(QUEUED):
        for w in pool:
            if following < chunks:
                w.send(following)
                following += 1
    selector = selectors.DefaultSelector()
    for w in pool:
        selector.register(w.from_worker, selectors.EVENT_READ, w)
    try:
        for wanted in range(chunks):
            while wanted not in done:
                for key, _ in selector.select():
                    w = key.data
                    data = os.read(w.from_worker, 1 << 20)
                    if not data:
                        selector.unregister(w.from_worker)
                        _ended(w)
                    for message in w.messages(data):
                        chunk, answers, *why = pickle.loads(message)
                        if answers is None:
                            raise InternalError(f"a worker process failed on chunk {chunk}: {why[0]}")
                        w.queued.remove(chunk)
                        done[chunk] = answers
                        if following < chunks:
                            w.send(following)
                            following += 1
            yield done.pop(wanted)
    finally:
        selector.close()


def _ended(w: _Worker) -> None:
    """A worker's answers ended: fine when it owes none, else the run cannot finish."""
    if not w.queued:
        return
    _, status = os.waitpid(w.pid, 0)
    w.pid = 0
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGINT:
        raise KeyboardInterrupt         # Ctrl-C reached the workers before this process: the user stopped the run
    how = (f"was killed by signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status)
           else f"exited with status {os.WEXITSTATUS(status)}")
    why = " (out of memory?)" if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL else ""
    raise InternalError(f"a worker process {how} before it answered chunk {w.queued[0]}{why}")


def _stop(pool: Sequence[_Worker]) -> None:
    """Tell every worker to stop, close the pipes, reap the workers; one still proving (the run stopped
    early) is killed."""
    for w in pool:
        try:
            os.write(w.to_worker, _STOP)
        except OSError:
            pass
        if w.queued and w.pid:
            try:
                os.kill(w.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    for w in pool:
        for fd in (w.to_worker, w.from_worker):
            os.close(fd)
            if fd in _OPEN:
                _OPEN.remove(fd)
        if w.pid:
            os.waitpid(w.pid, 0)


__all__ = ["forked_answers", "QUEUED"]
