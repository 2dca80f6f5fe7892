"""A small Dockerfile reader for the tests: instructions grouped by build stage.

No Docker engine runs here and Debian has no hadolint, so the tests read the Dockerfile itself.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Instruction:
    keyword: str
    arguments: str

    def exec_form(self) -> list[str]:
        """The JSON array of an exec-form CMD/RUN/HEALTHCHECK CMD; ValueError otherwise."""
        text = self.arguments
        if self.keyword == "HEALTHCHECK":
            text = text[text.index("CMD ") + len("CMD ") :]
        parsed = json.loads(text)
        if not isinstance(parsed, list) or not all(isinstance(part, str) for part in parsed):
            raise ValueError(f"{self.keyword} is not in exec form: {self.arguments}")
        return parsed

    def flags(self) -> dict[str, str]:
        """The leading `--name=value` flags (COPY --from=..., HEALTHCHECK --interval=...)."""
        flags: dict[str, str] = {}
        for word in shlex.split(self.arguments):
            if not word.startswith("--"):
                break
            name, _, value = word[2:].partition("=")
            flags[name] = value
        return flags


@dataclass(slots=True)
class Stage:
    base: str
    name: str | None
    instructions: list[Instruction] = field(default_factory=list)

    def all(self, keyword: str) -> list[Instruction]:
        return [i for i in self.instructions if i.keyword == keyword]

    def last(self, keyword: str) -> Instruction:
        found = self.all(keyword)
        if not found:
            raise LookupError(f"stage {self.name or self.base} has no {keyword}")
        return found[-1]

    def environment(self) -> dict[str, str]:
        env: dict[str, str] = {}
        for instruction in self.all("ENV"):
            for pair in shlex.split(instruction.arguments):
                name, _, value = pair.partition("=")
                env[name] = value
        return env


def global_arguments(path: Path) -> dict[str, str]:
    """The ARGs before the first FROM with their defaults, as written (`${OTHER}` unexpanded)."""
    arguments: dict[str, str] = {}
    for instruction in _instructions(path.read_text()):
        if instruction.keyword == "FROM":
            break
        if instruction.keyword != "ARG":
            raise ValueError(f"{instruction.keyword} before the first FROM")
        name, _, default = instruction.arguments.partition("=")
        arguments[name] = default
    return arguments


def read_stages(path: Path, build_arguments: dict[str, str] | None = None) -> list[Stage]:
    """The stages, each base image resolved from the global ARGs' defaults (and earlier ARGs
    in them), as a build with `build_arguments` (`--build-arg`) would resolve it."""
    values: dict[str, str] = {}
    for argument, default in global_arguments(path).items():
        values[argument] = (build_arguments or {}).get(argument, _expand(default, values))
    stages: list[Stage] = []
    for instruction in _instructions(path.read_text()):
        if instruction.keyword == "FROM":
            words = instruction.arguments.split()
            name = words[2] if len(words) == 3 and words[1].upper() == "AS" else None
            stages.append(Stage(base=_expand(words[0], values), name=name))
        elif stages:
            stages[-1].instructions.append(instruction)
    return stages


def _expand(text: str, values: dict[str, str]) -> str:
    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        if name not in values:
            raise ValueError(f"${name} is not a global ARG")
        return values[name]

    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)", value, text)


def _instructions(text: str) -> list[Instruction]:
    instructions: list[Instruction] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):  # a comment inside a continued instruction
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        whole = pending + line
        pending = ""
        keyword, _, arguments = whole.partition(" ")
        instructions.append(Instruction(keyword.upper(), arguments.strip()))
    if pending:
        raise ValueError("the Dockerfile ends inside a continued instruction")
    return instructions
