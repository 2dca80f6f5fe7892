from __future__ import annotations

import pytest

from gateway.auth.token_command import demo_token, generated_secret
from gateway.auth.tokens import TokenVerifier
from gateway.cli.main import main
from gateway.settings import Settings
from schema.clock import SystemClock
from schema.principal import Principal

SECRET = "cli-tests-secret-0123456789abcdefgh"


@pytest.fixture
def secret_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSIGHT_AUTH_HS256_SECRET", SECRET)
    monkeypatch.delenv("INSIGHT_AUTH_ISSUER", raising=False)
    monkeypatch.delenv("INSIGHT_AUTH_AUDIENCE", raising=False)


def verify(token: str, **settings: str) -> Principal:
    configured = Settings(auth_hs256_secret=SECRET, **settings)  # type: ignore[arg-type]
    return TokenVerifier.from_settings(configured, SystemClock()).verify(token)


@pytest.mark.usefixtures("secret_env")
@pytest.mark.parametrize(
    ("roles", "expected"),
    [
        ([], frozenset()),
        (["--roles", "dashboard,writer"], frozenset({"dashboard", "writer"})),
        (["--roles", " writer , writer "], frozenset({"writer"})),
    ],
)
def test_token_prints_a_token_the_gateway_accepts(
    capsys: pytest.CaptureFixture[str], roles: list[str], expected: frozenset[str]
) -> None:
    assert main(["token", "--sub", "u-42", *roles]) == 0
    token = capsys.readouterr().out.strip()
    assert verify(token) == Principal("u-42", expected)


@pytest.mark.usefixtures("secret_env")
def test_token_carries_the_configured_issuer_and_audience(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("INSIGHT_AUTH_ISSUER", "https://issuer")
    monkeypatch.setenv("INSIGHT_AUTH_AUDIENCE", "insight")
    assert main(["token", "--sub", "u-1"]) == 0
    token = capsys.readouterr().out.strip()
    assert verify(token, auth_issuer="https://issuer", auth_audience="insight").sub == "u-1"


@pytest.mark.usefixtures("secret_env")
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["token", "--sub", "u-1", "--roles", "admin"], "unknown role 'admin'"),
        (["token", "--sub", "u-1", "--lifetime", "0"], "--lifetime must be 1 to"),
        (["token", "--sub", "u-1", "--lifetime", "99999999"], "--lifetime must be 1 to"),
        (["token", "--sub", "  "], "--sub must not be empty"),
    ],
)
def test_token_refuses_bad_arguments(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err


def test_token_needs_the_secret(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("INSIGHT_AUTH_HS256_SECRET", raising=False)
    assert main(["token", "--sub", "u-1"]) == 2
    assert "INSIGHT_AUTH_HS256_SECRET is not set" in capsys.readouterr().err


def test_token_without_sub_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["token"])
    assert exited.value.code == 2
    assert "--sub" in capsys.readouterr().err


def test_the_embedded_demo_token_reads_and_writes() -> None:
    secret = generated_secret()
    assert len(secret) >= 32
    assert generated_secret() != secret
    settings = Settings(auth_hs256_secret=secret)
    principal = TokenVerifier.from_settings(settings, SystemClock()).verify(demo_token(settings))
    assert principal.roles == {"dashboard", "writer"}
