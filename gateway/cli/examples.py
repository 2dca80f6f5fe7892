"""Example queries: the documented ones (docs/schema.md, the README), and the one GraphiQL
opens on in the embedded mode.

Kept as code so that a test runs every one of them against the demo users and the docs
show them verbatim: an example that stops working fails the build.
"""

from __future__ import annotations

import json

#: A frontend reads the signed-in user's own data.
FRONTEND_QUERY = """\
query Frontend {
  viewer {
    id
    payday { predictionDate nextDate frequency source }
    savingsMonths(months: 3) {
      month
      totalAvailable
      accounts { accountId subtype amount }
    }
    alert { alertSent balanceSetting cooldownUntil }
    lowBalanceAlert
    recurringExpenses { merchantName amount dueDate category }
  }
}
"""

#: A dashboard (a token with the `dashboard` role) reads many users in one request.
DASHBOARD_QUERY = """\
query Dashboard($ids: [ID!]!) {
  users(ids: $ids) {
    id
    incomeVerification { verificationStatus isValid amountInCents lastUpdated }
    cashAdvanceScores(limit: 3) { score modelVersion scoredAt }
    incomeDetectionRuns(limit: 1) {
      runDate
      mlResultsUsed
      methodResults { method transactions { name amount date } }
    }
    latestMine { minedAt recurringCount ritualCount }
  }
}
"""


def dashboard_variables(user_ids: list[str]) -> dict[str, list[str]]:
    return {"ids": user_ids}


def demo_user_query(user_id: str) -> str:
    """The query GraphiQL opens on in the embedded mode: one demo user, most of its fields."""
    literal = json.dumps(user_id)  # a GraphQL string literal is a JSON string
    return f"""\
# A demo user of the embedded DynamoDB; the
# Headers tab below holds a ready token.
# Run: Ctrl-Enter. Complete: Ctrl-Space.
query DemoUser {{
  user(id: {literal}) {{
    id
    payday {{
      predictionDate
      nextDate
      fm {{ payday instantCollectionDate }}
    }}
    incomeVerification {{
      verificationStatus
      amountInCents
    }}
    savingsMonths(months: 2) {{
      month
      totalAvailable
    }}
    alert {{ alertSent cooldownUntil }}
    lowBalanceAlert
    recurringExpenses {{ merchantName dueDate }}
    cashAdvanceScores(limit: 2) {{ score scoredAt }}
  }}
}}
"""
