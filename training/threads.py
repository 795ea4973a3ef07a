"""Thread settings of a training process, chosen so that training on a shared machine slows
in proportion to the cores it loses instead of collapsing.

torch runs each operator on its OpenMP thread pool. When another process takes one of the
cores, a pool of two threads waits at every operator's end for its second thread, which the
scheduler runs only part of the time (and whose partner spins while it waits): the small
operators of self-play then take several times longer, and a run measured 3 to 25 times
slower beside one busy process. :class:`ThreadTuner` picks the thread count of each phase
of PPO (the rollout and the update) by timing: ``torch_threads`` while the phase runs as
fast as it has, 1 thread once 1 thread proves faster (tried once early, and again whenever
the phase slows down), and ``torch_threads`` again when a later try shows the machine free.
On a free machine it keeps ``torch_threads``, so a run alone is as fast as with a fixed
count.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


def configure(torch_threads: int) -> None:
    """The thread count of torch's operators."""
    import torch

    torch.set_num_threads(torch_threads)


#: Fewer threads replace more only when their phase takes less than this share of the time.
SWITCH_MARGIN = 0.85
#: A phase on ``max_threads`` this much slower than its fastest run so far means the machine
#: got busier: the next run of that phase tries 1 thread.
SLOWDOWN = 1.3


@dataclass
class _Phase:
    """One phase's timings: the last seconds per unit of work for each thread count, and
    the fastest seen on ``max_threads``."""

    threads: int
    seconds: dict[int, float] = field(default_factory=dict)
    fastest: float = float("inf")
    runs: int = 0
    probe: int | None = None  # the thread count the next run tries, if any
    next_back: int = 0  # the run at which 1 thread tries ``max_threads`` again
    backoff: int = 4


class ThreadTuner:
    """Chooses torch's thread count for each named phase: after one try of 1 thread (the
    phase's third run; the first warms caches and is not timed), ``max_threads`` while its
    runs stay as fast as they have been; 1 thread once it proves faster, or a run on
    ``max_threads`` is :data:`SLOWDOWN` times slower than the fastest and 1 thread then
    proves faster; back to ``max_threads`` when a later try (less often each time it loses)
    is faster again. Call :meth:`start` before a phase and :meth:`stop` after it with the
    units of work it did."""

    def __init__(self, max_threads: int, tune: bool = True) -> None:
        self.max_threads = max(1, max_threads)
        self.tune = tune and self.max_threads > 1
        self._phases: dict[str, _Phase] = {}
        self._current: tuple[str, int, float] | None = None

    def start(self, phase: str) -> int:
        """Set and return the thread count for ``phase``."""
        import torch

        state = self._phases.setdefault(phase, _Phase(threads=self.max_threads))
        threads = state.threads if state.probe is None else state.probe
        if torch.get_num_threads() != threads:
            torch.set_num_threads(threads)
        self._current = (phase, threads, time.perf_counter())
        return threads

    @contextmanager
    def aside(self, threads: int = 1) -> Iterator[None]:
        """Work that is not part of the phase being timed (evaluations, checkpoints), on
        ``threads`` threads; its time is left out of the phase's."""
        import torch

        before = torch.get_num_threads()
        torch.set_num_threads(threads)
        began = time.perf_counter()
        try:
            yield
        finally:
            torch.set_num_threads(before)
            if self._current is not None:
                phase, count, start = self._current
                self._current = (phase, count, start + time.perf_counter() - began)

    def stop(self, work: float = 1.0, elapsed: float | None = None) -> None:
        """End the phase begun by :meth:`start`, which did ``work`` units in ``elapsed``
        seconds (``None``: as timed since :meth:`start`)."""
        if self._current is None:
            return
        phase, threads, began = self._current
        self._current = None
        if elapsed is None:
            elapsed = time.perf_counter() - began
        seconds = elapsed / max(work, 1e-9)
        state = self._phases[phase]
        state.runs += 1
        state.seconds[threads] = seconds
        if not self.tune or state.runs == 1:  # the first run warms caches: not a timing
            return
        most = self.max_threads
        if threads == most:
            state.fastest = min(state.fastest, seconds)
        if state.probe is not None:  # a try of the other count ends: keep the faster
            state.probe = None
            other = state.threads
            if threads == 1 and seconds < SWITCH_MARGIN * state.seconds[other]:
                state.threads, state.backoff = 1, 4
            elif threads == most and seconds < state.seconds[other]:
                state.threads, state.backoff = most, 4
            else:
                state.backoff = min(state.backoff * 2, 256)
            state.next_back = state.runs + state.backoff
        elif state.threads == most and (state.runs == 2 or seconds > SLOWDOWN * state.fastest):
            state.probe = 1  # the first timed run, or a slow one: see whether 1 is faster
        elif state.threads == 1 and state.runs >= state.next_back:
            state.probe = most

    def summary(self) -> dict[str, int]:
        """The thread count each phase uses now."""
        return {phase: state.threads for phase, state in self._phases.items()}
