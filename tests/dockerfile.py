"""A small Dockerfile reader for the tests: instructions grouped by build stage.

No Docker engine runs here and Debian has no hadolint, so the tests read the Dockerfile itself.
"""

from __future__ import annotations

import json
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


def read_stages(path: Path) -> list[Stage]:
    stages: list[Stage] = []
    for instruction in _instructions(path.read_text()):
        if instruction.keyword == "FROM":
            words = instruction.arguments.split()
            name = words[2] if len(words) == 3 and words[1].upper() == "AS" else None
            stages.append(Stage(base=words[0], name=name))
        elif not stages:
            raise ValueError(f"{instruction.keyword} before the first FROM")
        else:
            stages[-1].instructions.append(instruction)
    return stages


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
