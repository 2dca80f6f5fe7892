"""A setting declared once, as a dataclass field: `setting(...)` keeps its variable, bounds and
documentation in the field's metadata beside its default and its annotated type; `read_fields`
parses every field from a mapping, and `declared` lists them for the configuration page."""

from __future__ import annotations

import dataclasses
import difflib
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")
#: A parser of one variable's text: (variable, text) -> value, raising `SettingsError`.
Parse = Callable[[str, str], Any]
_SETTING = "setting"
_GROUP = "setting_group"
_PREFIX = "INSIGHT_"
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


class SettingsError(ValueError):
    """A setting has a value the gateway cannot use; the message names the variable."""


@dataclass(frozen=True, slots=True)
class _Group:
    cls: type[Any]
    prefix: str
    doc: str


def setting(
    env: str,
    default: T,
    doc: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    choices: tuple[str, ...] = (),
    parse: Parse | None = None,
) -> T:
    """A field read from the variable `env` (unset or blank: `default`).

    `int`, `float`, `bool`, `str` and `str | None` fields are parsed by their annotation;
    `minimum`/`maximum` bound numbers, `choices` the text's values. Any other type needs a
    `parse`, whose docstring's first line says what it accepts on the configuration page.
    """
    # The type is the field's annotation, filled in by `_variables`.
    spec = Declared(env, "", default, doc, minimum, maximum, choices, parse)
    declared_field: T = field(default=default, metadata={_SETTING: spec})
    return declared_field


def setting_group(cls: type[T], prefix: str, doc: str) -> T:
    """A field holding a frozen dataclass whose every field is the variable `prefix` + its
    name in capitals, defaulting to that dataclass's own default."""
    group: T = field(default_factory=cls, metadata={_GROUP: _Group(cls, prefix, doc)})
    return group


@dataclass(frozen=True, slots=True)
class Declared:
    """One variable as declared: what the configuration page shows of it."""

    env: str
    type: str
    default: object
    doc: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    parse: Parse | None = None

    @property
    def accepts(self) -> str:
        if self.choices:
            return ", ".join(f"`{choice}`" for choice in self.choices)
        if self.parse is not None:
            return (self.parse.__doc__ or "").strip().splitlines()[0]
        kind = {"int": "whole number", "float": "number", "bool": "`true` or `false`"}
        accepts = kind.get(self.type, "text")
        if self.minimum is not None and self.maximum is not None:
            return f"{accepts}, {self.minimum} to {self.maximum}"
        if self.minimum is not None:
            return f"{accepts}, at least {self.minimum}"
        if self.maximum is not None:
            return f"{accepts}, at most {self.maximum}"
        return accepts

    def read(self, raw: str) -> Any:
        """The value of `raw`, the variable's non-blank text."""
        parse = self.parse or _BY_TYPE[self.type]
        value = parse(self.env, raw)
        if self.choices and value not in self.choices:
            allowed = ", ".join(self.choices[:-1]) + " or " + self.choices[-1]
            raise SettingsError(f"{self.env} must be {allowed}, not {raw!r}")
        if self.minimum is not None and value < self.minimum:
            raise SettingsError(f"{self.env} must be at least {self.minimum}, not {value}")
        if self.maximum is not None and value > self.maximum:
            raise SettingsError(f"{self.env} must be at most {self.maximum}, not {value}")
        return value


def declared(cls: type[Any]) -> Iterator[tuple[str, Declared]]:
    """Each variable of the dataclass `cls`, in declaration order, with its field's name
    (`field.member` for a group's member).

    Raises TypeError on a field declared without `setting(...)`, or of a type with no parser.
    """
    for name, member, variable in _variables(cls):
        yield (name if member is None else f"{name}.{member}"), variable


def read_fields(cls: type[Any], environ: Mapping[str, str]) -> dict[str, Any]:
    """The keyword arguments of `cls` for every variable set (not blank) in `environ`."""
    values: dict[str, Any] = {}
    groups: dict[str, dict[str, Any]] = {}
    for name, member, variable in _variables(cls):
        raw = environ.get(variable.env, "").strip()
        if not raw:
            continue
        if member is None:
            values[name] = variable.read(raw)
        else:
            groups.setdefault(name, {})[member] = variable.read(raw)
    for each in dataclasses.fields(cls):
        if each.name in groups:
            values[each.name] = each.metadata[_GROUP].cls(**groups[each.name])
    return values


def unknown_variables(cls: type[Any], environ: Mapping[str, str]) -> list[str]:
    """A line for each variable of `environ` under `INSIGHT_` that `cls` does not declare, with
    the declared name closest to it: a misspelt setting would otherwise be silently left at
    its default (`INSIGHT_SUBSCRIPTION=true` serving no subscriptions)."""
    known = [variable.env for _, variable in declared(cls)]
    # Compared without the prefix every name shares, which would make any two look alike.
    tails = {env.removeprefix(_PREFIX): env for env in known if env.startswith(_PREFIX)}
    lines = []
    for name in sorted(env for env in environ if env.startswith(_PREFIX) and env not in known):
        close = difflib.get_close_matches(name.removeprefix(_PREFIX), tails, n=1)
        hint = f" (did you mean {tails[close[0]]}?)" if close else ""
        lines.append(f"unknown setting {name}{hint}")
    return lines


def _variables(cls: type[Any]) -> Iterator[tuple[str, str | None, Declared]]:
    """(field, member of a group or None, the variable) for every variable of `cls`."""
    for each in dataclasses.fields(cls):
        if (group := each.metadata.get(_GROUP)) is not None:
            for member in dataclasses.fields(group.cls):
                env = group.prefix + member.name.upper()
                variable = Declared(env, str(member.type), member.default, group.doc)
                yield each.name, member.name, variable
            continue
        spec = each.metadata.get(_SETTING)
        if not isinstance(spec, Declared):
            raise TypeError(f"{cls.__name__}.{each.name} is not declared with setting(...)")
        type_ = str(each.type)
        if spec.parse is None and type_ not in _BY_TYPE:
            raise TypeError(f"{cls.__name__}.{each.name}: a {type_} setting needs parse=")
        yield each.name, None, dataclasses.replace(spec, type=type_)


def _string(name: str, raw: str) -> str:
    return raw


def _integer(name: str, raw: str) -> int:
    try:
        return int(raw)
    except ValueError:
        raise SettingsError(f"{name} must be a whole number, not {raw!r}") from None


def _number(name: str, raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise SettingsError(f"{name} must be a number, not {raw!r}") from None
    if not math.isfinite(value):
        raise SettingsError(f"{name} must be a finite number, not {raw!r}")
    return value


def _boolean(name: str, raw: str) -> bool:
    lowered = raw.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise SettingsError(f"{name} must be true or false, not {raw!r}")


_BY_TYPE: dict[str, Parse] = {
    "int": _integer,
    "float": _number,
    "bool": _boolean,
    "str": _string,
    "str | None": _string,
}
