"""A NumPy array indexed with a traced value inside a transformed function: ``table[i]``
under ``jax.jit`` where ``table`` is a NumPy array (``TracerArrayConversionError: The
numpy.ndarray conversion method __array__() was called on traced array``).

NumPy's indexing needs the index's value now; under jit the index is a tracer. Indexing a
JAX array instead (``jnp.asarray(table)[i]``) is an operation jit compiles, and the table
becomes a constant of the compiled program. The values are the table's, converted to JAX's
precision: exact for 32-bit (and smaller) tables, with ``jax_enable_x64``, or for a 64-bit
table whose values all fit 32 bits (NumPy compares them, for tables up to 65,536 elements);
otherwise a float64 table is rounded to float32, which the safety line says.

Reports: jax-ml/jax#553 (``np.arange(n)[x]`` under jit), jax-ml/jax#3133
(``np.zeros((3, 3))[i, :]`` inside ``jax.jit``), google-deepmind/distrax#291 (``np.indices``
indexed by a tracer), jax-ml/jax#7545 (NumPy test arrays indexed with traced values).
"""

from __future__ import annotations

import ast
from dataclasses import replace

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import NUMPY_IMPORTS, corrected
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.line_values import Value
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH505"
TITLE = "A NumPy array indexed with a traced value"
ERROR = "TracerArrayConversionError"

EXAMPLES = (
    corrected(NUMPY_IMPORTS,
              "prices = np.array([3, 5, 8, 13], dtype=np.int32)\n\n@jax.jit\n"
              "def cost(item, count):\n    return prices[item] * count",
              "prices = np.array([3, 5, 8, 13], dtype=np.int32)\n\n@jax.jit\n"
              "def cost(item, count):\n    return jnp.asarray(prices)[item] * count",
              "total = cost(2, 3)", "Index jnp.asarray(prices)", "int(total) == 24"),
    # A float64 table (NumPy's default) whose values are whole numbers: exact in float32,
    # so the conversion keeps every value and the fix is called safe.
    corrected(NUMPY_IMPORTS,
              "steps = np.linspace(0.0, 8.0, 5)\n\n@jax.jit\n"
              "def step_at(k):\n    return steps[k] / 2",
              "steps = np.linspace(0.0, 8.0, 5)\n\n@jax.jit\n"
              "def step_at(k):\n    return jnp.asarray(steps)[k] / 2",
              "half = step_at(3)", "Index jnp.asarray(steps)", "float(half) == 3.0"),
    # two NumPy tables on the line: each would fail in turn, so both are indexed as JAX
    # arrays; a tenth is not exact in float32, which JAX computes with either way
    corrected(NUMPY_IMPORTS,
              "lo = np.array([0.1, 0.2, 0.3])\nhi = np.array([1.0, 2.0, 3.0])\n\n@jax.jit\n"
              "def width(k):\n    return hi[k] - lo[k]",
              "lo = np.array([0.1, 0.2, 0.3])\nhi = np.array([1.0, 2.0, 3.0])\n\n@jax.jit\n"
              "def width(k):\n    return jnp.asarray(hi)[k] - jnp.asarray(lo)[k]",
              "w = width(1)", "Index JAX arrays", "abs(float(w) - 1.8) < 1e-6"),
)

WHY = _entry.prose("""
NumPy indexes right away, so it needs the index's value. Under jax.jit (and vmap, grad) your
function runs with tracers, which stand for values that exist only when the compiled program
runs. Indexing a JAX array is an operation jit can compile: jnp.asarray(table)[i] makes the
table a constant of the compiled program and picks the element when it runs.
""")

TRIGGERS = (ERROR,)


def indexed_numpy(ctx: ErrorContext, location: Location | None) -> list[Value]:
    """The NumPy arrays the line indexes (``table[i]``), read from its live frame."""
    if location is None:
        return []
    parsed = _tracing.parse(location.source)
    if parsed is None:
        return []
    tree, _ = parsed
    bases = {ast.unparse(node.value) for node in ast.walk(tree)
             if isinstance(node, ast.Subscript) and getattr(node, "lineno", 0) <= location.lineno
             <= (getattr(node, "end_lineno", 0) or 0)}
    return [v for v in ctx.values_at(location) if v.kind == "numpy" and v.text in bases]


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    found = _tracing.traced(ctx, _tracing.error_link(ctx, ERROR))
    if found is None:
        return None
    tables = indexed_numpy(ctx, found.location)
    if not tables or found.location is None:
        return None
    location = found.location
    table = tables[0]
    inside = (f" inside {_tracing.traced_in(found.origin)}" if found.origin is not None else "")
    explanation = (f"{found.subject('A line')} indexes {table.text}, a NumPy array "
                   f"({table.summary.removeprefix('NumPy ')}), with a traced value{inside}; "
                   "NumPy needs the index's value now.")
    jnp = ctx.alias("jax.numpy") or "jnp"
    fixes: tuple[Fix, ...] = ()
    # the line's other NumPy tables would fail next (`flux[i] * pos[i]`): each is wrapped
    named = [t for t in tables if t.text.replace(".", "").isidentifier()]
    if table in named:
        fixes = (_fix(ctx, location, named, jnp),)
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=found.caller, fixes=fixes,
                            notes=[f"Converting once, outside the function "
                                   f"(`{table.text} = {jnp}.asarray({table.text})`), does "
                                   "the same for every function that indexes it."])


def _exact(dtype: str | None) -> bool:
    """Whether JAX keeps this NumPy dtype as it is (no 64-bit narrowing)."""
    if dtype is None:
        return False
    from jax_nbhelp.jaxapi.jax_probe import attribute

    config = attribute("jax", "config")
    x64 = bool(getattr(config, "jax_enable_x64", False)) if config is not None else False
    return x64 or "64" not in dtype


def _fix(ctx: ErrorContext, location: Location, tables: list[Value], jnp: str) -> Fix:
    """Index ``jnp.asarray(table)`` for each NumPy table the line indexes."""
    words = []
    rounded = False
    for table in tables:
        narrowed = (table.dtype or "").replace("64", "32")
        if _exact(table.dtype):
            words.append(f"{jnp}.asarray({table.text}) holds {table.text}'s values as they "
                         f"are ({table.dtype})")
        elif table.narrows_exactly:  # 64-bit, every value exact in 32 bits (NumPy said so)
            words.append(f"{table.text} is {table.dtype}, which JAX keeps as {narrowed} "
                         f"(64-bit values are off), and every value it holds is exact in "
                         f"{narrowed}")
        else:  # an item indexed with a tracer is a JAX value: JAX would round it anyway
            rounded = True
            words.append(f"{table.text} is {table.dtype}, and JAX computes with it as "
                         f"{narrowed} (64-bit values are off), as it would with any item of "
                         "it a traced index picks")
    safety = ("" if rounded else "Same values: ") + "; ".join(words) + "."
    safety = safety[0].upper() + safety[1:]

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.wrap_in_call import wrap_subscripted

        for table in tables:
            source = wrap_subscripted(source, location.lineno, table.text, f"{jnp}.asarray")
        return source

    wrapped = ", ".join(f"{jnp}.asarray({table.text})" for table in tables)
    fix = rewrite_fix(ctx, location, transform,
                      label=f"Index {wrapped}" if len(tables) == 1 else "Index JAX arrays",
                      summary=(f"Index {wrapped} on line {location.lineno}: JAX arrays, which "
                               "jit can index with a traced value; then re-run."),
                      safety=safety, safe=True)
    return replace(fix, rounding=rounded)
