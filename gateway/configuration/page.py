"""The settings table of `docs/configuration.md`, made from the declaration in
`gateway/settings/`: `python -m gateway.configuration.page docs/configuration.md` rewrites
the table between its markers (`make docs`); `--check` exits 1 when the page differs."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from gateway.settings import VARIABLES

BEGIN = "<!-- settings table: made by `make docs` from gateway/settings/; do not edit -->"
END = "<!-- end of the settings table -->"


def table() -> str:
    """Every variable as one Markdown table row, in declaration order."""
    lines = ["| variable | default | accepts | meaning |", "|---|---|---|---|"]
    for variable in VARIABLES.values():
        cells = (f"`{variable.env}`", _default(variable.default), variable.accepts, variable.doc)
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines) + "\n"


def rewritten(page: str) -> str:
    """`page` with the table between its markers made again."""
    start, end = page.index(BEGIN) + len(BEGIN), page.index(END)
    return page[:start] + "\n" + table() + page[end:]


def _default(value: object) -> str:
    if value is None or value == ():
        return "unset"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, float):
        return f"`{value:g}`"
    if isinstance(value, frozenset | tuple):
        return f"`{','.join(sorted(value))}`"
    return f"`{value}`"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("page", type=Path)
    parser.add_argument("--check", action="store_true", help="only say whether it is current")
    args = parser.parse_args(argv)
    page = args.page.read_text()
    current = rewritten(page)
    if args.check:
        if current != page:
            print(f"{args.page} differs from gateway/settings/: run `make docs`", file=sys.stderr)
            return 1
        return 0
    args.page.write_text(current)
    return 0


if __name__ == "__main__":
    sys.exit(main())
