"""docs/getting-started.md works as written: its shell steps (the queries, the mutations,
the token command), pasted in order into a shell holding the tokens `serve --embedded`
printed, answer what the page shows (dates aside, which depend on the day); and its
subscription (step 6), the page's node script run where the page runs it, prints the events
the page shows, the first at once and the next after the page's mutation; run again with no
token, it prints the one line the page says (`closed 4401: …`) and fails.

The script's packages (`npm install graphql-ws@6 ws@8`) are tests/ws_clients' (installed by
`make`), not fetched again. The second example's lines (websocat, which the machine need not
have) are sent as written over node's own WebSocket (tests/raw_socket.mjs)."""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO, Any

import httpx

from support.metrics_text import samples, series, value
from support.processes import free_port
from tests.gateway.cli.serving import clean_env, serve
from tests.ws_clients.node_client import FOLDER as WS_CLIENTS
from tests.ws_clients.node_client import require_node

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "getting-started.md"
FENCE = re.compile(r"^( *)```(\w+)\n(.*?)^\1```$", re.M | re.S)
DATE = re.compile(r"\d{4}-\d{2}(-\d{2}(T[0-9:.]+Z)?)?")
#: The step that runs the subscription, the folder it makes, and what it installs there.
SUBSCRIBE = "node subscribe.mjs"
SCRATCH = "/tmp/insight-subscribe"
INSTALL = re.compile(r"^npm install --no-audit --no-fund graphql-ws@(\d+) ws@(\d+)\n", re.M)
PAGE_WS = "ws://127.0.0.1:8000/graphql"
RAW_SOCKET = ROOT / "tests" / "raw_socket.mjs"
#: Generous for a loaded 2-core machine: an event comes within a second or two.
EVENT_SECONDS = 30.0


def blocks() -> list[tuple[str, str]]:
    return [(kind, textwrap.dedent(body)) for _, kind, body in FENCE.findall(PAGE.read_text())]


def is_step(kind: str, body: str) -> bool:
    """A shell step that talks to the gateway over HTTP (or runs the token command)."""
    return kind == "sh" and ("curl" in body or "insight-gateway token" in body)


def steps() -> list[tuple[str, str | None]]:
    """Each shell step that talks to the gateway, with the JSON answer shown after it."""
    found: list[tuple[str, str | None]] = []
    listed = blocks()
    for n, (kind, body) in enumerate(listed):
        if not is_step(kind, body):
            continue
        shown = listed[n + 1][1] if n + 1 < len(listed) and listed[n + 1][0] == "json" else None
        found.append((body, shown))
    return found


def undated(text: str) -> object:
    return json.loads(DATE.sub("<date>", text))


def test_the_page_has_a_step_for_each_kind_of_operation() -> None:
    bodies = "\n".join(body for body, _ in steps())
    for needed in ("$TOKEN", "$DASHBOARD_TOKEN", "$WRITER_TOKEN", "users(ids: $ids)", "viewer"):
        assert needed in bodies
    assert "viewerChanged" in PAGE.read_text()
    assert "TODO" not in PAGE.read_text()


def test_each_terminal_is_opened_with_what_it_needs() -> None:
    page = PAGE.read_text()
    before_node = page[: page.index(SUBSCRIBE)]
    third = before_node[before_node.rindex("third terminal") :]

    assert "second terminal" in page[: page.index("## 3.")]
    # The node script reads $TOKEN: the page has it pasted into the terminal it runs in.
    assert "export TOKEN=" in third
    assert "process.env.TOKEN" in third
    assert "closed 4401: Unauthorized" in page


def test_the_codes_listed_are_every_code_of_the_errors_page() -> None:
    page = PAGE.read_text()
    listed = page[page.index("- **Errors.**") : page.index("- **Partial answers.**")]
    errors = (ROOT / "docs" / "errors.md").read_text()

    documented = set(re.findall(r"^\| `([A-Z_]+)` \|", errors, re.M))
    assert documented
    assert documented - set(re.findall(r"`([A-Z_]+)`", listed)) == set()


class Printed:
    """A running process's stdout, one JSON line at a time, each awaited with a bound."""

    def __init__(self, process: subprocess.Popen[str], stderr: IO[str]) -> None:
        self.process = process
        self.stderr = stderr
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def line(self) -> dict[str, Any]:
        try:
            line = self.lines.get(timeout=EVENT_SECONDS)
        except queue.Empty:
            self.stderr.seek(0)
            raise AssertionError(
                f"nothing printed in {EVENT_SECONDS} s after {self.seen}: {self.stderr.read()}"
            ) from None
        printed: dict[str, Any] = json.loads(line)
        self.seen.append(printed)
        return printed


@contextmanager
def printing(command: list[str], **options: Any) -> Iterator[Printed]:
    """`command` running (in its own process group) until the block ends."""
    # A file, not a pipe, for what it writes on stderr: it can never fill and stall it.
    with (
        tempfile.TemporaryFile("w+") as stderr,
        subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            start_new_session=True,
            **options,
        ) as process,
    ):
        try:
            yield Printed(process, stderr)
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def node() -> list[str]:
    """node, with its WebSocket turned on where it is still behind a flag (node 20)."""
    found = shutil.which("node")
    assert found is not None
    probe = [found, "-e", "process.exit(typeof WebSocket === 'function' ? 0 : 1)"]
    built_in = subprocess.run(probe, check=False, timeout=30).returncode == 0
    return [found] if built_in else [found, "--experimental-websocket", "--no-warnings"]


