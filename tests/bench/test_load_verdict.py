"""The load test's judge: a right answer passes; a blank one, a wrong code, a null without
its error, or an error on a field that was served is wrong."""

from __future__ import annotations

from typing import Any

import pytest

from bench.load.workload import LAST_PAGE, MUTATION, USERS_25, VIEWER, Job, verdict

VIEWER_JOB = Job(VIEWER, "u", "token", {"query": "{ viewer { id } }"})
BOARD_JOB = Job(USERS_25, "0", "token", {"query": "...", "variables": {"ids": ["a", "b"]}})
WRITE = {"userId": "w", "paveRequestId": "req-1", "page": 3}
WRITE_JOB = Job(MUTATION, "w", "token", {"query": LAST_PAGE, "variables": {"input": WRITE}})
EXPECTED: dict[tuple[str, str], Any] = {
    (VIEWER, "u"): {"viewer": {"id": "u", "payday": {"nextDate": "2026-12-09"}, "scores": [1]}},
    (USERS_25, "0"): {"users": [{"id": "a", "alert": None}, {"id": "b", "alert": {"x": 1}}]},
}


def unavailable(*path: str | int) -> dict[str, Any]:
    return {"message": "m", "path": list(path), "extensions": {"code": "DYNAMODB_UNAVAILABLE"}}


RIGHT = [
    (VIEWER_JOB, {"data": EXPECTED[(VIEWER, "u")]}),
    (
        VIEWER_JOB,
        {
            "data": {"viewer": {"id": "u", "payday": None, "scores": [1]}},
            "errors": [unavailable("viewer", "payday")],
        },
    ),
    (
        BOARD_JOB,
        {
            "data": {"users": [{"id": "a", "alert": None}, {"id": "b", "alert": None}]},
            "errors": [unavailable("users", 1, "alert"), unavailable("users", 0, "alert")],
        },
    ),
    (WRITE_JOB, {"data": {"recordLastPage": {"paveRequestId": "req-1", "page": 3}}}),
    (WRITE_JOB, {"data": {"recordLastPage": None}, "errors": [unavailable("recordLastPage")]}),
]

WRONG = [
    (VIEWER_JOB, {"data": None, "errors": [unavailable("viewer")]}, "blank answer"),
    (VIEWER_JOB, {"data": {"viewer": None}, "errors": [unavailable("viewer")]}, "blank"),
    (VIEWER_JOB, {"data": {"viewer": {"id": "u", "payday": None, "scores": [1]}}}, "differs"),
    (
        VIEWER_JOB,
        {
            "data": {"viewer": {"id": "u", "payday": None, "scores": []}},
            "errors": [unavailable("viewer", "payday")],
        },
        "differs at ('viewer', 'scores')",
    ),
    (
        VIEWER_JOB,
        {"data": EXPECTED[(VIEWER, "u")], "errors": [unavailable("viewer", "scores")]},
        "not null",
    ),
    (
        VIEWER_JOB,
        {
            "data": {"viewer": {"id": "u", "payday": None, "scores": [1]}},
            "errors": [{"path": ["viewer", "payday"], "extensions": {"code": "FORBIDDEN"}}],
        },
        "error FORBIDDEN",
    ),
    (BOARD_JOB, {"data": {"users": [None, {"id": "b", "alert": {"x": 1}}]}}, "null"),
    (WRITE_JOB, {"data": {"recordLastPage": {"paveRequestId": "req-1", "page": 4}}}, "wrote"),
]


@pytest.mark.parametrize(("job", "body"), RIGHT)
def test_a_right_answer_passes(job: Job, body: dict[str, Any]) -> None:
    assert verdict(job, body, EXPECTED) is None


@pytest.mark.parametrize(("job", "body", "why"), WRONG)
def test_a_wrong_answer_says_why(job: Job, body: dict[str, Any], why: str) -> None:
    reason = verdict(job, body, EXPECTED)
    assert reason is not None
    assert why in reason
