"""What a notebook needs that this machine lacks: a package (named with what pip installs), or
a GPU or TPU; and which later failures came only from that (knock-on).

A failure is knock-on only where that is established: the same package missing again, a
``NameError`` for a name that a cell which failed would have bound, or any failure after the
notebook was found to need an accelerator that is not here.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import cache

from jax_nbhelp.core import packages

_NO_MODULE = re.compile(r"No module named '([\w.]+)'")
_NAME_ERROR = re.compile(r"name '(\w+)' is not defined")
# what a machine without the accelerator prints or raises
_GPU = re.compile(
    r"nvidia-smi: (?:command )?not found|No such file or directory: 'nvidia-smi'"
    r"|Unknown backend:? '?(?:gpu|cuda|rocm)'?|Backend '(?:gpu|cuda|rocm)' failed to initialize"
    r"|libcuda\.so[.\d]*: cannot open shared object file|CUDA driver (?:version )?is "
    r"insufficient|no CUDA-capable device")
_TPU = re.compile(r"Unknown backend:? '?tpu'?|Backend 'tpu' failed to initialize"
                  r"|libtpu\.so: cannot open shared object file")


@dataclass(frozen=True)
class Need:
    kind: str  # "package", "gpu" or "tpu"
    what: str  # the import name, or "GPU"/"TPU"
    cell: int  # where it showed, 1-based among the notebook's cells

    @property
    def install(self) -> str | None:
        return f"pip install {packages.pip_name(self.what)}" if self.kind == "package" else None

    def sentence(self) -> str:
        if self.kind == "package":
            return f"needs {self.what} ({self.install})"
        return f"needs a {self.what}, which this machine does not have"


def missing_module(ename: str, evalue: str) -> str | None:
    """The module an import could not find."""
    if ename not in ("ModuleNotFoundError", "ImportError"):
        return None
    found = _NO_MODULE.search(evalue)
    return found.group(1) if found else None


def need_of(ename: str, evalue: str, cell: int) -> Need | None:
    """What a failure says is missing."""
    module = missing_module(ename, evalue)
    if module is not None:
        if packages.gpu_only(module):
            return Need("gpu", "GPU", cell)
        return Need("package", module, cell)
    return hardware(f"{ename}: {evalue}", cell)


def hardware(text: str, cell: int) -> Need | None:
    """A GPU or TPU that the cell's output or error shows is not here."""
    if _GPU.search(text):
        return Need("gpu", "GPU", cell)
    if _TPU.search(text):
        return Need("tpu", "TPU", cell)
    return None


def undefined_name(ename: str, evalue: str) -> str | None:
    found = _NAME_ERROR.search(evalue) if ename == "NameError" else None
    return found.group(1) if found else None


@cache
def bound_names(source: str) -> frozenset[str]:
    """The names a cell binds at its top level (imports, assignments, definitions, loop and
    ``with`` targets); empty when it does not parse."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        tree = ast.parse(TransformerManager().transform_cell(source))
    except Exception:  # magics IPython cannot turn into Python, or a syntax error
        return frozenset()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                names.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return frozenset(names)


class KnockOn:
    """Follows one notebook's failures in order: what it needs, and which failures came only
    from an earlier one."""

    def __init__(self) -> None:
        self.needs: list[Need] = []
        self._blamed: dict[str, int] = {}  # a name a failed cell would have bound -> that cell
        self._modules: dict[str, int] = {}  # a missing module -> the cell it first failed in
        self._hardware: Need | None = None

    def output(self, text: str, cell: int) -> None:
        """A cell's printed output (``!nvidia-smi`` fails without raising)."""
        if self._hardware is None:
            need = hardware(text, cell)
            if need is not None:
                self._hardware = need
                self.needs.append(need)

    def failure(self, ename: str, evalue: str, cell: int, source: str) -> str | None:
        """Note a failing cell; the reason it is knock-on, or None when it is a failure of
        its own (whose need, if any, is now in ``needs``)."""
        reason = self._knock_on(ename, evalue)
        for name in bound_names(source):
            self._blamed.setdefault(name, cell)
        if reason is not None:
            return reason
        need = need_of(ename, evalue, cell)
        if need is None:
            return None
        if need.kind == "package":
            self._modules[need.what] = cell
        elif self._hardware is None:
            self._hardware = need
        self.needs.append(need)
        return None

    def _knock_on(self, ename: str, evalue: str) -> str | None:
        if self._hardware is not None:
            return f"the notebook needs a {self._hardware.what} (cell {self._hardware.cell})"
        module = missing_module(ename, evalue)
        if module is not None and module in self._modules:
            return f"{module} is missing (cell {self._modules[module]})"
        name = undefined_name(ename, evalue)
        if name is not None and name in self._blamed:
            return f"cell {self._blamed[name]} failed before binding {name}"
        return None
