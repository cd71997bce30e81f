"""The package's imports run one way (ARCHITECTURE.md): no module imports a layer above its
own, and no modules import each other in a circle. Every import statement counts, those
inside functions and under ``TYPE_CHECKING`` too."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "jax_nbhelp"

# Higher imports lower, never the reverse; a layer may import itself.
LAYERS = {
    "jax_nbhelp": 7,  # the package root wires the layers together
    "__main__": 8,
    "doctor": 8,  # the command line drives kernels; inside it imports nothing else
    "catalog_doc": 7,
    "catalog_coverage": 7,
    "shell": 6,
    "catalog": 5,
    "fix": 4,
    "show": 4,
    "diagnosis": 3,
    "jaxapi": 3,
    "rewrite": 2,
    "core": 1,
    "_version": 0,
}
# At most this many modules directly in jax_nbhelp/, besides __init__.py and _version.py.
TOP_LEVEL_MODULES = 6


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imported(name: str, path: Path) -> Iterator[tuple[int, str]]:
    """The package's modules that ``name`` imports, with the line of each import."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")[: len(name.split(".")) - node.level + is_package]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            # ``from package import module`` imports that module; ``from module import name``
            # imports the module (a package's own __init__ runs either way, as Python's)
            targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in MODULES
                       else source for alias in node.names]
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                yield node.lineno, target


GRAPH = {name: sorted(set(imported(name, path))) for name, path in MODULES.items()}


def layer(name: str) -> int:
    parts = name.split(".")
    return LAYERS[parts[1] if len(parts) > 1 else parts[0]]


def test_every_module_belongs_to_a_layer() -> None:
    unplaced = [name for name in MODULES if name != "jax_nbhelp"
                and name.split(".")[1] not in LAYERS]
    assert not unplaced, f"add these to a layer in ARCHITECTURE.md and LAYERS: {unplaced}"


def test_no_module_imports_a_layer_above_its_own() -> None:
    upward = [f"{MODULES[name].relative_to(PACKAGE.parent)}:{line} imports {target}"
              for name, edges in GRAPH.items() for line, target in edges
              if layer(target) > layer(name)]
    assert not upward, "\n".join(upward)


# Pairs of layers the numbers allow but the design does not.
APART = {("show", "diagnosis"): "show/ renders core's plain data; it asks diagnosis/ nothing"}


def test_layers_kept_apart_do_not_import_each_other() -> None:
    crossing = [f"{MODULES[name].relative_to(PACKAGE.parent)}:{line} imports {target} "
                f"({APART[pair]})"
                for name, edges in GRAPH.items() for line, target in edges
                if (pair := (name.split(".")[1] if "." in name else name,
                             target.split(".")[1] if "." in target else target)) in APART]
    assert not crossing, "\n".join(crossing)


def test_the_card_is_not_written_in_python_widgets() -> None:
    """The live card is the TypeScript one (an anywidget module): no Python module builds a
    card from ipywidgets' own widgets."""
    built = [f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"
             for path in MODULES.values()
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if (isinstance(node, ast.Import) and any(a.name.startswith("ipywidgets")
                                                      for a in node.names))
             or (isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ipywidgets"))]
    assert not built, built


def test_the_doctor_reaches_the_kernel_only_through_the_frontend_module() -> None:
    """The doctor drives a kernel: the code it sends there (strings, not import statements)
    names no module of jax_nbhelp but ``shell.frontend``, as the JupyterLab extension does."""
    import re

    named = re.compile(r"jax_nbhelp(?:\.\w+)+")
    reached = []
    for name, path in MODULES.items():
        if not name.startswith("jax_nbhelp.doctor"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef))
                      and node.body and isinstance(node.body[0], ast.Expr)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and id(node) not in docstrings):
                reached += [f"{path.name}:{node.lineno} {module}"
                            for module in named.findall(node.value)
                            if module != "jax_nbhelp.shell.frontend"]
    assert not reached, reached


def test_no_import_cycle() -> None:
    edges = {name: {target for _, target in targets} for name, targets in GRAPH.items()}
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        state[name] = 1
        path.append(name)
        for target in sorted(edges[name]):
            if state.get(target) == 1:
                return [*path[path.index(target):], target]
            if target not in state and (cycle := visit(target)):
                return cycle
        path.pop()
        state[name] = 2
        return None

    for name in sorted(edges):
        if name not in state and (cycle := visit(name)):
            pytest.fail("import cycle: " + " -> ".join(cycle))


def test_the_top_folder_holds_only_a_few_modules() -> None:
    top = [p.name for p in PACKAGE.glob("*.py") if p.name not in {"__init__.py", "_version.py"}]
    assert len(top) <= TOP_LEVEL_MODULES, top


def test_the_check_sees_imports_inside_functions(tmp_path: Path) -> None:
    source = "def f():\n    from jax_nbhelp.shell import hook\n"
    probe = tmp_path / "probe.py"
    probe.write_text(source)
    assert (2, "jax_nbhelp.shell.hook") in list(imported("jax_nbhelp.core.probe", probe))


def test_catalog_entries_build_their_diagnosis_with_the_shared_helper() -> None:
    """An entry states only what is its own; ``_entry.diagnosis`` fills in the rest."""
    direct = []
    for path in sorted((PACKAGE / "catalog").glob("[!_]*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in {"Diagnosis", "Fix"}):
                direct.append(f"{path.name}:{node.lineno} builds {node.func.id}(...) itself")
    assert not direct, "\n".join(direct)
