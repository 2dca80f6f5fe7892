"""The README and the documentation site stay true: the README a front door of at most 250
lines whose links resolve, the configuration page made from the settings' declaration, every
error code documented, and the IAM policy allowing every DynamoDB call the gateway really makes
and nothing broader. `make docs-check` (part of `make test`) builds the site with --strict."""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
from pathlib import Path

from gateway.configuration import page as configuration_page
from gateway.http.graphiql_assets import PACKAGES
from gateway.settings import VARIABLES
from gateway.subscriptions.close_codes import ERROR_CODES
from loaders.errors import GatewayError
from loaders.tables import STREAMED_TABLES, TableNames
from tests.loaders.conftest import DYNALITE_LACKS

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
DOCS = ROOT / "docs"


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
    """The security page's IAM policy: the DynamoDB actions allowed on each table (by name)."""
    return _iam_policy()[0]


def iam_stream_policy() -> dict[str, set[str]]:
    """The security page's IAM policy: the actions allowed on each table's streams (by name)."""
    return _iam_policy()[1]


def _iam_policy() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    security = (DOCS / "security.md").read_text()
    section = security[security.index("## The least-privilege IAM policy") :]
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


def test_the_readme_is_a_front_door_whose_links_resolve() -> None:
    assert README.count("\n") <= 250
    links = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", README)
    assert "docs/configuration.md" in links
    missing = sorted(link for link in links if not (ROOT / link).is_file())
    assert missing == [], f"the README links to files that do not exist: {missing}"


def test_the_configuration_page_is_made_from_the_declaration() -> None:
    page = (DOCS / "configuration.md").read_text()

    assert configuration_page.rewritten(page) == page, "run `make docs` and commit the page"
    for variable in VARIABLES.values():
        assert page.count(f"| `{variable.env}` |") == 1, variable.env


def test_the_configuration_page_shows_each_default_and_bound() -> None:
    rows = configuration_page.table().splitlines()

    assert "| `INSIGHT_MAX_QUERY_ALIASES` | `30` | whole number, at least 0 |" in "\n".join(rows)
    assert "| `INSIGHT_TABLE_PAVE` | `site-pave` | text | table name |" in rows
    assert any(
        row.startswith("| `INSIGHT_DYNAMODB_CONNECT_TIMEOUT_SECONDS` | `1` | number, 0.01 to 60 |")
        for row in rows
    )
    assert any(
        row.startswith("| `INSIGHT_TRUSTED_DOCUMENTS` | `off` | `off`, `audit`, `enforce` |")
        for row in rows
    )


def test_every_error_code_is_documented() -> None:
    errors = (DOCS / "errors.md").read_text()
    missing = sorted(code for code in _gateway_error_codes() if f"| `{code}` |" not in errors)

    assert missing == [], f"add these error codes to docs/errors.md's table: {missing}"


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


def test_the_graphiql_versions_in_the_docs_are_the_pinned_ones() -> None:
    index = (DOCS / "index.md").read_text()
    section = index[index.index("## GraphiQL, also offline") :]
    assert f"GraphiQL {PACKAGES['graphiql']}" in section
    assert f"React {PACKAGES['react']}" in section
    assert PACKAGES["react"] == PACKAGES["react-dom"]


def test_the_close_codes_table_counts_as_the_gateway_does() -> None:
    page = (DOCS / "subscriptions.md").read_text()
    rows = re.findall(r"^\| (\d{4}) \| .* \| `([A-Z_]+)` \|$", page, re.M)

    assert {int(close): code for close, code in rows} == dict(ERROR_CODES)


def test_the_operation_outcomes_are_defined_where_the_metrics_are() -> None:
    page = (DOCS / "operations.md").read_text()
    defined = dict(re.findall(r"^  \| `(ok|partial|error)` \| (.+) \|$", page, re.M))

    assert set(defined) == {"ok", "partial", "error"}
    assert "every root field null" in defined["error"]
    assert "BAD_USER_INPUT" in defined["error"]
    assert "over the subscriptions' WebSocket alike" in page
    assert "gateway/subscriptions/close_codes.py" in page


def test_the_state_a_deployment_keeps_is_stated_with_what_it_needs() -> None:
    page = (DOCS / "operations.md").read_text()

    assert "keeps no state" not in page
    for needed in (
        "INSIGHT_RATE_LIMIT_STORAGE_URI",
        "INSIGHT_CHANGE_FEED_URI",
        "INSIGHT_CACHE_MAX_BYTES",
        "`locks` table",
        "redis://",
    ):
        assert needed in page, needed


def _block_after(page: str, marker: str) -> str:
    """The first shell block after `marker` on `page`."""
    rest = page[page.index(marker) :]
    return rest[rest.index("```sh") : rest.index("```", rest.index("```sh") + 5)]


def test_each_example_query_is_shown_over_http_with_its_own_token() -> None:
    page = (DOCS / "schema.md").read_text()
    frontend = _block_after(page, "query Frontend {")
    dashboard = _block_after(page, "query Dashboard(")

    assert '"Authorization: Bearer $TOKEN"' in frontend
    assert "viewer" in frontend
    assert '"Authorization: Bearer $DASHBOARD_TOKEN"' in dashboard
    assert "users(ids: $ids)" in dashboard


def test_the_prerequisites_name_what_make_test_needs() -> None:
    for page in (README, (DOCS / "index.md").read_text()):
        for needed in ("python3", "node", "npm", "redis-server", "chromium", "nginx", "podman"):
            assert f"`{needed}`" in page, needed


def test_the_dynalite_skips_are_stated_as_the_suite_gives_them() -> None:
    found = re.search(r"implements neither (\w+) nor (\w+)", DYNALITE_LACKS)
    assert found is not None
    skipped = [
        call
        for test in (ROOT / "tests" / "loaders").glob("test_*.py")
        for call in re.findall(r'skip_on_dynalite\(backend, "([^"]+)"\)', test.read_text())
    ]
    assert skipped

    for page in (README, (DOCS / "index.md").read_text()):
        sentence = page[page.index("dynalite implements") :][:400]
        assert all(lacked in sentence for lacked in found.groups()), sentence
        assert all(call in sentence for call in skipped), (skipped, sentence)


def test_make_clean_is_named_and_removes_build() -> None:
    makefile = (ROOT / "Makefile").read_text()
    [clean] = re.findall(r"^clean:\n\trm -rf (.+)$", makefile, re.M)

    assert "build" in clean.split()
    assert "`make clean`" in README
    assert "build/insight-gateway.tar" in (DOCS / "operations.md").read_text()


def test_the_attribute_the_entities_section_follows_is_declared_as_shown() -> None:
    index = (DOCS / "index.md").read_text()
    section = index[index.index("### Attributes, declared once") :]
    start = section.index("```python\n") + len("```python\n")
    shown = section[start : section.index("```", start)]

    assert "total_available" in shown
    assert shown in (ROOT / "loaders" / "rows" / "balance.py").read_text()


def test_every_command_shown_runs_as_pasted_in_a_fresh_shell_in_the_checkout() -> None:
    """A fresh shell has no `.venv/bin` on its PATH: the command a page shows to run is
    `.venv/bin/insight-gateway …` (or a make target). The reference table of docs/operations.md
    gives the command's own syntax, and says where it is."""
    bare = re.compile(r"(?:^|`)insight-gateway [a-z-]", re.M)
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    shown = {
        f"{page.name}: {line.strip()}"
        for page in pages
        for line in page.read_text().splitlines()
        if bare.search(line) and not line.startswith("| `insight-gateway")
    }
    assert shown == set()
