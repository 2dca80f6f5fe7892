"""Each extension's hooks, found once per class, run as strawberry runs them: every kind of
hook, in the extensions' order, around each stage, with the errors they add."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import strawberry
from graphql import GraphQLError
from strawberry.extensions import SchemaExtension

from schema.extension_hooks import KeptHooksRunner, hook_factory, stage_hooks
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


def test_a_class_without_a_hook_has_none_and_a_class_with_one_keeps_one_factory() -> None:
    generating, _, awaiting, _, hookless = extensions(Recorder())
    assert hook_factory(hookless, "on_operation") is None
    assert hook_factory(awaiting, "on_parse") is None
    found = hook_factory(generating, "on_operation")
    assert found is not None
    assert found[1] is False
    assert hook_factory(generating, "on_operation") is found
    awaited = hook_factory(awaiting, "on_execute")
    assert awaited is not None
    assert awaited[1] is True


def test_the_gateway_schema_runs_its_extensions_through_the_kept_hooks() -> None:
    schema = GatewaySchema(query=Query)
    runner = schema.create_extensions_runner(None, [])  # type: ignore[arg-type]
    assert isinstance(runner, KeptHooksRunner)


def test_a_stage_has_the_hooks_of_the_extensions_that_have_one_in_their_order() -> None:
    generating, async_generating, awaiting, calling, hookless = extensions(Recorder())
    classes = (hookless, calling, generating, async_generating, awaiting)
    operation = stage_hooks(classes, "on_operation")
    assert [(index, is_async) for index, _, is_async in operation] == [(1, False), (2, False)]
    assert [index for index, _, _ in stage_hooks(classes, "on_validate")] == [3]
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
