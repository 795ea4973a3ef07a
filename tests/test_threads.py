"""The trainer's thread tuner (:mod:`training.threads`), which follows the machine's load."""

from __future__ import annotations

from training.threads import SLOWDOWN, ThreadTuner


def run(tuner: ThreadTuner, seconds: dict[int, float]) -> int:
    """One phase whose run takes ``seconds[threads]``; the thread count it ran on."""
    threads = tuner.start("update")
    tuner.stop(elapsed=seconds[threads])
    return threads


def test_the_tuner_keeps_every_thread_on_a_free_machine_and_one_when_another_is_busy():
    tuner = ThreadTuner(2)
    free, busy = {2: 1.0, 1: 1.3}, {2: 3.0, 1: 1.3}
    assert [run(tuner, free) for _ in range(20)] == [2, 2, 1] + [2] * 17  # one try of 1
    during = [run(tuner, busy) for _ in range(30)]
    assert during[0] == 2 and during[1] == 1  # one slow run, then one thread
    assert during.count(2) <= 4  # tries of two threads, fewer as they keep losing
    after = [run(tuner, free) for _ in range(60)]
    assert after[-20:] == [2] * 20  # back to two once the machine is free
    assert tuner.summary() == {"update": 2}


def test_noise_below_the_slowdown_threshold_changes_nothing():
    tuner = ThreadTuner(2)
    times = [1.0, 1.1, 0.95, SLOWDOWN * 0.95, 1.05, 1.2] * 5
    ran = [run(tuner, {2: t, 1: 2.0}) for t in times]
    assert ran == [2, 2, 1] + [2] * (len(times) - 3)


def test_a_machine_busy_from_the_start_is_found_by_the_first_try():
    tuner = ThreadTuner(2)
    ran = [run(tuner, {2: 3.0, 1: 1.3}) for _ in range(12)]
    assert ran[:3] == [2, 2, 1] and ran[3:].count(1) >= 8


def test_a_fixed_policy_or_one_thread_never_changes():
    for tuner in (ThreadTuner(2, tune=False), ThreadTuner(1)):
        threads = tuner.max_threads
        assert [run(tuner, {threads: 5.0 if k % 2 else 1.0}) for k in range(10)] == [threads] * 10
