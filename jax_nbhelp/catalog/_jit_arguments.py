"""Reading JAX's messages about an argument it cannot trace: which function, which argument
(its path: ``self``, ``mode``, ``cfg['name']``) and the argument's type; and the call that
passed it. Shared by the entries for a jitted method, a non-array argument and an object of
a class JAX does not know.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from jax_nbhelp.catalog import _tracing
from jax_nbhelp.core.model import Location
from jax_nbhelp.diagnosis.context import ErrorContext, Link

JIT = "as an abstract array"
OTHER = "is not a valid JAX type"
TRIGGERS = (JIT, OTHER)

_JIT_RE = re.compile(r"Error interpreting argument to <function (?P<function>\S+) at 0x[0-9a-f]+"
                     r"> as an abstract array\. The problematic value is of type <class "
                     r"'(?P<type>[^']+)'> and was passed to the function at path "
                     r"(?P<path>.+?)\.?$", re.M)
_OTHER_RE = re.compile(r"Argument '(?P<value>.*?)' of type '?<class '(?P<type>[^']+)'>'? is not "
                       r"a valid JAX type")
_BUILTINS = frozenset({"str", "bytes", "NoneType", "bool", "int", "float", "complex", "list",
                       "tuple", "dict", "function", "type", "module"})


@dataclass(frozen=True)
class BadArgument:
    """The argument JAX could not trace."""

    link: Link
    jit: bool  # raised by jit (grad and vmap say "not a valid JAX type")
    function: str | None  # the jitted function's qualified name
    type_name: str  # the argument's class, qualified ("__main__.Layer", "str")
    path: str | None  # where in the arguments: "self", "mode", "cfg['name']"

    @property
    def short_type(self) -> str:
        return self.type_name.rsplit(".", 1)[-1]

    @property
    def builtin(self) -> bool:
        return "." not in self.type_name and self.type_name in _BUILTINS

    @property
    def is_method_self(self) -> bool:
        return self.path == "self" and self.function is not None and "." in self.function \
            and "<locals>" not in self.function.rsplit(".", 2)[-2]

    @property
    def parameter(self) -> str | None:
        """The parameter the value was passed for, when it is a whole parameter."""
        return self.path if self.path is not None and self.path.isidentifier() else None


def bad_argument(ctx: ErrorContext) -> BadArgument | None:
    for link in ctx.chain:
        found = _JIT_RE.search(link.message)
        if found is not None and link.is_a("TypeError"):
            return BadArgument(link, True, found["function"], found["type"], found["path"])
        other = _OTHER_RE.search(link.message)
        if other is not None and link.is_a("TypeError"):
            return BadArgument(link, False, None, other["type"], None)
    return None


def passed_object(ctx: ErrorContext, location: Location | None, method: str | None,
                  type_name: str) -> str | None:
    """The name on the call line that holds the object: ``c`` in ``c.calc(3)``, or an
    argument whose value is of ``type_name``."""
    if location is None:
        return None
    parsed = _tracing.parse(location.source)
    if parsed is not None and method is not None:
        for node in ast.walk(parsed[0]):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == method and isinstance(node.func.value, ast.Name)
                    and node.lineno <= location.lineno <= (node.end_lineno or 0)):
                return node.func.value.id
    short = type_name.rsplit(".", 1)[-1]
    for value in ctx.values_at(location):
        if value.summary == f"{short} object" and value.text.isidentifier():
            return value.text
    return None
