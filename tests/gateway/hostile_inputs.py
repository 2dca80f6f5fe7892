"""Hypothesis strategies of hostile input (documents, variables, frames), the contract's
error codes, and the bound on how long one request may hold the event loop.

`INSIGHT_HOSTILE_EXAMPLES` sets how many examples each property test draws (a few dozen
in `make test`, thousands under `make fuzz`).
"""

from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("INSIGHT_HOSTILE_EXAMPLES", "25"))

#: SPEC.md section 4's codes and docs/errors.md's: every error a client reads carries one.
CONTRACT_CODES = frozenset(
    {
        "UNAUTHENTICATED",
        "FORBIDDEN",
        "BAD_USER_INPUT",
        "QUERY_TOO_COMPLEX",
        "DYNAMODB_UNAVAILABLE",
        "BAD_REQUEST",
        "PERSISTED_QUERY_NOT_FOUND",
        "PERSISTED_QUERY_NOT_SUPPORTED",
        "PERSISTED_QUERY_NOT_IN_LIST",
        "RATE_LIMITED",
        "IDEMPOTENCY_KEY_REUSED",
        "IDEMPOTENCY_KEY_REQUIRED",
        "GRAPHQL_PARSE_FAILED",
        "GRAPHQL_VALIDATION_FAILED",
        "INTERNAL_SERVER_ERROR",
    }
)

#: The longest the event loop may be held by one callback while a request is served, in
#: CPU seconds of the loop's thread (tests/gateway/loop_hold.py).
#:
#: What the limits admit is measured by `python -m bench hostile`: under the default limits
#: (2,000 tokens, 1,000 selections, 1,000 overlapping pairs, a fragment chain of 50) the
#: worst document costs about 22 ms of measures and validation (844 selections, nothing
#: repeated; repeated shapes 7 ms at most), and the rest of a request's synchronous work
#: (parsing at most 2,000 tokens, completing at most 1,000 selections, encoding the answer)
#: is of the same order: the longest callback over 3,000 generated requests took 23 ms on
#: this 2-core machine. 0.25 s leaves 10x for a slower or busier CPU (thread CPU time is
#: not inflated by other processes taking the core, only by caches and clock speed), and a
#: hold past it is tried again before it fails (test_hostile_fuzz.py's `send`). The other
#: side has the same margin: `test_the_probe_sees_an_unbounded_document` holds the loop
#: 12-13x past the bound with one unbounded document, so neither side fails on a busy
#: machine (docs/development.md, "Tests that read a clock").
LOOP_HOLD_BOUND = 0.25

#: Field names the schema has, and some it has not.
FIELDS = [
    "viewer",
    "user",
    "users",
    "id",
    "__typename",
    "payday",
    "nextDate",
    "lowBalanceAlert",
    "cashAdvanceScores",
    "score",
    "savingsMonths",
    "accounts",
    "alert",
    "__schema",
    "__type",
    "types",
    "name",
    "nope",
    "x",
]
ARGUMENTS = [
    "",
    "(ids: $ids)",
    '(id: "u-1")',
    "(limit: $l)",
    "(limit: 100.0)",
    "(limit: 99999999999999999999999)",
    "(months: -1)",
    '(ids: ["u-1", "u-1"])',
    "(ids: [])",
    '(x: "\\ud800")',
    "(limit: 1e999)",
    "(limit: " + "9" * 5000 + ")",
]
TYPES = ["User", "Query", "Payday", "Nope"]


