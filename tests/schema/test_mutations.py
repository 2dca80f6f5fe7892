"""Every mutation: the exact bytes it leaves in DynamoDB, what it answers, and that bad input
or a caller without `writer` writes nothing."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pytest

from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from loaders.tables import TableNames
from schema.context import Context, build_context
from schema.principal import DASHBOARD, WRITER, Principal
from support.fixed_clock import FixedClock
from tests.conftest import NOW, CallCounter, put_wire_items
from tests.schema.conftest import Execute, data_of
from tests.wire import n, s

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

WRITER_SERVICE = Principal(sub="svc-writer", roles=frozenset({WRITER}))
NOW_S = int(NOW.timestamp())
DAY = 86400


NULL = {"NULL": True}

# --- one document per mutation ---------------------------------------------------------

SELECTIONS = {
    "recordPaydayPrediction": """predictionDate detectionUsed nextDate source frequency loanId
        createdDate pave { payday } fm { payday frequency instantCollectionDate
        standardCollectionDate extendedCollectionDate } v2 { payday frequency }""",
    "setIncomeVerification": """txnName txnId amountInCents payFrequency institutionId
        verificationStatus isValid lastUpdated notes verificationSource""",
    "recordSavingsSnapshot": """month accounts { accountId amount subtype } totalAvailable
        updatedDate""",
    "evaluateBalanceAlert": """decision alert { alertSent updatedDate balanceSetting
        availableBalance currentBalance cooldownUntil }""",
    "markInsightsRefresh": "label updatedDate",
    "recordLastPage": "paveRequestId page updatedDate",
    "recordIncomeDetectionRun": """runDate methodResults { method transactions {
        transactionId name amount date } } mlEnabled mlResultsUsed mlPredictionId
        mlPredictions mlProbabilities""",
    "recordFloatMeV2Capture": "filteredTransactions { pk sk } predictedPayday { pk sk }",
}
INPUT_TYPES = {
    "recordPaydayPrediction": "RecordPaydayPredictionInput",
    "setIncomeVerification": "SetIncomeVerificationInput",
    "recordSavingsSnapshot": "RecordSavingsSnapshotInput",
    "evaluateBalanceAlert": "EvaluateBalanceAlertInput",
    "markInsightsRefresh": "MarkInsightsRefreshInput",
    "recordLastPage": "RecordLastPageInput",
    "recordIncomeDetectionRun": "RecordIncomeDetectionRunInput",
    "recordFloatMeV2Capture": "RecordFloatMeV2CaptureInput",
}


def document(mutation: str) -> str:
    return (
        f"mutation Write($input: {INPUT_TYPES[mutation]}!) "
        f"{{ {mutation}(input: $input) {{ {SELECTIONS[mutation]} }} }}"
    )


async def run(
    execute: Execute, mutation: str, input: dict[str, Any], principal: Principal = WRITER_SERVICE
) -> Any:
    return await execute(document(mutation), {"input": input}, principal)


def prediction(payday: str, **more: str | None) -> dict[str, Any]:
    return {"payday": payday, "frequency": "biweekly", **more}


def payday_input(**changes: Any) -> dict[str, Any]:
    return {
        "userId": "u-1",
        "loanId": "loan-9",
        "detectionUsed": "FLOATME_V2_PAYDAY_CALCULATION",
        "nextDate": "2026-12-11",
        "source": "ACME PAYROLL",
        "frequency": "biweekly",
        "pave": None,
        "fm": prediction("2026-12-12"),
        "v2": prediction(
            "2026-12-11",
            instantCollectionDate="2026-12-11",
            standardCollectionDate="2026-12-12",
            extendedCollectionDate="2026-12-14",
        ),
        "paveError": "no pave connection",
        **changes,
    }


def verification_input(**changes: Any) -> dict[str, Any]:
    return {
        "userId": "u-1",
        "txnName": "ACME PAYROLL",
        "txnId": "txn-77",
        "amountInCents": 254_321,
        "payFrequency": "biweekly",
        "institutionId": "ins-3",
        "verificationStatus": "approved",
        "isValid": True,
        "notes": ["matched two paychecks", "employer verified"],
        "verificationSource": "mx",
        **changes,
    }


def savings_input(**changes: Any) -> dict[str, Any]:
    return {
        "userId": "u-1",
        "accounts": [
            {"accountId": "acc-1", "amount": "1200.50", "subtype": "savings"},
            {"accountId": "acc-2", "amount": "99.99", "subtype": "checking"},
        ],
        **changes,
    }


def transaction(n: int, amount: str = "1500.00") -> dict[str, Any]:
    return {
        "transactionId": f"t-{n}",
        "name": "ACME PAYROLL",
        "amount": amount,
        "date": "2026-11-27",
    }


def detection_input(**changes: Any) -> dict[str, Any]:
    return {
        "userId": "u-1",
        "methodResults": [
            {"method": "a", "transactions": [transaction(1), transaction(2, "1499.5")]},
            {"method": "ml", "transactions": []},
        ],
        "mlEnabled": True,
        "mlResultsUsed": False,
        "mlPredictionId": "pred-5",
        "mlPredictions": ["t-1", "t-2"],
        "mlProbabilities": ["0.91", "0.20"],
        **changes,
    }


def capture_input(**changes: Any) -> dict[str, Any]:
    return {
        "userId": "u-1",
        "filteredTransactions": [transaction(1)],
        "predictedPayday": "2026-12-11",
        "frequency": "biweekly",
        **changes,
    }


async def get(dynamodb: DynamoDBClient, table: str, pk: str, sk: str | None = None) -> Any:
    key = {"PK": s(pk), "SK": s(sk)} if sk is not None else {"user_id": s(pk)}
    answer = await dynamodb.get_item(TableName=table, Key=key, ConsistentRead=True)
    return answer.get("Item")


async def partition(dynamodb: DynamoDBClient, table: str, pk: str) -> list[Any]:
    answer = await dynamodb.query(
        TableName=table,
        KeyConditionExpression="PK = :pk",
        ExpressionAttributeValues={":pk": s(pk)},
        ConsistentRead=True,
    )
    return answer["Items"]


async def count_items(dynamodb: DynamoDBClient, tables: TableNames) -> int:
    total = 0
    for name in tables.all().values():
        total += (await dynamodb.scan(TableName=name, Select="COUNT"))["Count"]
    return total


# --- what each mutation writes ---------------------------------------------------------


async def test_record_payday_prediction_writes_the_row_and_one_capture_event(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute
) -> None:
    result = await run(execute, "recordPaydayPrediction", payday_input())

    assert data_of(result)["recordPaydayPrediction"] == {
        "predictionDate": "2026-12-02",
        "detectionUsed": "FLOATME_V2_PAYDAY_CALCULATION",
        "nextDate": "2026-12-11",
        "source": "ACME PAYROLL",
        "frequency": "biweekly",
        "loanId": "loan-9",
        "createdDate": "2026-12-02T11:31:28Z",
        "pave": None,
        "fm": {
            "payday": "2026-12-12",
            "frequency": "biweekly",
            "instantCollectionDate": None,
            "standardCollectionDate": None,
            "extendedCollectionDate": None,
        },
        "v2": {"payday": "2026-12-11", "frequency": "biweekly"},
    }
    fm = {
        "payday": s("2026-12-12"),
        "frequency": s("biweekly"),
        "instant_collection_date": NULL,
        "standard_collection_date": NULL,
        "extended_collection_date": NULL,
    }
    v2 = {
        "payday": s("2026-12-11"),
        "frequency": s("biweekly"),
        "instant_collection_date": s("2026-12-11"),
        "standard_collection_date": s("2026-12-12"),
        "extended_collection_date": s("2026-12-14"),
    }
    assert await get(dynamodb, tables.pave, "PAYDAY#u-1", "PREDICTION") == {
        "PK": s("PAYDAY#u-1"),
        "SK": s("PREDICTION"),
        "type": s("payday"),
        "prediction_date": s("2026-12-02"),
        "detection_used": s("FLOATME_V2_PAYDAY_CALCULATION"),
        "next_date": s("2026-12-11"),
        "source": s("ACME PAYROLL"),
        "frequency": s("biweekly"),
        "loan_id": s("loan-9"),
        "created_date": s("2026-12-02T11:31:28Z"),
        "pave": NULL,
        "fm": {"M": fm},
        "v2": {"M": v2},
        "ttl": n(NOW_S + 2 * DAY),
    }
    [event] = await partition(dynamodb, tables.datacapture, "USER#u-1")
    assert re.fullmatch(
        r"PAYDAY_PREDICTION#2026-12-02T11:31:28\.000000Z#[0-9a-f]{8}", event["SK"]["S"]
    )
    assert {name: value for name, value in event.items() if name != "SK"} == {
        "PK": s("USER#u-1"),
        "event_name": s("PAYDAY_PREDICTION"),
        "user_id": s("u-1"),
        "created_at": s("2026-12-02T11:31:28Z"),
        "ttl": n(NOW_S + 2 * DAY),
        "payload": {
            "M": {
                "prediction_date": s("2026-12-02"),
                "loan_id": s("loan-9"),
                "detection_used": s("FLOATME_V2_PAYDAY_CALCULATION"),
                "used_v2": {"BOOL": True},
                "used_pave_v2": {"BOOL": False},
                "from_cache": {"BOOL": False},
                "next_date": s("2026-12-11"),
                "source": s("ACME PAYROLL"),
                "frequency": s("biweekly"),
                "pave": NULL,
                "pave_error": s("no pave connection"),
                "fm": {"M": fm},
                "fm_error": NULL,
                "v2": {"M": v2},
                "v2_error": NULL,
            }
        },
    }


async def test_each_payday_evaluation_adds_its_own_capture_event(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute
) -> None:
    await run(execute, "recordPaydayPrediction", payday_input())
    await run(execute, "recordPaydayPrediction", payday_input(loanId="loan-10"))

    events = await partition(dynamodb, tables.datacapture, "USER#u-1")
    assert len(events) == 2
    assert {e["payload"]["M"]["loan_id"]["S"] for e in events} == {"loan-9", "loan-10"}
    assert (await get(dynamodb, tables.pave, "PAYDAY#u-1", "PREDICTION"))["loan_id"] == s("loan-10")


async def test_set_income_verification_writes_the_row(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute
) -> None:
    result = await run(execute, "setIncomeVerification", verification_input())

    assert data_of(result)["setIncomeVerification"] == {
        "txnName": "ACME PAYROLL",
        "txnId": "txn-77",
        "amountInCents": 254321,
        "payFrequency": "biweekly",
        "institutionId": "ins-3",
        "verificationStatus": "approved",
        "isValid": True,
        "lastUpdated": "2026-12-02T11:31:28Z",
        "notes": ["matched two paychecks", "employer verified"],
        "verificationSource": "mx",
    }
    assert await get(dynamodb, tables.pave, "USERS#u-1", "VERIFICATION") == {
        "PK": s("USERS#u-1"),
        "SK": s("VERIFICATION"),
        "type": s("income_verification"),
        "txn_name": s("ACME PAYROLL"),
        "txn_id": s("txn-77"),
        "amount_in_cents": n(254321),
        "pay_frequency": s("biweekly"),
        "institution_id": s("ins-3"),
        "verification_status": s("approved"),
        "is_valid": {"BOOL": True},
        "last_updated": s("2026-12-02T11:31:28Z"),
        "notes": {"L": [s("matched two paychecks"), s("employer verified")]},
        "verification_source": s("mx"),
    }


async def test_income_verification_source_defaults_to_empty(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute
) -> None:
    given = verification_input(notes=[], verificationStatus="pending", isValid=False)
    del given["verificationSource"]
    await run(execute, "setIncomeVerification", given)

    item = await get(dynamodb, tables.pave, "USERS#u-1", "VERIFICATION")
    assert item["verification_source"] == s("")
    assert item["notes"] == {"L": []}
    assert item["is_valid"] == {"BOOL": False}


async def test_record_savings_snapshot_sums_the_accounts_into_this_month(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute
) -> None:
    result = await run(execute, "recordSavingsSnapshot", savings_input())

    assert data_of(result)["recordSavingsSnapshot"] == {
        "month": "2026-12",
        "accounts": [
            {"accountId": "acc-1", "amount": "1200.50", "subtype": "savings"},
            {"accountId": "acc-2", "amount": "99.99", "subtype": "checking"},
        ],
        "totalAvailable": "1300.49",
        "updatedDate": "2026-12-02T11:31:28Z",
    }
    assert await get(dynamodb, tables.pave, "USERS#u-1", "SAVINGS_MONTH#2026-12") == {
        "PK": s("USERS#u-1"),
        "SK": s("SAVINGS_MONTH#2026-12"),
        "type": s("balance"),
        "accounts": {
            "L": [
                {"M": {"account_id": s("acc-1"), "amount": n("1200.5"), "subtype": s("savings")}},
                {"M": {"account_id": s("acc-2"), "amount": n("99.99"), "subtype": s("checking")}},
            ]
        },
        "total_available": n("1300.49"),
        "updated_date": s("2026-12-02T11:31:28Z"),
        "ttl": n(NOW_S + 365 * DAY),
    }


async def test_record_savings_snapshot_takes_a_given_month_and_total(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute
) -> None:
    await run(
        execute, "recordSavingsSnapshot", savings_input(month="2026-10", totalAvailable="1000")
    )

    item = await get(dynamodb, tables.pave, "USERS#u-1", "SAVINGS_MONTH#2026-10")
    assert item["total_available"] == n("1000")


async def test_mark_insights_refresh_writes_the_label(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute
) -> None:
    result = await run(execute, "markInsightsRefresh", {"userId": "u-1"})

    assert data_of(result)["markInsightsRefresh"] == {
        "label": "REFRESH_INSIGHTS",
        "updatedDate": "2026-12-02T11:31:28Z",
    }
    assert await get(dynamodb, tables.pave, "LABEL#u-1", "PAVE#REFRESH_INSIGHTS") == {
        "PK": s("LABEL#u-1"),
        "SK": s("PAVE#REFRESH_INSIGHTS"),
        "type": s("pave_label"),
        "label": s("REFRESH_INSIGHTS"),
        "updated_date": s("2026-12-02T11:31:28Z"),
    }


def last_page_item(page: int, updated: str = "2026-12-02T11:31:28Z", ttl: int = 0) -> Any:
    return {
        "PK": s("USERS#u-1"),
        "SK": s("LAST_PAGE#REQUEST_ID#req-4"),
        "type": s("last_page"),
        "pave_request_id": s("req-4"),
        "page": n(page),
        "updated_date": s(updated),
        "ttl": n(ttl or NOW_S + 5 * DAY),
    }


async def test_record_last_page_writes_the_row(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute
) -> None:
    result = await run(
        execute, "recordLastPage", {"userId": "u-1", "paveRequestId": "req-4", "page": 3}
    )

    assert data_of(result)["recordLastPage"] == {
        "paveRequestId": "req-4",
        "page": 3,
        "updatedDate": "2026-12-02T11:31:28Z",
    }
    assert await get(
        dynamodb, tables.pave, "USERS#u-1", "LAST_PAGE#REQUEST_ID#req-4"
    ) == last_page_item(3)


@pytest.mark.parametrize("page", [7, 5])
async def test_record_last_page_never_lowers_the_page_and_answers_the_stored_row(
    dynamodb: DynamoDBClient,
    tables: TableNames,
    execute: Execute,
    dynamodb_calls: CallCounter,
    page: int,
) -> None:
    stored = last_page_item(7, updated="2026-12-01T09:00:00Z")
    await put_wire_items(dynamodb, tables.pave, [stored])
    dynamodb_calls.reset()

    result = await run(
        execute, "recordLastPage", {"userId": "u-1", "paveRequestId": "req-4", "page": page}
    )

    assert data_of(result)["recordLastPage"] == {
        "paveRequestId": "req-4",
        "page": 7,
        "updatedDate": "2026-12-01T09:00:00Z",
    }
    # One conditional put that changed nothing, one consistent read of the stored row.
    assert dict(dynamodb_calls.calls) == {"PutItem": 1, "GetItem": 1}
    assert await get(dynamodb, tables.pave, "USERS#u-1", "LAST_PAGE#REQUEST_ID#req-4") == stored


async def test_record_last_page_raises_the_page_and_replaces_an_expired_row(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute
) -> None:
    await put_wire_items(dynamodb, tables.pave, [last_page_item(2)])
    await run(execute, "recordLastPage", {"userId": "u-1", "paveRequestId": "req-4", "page": 8})
    assert await get(
        dynamodb, tables.pave, "USERS#u-1", "LAST_PAGE#REQUEST_ID#req-4"
    ) == last_page_item(8)

    # Expired (ttl at now) yet not deleted: for every reader it is gone, so a lower page wins.
    await put_wire_items(dynamodb, tables.pave, [last_page_item(9, ttl=NOW_S)])
    await run(execute, "recordLastPage", {"userId": "u-1", "paveRequestId": "req-4", "page": 1})
    assert await get(
        dynamodb, tables.pave, "USERS#u-1", "LAST_PAGE#REQUEST_ID#req-4"
    ) == last_page_item(1)


async def test_record_income_detection_run_writes_one_list_per_method(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute
) -> None:
    result = await run(execute, "recordIncomeDetectionRun", detection_input())

    assert data_of(result)["recordIncomeDetectionRun"] == {
        "runDate": "2026-12-02T11:31:28Z",
        "methodResults": [
            {
                "method": "a",
                "transactions": [
                    {
                        "transactionId": "t-1",
                        "name": "ACME PAYROLL",
                        "amount": "1500.00",
                        "date": "2026-11-27",
                    },
                    {
                        "transactionId": "t-2",
                        "name": "ACME PAYROLL",
                        "amount": "1499.50",
                        "date": "2026-11-27",
                    },
                ],
            },
            {"method": "ml", "transactions": []},
        ],
        "mlEnabled": True,
        "mlResultsUsed": False,
        "mlPredictionId": "pred-5",
        "mlPredictions": ["t-1", "t-2"],
        "mlProbabilities": ["0.91", "0.20"],
    }

    def detected(n: int, amount: str) -> Any:
        return {
            "M": {
                "transaction_id": s(f"t-{n}"),
                "name": s("ACME PAYROLL"),
                "amount": {"N": amount},
                "date": s("2026-11-27"),
            }
        }

    assert await get(
        dynamodb, tables.income_detection, "INCOME_DETECTION#u-1", "2026-12-02T11:31:28Z"
    ) == {
        "PK": s("INCOME_DETECTION#u-1"),
        "SK": s("2026-12-02T11:31:28Z"),
        "run_date": s("2026-12-02T11:31:28Z"),
        "method_a_results": {"L": [detected(1, "1500"), detected(2, "1499.5")]},
        "method_ml_results": {"L": []},
        "ml_enabled": {"BOOL": True},
        "ml_results_used": {"BOOL": False},
        "ml_prediction_id": s("pred-5"),
        "ml_predictions": {"L": [s("t-1"), s("t-2")]},
        "ml_probabilities": {"L": [n("0.91"), n("0.2")]},
        "ttl": n(NOW_S + 7 * DAY),
    }


async def test_record_income_detection_run_at_a_given_instant(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute
) -> None:
    await run(
        execute,
        "recordIncomeDetectionRun",
        detection_input(
            runDate="2026-12-01T10:00:00.5+01:00", mlPredictions=[], mlProbabilities=[]
        ),
    )

    [item] = await partition(dynamodb, tables.income_detection, "INCOME_DETECTION#u-1")
    assert item["SK"] == s("2026-12-01T09:00:00.5Z")
    assert item["run_date"] == s("2026-12-01T09:00:00.5Z")
    assert item["ttl"] == n(int(NOW.replace(day=8, hour=9, minute=0, second=0).timestamp()))


async def test_record_float_me_v2_capture_writes_the_days_two_rows(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute
) -> None:
    result = await run(execute, "recordFloatMeV2Capture", capture_input())

    assert data_of(result)["recordFloatMeV2Capture"] == {
        "filteredTransactions": {"pk": "USER#u-1", "sk": "FM_PAYDAY_FILTERED_TXNS#2026-12-02"},
        "predictedPayday": {"pk": "USER#u-1", "sk": "FM_PAYDAY_PREDICTED_PAYDAY#2026-12-02"},
    }
    common = {
        "PK": s("USER#u-1"),
        "user_id": s("u-1"),
        "created_at": s("2026-12-02T11:31:28Z"),
        "ttl": n(NOW_S + 2 * DAY),
    }
    filtered, predicted = await partition(dynamodb, tables.datacapture, "USER#u-1")
    assert filtered == {
        **common,
        "SK": s("FM_PAYDAY_FILTERED_TXNS#2026-12-02"),
        "event_name": s("FM_PAYDAY_FILTERED_TXNS"),
        "payload": {
            "M": {
                "transactions": {
                    "L": [
                        {
                            "M": {
                                "transaction_id": s("t-1"),
                                "name": s("ACME PAYROLL"),
                                "amount": n("1500"),
                                "date": s("2026-11-27"),
                            }
                        }
                    ]
                }
            }
        },
    }
    assert predicted == {
        **common,
        "SK": s("FM_PAYDAY_PREDICTED_PAYDAY#2026-12-02"),
        "event_name": s("FM_PAYDAY_PREDICTED_PAYDAY"),
        "payload": {"M": {"predicted_payday": s("2026-12-11"), "frequency": s("biweekly")}},
    }


async def test_a_second_float_me_capture_that_day_replaces_the_rows(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute
) -> None:
    await run(execute, "recordFloatMeV2Capture", capture_input())
    await run(execute, "recordFloatMeV2Capture", capture_input(frequency="weekly"))
    await run(execute, "recordFloatMeV2Capture", capture_input(date="2026-12-01"))

    rows = await partition(dynamodb, tables.datacapture, "USER#u-1")
    assert [row["SK"]["S"] for row in rows] == [
        "FM_PAYDAY_FILTERED_TXNS#2026-12-01",
        "FM_PAYDAY_FILTERED_TXNS#2026-12-02",
        "FM_PAYDAY_PREDICTED_PAYDAY#2026-12-01",
        "FM_PAYDAY_PREDICTED_PAYDAY#2026-12-02",
    ]
    assert rows[3]["payload"]["M"]["frequency"] == s("weekly")


# --- bad input writes nothing ----------------------------------------------------------

BAD_INPUTS: list[tuple[str, dict[str, Any], str]] = [
    ("recordPaydayPrediction", payday_input(userId=""), "userId"),
    ("recordPaydayPrediction", payday_input(loanId=" "), "loanId"),
    ("recordPaydayPrediction", payday_input(detectionUsed="GUESS"), "detectionUsed"),
    ("recordPaydayPrediction", payday_input(v2=None), "v2"),
    (
        "recordPaydayPrediction",
        payday_input(fm=prediction("2026-12-12") | {"frequency": ""}),
        "fm.frequency",
    ),
    ("recordPaydayPrediction", payday_input(frequency=""), "frequency"),
    ("recordPaydayPrediction", payday_input(source="x" * 1025), "source"),
    ("recordPaydayPrediction", payday_input(fmError="e" * 1025), "fmError"),
    ("setIncomeVerification", verification_input(verificationStatus="maybe"), "verificationStatus"),
    ("setIncomeVerification", verification_input(verificationSource="plaid"), "verificationSource"),
    ("setIncomeVerification", verification_input(amountInCents=-1), "amountInCents"),
    ("setIncomeVerification", verification_input(txnId=""), "txnId"),
    ("setIncomeVerification", verification_input(payFrequency=" "), "payFrequency"),
    ("setIncomeVerification", verification_input(notes=["n"] * 101), "notes"),
    ("setIncomeVerification", verification_input(notes=["ok", "x" * 1025]), "notes[1]"),
    ("setIncomeVerification", verification_input(userId="u\n1"), "userId"),
    ("recordSavingsSnapshot", savings_input(month="2026-13"), "month"),
    ("recordSavingsSnapshot", savings_input(month="2027-01"), "month"),
    ("recordSavingsSnapshot", savings_input(totalAvailable="10.001"), "totalAvailable"),
    (
        "recordSavingsSnapshot",
        savings_input(accounts=[{"accountId": "a", "amount": "0.005", "subtype": "s"}]),
        "accounts[0].amount",
    ),
    (
        "recordSavingsSnapshot",
        savings_input(accounts=[{"accountId": "", "amount": "1", "subtype": "s"}]),
        "accounts[0].accountId",
    ),
    (
        "recordSavingsSnapshot",
        savings_input(accounts=[{"accountId": "a", "amount": "1", "subtype": "s"}] * 2),
        "accounts",
    ),
    (
        "recordSavingsSnapshot",
        savings_input(
            accounts=[{"accountId": f"a{i}", "amount": "1", "subtype": "s"} for i in range(101)]
        ),
        "accounts",
    ),
    (
        "evaluateBalanceAlert",
        {"userId": "u-1", "availableBalance": "1.234", "currentBalance": "2"},
        "availableBalance",
    ),
    (
        "evaluateBalanceAlert",
        {"userId": "u-1", "availableBalance": "1", "currentBalance": "NaN"},
        "currentBalance",
    ),
    (
        "evaluateBalanceAlert",
        {"userId": "", "availableBalance": "1", "currentBalance": "2"},
        "userId",
    ),
    ("markInsightsRefresh", {"userId": "  "}, "userId"),
    ("recordLastPage", {"userId": "u-1", "paveRequestId": "", "page": 1}, "paveRequestId"),
    ("recordLastPage", {"userId": "u-1", "paveRequestId": "r", "page": -1}, "page"),
    ("recordIncomeDetectionRun", detection_input(runDate="2026-12-03T00:00:00Z"), "runDate"),
    ("recordIncomeDetectionRun", detection_input(runDate="2026-11-25T11:31:28Z"), "runDate"),
    (
        "recordIncomeDetectionRun",
        detection_input(methodResults=[{"method": "Method A", "transactions": []}]),
        "methodResults[0].method",
    ),
    (
        "recordIncomeDetectionRun",
        detection_input(methodResults=[{"method": "a", "transactions": []}] * 2),
        "methodResults[1].method",
    ),
    (
        "recordIncomeDetectionRun",
        detection_input(
            methodResults=[{"method": "b", "transactions": [transaction(1, "12.345")]}]
        ),
        "methodResults[0].transactions[0].amount",
    ),
    (
        "recordIncomeDetectionRun",
        detection_input(methodResults=[{"method": "b", "transactions": [transaction(1)] * 501}]),
        "methodResults[0].transactions",
    ),
    ("recordIncomeDetectionRun", detection_input(mlProbabilities=["0.9"]), "mlProbabilities"),
    (
        "recordIncomeDetectionRun",
        detection_input(mlProbabilities=["0.9", "1.5"]),
        "mlProbabilities[1]",
    ),
    ("recordIncomeDetectionRun", detection_input(mlPredictions=["t-1", ""]), "mlPredictions[1]"),
    ("recordFloatMeV2Capture", capture_input(date="2026-12-03"), "date"),
    ("recordFloatMeV2Capture", capture_input(frequency=""), "frequency"),
    (
        "recordFloatMeV2Capture",
        capture_input(filteredTransactions=[transaction(1) | {"transactionId": ""}]),
        "filteredTransactions[0].transactionId",
    ),
]


@pytest.mark.parametrize(
    ("mutation", "input", "field"),
    BAD_INPUTS,
    ids=[f"{mutation}-{field}" for mutation, _, field in BAD_INPUTS],
)
async def test_bad_input_is_refused_naming_the_field_and_writes_nothing(
    dynamodb: DynamoDBClient,
    tables: TableNames,
    execute: Execute,
    dynamodb_calls: CallCounter,
    mutation: str,
    input: dict[str, Any],
    field: str,
) -> None:
    result = await run(execute, mutation, input)

    assert result.data == {mutation: None}
    assert result.errors is not None
    [error] = result.errors
    assert error.extensions == {"code": "BAD_USER_INPUT", "field": field}
    assert dynamodb_calls.total == 0
    assert await count_items(dynamodb, tables) == 0


UNCOERCIBLE: list[tuple[str, dict[str, Any]]] = [
    ("recordPaydayPrediction", payday_input(nextDate="2026-02-30")),
    ("recordPaydayPrediction", payday_input(v2=prediction("2026-13-01"))),
    ("recordSavingsSnapshot", savings_input(totalAvailable="lots")),
    ("recordIncomeDetectionRun", detection_input(runDate="yesterday")),
    ("recordFloatMeV2Capture", capture_input(predictedPayday="2026-12-32")),
    ("setIncomeVerification", verification_input(amountInCents="many")),
    ("recordLastPage", {"userId": "u-1", "paveRequestId": "r"}),
]


@pytest.mark.parametrize(("mutation", "input"), UNCOERCIBLE)
async def test_input_that_does_not_coerce_is_bad_user_input_and_writes_nothing(
    execute: Execute, dynamodb_calls: CallCounter, mutation: str, input: dict[str, Any]
) -> None:
    result = await run(execute, mutation, input)

    assert result.data is None
    assert result.errors is not None
    [error] = result.errors
    assert error.extensions == {"code": "BAD_USER_INPUT"}
    assert dynamodb_calls.total == 0


@pytest.mark.parametrize(
    ("mutation", "input"),
    [
        ("recordPaydayPrediction", payday_input()),
        ("setIncomeVerification", verification_input()),
        ("recordSavingsSnapshot", savings_input()),
        ("evaluateBalanceAlert", {"userId": "u-1", "availableBalance": "1", "currentBalance": "2"}),
        ("markInsightsRefresh", {"userId": "u-1"}),
        ("recordLastPage", {"userId": "u-1", "paveRequestId": "r", "page": 1}),
        ("recordIncomeDetectionRun", detection_input()),
        ("recordFloatMeV2Capture", capture_input()),
    ],
)
@pytest.mark.parametrize(
    "principal",
    [Principal("u-1"), Principal("dash-1", frozenset({"dashboard"}))],
    ids=["end-user", "dashboard"],
)
async def test_mutations_need_the_writer_role(
    execute: Execute,
    dynamodb_calls: CallCounter,
    mutation: str,
    input: dict[str, Any],
    principal: Principal,
) -> None:
    result = await run(execute, mutation, input, principal)

    assert result.data == {mutation: None}
    assert result.errors is not None
    [error] = result.errors
    assert error.extensions == {"code": "FORBIDDEN"}
    assert error.path == [mutation]
    assert dynamodb_calls.total == 0


# --- a later read in the same request sees the write -----------------------------------

# Two prefix Queries of USERS#u-1: the access plan reads that partition whole, so the writes
# must reach the collected partition too, not only the point and query caches.
READ_BACK = """{ user(id: "u-1") { payday { loanId } incomeVerification { verificationStatus }
    savingsMonths(months: 1) { totalAvailable } paveLabel { label } lastPages { page }
    recurringExpenses { merchantName } incomeDetectionRuns { mlPredictionId }
    alert { alertSent } } }"""


async def test_reads_later_in_the_request_see_the_writes(
    gateway_schema: Any,
    settings: Settings,
    dynamo: Dynamo,
    clock: FixedClock,
    dynamodb: DynamoDBClient,
    tables: TableNames,
) -> None:
    await put_wire_items(
        dynamodb, tables.balance_settings, [{"user_id": s("u-1"), "low_balance_alert": n(50)}]
    )
    writer_and_reader = Principal("svc-writer", frozenset({WRITER, DASHBOARD}))
    context: Context = build_context(dynamo=dynamo, principal=writer_and_reader, clock=clock)

    async def execute_here(query: str, variables: dict[str, Any] | None = None) -> Any:
        result = await gateway_schema.execute(
            query, variable_values=variables, context_value=context
        )
        return data_of(result)

    # First read: everything absent, and now cached in the request's loaders.
    before = await execute_here(READ_BACK)
    assert before["user"]["payday"] is None

    writes = [
        ("recordPaydayPrediction", payday_input()),
        ("setIncomeVerification", verification_input()),
        ("recordSavingsSnapshot", savings_input()),
        ("markInsightsRefresh", {"userId": "u-1"}),
        ("recordLastPage", {"userId": "u-1", "paveRequestId": "req-4", "page": 3}),
        ("recordIncomeDetectionRun", detection_input()),
        (
            "evaluateBalanceAlert",
            {"userId": "u-1", "availableBalance": "10", "currentBalance": "12"},
        ),
    ]
    for mutation, input in writes:
        await execute_here(document(mutation), {"input": input})

    after = await execute_here(READ_BACK)
    assert after == {
        "user": {
            "payday": {"loanId": "loan-9"},
            "incomeVerification": {"verificationStatus": "approved"},
            "savingsMonths": [{"totalAvailable": "1300.49"}],
            "paveLabel": {"label": "REFRESH_INSIGHTS"},
            "lastPages": [{"page": 3}],
            "recurringExpenses": [],
            "incomeDetectionRuns": [{"mlPredictionId": "pred-5"}],
            "alert": {"alertSent": True},
        }
    }
