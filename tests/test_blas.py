"""The agents' numerical work runs on the BLAS threads the environment allows."""

import pytest
from threadpoolctl import threadpool_info

from eleusis_lab.blas import ENVIRONMENT_VARIABLE, limited_threads, thread_limit


@limited_threads
def _blas_threads_inside() -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def test_one_thread_by_default_and_restored_after(monkeypatch):
    monkeypatch.delenv(ENVIRONMENT_VARIABLE, raising=False)
    before = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
    assert _blas_threads_inside() == [1] * len(before)
    after = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
    assert after == before


def test_the_environment_asks_for_more(monkeypatch):
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, "3")
    assert thread_limit() == 3


@pytest.mark.parametrize("value", ["0", "-2", "many", ""])
def test_a_bad_thread_count_is_named(monkeypatch, value):
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, value)
    with pytest.raises(ValueError, match=ENVIRONMENT_VARIABLE):
        thread_limit()


@pytest.mark.parametrize("name", ["bayes", "bayes-context"])
def test_the_bayesian_agents_decide_on_one_thread(monkeypatch, name):
    import contextlib

    import eleusis_lab.blas as blas
    from eleusis_lab.games.solo import play_solo
    from eleusis_lab.registry import make_agent

    monkeypatch.delenv(ENVIRONMENT_VARIABLE, raising=False)
    seen: list[list[int]] = []
    real = blas.blas_threads

    @contextlib.contextmanager
    def recording():
        with real():
            seen.append(_blas_threads_inside.__wrapped__())
            yield

    monkeypatch.setattr(blas, "blas_threads", recording)
    agent = make_agent(name, grammar="colours_suits", max_hypotheses=500)
    play_solo("black(card)", agent, seed=0)
    assert seen and all(threads == [1] * len(threads) for threads in seen)


def test_already_at_the_limit_nothing_is_set(monkeypatch):
    import eleusis_lab.blas as blas

    monkeypatch.delenv(ENVIRONMENT_VARIABLE, raising=False)
    with blas.blas_threads():  # one thread now, as in a worker process
        calls = []
        for library in blas._controller().lib_controllers:
            monkeypatch.setattr(library, "set_num_threads", calls.append)
        inside, set_inside = _blas_threads_inside(), list(calls)
        monkeypatch.undo()  # before the outer context restores the threads
    assert inside == [1] * len(inside) and set_inside == []


def test_the_environment_sets_the_threads_inside_even_above_the_current(monkeypatch):
    import eleusis_lab.blas as blas

    monkeypatch.delenv(ENVIRONMENT_VARIABLE, raising=False)
    with blas.blas_threads():  # one thread, as in a worker process
        monkeypatch.setenv(ENVIRONMENT_VARIABLE, "3")
        inside = _blas_threads_inside()
    assert inside and all(threads == 3 for threads in inside)