def _selection(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    alias = st.sampled_from(["", "a: ", "b: ", "viewer: ", "id: "])
    field = st.builds(
        lambda a, f, arg, sub: f"{a}{f}{arg}{' { ' + sub + ' }' if sub else ''}",
        alias,
        st.sampled_from(FIELDS),
        st.sampled_from(ARGUMENTS),
        st.one_of(st.just(""), inner),
    )
    inline = st.builds(lambda t, sub: f"... on {t} {{ {sub} }}", st.sampled_from(TYPES), inner)
    spread = st.sampled_from(["...F", "...G", "...Missing", "...F @include(if: $b)"])
    return st.one_of(field, inline, spread)


def _selections(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.lists(_selection(inner), min_size=1, max_size=6).map(" ".join)


SELECTIONS = st.recursive(
    st.sampled_from(["id", "__typename", "nope", "viewer", "...F"]), _selections, max_leaves=30
)

OPERATION_HEADS = [
    "",
    "query ",
    "query Q ",
    "query($ids: [ID!]!, $l: Int, $b: Boolean!) ",
    "query Q($l: Int) ",
    "mutation ",
    "subscription ",
    "query($x: Nope) ",
]
FRAGMENTS = [
    "",
    " fragment F on User { id }",
    " fragment F on User { ...G } fragment G on User { ...F }",
    " fragment F on Query { viewer { id } }",
    " fragment G on Nope { x }",
]

STRUCTURED = st.builds(
    lambda head, body, fragment, extra: f"{head}{{ {body} }}{fragment}{extra}",
    st.sampled_from(OPERATION_HEADS),
    SELECTIONS,
    st.sampled_from(FRAGMENTS),
    st.sampled_from(["", " query Other { viewer { id } }", " { viewer { id } }"]),
)

U = "id payday { nextDate } alert { alertSent } lowBalanceAlert"
#: The shapes the limits exist for: deep, wide, aliased, spread, chained, each at sizes on
#: both sides of its limit.
SHAPES = st.one_of(
    st.integers(1, 400).map(lambda n: "{ " + "viewer { " * n + "id" + " }" * n + " }"),
    st.integers(1, 700).map(lambda n: "{ " + "viewer { __typename } " * n + "}"),
    st.integers(1, 60).map(
        lambda n: "{ " + " ".join(f"a{i}: viewer {{ {U} }}" for i in range(n)) + " }"
    ),
    st.integers(1, 700).map(
        lambda n: "{ viewer { " + "...F " * n + "} } fragment F on User { id }"
    ),
    st.integers(1, 300).map(
        lambda n: (
            "{ viewer { ...F0 } } "
            + " ".join(f"fragment F{i} on User {{ ...F{i + 1} }}" for i in range(n))
            + f" fragment F{n} on User {{ id }}"
        )
    ),
    st.integers(1, 300).map(lambda n: "{ " + "{ " * n + "} " * n + "}"),
)

TOKENS = st.lists(
    st.sampled_from(
        [
            "{",
            "}",
            "(",
            ")",
            "[",
            "]",
            ":",
            "...",
            "$l",
            "@skip",
            "viewer",
            "id",
            "query",
            "on",
            "fragment",
            "F",
            "User",
            '"\\ud800"',
            '"""x"""',
            "1e999",
            "-0",
            "#",
            "\n",
            ",",
            "!",
        ]
    ),
    max_size=60,
).map(" ".join)

ODD_TEXT = st.one_of(
    st.text(max_size=200),
    st.sampled_from(["\ud800", "{ viewer { id } }\ud800", "\x00", "\ufeff{ viewer { id } }"]),
)

DOCUMENTS = st.one_of(STRUCTURED, SHAPES, TOKENS, ODD_TEXT)

JSON_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([2**31, -(2**31) - 1, 2**64, 10**400, 100.0, 1e308, -0.0, 0.5]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.sampled_from(["\ud800", "u-1", "", "0" * 1000]),
)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=5), inner, max_size=5)
    ),
    max_leaves=20,
)
VARIABLES = st.one_of(
    st.dictionaries(st.sampled_from(["ids", "l", "b", "x", "s"]), JSON_VALUES, max_size=4),
    JSON_VALUES,
)

#: Documents that read the variables (so that their coercion runs).
VARIABLE_DOCUMENTS = st.sampled_from(
    [
        "query($ids: [ID!]!, $l: Int) { users(ids: $ids) { cashAdvanceScores(limit: $l) "
        "{ score } } }",
        "query($l: Int) { viewer { cashAdvanceScores(limit: $l) { score } } }",
        "query($b: Boolean!) { viewer { id @include(if: $b) } }",
        "query($s: String) { user(id: $s) { id } }",
        "query($x: Int = 1) { viewer { cashAdvanceScores(limit: $x) { score } } }",
    ]
)

#: graphql-transport-ws messages, and frames that are not one: odd types, ids and payloads.
MESSAGE_TYPES = ["connection_init", "subscribe", "complete", "ping", "pong", "next", "error", "x"]
SUBSCRIBE_PAYLOADS = st.one_of(
    st.fixed_dictionaries(
        {"query": st.one_of(DOCUMENTS, VARIABLE_DOCUMENTS)},
        optional={"variables": VARIABLES, "operationName": JSON_VALUES, "extensions": JSON_VALUES},
    ),
    JSON_VALUES,
)
MESSAGES = st.fixed_dictionaries(
    {"type": st.one_of(st.sampled_from(MESSAGE_TYPES), JSON_VALUES)},
    optional={
        "id": st.one_of(st.sampled_from(["1", "2", "", "\ud800"]), JSON_VALUES),
        "payload": st.one_of(SUBSCRIBE_PAYLOADS, JSON_VALUES),
    },
)
FRAMES: st.SearchStrategy[dict[str, Any] | str | bytes] = st.one_of(
    MESSAGES,
    JSON_VALUES.map(lambda value: json.dumps(value)),
    st.sampled_from(["", "{", '{"type": "ping"', '"\\ud800"', '{"type": "\\ud800"}', "NaN"]),
    st.text(max_size=50),
    st.binary(max_size=50),
)
