"""The package's layering, read from the source with ``ast`` (nothing is imported).

Every ``import`` counts, function-local ones included: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "hinter"
MAX_LINES = 600  # every module, demo/ included


def module_files(package: Path = PACKAGE) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that ``name`` imports (``from a import b``: ``a.b`` when that is
    a module, else ``a``); relative imports resolved."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    # Imports for type checkers only (`if TYPE_CHECKING:`) never run: no cycle, no layering.
    typing_only = {
        id(n)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for stmt in block.body
        for n in ast.walk(stmt)
    }
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in modules else base)
    return {m for m in found if m in modules and m != name}


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    modules = module_files(package)
    return {name: imports(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def within(module: str, package: str) -> bool:
    """``module`` is ``package`` itself or inside it (``hinter.cli`` as a module or a package)."""
    return module == package or module.startswith(package + ".")


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph()


def test_the_graph_sees_lazy_and_relative_imports(tmp_path):
    pkg = tmp_path / "hinter"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from hinter.sub import b\n")
    (pkg / "sub" / "b.py").write_text("from . import c\nfrom .. import a\n")
    (pkg / "sub" / "c.py").write_text("import hinter.a\n")
    found = import_graph(pkg)
    assert found["hinter.a"] == {"hinter.sub.b"}
    assert found["hinter.sub.b"] == {"hinter.sub.c", "hinter.a"}
    assert cycles(found) == [["hinter.a", "hinter.sub.b", "hinter.sub.c"]]


def test_no_import_cycle(graph):
    assert cycles(graph) == []


def test_models_never_import_rq_or_plots(graph):
    """rq and plots may import models, never the reverse."""
    wrong = [
        f"{m} -> {d}"
        for m, deps in graph.items()
        if within(m, "hinter.models")
        for d in deps
        if within(d, "hinter.rq") or within(d, "hinter.plots")
    ]
    assert wrong == []


def test_the_rq_layer_is_imported_only_from_above(graph):
    """Nothing below the RQ tables imports them (the table writer is ``hinter.render``)."""
    # the application layer: the CLI, the Python API, its test run, report and comparison
    above = ("hinter.rq", "hinter.plots", "hinter.cli", "hinter.api", "hinter.testrun",
             "hinter.report", "hinter.compare")  # fmt: skip
    wrong = [
        f"{m} -> {d}"
        for m, deps in graph.items()
        if not any(within(m, p) for p in above)
        for d in deps
        if within(d, "hinter.rq") or within(d, "hinter.plots")
    ]
    assert wrong == []


def test_only_cli_imports_cli(graph):
    wrong = [
        f"{m} -> {d}"
        for m, deps in graph.items()
        if not within(m, "hinter.cli")
        for d in deps
        if within(d, "hinter.cli")
    ]
    assert wrong == []


def test_config_is_below_the_models_and_the_application(graph):
    """Config validation reaches no model, RQ, plot or CLI module, not even through another
    module: what it checks of them (prompt files, model folders) lives below them."""
    above = ("hinter.models", "hinter.rq", "hinter.plots", "hinter.cli")
    via: dict[str, str] = {}
    stack = ["hinter.config"]
    while stack:
        module = stack.pop()
        for dep in sorted(graph[module]):
            if dep not in via and dep != "hinter.config":
                via[dep] = module
                stack.append(dep)
    wrong = []
    for dep in sorted(d for d in via if any(within(d, p) for p in above)):
        chain = [dep]
        while chain[-1] != "hinter.config":
            chain.append(via[chain[-1]])
        wrong.append(" <- ".join(chain))
    assert wrong == []


def test_the_predict_path_points_one_way(graph):
    """predictor -> (encoder | llm -> chat backends) -> stage: the registry is imported by no
    model module, and the stage imports none of its backends."""
    assert {"hinter.models.encoder", "hinter.models.llm"} <= graph["hinter.models.predictor"]
    assert [
        m for m, d in graph.items() if within(m, "hinter.models") and "hinter.models.predictor" in d
    ] == []
    assert "hinter.models.stage" in graph["hinter.models.encoder"]
    assert "hinter.models.stage" in graph["hinter.models.llm"]
    backends = ("hinter.models.encoder", "hinter.models.llm", "hinter.models.chat_")
    assert sorted(d for d in graph["hinter.models.stage"] if d.startswith(backends)) == []


def test_modules_stay_under_600_lines():
    long = {
        name: len(path.read_text(encoding="utf-8").splitlines())
        for name, path in module_files().items()
    }
    assert {name: n for name, n in long.items() if n > MAX_LINES} == {}