def subscribe_script(body: str, scratch: Path) -> str:
    """The page's step with its scratch folder in the test's, and the packages it installs
    taken from tests/ws_clients (the same major versions). Its address is left as the page
    has it: a run elsewhere than port 8000 gives `PORT`, as the page says."""
    installed = INSTALL.search(body)
    assert installed is not None, "the step installs graphql-ws and ws"
    locked = json.loads((WS_CLIENTS / "package.json").read_text())["dependencies"]
    for package, major in zip(("graphql-ws", "ws"), installed.groups(), strict=True):
        assert locked[package].split(".")[0] == major, (package, locked[package])
    scratch.mkdir()
    (scratch / "node_modules").symlink_to(WS_CLIENTS / "node_modules")
    assert SCRATCH in body
    assert "127.0.0.1:8000" not in body, "the script's port comes from PORT (the page says so)"
    return INSTALL.sub("", body).replace(SCRATCH, str(scratch))


def websocat_messages(body: str, token: str) -> tuple[str, list[dict[str, Any]]]:
    """The second example: the URL it opens and the lines it pastes, the token put in."""
    command, *lines = body.strip().splitlines()
    assert command.startswith("websocat --protocol graphql-transport-ws ")
    url = command.split()[-1]
    return url, [json.loads(line.replace("<TOKEN>", token)) for line in lines]


def wait_until_reading(url: str, tables: int = 3, seconds: float = 60.0) -> None:
    """Until the server reads every streamed table's stream. A first start reads from
    LATEST once its readers hold their leases, a second or two after it answers: a write
    made before then makes no event, and a person reaching step 6 is never that quick."""
    for _ in range(int(seconds / 0.1)):
        found = samples(httpx.get(f"{url}/metrics", timeout=5).text)
        lags = series(found, "gateway_change_feed_lag_seconds")
        if value(found, "gateway_stream_leases_held") == tables and len(lags) == tables:
            return
        time.sleep(0.1)
    raise AssertionError(f"the stream readers did not start in {seconds} s")


def test_every_step_answers_as_the_page_shows(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / ".venv").symlink_to(Path(sys.executable).parents[1])
    require_node()
    with serve(tmp_path, "--embedded") as served, ExitStack() as sockets:
        port = served.url.rsplit(":", 1)[1]
        assert port != "8000", "the steps are run on another port than the page's"
        # PORT as the page says for step 6's script when `make serve` was given another port.
        env = clean_env(**served.tokens, PORT=port)
        ws_url = PAGE_WS.replace("8000", port)
        token = served.tokens["TOKEN"]
        wait_until_reading(served.url)
        subscription: Printed | None = None
        answer: str | None = None  # the last step's output, until the page shows it
        events = 0
        subscribe_body = ""
        for kind, body in blocks():
            if kind == "json":
                if answer is not None:
                    assert undated(answer) == undated(body), (answer, body)
                    answer = None
                else:
                    # Not a step's answer: what the subscription prints next.
                    assert subscription is not None, f"a JSON block that answers nothing: {body}"
                    assert undated(json.dumps(subscription.line())) == undated(body)
                    events += 1
                continue
            if answer is not None:  # a step the page shows no answer for
                assert json.loads(answer)["data"], answer
                answer = None
            if is_step(kind, body):
                script = body.replace("127.0.0.1:8000", f"127.0.0.1:{port}")
                answer = run_step(script, env, tmp_path)
            elif kind == "sh" and SUBSCRIBE in body:
                subscribe_body = body
                script = subscribe_script(body, tmp_path / "insight-subscribe")
                command = ["bash", "-euo", "pipefail", "-c", script]
                subscription = sockets.enter_context(printing(command, cwd=tmp_path, env=env))
            elif kind == "sh" and body.startswith("websocat"):
                url, messages = websocat_messages(body, token)
                assert url == PAGE_WS
                lines = [json.dumps(message) for message in messages]
                with printing([*node(), str(RAW_SOCKET), ws_url, *lines]) as pasted:
                    assert pasted.line() == {"type": "connection_ack"}
                    first = pasted.line()
                assert first["type"] == "next", first
                assert "errors" not in first["payload"], first
                assert first["payload"]["data"]["viewerChanged"]["id"] == "demo-ada"
        if answer is not None:
            assert json.loads(answer)["data"], answer
        refused = run_step_6(subscribe_body, without_token(env), tmp_path / "no-token")
    # The initial state, and the user as it reads after the page's mutation.
    assert events == 2
    assert refused.returncode == 1, refused
    assert refused.stdout == ""
    [line] = refused.stderr.splitlines()
    assert re.fullmatch(r"closed 4401: Unauthorized: .+", line), line


def without_token(env: dict[str, str]) -> dict[str, str]:
    """A terminal where `$TOKEN` was never pasted."""
    return {name: text for name, text in env.items() if name != "TOKEN"}


def run_step_6(body: str, env: dict[str, str], scratch: Path) -> subprocess.CompletedProcess[str]:
    """Step 6's script run to its end in a terminal holding `env`."""
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", subscribe_script(body, scratch)],
        cwd=scratch.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_step_6_with_no_gateway_says_so_in_one_line(tmp_path: Path) -> None:
    require_node()
    body = next(body for kind, body in blocks() if kind == "sh" and SUBSCRIBE in body)
    nobody = str(free_port())
    refused = run_step_6(body, clean_env(TOKEN="t", PORT=nobody), tmp_path / "nobody")
    assert refused.returncode == 1, refused
    assert refused.stdout == ""
    [line] = refused.stderr.splitlines()
    address = f"ws://127.0.0.1:{nobody}/graphql"
    assert line == f"cannot connect to {address}: connect ECONNREFUSED 127.0.0.1:{nobody}"


def run_step(script: str, env: dict[str, str], checkout: Path) -> str:
    """One shell step pasted into bash in the checkout; its output (no `errors` in it)."""
    completed = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 0, (script, completed.stderr)
    assert '"errors"' not in completed.stdout, (script, completed.stdout)
    return completed.stdout
