"""The throughput steps report each named process's CPU per request, and the figure is the
best rate among the steps under the p99 bound."""

from __future__ import annotations

from bench.throughput import STEP_MAX_REQUESTS, Endpoint, Step, Throughput, step


async def test_a_step_reports_each_process_cpu_per_request() -> None:
    spent = {"worker": 0.0}

    async def send() -> None:
        spent["worker"] += 0.002  # as if the worker spent 2 ms on each request

    taken = await step(Endpoint(send, "fake", {"worker": lambda: spent["worker"]}), 2)
    assert taken.requests == STEP_MAX_REQUESTS
    assert taken.cpu_ms == {"worker": 2.0}
    assert taken.busy("worker") == 2.0 * taken.per_second / 10
    assert taken.busy("backend") is None


def test_the_figure_is_the_best_rate_under_the_bound_and_the_worker_cpu_all_steps() -> None:
    steps = (
        Step(1, 100, 100.0, 20.0, {"worker": 8.0}),
        Step(2, 300, 150.0, 45.0, {"worker": 6.0}),
        Step(4, 400, 200.0, 90.0, {"worker": 5.0}),  # faster, but over the bound
    )
    result = Throughput("gateway", steps, "fake")
    assert result.per_second == 150.0
    assert result.worker_cpu_ms == (800 + 1800 + 2000) / 800
    assert result.as_json()["concurrency"] == 2
    assert Throughput("none", (steps[2],)).per_second == 0.0
