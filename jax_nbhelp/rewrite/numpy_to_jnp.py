"""Fix: call ``jnp.f`` instead of ``np.f`` on a line that runs under a JAX trace.

NumPy needs concrete values, so ``np.asarray(x)`` or ``np.sin(x)`` on a traced
array fails with ``TracerArrayConversionError``; ``jax.numpy`` has the same
functions for traced arrays.  Only calls that take a non-literal argument are
changed: ``np.sqrt(2.0)`` is a NumPy constant and works under jit as it is.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import libcst as cst

from ._cst import CallSite, Located, dotted_name, locate, rewrite_calls
from .errors import CannotRewrite
from .magics import rewrite_cell

__all__ = ["numpy_calls_at", "numpy_calls_to_jnp", "numpy_calls_to_jnp_python"]


_SUBMODULES = ("linalg", "fft")


def _numpy_function(call: cst.Call, numpy: str) -> str | None:
    """``sin`` of ``np.sin(...)``, ``linalg.norm`` of ``np.linalg.norm(...)``."""
    func = call.func
    if isinstance(func, cst.Attribute):
        module = dotted_name(func.value)
        if module == numpy:
            return func.attr.value
        if module is not None and module.startswith(numpy + ".") \
                and module[len(numpy) + 1:] in _SUBMODULES:
            return f"{module[len(numpy) + 1:]}.{func.attr.value}"
    return None


def _is_literal(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)):
        return True
    if isinstance(expr, cst.Name):
        return expr.value in {"True", "False", "None"}
    if isinstance(expr, cst.UnaryOperation):
        return _is_literal(expr.expression)
    if isinstance(expr, (cst.Tuple, cst.List)):
        return all(isinstance(e, cst.Element) and _is_literal(e.value) for e in expr.elements)
    return False


def _on_traced_values(call: cst.Call) -> bool:
    return not all(_is_literal(arg.value) for arg in call.args)


def _sites(source: str, lineno: int, numpy: str) -> tuple[Located, list[tuple[CallSite, str]]]:
    located = locate(source, lineno)
    found = []
    for site in located.calls_at(lineno):
        name = _numpy_function(site.node, numpy)
        if name is not None and _on_traced_values(site.node):
            found.append((site, name))
    return located, found


def numpy_calls_at(source: str, lineno: int, numpy: str = "np") -> list[str]:
    """Names of the ``numpy.<name>(...)`` calls with non-literal arguments on ``lineno``.

    ``source`` is plain Python; raises :class:`CannotRewrite` if it does not parse.
    """
    return [name for _, name in _sites(source, lineno, numpy)[1]]


def numpy_calls_to_jnp_python(source: str, lineno: int, allowed: Mapping[str, Collection[str]],
                              numpy: str = "np", jnp: str = "jnp") -> str:
    """Like :func:`numpy_calls_to_jnp` for plain Python (no IPython syntax)."""
    located, sites = _sites(source, lineno, numpy)
    if not sites:
        raise CannotRewrite(f"Line {lineno} has no {numpy}.<function>(...) call on an array.")
    for site, name in sites:
        keywords = allowed.get(name)
        if keywords is None:
            raise CannotRewrite(
                f"{numpy}.{name} on line {lineno} is not known to behave the same as "
                f"{jnp}.{name}, so jax_nbhelp leaves it to you."
            )
        extra = [arg.keyword.value for arg in site.node.args
                 if arg.keyword is not None and arg.keyword.value not in keywords]
        if extra or any(arg.star for arg in site.node.args):
            what = f"{', '.join(extra)}=" if extra else "*arguments"
            raise CannotRewrite(
                f"{numpy}.{name} on line {lineno} passes {what}, which {jnp}.{name} may treat "
                "differently, so jax_nbhelp leaves it to you."
            )
    jnp_expr = cst.parse_expression(jnp)

    def to_jnp(call: cst.Call) -> cst.Call:
        assert isinstance(call.func, cst.Attribute)
        value = call.func.value
        module = jnp_expr if dotted_name(value) == numpy else cst.Attribute(
            value=jnp_expr, attr=value.attr) if isinstance(value, cst.Attribute) else jnp_expr
        return call.with_changes(func=call.func.with_changes(value=module))

    return rewrite_calls(located.module, [site.node for site, _ in sites], to_jnp).code


def numpy_calls_to_jnp(source: str, lineno: int, allowed: Mapping[str, Collection[str]],
                       numpy: str = "np", jnp: str = "jnp") -> str:
    """Turn ``np.f(args)`` on 1-based ``lineno`` into ``jnp.f(args)``.

    Every NumPy call with a non-literal argument on the line must be in ``allowed``
    (function name -> keywords it may pass); otherwise nothing changes and
    :class:`CannotRewrite` is raised.  ``source`` may be a notebook cell with IPython
    syntax.
    """
    return rewrite_cell(
        source, lambda code: numpy_calls_to_jnp_python(code, lineno, allowed, numpy, jnp)
    )
