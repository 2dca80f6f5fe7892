"""strawberry's extension hooks, found once per extension class instead of once per request.

For every operation strawberry builds four context managers (operation, parsing,
validation, execution), and each asks every extension whether it has that hook: `inspect`
tests and, for each hook it has, a new `contextlib.contextmanager` wrapper (a
`functools.update_wrapper`) — about a hundred calls per extension per request, the largest
part of a cached query's cost outside its resolvers. The answer depends on the
extension's class alone, so it is kept per class and hook; a request only binds the kept
factory to its own extension instance. Entering and leaving the hooks stays strawberry's
(its exit stacks), so their order, their exceptions and the errors they add are unchanged.
"""

from __future__ import annotations

import contextlib
import inspect
from asyncio import iscoroutinefunction
from collections.abc import AsyncIterator, Callable, Iterator
from functools import partial
from typing import Any

from strawberry.extensions import SchemaExtension
from strawberry.extensions.context import (
    ExecutingContextManager,
    ExtensionContextManagerBase,
    OperationContextManager,
    ParsingContextManager,
    ValidationContextManager,
    WrappedHook,
)
from strawberry.extensions.runner import SchemaExtensionsRunner
from strawberry.types import ExecutionContext
from strawberry.utils.await_maybe import await_maybe

__all__ = ["KeptHooksRunner", "hook_factory", "stage_hooks"]

#: Given an extension, its hook as a (sync or async) context manager.
HookFactory = Callable[[SchemaExtension], Any]


def _awaited(hook: Callable[[SchemaExtension], Any]) -> HookFactory:
    @contextlib.asynccontextmanager
    async def entered(extension: SchemaExtension) -> AsyncIterator[None]:
        await hook(extension)
        yield

    return entered


def _called(hook: Callable[[SchemaExtension], Any]) -> HookFactory:
    @contextlib.contextmanager
    def entered(extension: SchemaExtension) -> Iterator[None]:
        hook(extension)
        yield

    return entered


#: Each extension class's hooks, by (class, hook name), as `hook_factory` found them.
_found: dict[tuple[type[SchemaExtension], str], tuple[HookFactory, bool] | None] = {}


def hook_factory(
    extension_type: type[SchemaExtension], name: str
) -> tuple[HookFactory, bool] | None:
    """The hook `name` (`on_operation`, ...) of `extension_type` as a factory of context
    managers and whether they are async, or None when the class keeps the default (no
    hook): strawberry's `ExtensionContextManagerBase.get_hook`, answered once a class."""
    key = (extension_type, name)
    if key not in _found:
        _found[key] = _find(extension_type, name)
    return _found[key]


def _find(extension_type: type[SchemaExtension], name: str) -> tuple[HookFactory, bool] | None:
    hook = getattr(extension_type, name)
    if hook is getattr(SchemaExtension, name):
        return None
    if inspect.isgeneratorfunction(hook):
        return contextlib.contextmanager(hook), False
    if inspect.isasyncgenfunction(hook):
        return contextlib.asynccontextmanager(hook), True
    if callable(hook):
        return (_awaited(hook), True) if iscoroutinefunction(hook) else (_called(hook), False)
    raise ValueError(f"Hook {name} on {extension_type} must be callable, received {hook!r}")


#: Each list of extension classes' hooks of one stage: (index, factory, is_async) each.
StageHooks = tuple[tuple[int, HookFactory, bool], ...]
_stages: dict[tuple[tuple[type[SchemaExtension], ...], str], StageHooks] = {}


def stage_hooks(extension_types: tuple[type[SchemaExtension], ...], name: str) -> StageHooks:
    """The hooks `name` of extensions of these classes, in their order: the index of each
    extension that has one, its factory and whether it is async."""
    key = (extension_types, name)
    if key not in _stages:
        _stages[key] = tuple(
            (index, *found)
            for index, extension_type in enumerate(extension_types)
            if (found := hook_factory(extension_type, name)) is not None
        )
    return _stages[key]


class _KeptHooks(ExtensionContextManagerBase):
    def __init__(self, extensions: list[SchemaExtension]) -> None:
        # strawberry's loop over every extension's `get_hook` (its only caller is the
        # `__init__` this replaces), answered for the list at once.
        self.hooks = [
            WrappedHook(extensions[index], partial(factory, extensions[index]), is_async)
            for index, factory, is_async in stage_hooks(
                tuple(map(type, extensions)), self.HOOK_NAME
            )
        ]


class _Operation(_KeptHooks, OperationContextManager):
    pass


class _Validation(_KeptHooks, ValidationContextManager):
    pass


class _Parsing(_KeptHooks, ParsingContextManager):
    pass


class _Executing(_KeptHooks, ExecutingContextManager):
    pass


class KeptHooksRunner(SchemaExtensionsRunner):
    """strawberry's runner, its four stages' hooks found by `hook_factory`, and the
    results (`extensions` of the answer) asked only of the extensions that give any."""

    async def get_extensions_results(self, ctx: ExecutionContext) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for extension in self.extensions:
            # The default `get_results` answers {}: nothing to add, nothing to await.
            if type(extension).get_results is not SchemaExtension.get_results:
                data.update(await await_maybe(extension.get_results()))
        data.update(ctx.extensions_results)
        return data

    def operation(self) -> OperationContextManager:
        return _Operation(self.extensions)

    def validation(self) -> ValidationContextManager:
        return _Validation(self.extensions)

    def parsing(self) -> ParsingContextManager:
        return _Parsing(self.extensions)

    def executing(self) -> ExecutingContextManager:
        return _Executing(self.extensions)
