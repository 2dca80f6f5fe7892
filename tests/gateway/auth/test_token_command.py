from __future__ import annotations

from pathlib import Path

import pytest

from gateway.auth.dev_secret import (
    DEV_SECRET_FILE,
    dev_secret_path,
    generated_secret,
    load_or_create_dev_secret,
)
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
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.delenv("INSIGHT_AUTH_HS256_SECRET", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["token", "--sub", "u-1"]) == 2
    err = capsys.readouterr().err
    assert "INSIGHT_AUTH_HS256_SECRET is not set" in err
    assert "no development secret" in err
    assert not (tmp_path / DEV_SECRET_FILE).exists()


def test_token_without_a_variable_signs_with_the_checkouts_development_secret(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.delenv("INSIGHT_AUTH_HS256_SECRET", raising=False)
    monkeypatch.delenv("INSIGHT_AUTH_ISSUER", raising=False)
    monkeypatch.delenv("INSIGHT_AUTH_AUDIENCE", raising=False)
    (tmp_path / "pyproject.toml").write_text("")
    secret, made = load_or_create_dev_secret(dev_secret_path(tmp_path))
    assert made
    below = tmp_path / "docs" / "deeper"
    below.mkdir(parents=True)
    monkeypatch.chdir(below)  # anywhere in the checkout

    assert main(["token", "--sub", "demo-ada"]) == 0

    token = capsys.readouterr().out.strip()
    verified = TokenVerifier.from_settings(Settings(auth_hs256_secret=secret), SystemClock())
    assert verified.verify(token) == Principal("demo-ada", frozenset())


def test_the_development_secret_is_made_once_private_and_kept(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "sub").mkdir()
    path = dev_secret_path(tmp_path / "sub")
    assert path == tmp_path / DEV_SECRET_FILE

    first, made = load_or_create_dev_secret(path)
    again, made_again = load_or_create_dev_secret(dev_secret_path(tmp_path))

    assert (made, made_again) == (True, False)
    assert again == first
    assert len(first) >= 32
    assert path.stat().st_mode & 0o777 == 0o600


def test_a_short_development_secret_is_refused_naming_the_file(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.delenv("INSIGHT_AUTH_HS256_SECRET", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / DEV_SECRET_FILE).write_text("short\n")

    assert main(["token", "--sub", "u-1"]) == 2
    assert f"{tmp_path / DEV_SECRET_FILE} is shorter than 32" in capsys.readouterr().err


def test_token_help_lists_its_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["token", "--help"])
    assert exited.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "exit codes: 0 printed, 2 no secret" in out


def test_token_without_sub_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["token"])
    assert exited.value.code == 2
    assert "--sub" in capsys.readouterr().err


def test_generated_secrets_are_long_and_fresh() -> None:
    secret = generated_secret()
    assert len(secret) >= 32
    assert generated_secret() != secret
