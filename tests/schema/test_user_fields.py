"""Every User field, read from items written in the contract's exact wire form."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from loaders.tables import TableNames
from tests.conftest import NOW, put_wire_items
from tests.schema.conftest import Execute, data_of
from tests.wire import n, s

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

NOW_S = int(NOW.timestamp())
DAY = 86400


def prediction(payday: str) -> dict[str, Any]:
    return {
        "M": {
            "payday": s(payday),
            "frequency": s("biweekly"),
            "instant_collection_date": s(payday),
            "standard_collection_date": s("2026-12-12"),
            "extended_collection_date": s("2026-12-14"),
        }
    }


def payday_item(user: str, prediction_date: str) -> dict[str, Any]:
    return {
        "PK": s(f"PAYDAY#{user}"),
        "SK": s("PREDICTION"),
        "type": s("payday"),
        "prediction_date": s(prediction_date),
        "detection_used": s("FLOATME_V2_PAYDAY_CALCULATION"),
        "next_date": s("2026-12-11"),
        "source": s("ACME PAYROLL"),
        "frequency": s("biweekly"),
        "loan_id": s("loan-9"),
        "created_date": s(f"{prediction_date}T08:00:00Z"),
        "pave": {"NULL": True},
        "fm": prediction("2026-12-11"),
        "v2": prediction("2026-12-11"),
        "ttl": n(NOW_S + 2 * DAY),
    }


async def test_payday_is_served_only_on_its_utc_day(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute
) -> None:
    await put_wire_items(
        dynamodb,
        tables.pave,
        [payday_item("today", "2026-12-02"), payday_item("yesterday", "2026-12-01")],
    )
    query = """
      query($id: ID!) { user(id: $id) { id payday {
        predictionDate detectionUsed nextDate source frequency loanId createdDate
        pave { payday } fm { payday frequency instantCollectionDate standardCollectionDate
        extendedCollectionDate } v2 { payday } } } }
    """
    today = data_of(await execute(query, {"id": "today"}))
    assert today == {
        "user": {
            "id": "today",
            "payday": {
                "predictionDate": "2026-12-02",
                "detectionUsed": "FLOATME_V2_PAYDAY_CALCULATION",
                "nextDate": "2026-12-11",
                "source": "ACME PAYROLL",
                "frequency": "biweekly",
                "loanId": "loan-9",
                "createdDate": "2026-12-02T08:00:00Z",
                "pave": None,
                "fm": {
                    "payday": "2026-12-11",
                    "frequency": "biweekly",
                    "instantCollectionDate": "2026-12-11",
                    "standardCollectionDate": "2026-12-12",
                    "extendedCollectionDate": "2026-12-14",
                },
                "v2": {"payday": "2026-12-11"},
            },
        }
    }
    yesterday = data_of(await execute(query, {"id": "yesterday"}))
    assert yesterday == {"user": {"id": "yesterday", "payday": None}}


async def test_income_verification_alert_label_income_and_settings(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute
) -> None:
    await put_wire_items(
        dynamodb,
        tables.pave,
        [
            {
                "PK": s("USERS#u-1"),
                "SK": s("VERIFICATION"),
                "type": s("income_verification"),
                "txn_name": s("ACME PAYROLL"),
                "txn_id": s("txn-1"),
                "amount_in_cents": n(184250),
                "pay_frequency": s("biweekly"),
                "institution_id": s("ins_1"),
                "verification_status": s("approved"),
                "is_valid": {"BOOL": True},
                "last_updated": s("2026-11-30T10:00:00.250Z"),
                "notes": {"L": [s("two deposits"), s("same employer")]},
                "verification_source": s(""),
            },
            {
                "PK": s("USERS#u-1"),
                "SK": s("ALERT#u-1"),
                "type": s("alert"),
                "alert_sent": {"BOOL": True},
                "updated_date": s("2026-11-30T10:00:00Z"),
                "balance_setting": n("100.00"),
                "available_balance": n("84.2"),
                "current_balance": n("96.10"),
            },
            {
                "PK": s("LABEL#u-1"),
                "SK": s("PAVE#REFRESH_INSIGHTS"),
                "type": s("pave_label"),
                "label": s("REFRESH_INSIGHTS"),
                "updated_date": s("2026-12-02T09:00:00+02:00"),
            },
            {
                "PK": s("USERS#u-1"),
                "SK": s("INCOME#u-1"),
                "type": s("income"),
                "source": s("ACME PAYROLL"),
                "amount": n("1842.50"),
                "frequency": s("biweekly"),
                "next_date": s("2026-12-11"),
                "updated_date": s("2026-12-01T00:00:00Z"),
            },
        ],
    )
    await put_wire_items(
        dynamodb,
        tables.balance_settings,
        [
            {"user_id": s("u-1"), "low_balance_alert": n("100.5")},
            {"user_id": s("u-null"), "low_balance_alert": {"NULL": True}},
        ],
    )
    query = """
      query { users(ids: ["u-1", "u-null", "nobody"]) { id
        incomeVerification { txnName txnId amountInCents payFrequency institutionId
          verificationStatus isValid lastUpdated notes verificationSource }
        alert { alertSent updatedDate balanceSetting availableBalance currentBalance
          cooldownUntil }
        paveLabel { label updatedDate }
        income { source amount frequency nextDate updatedDate }
        lowBalanceAlert } }
    """
    users = data_of(await execute(query))["users"]
    assert users[0] == {
        "id": "u-1",
        "incomeVerification": {
            "txnName": "ACME PAYROLL",
            "txnId": "txn-1",
            "amountInCents": 184250,
            "payFrequency": "biweekly",
            "institutionId": "ins_1",
            "verificationStatus": "approved",
            "isValid": True,
            "lastUpdated": "2026-11-30T10:00:00.25Z",
            "notes": ["two deposits", "same employer"],
            "verificationSource": "",
        },
        "alert": {
            "alertSent": True,
            "updatedDate": "2026-11-30T10:00:00Z",
            "balanceSetting": "100.00",
            "availableBalance": "84.20",
            "currentBalance": "96.10",
            "cooldownUntil": "2026-12-07T10:00:00Z",
        },
        "paveLabel": {"label": "REFRESH_INSIGHTS", "updatedDate": "2026-12-02T07:00:00Z"},
        "income": {
            "source": "ACME PAYROLL",
            "amount": "1842.50",
            "frequency": "biweekly",
            "nextDate": "2026-12-11",
            "updatedDate": "2026-12-01T00:00:00Z",
        },
        "lowBalanceAlert": "100.50",
    }
    empty = {
        "incomeVerification": None,
        "alert": None,
        "paveLabel": None,
        "income": None,
        "lowBalanceAlert": None,
    }
    assert users[1] == {"id": "u-null", **empty}
    assert users[2] == {"id": "nobody", **empty}


def balance_item(user: str, month: str, total: str, ttl: int) -> dict[str, Any]:
    return {
        "PK": s(f"USERS#{user}"),
        "SK": s(f"SAVINGS_MONTH#{month}"),
        "type": s("balance"),
        "accounts": {
            "L": [{"M": {"account_id": s("acc-1"), "amount": n(total), "subtype": s("checking")}}]
        },
        "total_available": n(total),
        "updated_date": s(f"{month}-01T00:00:00Z"),
        "ttl": n(ttl),
    }


async def test_savings_months_window_skips_missing_and_expired_months(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute
) -> None:
    alive = NOW_S + 300 * DAY
    await put_wire_items(
        dynamodb,
        tables.pave,
        [
            balance_item("u-1", "2026-12", "10.00", alive),
            # 2026-11 has no row; 2026-10 expires exactly now; 2026-09 is outside 3 months.
            balance_item("u-1", "2026-10", "30.00", NOW_S),
            balance_item("u-1", "2026-09", "40.00", alive),
            balance_item("u-1", "2026-08", "50.00", alive),
            balance_item("u-1", "2025-12", "60.00", alive),
        ],
    )
    query = """
      query($m: Int!) { user(id: "u-1") { savingsMonths(months: $m) {
        month totalAvailable accounts { accountId amount subtype } updatedDate } } }
    """
    three = data_of(await execute(query, {"m": 3}))["user"]["savingsMonths"]
    assert three == [
        {
            "month": "2026-12",
            "totalAvailable": "10.00",
            "accounts": [{"accountId": "acc-1", "amount": "10.00", "subtype": "checking"}],
            "updatedDate": "2026-12-01T00:00:00Z",
        }
    ]
    twelve = data_of(await execute(query, {"m": 12}))["user"]["savingsMonths"]
    assert [month["month"] for month in twelve] == ["2026-12", "2026-09", "2026-08"]
    default = data_of(await execute('{ user(id: "u-1") { savingsMonths { month } } }'))
    assert default == {"user": {"savingsMonths": [{"month": "2026-12"}]}}


def expense_item(
    kind: str, user: str, mine: str, merchant: str, name: str, due: str, ttl: int
) -> dict[str, Any]:
    merchant_attribute = "merchant_uuid" if kind == "RECURRING" else "merchant_id"
    item = {
        "PK": s(f"USERS#{user}"),
        "SK": s(f"{kind}#{mine}#MERCHANT#{merchant}#monthly#15.49"),
        "type": s("recurring" if kind == "RECURRING" else "ritual"),
        "last_mine": s(mine),
        merchant_attribute: s(merchant),
        "merchant_name": s(name),
        "frequency": s("monthly"),
        "amount": n("15.49"),
        "due_date": s(due),
        "ttl": n(ttl),
    }
    if name == "Netflix":
        item["category"] = s("entertainment")
    return item


def mine_item(user: str, at: str) -> dict[str, Any]:
    return {
        "PK": s(f"MINE#{user}"),
        "SK": s(f"TIME#{at}"),
        "type": s("insights"),
        "mined_at": s(at),
        "recurring_count": n(2),
        "ritual_count": n(1),
    }


async def test_expenses_come_from_the_latest_mine_only_in_due_date_then_name_order(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute
) -> None:
    latest, older = "2026-12-01T06:00:00Z", "2026-11-20T06:00:00Z"
    alive = NOW_S + 30 * DAY
    await put_wire_items(
        dynamodb,
        tables.pave,
        [
            mine_item("u-1", older),
            mine_item("u-1", latest),
            expense_item("RECURRING", "u-1", latest, "m-3", "Zen Gym", "2026-12-05", alive),
            expense_item("RECURRING", "u-1", latest, "m-2", "City Power", "2026-12-09", alive),
            expense_item("RECURRING", "u-1", latest, "m-1", "Netflix", "2026-12-05", alive),
            expense_item("RECURRING", "u-1", latest, "m-4", "Expired", "2026-12-01", NOW_S),
            expense_item("RECURRING", "u-1", older, "m-9", "Old Mine", "2026-12-03", alive),
            expense_item("RITUAL", "u-1", latest, "r-1", "Coffee", "2026-12-03", alive),
            expense_item("RITUAL", "u-1", older, "r-2", "Old Coffee", "2026-12-03", alive),
            # A user with expenses but no mine row at all.
            expense_item("RECURRING", "u-2", latest, "m-1", "Netflix", "2026-12-05", alive),
        ],
    )
    query = """
      query($id: ID!) { user(id: $id) {
        latestMine { minedAt recurringCount ritualCount }
        recurringExpenses { lastMine merchantUuid merchantName frequency amount dueDate category }
        rituals { merchantId merchantName dueDate category } } }
    """
    user = data_of(await execute(query, {"id": "u-1"}))["user"]
    assert user["latestMine"] == {
        "minedAt": latest,
        "recurringCount": 2,
        "ritualCount": 1,
    }
    assert user["recurringExpenses"] == [
        {
            "lastMine": latest,
            "merchantUuid": "m-1",
            "merchantName": "Netflix",
            "frequency": "monthly",
            "amount": "15.49",
            "dueDate": "2026-12-05",
            "category": "entertainment",
        },
        {
            "lastMine": latest,
            "merchantUuid": "m-3",
            "merchantName": "Zen Gym",
            "frequency": "monthly",
            "amount": "15.49",
            "dueDate": "2026-12-05",
            "category": None,
        },
        {
            "lastMine": latest,
            "merchantUuid": "m-2",
            "merchantName": "City Power",
            "frequency": "monthly",
            "amount": "15.49",
            "dueDate": "2026-12-09",
            "category": None,
        },
    ]
    assert user["rituals"] == [
        {"merchantId": "r-1", "merchantName": "Coffee", "dueDate": "2026-12-03", "category": None}
    ]
    no_mine = data_of(await execute(query, {"id": "u-2"}))["user"]
    assert no_mine == {"latestMine": None, "recurringExpenses": [], "rituals": []}


async def test_scores_runs_and_last_pages_newest_first_with_limits(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute
) -> None:
    scores = [
        {
            "PK": s("USERS#u-1"),
            "SK": s(f"CASH_ADVANCE_SCORE#2026-12-0{day}T00:00:00Z"),
            "type": s("scores"),
            "score": n(f"0.{day}5"),
            "model_version": s("ca-1"),
            "scored_at": s(f"2026-12-0{day}T00:00:00Z"),
            "ttl": n(NOW_S if day == 2 else NOW_S + DAY),
        }
        for day in (1, 2, 3)
    ]
    pages = [
        {
            "PK": s("USERS#u-1"),
            "SK": s(f"LAST_PAGE#REQUEST_ID#{request}"),
            "type": s("last_page"),
            "pave_request_id": s(request),
            "page": n(page),
            "updated_date": s("2026-12-02T10:00:00Z"),
            "ttl": n(ttl),
        }
        for request, page, ttl in (("req-a", 4, NOW_S + 1), ("req-b", 7, NOW_S - 1))
    ]
    await put_wire_items(dynamodb, tables.pave, scores + pages)
    runs = [
        {
            "PK": s("INCOME_DETECTION#u-1"),
            "SK": s(at),
            "run_date": s(at),
            "method_a_results": {
                "L": [
                    {
                        "M": {
                            "transaction_id": s("t-1"),
                            "name": s("ACME"),
                            "amount": n("1842.50"),
                            "date": s("2026-11-28"),
                        }
                    }
                ]
            },
            "method_ml_results": {"L": []},
            "ml_enabled": {"BOOL": True},
            "ml_results_used": {"BOOL": False},
            "ml_prediction_id": s("p-1"),
            "ml_predictions": {"L": [s("t-1"), s("t-2")]},
            "ml_probabilities": {"L": [n("0.97"), n("0.5")]},
            "ttl": n(NOW_S + DAY),
        }
        for at in ("2026-11-30T00:00:00Z", "2026-12-01T00:00:00Z")
    ]
    await put_wire_items(dynamodb, tables.income_detection, runs)
    query = """
      query($limit: Int!) { user(id: "u-1") {
        cashAdvanceScores(limit: $limit) { score modelVersion scoredAt }
        incomeDetectionRuns(limit: $limit) { runDate mlEnabled mlResultsUsed mlPredictionId
          mlPredictions mlProbabilities
          methodResults { method transactions { transactionId name amount date } } }
        lastPages { paveRequestId page updatedDate } } }
    """
    user = data_of(await execute(query, {"limit": 1}))["user"]
    assert user["cashAdvanceScores"] == [
        {"score": "0.35", "modelVersion": "ca-1", "scoredAt": "2026-12-03T00:00:00Z"}
    ]
    assert user["incomeDetectionRuns"] == [
        {
            "runDate": "2026-12-01T00:00:00Z",
            "mlEnabled": True,
            "mlResultsUsed": False,
            "mlPredictionId": "p-1",
            "mlPredictions": ["t-1", "t-2"],
            "mlProbabilities": ["0.97", "0.50"],
            "methodResults": [
                {
                    "method": "a",
                    "transactions": [
                        {
                            "transactionId": "t-1",
                            "name": "ACME",
                            "amount": "1842.50",
                            "date": "2026-11-28",
                        }
                    ],
                },
                {"method": "ml", "transactions": []},
            ],
        }
    ]
    assert user["lastPages"] == [
        {"paveRequestId": "req-a", "page": 4, "updatedDate": "2026-12-02T10:00:00Z"}
    ]
    # The score expiring exactly now is skipped: limit 10 finds the two live ones.
    wide = data_of(await execute(query, {"limit": 10}))["user"]
    assert [score["scoredAt"] for score in wide["cashAdvanceScores"]] == [
        "2026-12-03T00:00:00Z",
        "2026-12-01T00:00:00Z",
    ]
    assert [run["runDate"] for run in wide["incomeDetectionRuns"]] == [
        "2026-12-01T00:00:00Z",
        "2026-11-30T00:00:00Z",
    ]
