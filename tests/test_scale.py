"""Compare over several servers: per-server slots, one shared queue, failover when a server dies.

The servers are real HTTP servers on 127.0.0.1 (``FakeCompletionServer``:
llama-server's API with a scripted ReAct turn and no model); the client is the
real HTTP backend and the real compare.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from react_text.eval import compare
from react_text.eval.planning import CompareError, CompareSpec
from react_text.eval.records import load_results
from react_text.backends.fake_server import FakeCompletionServer
from react_text.backends.pool import Server, TaskQueue, parse_servers

QUIET = open("/dev/null", "w")


def spec(tmp_path: Path, urls, *, concurrency: int = 1, limit: int = 12) -> CompareSpec:
    return CompareSpec(templates=("classic",), models=("fake",), suite="arithmetic",
                       out_dir=tmp_path / "out", backend="http", urls=tuple(urls), api="llama",
                       concurrency=concurrency, limit=limit, max_steps=3, timeout_s=60)


def recorded(tmp_path: Path) -> list[dict]:
    return load_results(tmp_path / "out" / "results.jsonl")


# --- pure parts -------------------------------------------------------------------

def test_server_specs_give_each_url_its_slots():
    assert parse_servers(["http://a:1#4", "http://b:2/"], 2) == (Server("http://a:1", 4), Server("http://b:2", 2))
    for bad in (["http://a:1#0"], ["http://a:1#x"], ["http://a:1", "http://a:1/#3"]):
        with pytest.raises(ValueError):
            parse_servers(bad, 1)
    with pytest.raises(ValueError):
        parse_servers(["http://a:1"], 0)


def test_a_failed_task_goes_to_another_server_and_never_back():
    queue = TaskQueue(["t1", "t2"], (Server("A", 1), Server("B", 1)), trip_after=1)
    assert queue.take("A") == "t1"
    queue.failed("t1", "A")
    assert queue.take("B") == "t1" and queue.dead == {"A"}
    queue.finished("t1", "B")
    assert queue.take("B") == "t2"
    queue.finished("t2", "B")
    assert queue.take("B") is None and queue.take("A") is None and queue.unrun == []


def test_tasks_left_when_every_server_is_out_are_unrun_not_lost():
    queue = TaskQueue(["t1", "t2", "t3"], (Server("A", 1), Server("B", 1)), trip_after=1)
    assert queue.take("A") == "t1" and queue.take("B") == "t2"
    queue.failed("t1", "A")
    queue.failed("t2", "B")
    assert queue.take("B") is None
    assert sorted(queue.unrun) == ["t1", "t2", "t3"]


def test_a_worker_waits_for_a_task_that_may_come_back():
    queue = TaskQueue(["t1"], (Server("A", 1), Server("B", 1)))
    assert queue.take("A") == "t1"
    got = []
    waiter = threading.Thread(target=lambda: got.append(queue.take("B")))
    waiter.start()
    queue.failed("t1", "A")
    waiter.join(10)
    assert got == ["t1"]


def test_a_tripped_server_gets_one_probe_after_its_cooldown_and_is_back_when_it_passes():
    now = [0.0]
    queue = TaskQueue([f"t{i}" for i in range(6)], (Server("A", 2), Server("B", 1)), trip_after=2,
                      cooldown_s=30, clock=lambda: now[0])
    first, second = queue.take("A"), queue.take("A")
    queue.failed(first, "A")
    assert queue.dead == frozenset()  # one failure is not a pattern
    queue.failed(second, "A")
    assert queue.dead == {"A"}
    assert queue.take("B") == second  # the failed tasks go first, to a server that has not failed them
    now[0] = 31.0  # half-open: A may take one task, its probe
    probe = queue.take("A")
    assert probe not in (first, second)
    waiter = threading.Thread(target=lambda: got.append(queue.take("A")), daemon=True)
    got: list = []
    waiter.start()
    waiter.join(0.3)
    assert waiter.is_alive()  # no second task while the probe is out
    queue.finished(probe, "A")
    waiter.join(10)
    assert got and got[0] not in (first, second, probe)
    queue.finished(got[0], "A")
    assert queue.dead == frozenset()


def test_a_task_every_server_refused_takes_back_the_failures_it_cost():
    queue = TaskQueue(["t1", "t2"], (Server("A", 1), Server("B", 1)), trip_after=1)
    queue.failed(queue.take("A"), "A")
    assert queue.dead == {"A"}
    queue.finished(queue.take("B"), "B", refused_everywhere=True)  # B refused it too: the request's fault
    assert queue.dead == frozenset() and queue.take("A") == "t2"


def test_a_server_that_fails_its_probe_is_out_twice_as_long():
    now = [0.0]
    queue = TaskQueue(["t1", "t2", "t3"], (Server("A", 1), Server("B", 1)), trip_after=1, cooldown_s=10,
                      clock=lambda: now[0])
    queue.failed(queue.take("A"), "A")
    now[0] = 11.0
    queue.failed(queue.take("A"), "A")
    now[0] = 30.0
    assert queue.dead == {"A"}  # out until 31
    now[0] = 31.5
    assert queue.dead == frozenset()


# --- against real servers -------------------------------------------------------------

def test_each_server_gets_at_most_its_own_slots(tmp_path):
    with FakeCompletionServer(latency_s=0.1, slots=8) as a, FakeCompletionServer(latency_s=0.1, slots=8) as b:
        records = compare.run_compare(spec(tmp_path, [f"{a.url}#3", b.url], concurrency=1),
                                      progress_stream=QUIET)
    assert sorted(r["task_id"] for r in records) == sorted({r["task_id"] for r in records})
    assert len(records) == 12
    assert a.max_in_flight == 3 and b.max_in_flight == 1
    assert {r["server"] for r in records} == {a.url, b.url}


def test_killing_one_of_two_servers_mid_run_loses_no_task(tmp_path):
    with FakeCompletionServer(latency_s=0.05, slots=2, die_after=5) as dying, \
            FakeCompletionServer(latency_s=0.05, slots=2) as healthy:
        records = compare.run_compare(spec(tmp_path, [dying.url, healthy.url], concurrency=2, limit=10),
                                      progress_stream=QUIET)
    assert dying.dead.is_set() and dying.answered >= 1  # it did serve, then died mid-run
    assert dying.requests > dying.answered  # and dropped a request in flight: that task was rerun elsewhere
    saved = recorded(tmp_path)
    ids = [r["task_id"] for r in saved]
    assert len(ids) == len(set(ids)) == 10  # every task, each recorded once
    assert sorted(ids) == sorted(r["task_id"] for r in records)
    assert not [r for r in saved if r["status"] in ("backend_error", "crashed")]
    assert {r["server"] for r in saved if r["status"] == "answered"} >= {healthy.url}
    for r in saved:  # the trace of a rerun task holds only the run that was recorded
        starts = [line for line in open(r["trace"], encoding="utf-8") if '"event": "run_start"' in line]
        assert len(starts) == 1


def test_when_every_server_dies_the_rest_waits_for_a_rerun(tmp_path):
    with FakeCompletionServer(latency_s=0.05, slots=1, die_after=4) as a, \
            FakeCompletionServer(latency_s=0.05, slots=1, die_after=4) as b:
        with pytest.raises(CompareError, match="run the same command again"):
            compare.run_compare(spec(tmp_path, [a.url, b.url]), progress_stream=QUIET)
    first = recorded(tmp_path)
    assert 0 < len(first) < 12 and not [r for r in first if r["status"] == "backend_error"]
    with FakeCompletionServer(latency_s=0.05, slots=2) as c:
        records = compare.run_compare(spec(tmp_path, [c.url], concurrency=2), progress_stream=QUIET)
    ids = [r["task_id"] for r in recorded(tmp_path)]
    assert len(ids) == len(set(ids)) == len(records) == 12


def test_a_single_dead_server_records_backend_errors_as_before(tmp_path):
    """One server: nowhere to fail over, and the error is the server's (kept as the result, as always)."""
    with FakeCompletionServer(latency_s=0.01, slots=1) as a:
        url = a.url
    records = compare.run_compare(spec(tmp_path, [url], limit=1), progress_stream=QUIET)
    assert [r["status"] for r in records] == ["backend_error"]


def test_bad_server_specs_stop_before_any_work(tmp_path):
    with pytest.raises(CompareError, match="URL#N"):
        compare.run_compare(spec(tmp_path, ["http://127.0.0.1:9#zero"]), progress_stream=QUIET)
    assert not (tmp_path / "out" / "results.jsonl").exists()
