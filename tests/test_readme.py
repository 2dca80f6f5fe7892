"""The README stays true: every setting and error code documented, and the IAM policy allows
every DynamoDB call the gateway really makes, and nothing broader."""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
from pathlib import Path

from gateway.http.graphiql_assets import PACKAGES
from loaders.errors import GatewayError
from loaders.tables import STREAMED_TABLES, TableNames

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _gateway_error_codes() -> set[str]:
    for package in ("gateway", "schema", "loaders"):
        for module in pkgutil.walk_packages([str(ROOT / package)], prefix=f"{package}."):
            importlib.import_module(module.name)
    codes: set[str] = set()
    pending: list[type[GatewayError]] = [GatewayError]
    while pending:
        error = pending.pop()
        codes.add(error.code)
        pending.extend(error.__subclasses__())
    return codes


def iam_policy() -> dict[str, set[str]]:
    """The README's IAM policy: the DynamoDB actions allowed on each table (by its name)."""
    return _iam_policy()[0]


def iam_stream_policy() -> dict[str, set[str]]:
    """The README's IAM policy: the actions allowed on each table's streams (by table name)."""
    return _iam_policy()[1]


def _iam_policy() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    section = README[README.index("least-privilege IAM policy") :]
    block = re.search(r"```json\n(.*?)```", section, re.DOTALL)
    assert block is not None
    allowed: dict[str, set[str]] = {}
    streams: dict[str, set[str]] = {}
    for statement in json.loads(block.group(1))["Statement"]:
        assert statement["Effect"] == "Allow"
        actions = statement["Action"]
        resources = statement["Resource"]
        for resource in [resources] if isinstance(resources, str) else resources:
            match = re.fullmatch(
                r"arn:aws:dynamodb:[a-z0-9-]+:\d{12}:table/([A-Za-z0-9_.-]+)(/stream/\*)?",
                resource,
            )
            assert match is not None, f"not one table nor its streams: {resource}"
            into = streams if match.group(2) else allowed
            into.setdefault(match.group(1), set()).update(actions)
    return allowed, streams


def test_every_setting_is_documented() -> None:
    source = (ROOT / "gateway" / "settings.py").read_text()
    variables = set(re.findall(r'"((?:INSIGHT|AWS)_[A-Z0-9_]+)"', source))

    assert variables, "no variables found in gateway/settings.py"
    missing = sorted(v for v in variables if f"`{v}`" not in README)
    assert missing == [], f"add these settings to the README's Settings table: {missing}"
    twice = sorted(v for v in variables if README.count(f"| `{v}` |") > 1)
    assert twice == [], f"these settings have more than one row in the README: {twice}"


def test_every_error_code_is_documented() -> None:
    missing = sorted(code for code in _gateway_error_codes() if f"`{code}`" not in README)

    assert missing == [], f"add these error codes to the README's Errors table: {missing}"


def test_the_iam_policy_names_the_five_tables_with_no_wildcards() -> None:
    policy = iam_policy()

    assert set(policy) == set(TableNames().all().values())
    for table, actions in policy.items():
        assert all(re.fullmatch(r"dynamodb:[A-Z][A-Za-z]+", a) for a in actions), actions
        assert "dynamodb:Scan" not in actions, table
    assert policy["site-fmdatacapture"] <= {"dynamodb:PutItem", "dynamodb:DescribeTable"}
    assert (
        not {"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"}
        & policy["user-balance-settings"]
    )


def test_the_iam_policy_reads_exactly_the_streamed_tables_streams() -> None:
    streams = iam_stream_policy()
    names = TableNames()

    assert set(streams) == {names.name(table) for table in STREAMED_TABLES}
    for actions in streams.values():
        assert actions == {
            "dynamodb:DescribeStream",
            "dynamodb:GetShardIterator",
            "dynamodb:GetRecords",
        }


def test_the_graphiql_versions_in_the_readme_are_the_pinned_ones() -> None:
    section = README[README.index("## GraphiQL, also offline") :]
    assert f"GraphiQL {PACKAGES['graphiql']}" in section
    assert f"React {PACKAGES['react']}" in section
    assert PACKAGES["react"] == PACKAGES["react-dom"]
