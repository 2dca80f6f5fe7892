"""The writes phase's judge (bench/load/writes.py): a key with its kind's items, one record
and the answers it recorded passes; a second effect, a missing one, a retried answer unlike
the first, or items that are not the ones the answer describes are each caught."""

from __future__ import annotations

import json
from typing import Any

from bench.load.write_jobs import WriteJob
from bench.load.write_judge import Outcome, WritesResult, judge_one
from loaders.tables import Table

STAMP = "2026-12-04T13:42:10.068209Z"
ANSWER = {"data": {"recordPaydayPrediction": {"loanId": "loan-1", "createdDate": STAMP}}}
JOB = WriteJob(1, "recordPaydayPrediction", "lw-00001", "key-1", {})
ROW = {"PK": "PAYDAY#lw-00001", "SK": "PREDICTION", "created_date": STAMP}
EVENT = {"PK": "USER#lw-00001", "SK": f"PAYDAY_PREDICTION#{STAMP}#ab", "created_at": STAMP}


def record(answer: Any = ANSWER) -> dict[str, Any]:
    return {"idempotency_key": "key-1", "answer": json.dumps(answer).encode()}


def judged(
    answers: list[Any],
    items: dict[Table, list[dict[str, Any]]],
    records: list[dict[str, Any]],
    job: WriteJob = JOB,
) -> WritesResult:
    result = WritesResult(1, 0.0, 0.0)
    outcome = Outcome(
        job, attempts=len(answers), answers=[(a, i > 0) for i, a in enumerate(answers)]
    )
    judge_one(outcome, items, records, result)
    return result


def test_one_effect_its_record_and_the_same_answer_pass() -> None:
    result = judged([ANSWER, ANSWER], {Table.PAVE: [ROW], Table.DATACAPTURE: [EVENT]}, [record()])
    assert (result.duplicated, result.lost, result.differing, result.unanswered) == ([], [], [], [])
    assert result.stamps_checked == 1


def test_a_second_capture_event_is_a_duplicate() -> None:
    second = {**EVENT, "SK": "PAYDAY_PREDICTION#later#cd"}
    result = judged([ANSWER], {Table.PAVE: [ROW], Table.DATACAPTURE: [EVENT, second]}, [record()])
    assert len(result.duplicated) == 1


def test_a_row_overwritten_by_a_second_run_is_a_duplicate() -> None:
    later = "2026-12-04T13:42:11.000001Z"
    items = {
        Table.PAVE: [{**ROW, "created_date": later}],
        Table.DATACAPTURE: [{**EVENT, "created_at": later}],
    }
    result = judged([ANSWER], items, [record()])
    assert result.duplicated == [
        f"recordPaydayPrediction lw-00001: answered ['{STAMP}'], not in its items"
    ]


def test_an_answered_write_without_its_record_or_items_is_lost() -> None:
    assert len(judged([ANSWER], {Table.PAVE: [ROW], Table.DATACAPTURE: [EVENT]}, []).lost) == 1
    assert len(judged([ANSWER], {Table.PAVE: [ROW]}, [record()]).lost) == 1


def test_a_retried_answer_unlike_the_first_and_an_unanswered_write_are_caught() -> None:
    other = {"data": {"recordPaydayPrediction": {"loanId": "loan-1", "createdDate": "x"}}}
    items = {Table.PAVE: [ROW], Table.DATACAPTURE: [EVENT]}
    assert len(judged([ANSWER, other], items, [record()]).differing) == 1
    assert len(judged([ANSWER], items, [record(other)]).differing) == 1
    assert len(judged([], {}, []).unanswered) == 1


def test_an_alert_answered_cooldown_was_run_twice() -> None:
    job = WriteJob(7, "evaluateBalanceAlert", "lw-00007", "key-1", {})
    answer = {"data": {"evaluateBalanceAlert": {"decision": "COOLDOWN", "alert": None}}}
    alert = {"PK": "USER#lw-00007", "SK": "ALERT"}
    result = judged([answer], {Table.PAVE: [alert]}, [record(answer)], job)
    assert result.duplicated == ["evaluateBalanceAlert lw-00007: answered COOLDOWN"]
