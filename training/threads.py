"""Thread settings of a training process, chosen so that training on a shared machine slows
in proportion to the cores it loses instead of collapsing.

torch runs each operator on its OpenMP thread pool. When another process takes one of the
cores, a pool of two threads waits at every operator's end for its second thread, which the
scheduler runs only part of the time: the small operators of self-play inference then take
milliseconds instead of microseconds, and a run measured 25 times slower beside one busy
process. Two settings prevent this:

- worker threads that wait spin only briefly and then sleep (:data:`WAIT_POLICY`, set by
  :mod:`training` before torch is imported, unless the user set them), so a waiting thread
  does not take CPU from the thread it waits for;
- :class:`ThreadTuner` picks the thread count of each phase of PPO (the rollout, whose small
  forward passes gain little from a second thread, and the update) by timing: it runs a
  phase with 1 and with ``torch_threads`` threads, keeps the faster, and tries the other one
  again now and then (less often each time it loses), so it follows a machine whose load
  changes.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

#: What :mod:`training` sets (unless set already) before torch starts its thread pool: a
#: waiting worker thread spins 10,000 times (microseconds, enough to catch the next
#: operator when the cores are free), then sleeps instead of spinning on (GNU OpenMP's
#: default spins 300,000 times, and a spinning thread takes the core from the one it waits
#: for when another process shares the machine).
WAIT_POLICY = {"OMP_WAIT_POLICY": "PASSIVE", "GOMP_SPINCOUNT": "10000"}


def configure(torch_threads: int) -> None:
    """The thread count of torch's operators."""
    import torch

    torch.set_num_threads(torch_threads)


#: Fewer threads replace more only when their phase takes less than this share of the time.
SWITCH_MARGIN = 0.85


@dataclass
class _Phase:
    """Timings of one phase: seconds per unit of work for each candidate thread count."""

    best: int
    seconds: dict[int, float] = field(default_factory=dict)
    runs: int = 0
    next_probe: int = 0
    backoff: int = 4


class ThreadTuner:
    """Chooses torch's thread count for each named phase from 1 and ``max_threads``; see
    the module doc. Call :meth:`start` before a phase and :meth:`stop` after it with the
    units of work it did (learner steps, samples)."""

    def __init__(self, max_threads: int, first_probe: int = 2, tune: bool = True) -> None:
        self.max_threads = max(1, max_threads)
        self.tune = tune
        self.first_probe = first_probe
        self._phases: dict[str, _Phase] = {}
        self._current: tuple[str, int, float] | None = None

    def candidates(self) -> tuple[int, ...]:
        """The thread counts tried (``max_threads`` alone when not tuning)."""
        if self.max_threads == 1 or not self.tune:
            return (self.max_threads,)
        return (self.max_threads, 1)

    def start(self, phase: str) -> int:
        """Set and return the thread count for ``phase``."""
        import torch

        state = self._phases.setdefault(
            phase, _Phase(best=self.max_threads, next_probe=self.first_probe)
        )
        threads = state.best
        untried = [n for n in self.candidates() if n not in state.seconds]
        if untried and state.runs >= 1:
            threads = untried[0]
        elif len(self.candidates()) > 1 and state.runs >= state.next_probe:
            threads = next(n for n in self.candidates() if n != state.best)
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

    def stop(self, work: float = 1.0) -> None:
        """End the phase begun by :meth:`start`, which did ``work`` units."""
        if self._current is None:
            return
        phase, threads, began = self._current
        self._current = None
        per_unit = (time.perf_counter() - began) / max(work, 1e-9)
        state = self._phases[phase]
        state.runs += 1
        old = state.seconds.get(threads)
        state.seconds[threads] = per_unit if old is None else 0.5 * old + 0.5 * per_unit
        if threads != state.best and len(state.seconds) == len(self.candidates()):
            # Fewer threads must win clearly (timings of one phase are noisy); more threads
            # win on any lead.
            margin = SWITCH_MARGIN if threads < state.best else 1.0
            if state.seconds[threads] < margin * state.seconds[state.best]:
                state.best, state.backoff = threads, 4
            else:
                state.backoff = min(state.backoff * 2, 256)
            state.next_probe = state.runs + state.backoff

    def summary(self) -> dict[str, int]:
        """The thread count each phase uses now."""
        return {phase: state.best for phase, state in self._phases.items()}
