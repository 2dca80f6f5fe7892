"""Plans of objects: what completing an object takes when every field selected on it is a
plain attribute read or a planned read.

A field is plain when strawberry resolves it with its default resolver (no resolver of
ours, no field extension, no permission), it takes no arguments, and its nodes carry no
directive but the `@include`/`@skip` that field collection has already applied. Its type
is a leaf, a list of leaves, an object whose own selection is plain, or a list of those
(each with or without `!`). `__typename` is plain too.

A field is planned when its resolver declares what it reads (`schema.field_reads`: a read of
the tables that depends on nothing but its object, its arguments and the request's clock),
is a plain function (not a coroutine function, no field extension or permission, no `root`
or `parent` parameter) and its arguments are built-in scalars. The executor binds its
arguments once per request (`PlainField.planned`) and calls the resolver itself for every
object before anything is awaited: every read of the request is then asked for before the
one wait (`schema.execution.operation`).

One level of a plan (`Level`) depends only on the object type and the field nodes merged
under each response name; the compiled operation (`schema.execution.operation`) puts the
levels of its selection together once per document and set of `@include`/`@skip` values.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from math import isfinite
from operator import attrgetter
from typing import Any, TypeAlias

from graphql import (
    GRAPHQL_MAX_INT,
    GRAPHQL_MIN_INT,
    FieldNode,
    GraphQLLeafType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLSchema,
    get_nullable_type,
    is_leaf_type,
    is_object_type,
)
from graphql.type.scalars import (
    serialize_boolean,
    serialize_float,
    serialize_id,
    serialize_int,
    serialize_string,
)
from strawberry.resolvers import is_default_resolver
from strawberry.types.base import StrawberryType
from strawberry.types.field import StrawberryField

from schema.field_reads import READS

#: The kinds of a plain field.
TYPENAME, LEAF, OBJECT, LEAF_LIST, OBJECT_LIST = range(5)

#: Directives that field collection evaluates: a node carrying only these is plain.
COLLECTION_DIRECTIVES = frozenset({"include", "skip"})

#: The strawberry field behind a graphql-core field (strawberry's converter sets it).
STRAWBERRY_DEFINITION = "strawberry-definition"


@dataclass(frozen=True, slots=True)
class PlainField:
    """One response name of a plain object.

    `read` gets the value from the source (the default resolver's attribute read), and
    `attribute` names the attribute when that read is `getattr`'s; `coerce` is the leaf
    type's output coercion (of the items, for a list); `name` is the object type's name for
    `__typename`. `non_null` is the field's `!`, `items_non_null`
    its list items'. `object_type` is the nested object type, if any. `planned` is a planned
    field's strawberry field: its `read` is bound per request, from its arguments."""

    response_name: str
    kind: int
    read: Callable[[Any], Any] | None = None
    coerce: Callable[[Any], Any] | None = None
    name: str = ""
    non_null: bool = False
    items_non_null: bool = False
    object_type: GraphQLObjectType | None = None
    planned: StrawberryField | None = None
    attribute: str | None = None


#: One level of a plan: the object's plain fields in response order.
Level: TypeAlias = tuple[PlainField, ...]


def compile_level(
    schema: GraphQLSchema,
    object_type: GraphQLObjectType,
    grouped: Iterable[tuple[str, list[FieldNode]]],
) -> Level | None:
    """The plain fields of one object, or None if any selected field is not plain."""
    fields = []
    for response_name, nodes in grouped:
        field = _plain_field(schema, object_type, response_name, nodes)
        if field is None:
            return None
        fields.append(field)
    return tuple(fields)


def _plain_field(
    schema: GraphQLSchema,
    object_type: GraphQLObjectType,
    response_name: str,
    nodes: list[FieldNode],
) -> PlainField | None:
    if any(
        any(d.name.value not in COLLECTION_DIRECTIVES for d in node.directives or ())
        for node in nodes
    ):
        return None
    field_name = nodes[0].name.value
    if field_name == "__typename":
        return PlainField(response_name, TYPENAME, name=object_type.name)
    field_def = schema.get_field(object_type, field_name)
    if field_def is None:
        return None
    definition = field_def.extensions.get(STRAWBERRY_DEFINITION)
    if _plannable(definition):
        return _typed(response_name, None, field_def.type, planned=definition)
    if (
        any(node.arguments for node in nodes)
        or field_def.args
        or field_def.resolve is None
        or not is_default_resolver(field_def.resolve)
    ):
        return None
    read = _reader(definition, field_def.resolve)
    if read is None:
        return None
    typed = _typed(response_name, read, field_def.type)
    if typed is not None and isinstance(read, attrgetter):
        typed = replace(typed, attribute=definition.python_name)  # type: ignore[union-attr]
    return typed


#: The argument types a planned field may take: what GraphQL's built-in scalars give as is.
_BUILT_IN_ARGUMENTS = (int, str, float, bool)


def _plannable(definition: object) -> bool:
    """A field whose resolver declares its reads and that the executor may call itself."""
    if not isinstance(definition, StrawberryField) or READS not in (definition.metadata or {}):
        return False
    resolver = definition.base_resolver
    return (
        resolver is not None
        and not definition.extensions
        and not resolver.is_async
        and resolver.root_parameter is None
        and resolver.parent_parameter is None
        and all(_built_in(argument.type) for argument in definition.arguments)
    )


def _built_in(argument_type: StrawberryType | type | object) -> bool:
    # strawberry.ID is a NewType of str: GraphQL gives its value as a str.
    supertype = getattr(argument_type, "__supertype__", argument_type)
    return isinstance(supertype, type) and issubclass(supertype, _BUILT_IN_ARGUMENTS)


def _reader(definition: object, resolve: Callable[..., Any]) -> Callable[[Any], Any] | None:
    """The default resolver's read, without its call chain when it is `getattr`."""
    if not isinstance(definition, StrawberryField) or definition.base_resolver is not None:
        return None
    if definition.default_resolver is getattr:
        return attrgetter(definition.python_name)
    # A configured default resolver: strawberry's own wrapper, which ignores `info`.
    return lambda source: resolve(source, None)


def _typed(
    response_name: str,
    read: Callable[[Any], Any] | None,
    field_type: GraphQLOutputType,
    planned: StrawberryField | None = None,
) -> PlainField | None:
    non_null = isinstance(field_type, GraphQLNonNull)
    nullable = get_nullable_type(field_type)
    many = isinstance(nullable, GraphQLList)
    items = nullable.of_type if isinstance(nullable, GraphQLList) else nullable
    items_non_null = isinstance(items, GraphQLNonNull)
    named = get_nullable_type(items)
    coerce: Callable[[Any], Any] | None = None
    object_type: GraphQLObjectType | None = None
    if is_leaf_type(named):
        kind, coerce = (LEAF_LIST if many else LEAF), _coercer(named)
    elif is_object_type(named) and named.is_type_of is None:
        kind, object_type = (OBJECT_LIST if many else OBJECT), named
    else:
        return None
    return PlainField(
        response_name,
        kind,
        read,
        coerce,
        non_null=non_null,
        items_non_null=items_non_null,
        object_type=object_type,
        planned=planned,
    )


def _coercer(leaf: Any) -> Callable[[Any], Any]:
    leaf_type: GraphQLLeafType = leaf
    coerce = leaf_type.coerce_output_value
    if coerce is _BUILT_IN_SERIALIZERS.get(leaf_type.name):
        return _FAST_COERCERS.get(leaf_type.name, coerce)
    return coerce


def _string(value: Any) -> Any:
    # A str is its own String (and ID) output: serialize_string's first test.
    return value if type(value) is str else serialize_string(value)


def _id(value: Any) -> Any:
    return value if type(value) is str else serialize_id(value)


def _boolean(value: Any) -> Any:
    return value if type(value) is bool else serialize_boolean(value)


def _int(value: Any) -> Any:
    # An int within GraphQL's 32 bits is its own Int output; anything else (a bool, a float,
    # a string, out of range) is serialize_int's to coerce or refuse.
    if type(value) is int and GRAPHQL_MIN_INT <= value <= GRAPHQL_MAX_INT:
        return value
    return serialize_int(value)


def _float(value: Any) -> Any:
    if type(value) is float and isfinite(value):
        return value
    return serialize_float(value)


#: graphql-core's serializers of the built-in scalars, and the same outputs without the calls
#: and checks a value already of the output's type does not need (a schema's own scalar of
#: the same name, with another serializer, keeps its own).
_BUILT_IN_SERIALIZERS: dict[str, Callable[[Any], Any]] = {
    "String": serialize_string,
    "ID": serialize_id,
    "Boolean": serialize_boolean,
    "Int": serialize_int,
    "Float": serialize_float,
}
_FAST_COERCERS: dict[str, Callable[[Any], Any]] = {
    "String": _string,
    "ID": _id,
    "Boolean": _boolean,
    "Int": _int,
    "Float": _float,
}
#: The coercions that give a value of this type back as it is (the generated completion
#: tests the type in line instead of calling them: `schema.execution.generated`).
OWN_OUTPUT_TYPES: dict[Callable[[Any], Any], type] = {_string: str, _id: str, _boolean: bool}
