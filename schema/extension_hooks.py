"""strawberry's extension hooks, found once per list of extensions and driven directly.

For every operation strawberry builds four context managers (operation, parsing,
validation, execution). Each asks every extension whether it has that hook (`inspect`
tests), wraps each hook it has in a new `contextlib` context manager and enters them on an
exit stack: about a hundred calls per extension per request, the largest part of a cached
query's cost outside its resolvers. Here the kinds of a list of extensions' hooks are found
once, and a stage drives its hooks itself: a generator hook is advanced to its `yield` on
entering and resumed (or given the stage's exception) on leaving, as `contextlib` does, in
the same order (entered in the extensions' order, left in reverse), so the order, the
exceptions and the errors the hooks add are strawberry's (tests/schema/
test_extension_hooks.py).
"""

from __future__ import annotations

import inspect
from asyncio import iscoroutinefunction
from collections.abc import AsyncGenerator, Generator
from enum import Enum
from functools import cached_property
from types import MethodType, TracebackType
from typing import Any

from strawberry.extensions import SchemaExtension
from strawberry.extensions.context import (
    ExecutingContextManager,
    ExtensionContextManagerBase,
    OperationContextManager,
    ParsingContextManager,
    ValidationContextManager,
)
from strawberry.extensions.runner import SchemaExtensionsRunner
from strawberry.types import ExecutionContext
from strawberry.utils.await_maybe import await_maybe

__all__ = ["HookKind", "KeptHooksRunner", "hook_kind", "stage_hooks"]


class HookKind(Enum):
    """How a hook runs around its stage: the four forms strawberry accepts."""

    #: A generator: its code before `yield` runs on entering, the rest on leaving.
    GENERATOR = "generator"
    ASYNC_GENERATOR = "async generator"
    #: A function or a coroutine function, run on entering only.
    CALL = "call"
    AWAIT = "await"


def hook_kind(extension_type: type[SchemaExtension], name: str) -> HookKind | None:
    """The kind of the hook `name` (`on_operation`, ...) of `extension_type`, or None when
    the class keeps the default (no hook): strawberry's `get_hook`, for a class."""
    hook = getattr(extension_type, name)
    if hook is getattr(SchemaExtension, name):
        return None
    if inspect.isgeneratorfunction(hook):
        return HookKind.GENERATOR
    if inspect.isasyncgenfunction(hook):
        return HookKind.ASYNC_GENERATOR
    if callable(hook):
        return HookKind.AWAIT if iscoroutinefunction(hook) else HookKind.CALL
    raise ValueError(f"Hook {name} on {extension_type} must be callable, received {hook!r}")


#: Each list of extension classes' hooks of one stage: (index, kind) each.
StageHooks = tuple[tuple[int, HookKind], ...]
_stages: dict[tuple[tuple[type[SchemaExtension], ...], str], StageHooks] = {}


def stage_hooks(extension_types: tuple[type[SchemaExtension], ...], name: str) -> StageHooks:
    """The hooks `name` of extensions of these classes, in their order: the index of each
    extension that has one, and its kind; found once for each list of classes."""
    key = (extension_types, name)
    if key not in _stages:
        _stages[key] = tuple(
            (index, kind)
            for index, extension_type in enumerate(extension_types)
            if (kind := hook_kind(extension_type, name)) is not None
        )
    return _stages[key]


class _Stage(ExtensionContextManagerBase):
    """One stage's hooks, entered and left as strawberry's exit stack enters and leaves
    them (`with` for a synchronous execution, `async with` otherwise)."""

    __slots__ = ("stage", "started")

    def __init__(
        self, extensions: list[SchemaExtension], types: tuple[type[SchemaExtension], ...]
    ) -> None:
        """`types`: the extensions' classes, found once by the request's runner."""
        name = self.HOOK_NAME
        # The class's hook bound to the extension, as strawberry binds it.
        self.stage = [
            (MethodType(getattr(types[index], name), extensions[index]), kind)
            for index, kind in stage_hooks(types, name)
        ]
        #: The generator hooks entered: each with whether it is async.
        self.started: list[tuple[Any, bool]] = []

    def __enter__(self) -> None:
        for hook, kind in self.stage:
            if kind is HookKind.GENERATOR:
                generator = hook()
                self._start(generator, next(generator, _NOT_YIELDED), is_async=False)
            elif kind is HookKind.CALL:
                hook()
            else:
                raise RuntimeError(
                    f"SchemaExtension hook {hook.__self__}.{self.HOOK_NAME} "
                    "failed to complete synchronously."
                )

    async def __aenter__(self) -> None:
        for hook, kind in self.stage:
            if kind is HookKind.GENERATOR:
                generator = hook()
                self._start(generator, next(generator, _NOT_YIELDED), is_async=False)
            elif kind is HookKind.ASYNC_GENERATOR:
                generator = hook()
                self._start(generator, await anext(generator, _NOT_YIELDED), is_async=True)
            elif kind is HookKind.CALL:
                hook()
            else:
                await hook()

    def _start(self, generator: Any, yielded: object, *, is_async: bool) -> None:
        if yielded is _NOT_YIELDED:
            raise RuntimeError("generator didn't yield")
        self.started.append((generator, is_async))

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        pending = exc_val
        for generator, _ in reversed(self.started):
            pending = _resumed(generator, pending)
        _raise_replaced(exc_val, pending)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        pending = exc_val
        for generator, is_async in reversed(self.started):
            if is_async:
                pending = await _resumed_async(generator, pending)
            else:
                pending = _resumed(generator, pending)
        _raise_replaced(exc_val, pending)


