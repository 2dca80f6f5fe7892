"""The development secret: the HS256 key of `serve --embedded`, kept in a file of the checkout.

`serve --embedded` signs its demo tokens with it (making it on first use), and
`insight-gateway token` signs with it when INSIGHT_AUTH_HS256_SECRET is not set, so a token
minted in the checkout works against the embedded gateway, across its restarts. A
production `serve` never reads it: only the variables configure its keys.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

#: The file's name; `.gitignore` and `.dockerignore` keep it out of commits and images.
DEV_SECRET_FILE = ".insight-dev-secret"
#: What marks the checkout's root, where the file is made.
_CHECKOUT_MARKERS = (".git", "pyproject.toml")
_MIN_LENGTH = 32


class DevSecretError(ValueError):
    """The development secret's file cannot be used; the message names it."""


def generated_secret() -> str:
    """A fresh HS256 secret (256 bits)."""
    return secrets.token_urlsafe(32)


def dev_secret_path(start: Path | None = None) -> Path:
    """Where the checkout keeps its development secret: the nearest directory, from `start`
    (default: the working directory) up, that holds the file or is a checkout's root
    (`.git`, `pyproject.toml`); `start` itself when there is none."""
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        if (directory / DEV_SECRET_FILE).is_file():
            return directory / DEV_SECRET_FILE
        if any((directory / marker).exists() for marker in _CHECKOUT_MARKERS):
            return directory / DEV_SECRET_FILE
    return here / DEV_SECRET_FILE


def read_dev_secret(path: Path) -> str | None:
    """The secret in `path`, or None when there is no such file."""
    try:
        secret = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise DevSecretError(f"cannot read the development secret {path}: {error}") from error
    if len(secret) < _MIN_LENGTH:
        raise DevSecretError(
            f"the development secret {path} is shorter than {_MIN_LENGTH} characters: "
            "delete the file and `make serve` makes a new one"
        )
    return secret


def load_or_create_dev_secret(path: Path) -> tuple[str, bool]:
    """The secret in `path`, made (mode 0600) when absent; and whether it was made now."""
    existing = read_dev_secret(path)
    if existing is not None:
        return existing, False
    secret = generated_secret()
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        # Another process made it in between: use theirs, so both agree.
        made = read_dev_secret(path)
        if made is None:
            raise DevSecretError(f"the development secret {path} vanished") from None
        return made, False
    except OSError as error:
        raise DevSecretError(f"cannot write the development secret {path}: {error}") from error
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(secret + "\n")
    return secret, True
