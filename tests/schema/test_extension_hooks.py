"""Each extension's hooks, found once per class, run as strawberry runs them: every kind of
hook, in the extensions' order, around each stage, with the errors they add, and with an
exception in a stage or a hook given to the same hooks and ending the same way as under
strawberry's own runner."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import strawberry
from graphql import GraphQLError
from strawberry.extensions import SchemaExtension
from strawberry.extensions.runner import SchemaExtensionsRunner

from schema.extension_hooks import HookKind, KeptHooksRunner, hook_kind, stage_hooks
from schema.root import GatewaySchema


@strawberry.type
class Query:
    @strawberry.field
    def hello(self) -> str:
        return "world"


class Recorder:
    def __init__(self) -> None:
        self.seen: list[str] = []


def extensions(recorder: Recorder) -> list[type[SchemaExtension]]:
    class Generating(SchemaExtension):
        def on_operation(self) -> Iterator[None]:
            recorder.seen.append("generating operation before")
            yield
            recorder.seen.append("generating operation after")

        def on_parse(self) -> Iterator[None]:
            recorder.seen.append("generating parse")
            yield

    class AsyncGenerating(SchemaExtension):
        async def on_validate(self) -> AsyncIterator[None]:
            recorder.seen.append("async generating validate before")
            yield
            recorder.seen.append("async generating validate after")

    class Awaiting(SchemaExtension):
        async def on_execute(self) -> None:  # type: ignore[override]
            recorder.seen.append("awaiting execute")

    class Calling(SchemaExtension):
        def on_operation(self) -> None:  # type: ignore[override]
            recorder.seen.append("calling operation")

    class Hookless(SchemaExtension):
        pass

    return [Generating, AsyncGenerating, Awaiting, Calling, Hookless]


async def test_every_kind_of_hook_runs_in_the_extensions_order_around_its_stage() -> None:
    recorder = Recorder()
    schema = GatewaySchema(query=Query, extensions=extensions(recorder))
    result = await schema.execute("{ hello }")
    assert result.errors is None
    assert result.data == {"hello": "world"}
    assert recorder.seen == [
        "generating operation before",
        "calling operation",
        "generating parse",
        "async generating validate before",
        "async generating validate after",
        "awaiting execute",
        "generating operation after",
    ]


async def test_the_hooks_run_again_for_each_operation() -> None:
    recorder = Recorder()
    schema = GatewaySchema(query=Query, extensions=extensions(recorder))
    await schema.execute("{ hello }")
    first = list(recorder.seen)
    await schema.execute("{ hello }")
    assert recorder.seen == first + first


async def test_an_error_a_hook_adds_is_answered() -> None:
    class Refusing(SchemaExtension):
        def on_validate(self) -> Iterator[None]:
            self.execution_context.pre_execution_errors = [GraphQLError("refused")]
            yield

    schema = GatewaySchema(query=Query, extensions=[Refusing])
    result = await schema.execute("{ hello }")
    assert result.data is None
    assert [error.message for error in result.errors or []] == ["refused"]


def test_a_class_without_a_hook_has_none_and_a_class_with_one_has_its_kind() -> None:
    generating, async_generating, awaiting, calling, hookless = extensions(Recorder())
    assert hook_kind(hookless, "on_operation") is None
    assert hook_kind(awaiting, "on_parse") is None
    assert hook_kind(generating, "on_operation") is HookKind.GENERATOR
    assert hook_kind(async_generating, "on_validate") is HookKind.ASYNC_GENERATOR
    assert hook_kind(awaiting, "on_execute") is HookKind.AWAIT
    assert hook_kind(calling, "on_operation") is HookKind.CALL


def test_the_gateway_schema_runs_its_extensions_through_the_kept_hooks() -> None:
    schema = GatewaySchema(query=Query)
    runner = schema.create_extensions_runner(None, [])  # type: ignore[arg-type]
    assert isinstance(runner, KeptHooksRunner)


def test_a_stage_has_the_hooks_of_the_extensions_that_have_one_in_their_order() -> None:
    generating, async_generating, awaiting, calling, hookless = extensions(Recorder())
    classes = (hookless, calling, generating, async_generating, awaiting)
    operation = stage_hooks(classes, "on_operation")
    assert operation == ((1, HookKind.CALL), (2, HookKind.GENERATOR))
    assert stage_hooks(classes, "on_validate") == ((3, HookKind.ASYNC_GENERATOR),)
    assert stage_hooks(classes, "on_operation") is operation
    assert stage_hooks((hookless,), "on_execute") == ()


async def test_the_answer_carries_the_results_of_the_extensions_that_give_any() -> None:
    class Giving(SchemaExtension):
        def get_results(self) -> dict[str, Any]:
            return {"given": 1}

    class AwaitedGiving(SchemaExtension):
        async def get_results(self) -> dict[str, Any]:
            return {"awaited": 2}

    class Silent(SchemaExtension):
        pass

    schema = GatewaySchema(query=Query, extensions=[Silent, Giving, AwaitedGiving])
    result = await schema.execute("{ hello }")
    assert result.extensions == {"given": 1, "awaited": 2}


class Boom(Exception):
    pass


def ending_extensions(seen: list[str], plan: dict[str, str]) -> list[SchemaExtension]:
    """Three operation hooks (a generator, an async generator, a generator) that record
    what they see; `plan` makes one of them raise on entering or leaving, swallow the
    stage's exception, end without yielding, or yield twice."""

    def act(name: str, when: str) -> None:
        if plan.get(name) == when:
            raise Boom(f"{name} {when}")

    class Outer(SchemaExtension):
        def on_operation(self) -> Iterator[None]:
            act("outer", "enter")
            try:
                yield
            except Exception as error:
                seen.append(f"outer saw {error}")
                raise
            act("outer", "leave")
            seen.append("outer left")

    class Middle(SchemaExtension):
        async def on_operation(self) -> AsyncIterator[None]:
            act("middle", "enter")
            if plan.get("middle") == "no yield":
                return
            try:
                yield
            except Exception as error:
                seen.append(f"middle saw {error}")
                if plan.get("middle") == "swallow":
                    return
                if plan.get("middle") != "twice":
                    raise
            act("middle", "leave")
            if plan.get("middle") == "twice":
                yield
            seen.append("middle left")

    class Inner(SchemaExtension):
        def on_operation(self) -> Iterator[None]:
            act("inner", "enter")
            if plan.get("inner") == "no yield":
                return
            try:
                yield
            except Exception as error:
                seen.append(f"inner saw {error}")
                if plan.get("inner") == "replace":
                    raise Boom("inner replaced") from error
                if plan.get("inner") != "twice":
                    raise
            act("inner", "leave")
            if plan.get("inner") == "twice":
                yield
            seen.append("inner left")

    return [Outer(), Middle(), Inner()]


