"""The product (gateway/, schema/, loaders/) reaches other packages through the surface they
document: every private member of a dependency it reads, passes or overrides is listed in
docs/dependencies.md, with the module that touches it, and that list is exactly what a
scan of the code finds.

The scan, with `ast` over every module:
- `from package import _name` from a package not the product's;
- `obj._name` (and `getattr`/`setattr`/`hasattr` with `"_name"`), a `_name=` keyword,
  where `_name` (not a dunder) is defined nowhere in the product: no `def`, class
  attribute, `self._name` assignment, `__slots__` entry or parameter of that name. A
  private of the product's own is its business (names are the scan's only evidence: a
  dependency's private spelled like one of the product's escapes it);
- a name mangled for another class (`_MemoryStorage__schedule_expiry`);
- a class whose body defines a `_name` that a class of another package in its MRO also
  defines: an override of a private method (the class is imported to read its MRO)."""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("gateway", "schema", "loaders")
DOC = ROOT / "docs" / "dependencies.md"


@dataclass(frozen=True, order=True)
class Site:
    module: str  # path from the repository's root
    name: str


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def product_files() -> list[Path]:
    return sorted(path for package in PRODUCT for path in (ROOT / package).rglob("*.py"))


def _trees() -> dict[Path, ast.Module]:
    return {path: ast.parse(path.read_text(), str(path)) for path in product_files()}


def own_names(trees: dict[Path, ast.Module]) -> set[str]:
    """Every private name the product defines itself."""
    names: set[str] = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
                if not isinstance(node, ast.ClassDef):
                    arguments = node.args
                    every = arguments.posonlyargs + arguments.args + arguments.kwonlyargs
                    names.update(argument.arg for argument in every)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id == "__slots__" for target in node.targets
            ):
                names.update(
                    constant.value
                    for constant in ast.walk(node.value)
                    if isinstance(constant, ast.Constant) and isinstance(constant.value, str)
                )
    return {name for name in names if _private(name)}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _reached(node: ast.AST) -> Iterator[str]:
    """The private names `node` reads, writes or passes by name."""
    if isinstance(node, ast.Attribute) and _private(node.attr):
        yield node.attr
    if isinstance(node, ast.Call):
        function = node.func
        if (
            isinstance(function, ast.Name)
            and function.id in ("getattr", "setattr", "hasattr", "delattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and _private(node.args[1].value)
        ):
            yield node.args[1].value
        yield from (k.arg for k in node.keywords if k.arg is not None and _private(k.arg))


MANGLED = re.compile(r"^_([A-Za-z][A-Za-z0-9]*)__\w+$")


def scan() -> set[Site]:
    trees = _trees()
    own = own_names(trees)
    own_classes = {
        node.name
        for tree in trees.values()
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    }
    found: set[Site] = set()
    for path, tree in trees.items():
        module = str(path.relative_to(ROOT))
        for node in ast.walk(tree):
            for name in _reached(node):
                if name not in own:
                    found.add(Site(module, name))
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] not in (
                PRODUCT
            ):
                found |= {Site(module, a.name) for a in node.names if _private(a.name)}
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                mangled = MANGLED.match(node.name)
                if mangled and mangled.group(1) not in own_classes:
                    found.add(Site(module, node.name))
            if isinstance(node, ast.ClassDef):
                found |= _overrides(path, node)
    return found


def _overrides(path: Path, node: ast.ClassDef) -> set[Site]:
    """The private members `node`'s body defines that a class of another package in its
    MRO defines too."""
    defined = {
        child.name
        for child in node.body
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) and _private(child.name)
    }
    if not defined or not node.bases:
        return set()
    module = importlib.import_module(_module_name(path))
    cls = getattr(module, node.name, None)
    if not isinstance(cls, type):
        return set()  # a class made inside a function: its bases are read where it is used
    foreign = [base for base in cls.__mro__[1:] if base.__module__.split(".")[0] not in PRODUCT]
    return {
        Site(str(path.relative_to(ROOT)), name)
        for name in defined
        if any(name in vars(base) for base in foreign)
    }


ROW = re.compile(r"^\|\s*([\w.-]+)\s*\|[^|]*\|\s*`([\w/.]+)`\s*\|\s*`(\w+)`\s*\|")


def listed() -> set[Site]:
    """The sites docs/dependencies.md lists: `| dependency | range | `module` | `name` | why |`."""
    return {
        Site(match.group(2), match.group(3))
        for line in DOC.read_text().splitlines()
        if (match := ROW.match(line))
    }


def test_every_private_member_of_a_dependency_the_product_touches_is_listed() -> None:
    found = scan()
    unlisted = sorted(found - listed())
    assert not unlisted, f"not in docs/dependencies.md: {unlisted}"


def test_the_list_names_only_what_the_product_still_touches() -> None:
    gone = sorted(listed() - scan())
    assert not gone, f"docs/dependencies.md lists what the product no longer touches: {gone}"


def test_the_scan_finds_a_read_a_keyword_and_an_override(tmp_path: Path) -> None:
    source = (
        "from limits.aio.storage import MemoryStorage\n"
        "def f(client):\n"
        "    client._endpoint.http_session\n"
        "    getattr(client, '_request_signer')\n"
        "    Info(_raw_info=client)\n"
        "class S(MemoryStorage):\n"
        "    async def _MemoryStorage__schedule_expiry(self): ...\n"
    )
    tree = ast.parse(source)
    reached = {name for node in ast.walk(tree) for name in _reached(node)}
    assert reached == {"_endpoint", "_request_signer", "_raw_info"}
    function = next(n for n in ast.walk(tree) if isinstance(n, ast.AsyncFunctionDef))
    assert MANGLED.match(function.name)