_NOT_YIELDED = object()


def _resumed(
    generator: Generator[Any, None, None], error: BaseException | None
) -> BaseException | None:
    """A generator hook resumed after its stage, or given the stage's `error`, as
    `contextlib.contextmanager`'s exit does; what is pending after it: None once it ended
    (having suppressed `error`), `error` when it let it through, or what it raised."""
    traceback = None if error is None else error.__traceback__
    try:
        if error is None:
            next(generator)
        else:
            generator.throw(error)
    except StopIteration:  # it ended (a StopIteration given to it comes out a RuntimeError)
        return None
    except BaseException as raised:
        return _pending(raised, error, traceback)
    return RuntimeError("generator didn't stop" + ("" if error is None else " after throw()"))


async def _resumed_async(
    generator: AsyncGenerator[Any, None], error: BaseException | None
) -> BaseException | None:
    """`_resumed` for an async generator hook (`contextlib.asynccontextmanager`'s exit)."""
    traceback = None if error is None else error.__traceback__
    try:
        if error is None:
            await anext(generator)
        else:
            await generator.athrow(error)
    except StopAsyncIteration:
        return None
    except BaseException as raised:
        return _pending(raised, error, traceback)
    return RuntimeError("generator didn't stop" + ("" if error is None else " after athrow()"))


def _pending(
    raised: BaseException, error: BaseException | None, traceback: TracebackType | None
) -> BaseException:
    """The stage's `error` when the hook let it through (as itself, or as the RuntimeError
    a generator makes of a StopIteration), with its traceback as it was; else `raised`."""
    if error is not None and (
        raised is error
        or (isinstance(error, StopIteration | StopAsyncIteration) and raised.__cause__ is error)
    ):
        error.__traceback__ = traceback
        return error
    return raised


def _raise_replaced(error: BaseException | None, pending: BaseException | None) -> None:
    """Raises what a hook raised in place of the stage's `error`. A hook that suppresses
    the error does not end it: strawberry's stages let it through all the same."""
    if pending is not None and pending is not error:
        raise pending


class _Operation(_Stage, OperationContextManager):
    pass


class _Validation(_Stage, ValidationContextManager):
    pass


class _Parsing(_Stage, ParsingContextManager):
    pass


class _Executing(_Stage, ExecutingContextManager):
    pass


class KeptHooksRunner(SchemaExtensionsRunner):
    """strawberry's runner, its four stages' hooks found by `hook_kind` and driven by
    `_Stage`, and the results (`extensions` of the answer) asked only of the extensions that
    give any."""

    async def get_extensions_results(self, ctx: ExecutionContext) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for extension in self.extensions:
            # The default `get_results` answers {}: nothing to add, nothing to await.
            if type(extension).get_results is not SchemaExtension.get_results:
                data.update(await await_maybe(extension.get_results()))
        data.update(ctx.extensions_results)
        return data

    @cached_property
    def types(self) -> tuple[type[SchemaExtension], ...]:
        """The extensions' classes, for the request's four stages."""
        return tuple(map(type, self.extensions))

    def operation(self) -> OperationContextManager:
        return _Operation(self.extensions, self.types)

    def validation(self) -> ValidationContextManager:
        return _Validation(self.extensions, self.types)

    def parsing(self) -> ParsingContextManager:
        return _Parsing(self.extensions, self.types)

    def executing(self) -> ExecutingContextManager:
        return _Executing(self.extensions, self.types)