async def run_stage(runner_class: type[SchemaExtensionsRunner], plan: dict[str, str]) -> list[str]:
    seen: list[str] = []
    runner = runner_class(execution_context=None, extensions=ending_extensions(seen, plan))  # type: ignore[arg-type]
    try:
        async with runner.operation():
            seen.append("stage")
            if plan.get("stage") == "raise":
                raise Boom("stage")
            if plan.get("stage") == "stop":
                raise StopIteration("stage")
    except Exception as error:
        seen.append(f"ended with {type(error).__name__}: {error}")
    return seen


PLANS = [
    {},
    {"stage": "raise"},
    {"stage": "raise", "middle": "swallow"},
    {"stage": "raise", "inner": "replace"},
    {"outer": "enter"},
    {"middle": "enter"},
    {"inner": "leave"},
    {"middle": "leave"},
    {"outer": "leave"},
    {"inner": "leave", "outer": "leave"},
    {"inner": "no yield"},
    {"middle": "no yield"},
    {"inner": "twice"},
    {"middle": "twice"},
    {"stage": "raise", "inner": "twice"},
    {"stage": "raise", "middle": "twice"},
    {"stage": "stop"},
    {"stage": "stop", "middle": "swallow"},
]


@pytest.mark.parametrize(
    "plan", PLANS, ids=lambda plan: ",".join(f"{k}={v}" for k, v in plan.items()) or "none"
)
async def test_an_exception_ends_a_stage_as_under_strawberrys_own_runner(
    plan: dict[str, str],
) -> None:
    ours = await run_stage(KeptHooksRunner, plan)
    assert ours == await run_stage(SchemaExtensionsRunner, plan)
    assert "stage" in ours or {"enter", "no yield"} & set(plan.values())


def test_a_synchronous_stage_refuses_an_async_hook_and_runs_the_others() -> None:
    for runner_class in (KeptHooksRunner, SchemaExtensionsRunner):
        seen: list[str] = []
        runner = runner_class(execution_context=None, extensions=ending_extensions(seen, {}))  # type: ignore[arg-type]
        with (
            pytest.raises(RuntimeError, match="failed to complete synchronously"),
            runner.operation(),
        ):
            seen.append("stage")
        assert seen == [], runner_class
        seen.clear()
        runner = runner_class(execution_context=None, extensions=[ending_extensions(seen, {})[0]])  # type: ignore[arg-type]
        with runner.operation():
            seen.append("stage")
        assert seen == ["stage", "outer left"], runner_class
