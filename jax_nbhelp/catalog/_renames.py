"""Names and keywords that JAX releases spell differently, as data.

Each row was checked against JAX's release tags (``jax/experimental/pallas/tpu.py``,
``jax/_src/pallas/...`` at ``jax-v0.6.2`` to ``jax-v0.11.0``) and the Pallas changelog, and by
probing jax 0.9.2 and 0.10.2. A row is only used when the installed JAX agrees: the
diagnosis probes that the replacement exists (and that the old spelling does not) before
it names it or rewrites to it. ``Gone`` rows and keywords without a replacement are
explained, never rewritten.
"""

from __future__ import annotations

from dataclasses import dataclass

TPU = "jax.experimental.pallas.tpu"
PALLAS = "jax.experimental.pallas"
MOSAIC_GPU = "jax.experimental.pallas.mosaic_gpu"


@dataclass(frozen=True)
class Moved:
    """``module.name`` that this JAX has as ``target`` (a dotted path in ``target_module``)."""

    module: str
    name: str
    target_module: str
    target: str
    history: str  # what changed, in which release
    # Why the rewritten code computes the same (every row's rewrite does).
    safety: str = ("The old name and this one name the same thing (JAX kept the old name as "
                   "a deprecated alias of it), so the code computes the same.")
    # The target takes a call of another shape: rewrite only calls passing these keywords
    # (and at most one positional argument).
    call_keywords: frozenset[str] | None = None
    # Members of the old name that live elsewhere now: member -> (module, dotted path).
    members: tuple[tuple[str, tuple[str, str]], ...] = ()
    # A module that holds the same object under the old name itself: what `from module
    # import name` becomes (`from jax.tree_util import tree_map`), leaving the name as is.
    import_from: str | None = None
    # The library whose name it is, where no JAX release had it (``"PyTorch"``): code
    # written from another library's habits, not for another release.
    library: str | None = None
    # The expression written in the old name's place, ``{}`` the target as the notebook
    # spells it: ``(-{})`` for jnp.NINF, which was ``-jnp.inf`` (in parentheses, so that
    # ``jnp.NINF ** 2`` stays what it was).
    written: str = "{}"
    # Keywords each call of the new name gets, to do what the old name did:
    # jax.random.shuffle(k, x) was permutation(k, x, independent=True).
    call_added: tuple[tuple[str, str], ...] = ()

    def expression(self, target: str, *, in_code: bool = True) -> str:
        """What replaces the old name, ``target`` being the new one as the notebook spells
        it: in code, with ``written``'s parentheses; in a sentence, without them."""
        text = self.written.format(target)
        return text if in_code else text.removeprefix("(").removesuffix(")")


@dataclass(frozen=True)
class Gone:
    """``module.name`` that no release after its removal has under another name."""

    module: str
    name: str
    history: str
    advice: str


@dataclass(frozen=True)
class Keyword:
    """A keyword of the JAX function ``function`` (its ``__name__``, found in ``homes``)
    that another release spells ``replacement`` (None: no keyword replaces it)."""

    function: str
    homes: tuple[str, ...]
    keyword: str
    replacement: str | None
    history: str
    advice: str = ""


_TREE = ("jax.tree_{0} was deprecated, then removed in jax 0.6.0; jax.tree.{0} "
         "(jax 0.4.25 and newer) and jax.tree_util.tree_{0} are the same function")

MOVED: tuple[Moved, ...] = (
    Moved(TPU, "TPUMemorySpace", TPU, "MemorySpace",
          "jax 0.6.2 renamed pltpu.TPUMemorySpace to pltpu.MemorySpace (the Pallas "
          "changelog lists it under 0.7.0); the old name stayed an alias of the new "
          "one through jax 0.7.1, and its ANY member is pl.ANY now",
          # pltpu.MemorySpace has no ANY (checked on 0.9.2 and 0.10.2): it is Pallas's own.
          members=(("ANY", (PALLAS, "ANY")),)),
    Moved(TPU, "TPUCompilerParams", TPU, "CompilerParams",
          "jax 0.6.2 renamed pltpu.TPUCompilerParams to pltpu.CompilerParams (the Pallas "
          "changelog lists it under 0.7.0); the old name stayed an alias of the new "
          "one through jax 0.7.1"),
    Moved(TPU, "KernelType", TPU, "CoreType",
          "JAX 0.9.1 renamed pltpu.KernelType to pltpu.CoreType (an alias of it in 0.9.x) and "
          "removed the old name in 0.10.2"),
    Moved(TPU, "ANY", PALLAS, "ANY",
          "pltpu.ANY was the same memory space as pl.ANY, deprecated in its favour and removed "
          "in jax 0.10.0"),
    Moved(TPU, "delay", PALLAS, "delay",
          "pltpu.delay was the same function as pl.delay, deprecated in its favour and removed "
          "in jax 0.10.0"),
    Moved(TPU, "TensorCoreMesh", TPU, "create_tensorcore_mesh",
          "pltpu.TensorCoreMesh(axis_name=..., num_cores=...) is how jax 0.11.0 and newer "
          "build a TensorCore mesh (JAX's docs notebooks use it); earlier releases build the "
          "same mesh with pltpu.create_tensorcore_mesh(axis_name, num_cores=...)",
          safety=("In jax 0.11, create_tensorcore_mesh(axis_name, num_cores=n) returns "
                  "TensorCoreMesh(axis_name=axis_name, num_cores=n): the same mesh, so kernels "
                  "over it compute the same."),
          call_keywords=frozenset({"axis_name", "num_cores"})),
    *(Moved("jax", f"tree_{name}", "jax", f"tree.{name}", _TREE.format(name),
            safety=(f"jax.tree.{name} calls jax.tree_util.tree_{name}, which the removed "
                    f"jax.tree_{name} was, so the code computes the same."),
            import_from="jax.tree_util")
      for name in ("map", "leaves", "flatten", "unflatten", "structure", "transpose")),
    Moved("jax", "treedef_is_leaf", "jax.tree_util", "treedef_is_leaf",
          "jax.treedef_is_leaf was removed in jax 0.6.0; jax.tree_util.treedef_is_leaf is the "
          "same function", import_from="jax.tree_util"),
    # The changelog's removals of long-deprecated names, each with the direct replacement it
    # names (JAX 0.3.5 to 0.4.38): code from older tutorials and libraries still has them.
    *(Moved(module, "tree_multimap", target_module, target,
            "tree_multimap was deprecated in jax 0.3.5 and removed in 0.3.16; the changelog "
            "names tree_map as its direct replacement (it maps over several trees too)",
            safety=("tree_map takes the same function and trees and maps over them as "
                    "tree_multimap did, so the code computes the same."))
      for module, target_module, target in (("jax", "jax", "tree.map"),
                                            ("jax.tree_util", "jax.tree_util", "tree_map"))),
    *(Moved("jax.numpy", old, "jax.numpy", new,
            f"jnp.{old} followed NumPy's deprecation: deprecated in jax {deprecated} and "
            f"removed in {removed}, with jnp.{new} named as its replacement",
            safety=f"jnp.{old} was jnp.{new} under another name, so the code computes the same.")
      for old, new, deprecated, removed in (
          ("product", "prod", "0.4.12", "0.4.16"), ("cumproduct", "cumprod", "0.4.12", "0.4.16"),
          ("sometrue", "any", "0.4.12", "0.4.16"), ("alltrue", "all", "0.4.12", "0.4.16"),
          ("row_stack", "vstack", "0.4.16", "0.4.24"), ("trapz", "trapezoid", "0.4.16", "0.4.24"),
          ("round_", "round", "0.4.32", "0.4.38"))),
    # jax-ml/jax d8d7140 deprecated it (2020), a17c8d9 removed it (jax 0.4.31); its
    # warning said to use permutation with independent=True, which calls the same shuffle
    Moved("jax.random", "shuffle", "jax.random", "permutation",
          "jax.random.shuffle was deprecated in 2020 and removed in jax 0.4.31; its warning "
          "named jax.random.permutation(..., independent=True) as its replacement",
          safety=("permutation with independent=True shuffles exactly as shuffle did (both "
                  "run JAX's one shuffle on the key, the array and the axis), so the code "
                  "draws the same permutation."),
          call_added=(("independent", "True"),)),
    # jax-ml/jax 0e80d95 deprecated it after NumPy did (jax 0.4.15), e356d76 removed it
    # (0.4.24); JAX's deprecation message named its replacement
    Moved("jax.numpy", "NINF", "jax.numpy", "inf",
          "jnp.NINF followed NumPy's deprecation of it (numpy#24357): deprecated in jax "
          "0.4.15 and removed in 0.4.24, with -jnp.inf named as its replacement",
          safety="jnp.NINF was -jnp.inf under another name, so the code computes the same.",
          written="(-{})"),
    Moved("jax.nn", "normalize", "jax.nn", "standardize",
          "jax.nn.normalize was deprecated in jax 0.3.5 and removed in 0.4.29; "
          "jax.nn.standardize is the same function under its new name"),
    # PyTorch's names for jax.numpy functions that do the same with the same positional
    # arguments (a dim= keyword is renamed axis= by the keyword rule).
    *(Moved("jax.numpy", old, "jax.numpy", new,
            f"torch.{old} is what jax.numpy, like NumPy, calls {new}",
            safety=(f"jnp.{new} does what torch.{old} does with the same positional "
                    f"arguments ({what}), so the code computes what it meant."),
            library="PyTorch")
      for old, new, what in (
          ("cat", "concatenate", "the arrays, then the axis"),
          ("clamp", "clip", "the array, then the lower and upper bounds"),
          ("unsqueeze", "expand_dims", "the array, then where the new axis goes"),
          ("permute", "transpose", "the array, then the order of the axes"),
          ("numel", "size", "the array, counted element by element"))),
    # NumPy's aliases of Python's own types (np.float is float; removed in NumPy 1.24):
    # jax.numpy never had them, and the Python type is what they named. As a dtype, float
    # is JAX's default float (float32 unless x64 is on), as for np.float under NumPy.
    *(Moved("jax.numpy", name, "builtins", name,
            f"np.{name} was NumPy's alias of Python's {name} (deprecated in NumPy 1.20, "
            "removed in 1.24), and jax.numpy never had it",
            safety=(f"np.{name} was Python's {name} itself, so the code means the same: as "
                    f"a dtype, {name} is JAX's default {name} type."),
            library="NumPy")
      for name in ("float", "int", "complex")),
    Moved("jax.numpy", "DeviceArray", "jax", "Array",
          "jnp.DeviceArray was deprecated in jax 0.4.7 and removed in 0.4.14; the changelog "
          "names jax.Array in its place",
          safety=("jnp.DeviceArray was jax.Array under another name in its last releases, so "
                  "annotations and isinstance checks mean the same.")),
)

_INDEX_REF = ("Index the ref instead: x_ref[...] reads a block and o_ref[...] = value writes "
              "one (x_ref[pl.ds(start, size)] for a slice).")
_TRITON = "It is a Triton-only operation now: jax.experimental.pallas.triton.{0}."
_ATOMICS = ("atomic_add", "atomic_and", "atomic_cas", "atomic_max", "atomic_min", "atomic_or",
            "atomic_xchg", "atomic_xor")

GONE: tuple[Gone, ...] = (
    *(Gone(PALLAS, name, f"pl.{name} was deprecated in jax 0.7.1 and removed in 0.9.0",
           f"{_INDEX_REF} Triton kernels have jax.experimental.pallas.triton.{name}.")
      for name in ("load", "store")),
    Gone(PALLAS, "swap", "pl.swap was deprecated in jax 0.8.1 and removed in 0.9.0",
         f"{_INDEX_REF} A swap is a read then a write."),
    *(Gone(PALLAS, name, f"pl.{name} moved to jax.experimental.pallas.triton in jax 0.7.1 and "
           "was removed from pl in 0.9.0", _TRITON.format(name))
      for name in _ATOMICS),
    Gone(PALLAS, "max_contiguous", "pl.max_contiguous moved to jax.experimental.pallas.triton "
         "in jax 0.8.1 and was removed from pl in 0.9.0", _TRITON.format("max_contiguous")),
    # Each was x.at[idx] with one method; rewritten by the entry, keywords and all.
    *(Gone("jax.ops", name, f"jax.ops.{name} was deprecated in jax 0.2.22 and removed in "
           "0.3.2, with jax.ops.index", f"Use the .at property: x.at[idx].{method}(y).")
      for name, method in (("index_update", "set"), ("index_add", "add"),
                           ("index_mul", "multiply"), ("index_min", "min"),
                           ("index_max", "max"))),
    Gone("jax.ops", "index", "jax.ops.index was removed in jax 0.3.2, with "
         "jax.ops.index_update and its siblings", "Index with the plain subscript: "
         "x.at[1:3].set(y), where jax.ops.index_update(x, jax.ops.index[1:3], y) was."),
    # The class of typed keys, not jax.Array: an isinstance check would change its meaning.
    *(Gone("jax.random", name, f"jax.random.{name} was deprecated in jax 0.4.16 and removed "
           "in 0.4.24", "Use jax.Array in annotations; to ask whether an array is a typed key "
           "(made by jax.random.key), use jax.dtypes.issubdtype(x.dtype, "
           "jax.dtypes.prng_key).")
      for name in ("KeyArray", "PRNGKeyArray")),
)

_KERNELS = (PALLAS, MOSAIC_GPU)
_KERNEL_RENAME = ("pl.kernel takes {new}= since jax 0.10.1, where it replaced {old}= (the "
                  "Pallas changelog lists it under 0.10.0; plgpu.kernel followed in 0.10.2, "
                  "still accepting {old}=); before, both took {old}=")

KEYWORDS: tuple[Keyword, ...] = (
    *(Keyword("kernel", _KERNELS, old, new,
              _KERNEL_RENAME.format(old=old, new=new) if new.endswith("type")
              else _KERNEL_RENAME.format(old=new, new=old))
      for old, new in (("out_shape", "out_type"), ("scratch_shapes", "scratch_types"),
                       ("out_type", "out_shape"), ("scratch_types", "scratch_shapes"))),
    Keyword("emit_pipeline", (MOSAIC_GPU,), "delay_release", None,
            "plgpu.emit_pipeline took delay_release= until jax 0.7.1; since jax 0.7.2 each "
            "input's plgpu.BlockSpec(..., delay_release=n) sets it",
            "Move delay_release=n into the plgpu.BlockSpec of each input that needs it."),
    Keyword("emit_pipeline", (TPU,), "delay_release", None,
            "delay_release= is a Mosaic GPU pipeline option (plgpu.BlockSpec(..., "
            "delay_release=n)); the TPU pipeline, pltpu.emit_pipeline, has never taken it "
            "(jax 0.6.2 to 0.11.0)",
            "Drop it on TPU, or use plgpu.emit_pipeline for a Mosaic GPU kernel."),
    # jax-ml/jax 79005c1 deprecated it, a7039a2 made it an error, 91a07ea removed it
    Keyword("reshape", ("jax.numpy",), "newshape", "shape",
            "jnp.reshape's newshape= was deprecated in jax 0.4.29, when it took shape= (NumPy "
            "2's name), became an error in 0.4.36 and was removed in 0.6.0"),
    # jax-ml/jax 8b7aae5 (Array API 2023 names), e1375a7 (the old names removed)
    *(Keyword("clip", ("jax.numpy",), old, new,
              f"jnp.clip's {old}= was deprecated in jax 0.4.27, when jnp.clip took {new}= "
              "(the Array API's name), and removed in 0.10.0")
      for old, new in (("a_min", "min"), ("a_max", "max"))),
    Keyword("pallas_call", (PALLAS,), "backend", None,
            "pl.pallas_call lost backend= in jax 0.9.1: the kind of compiler_params= now picks "
            "the backend",
            "Pass compiler_params= of the backend instead: pltriton.CompilerParams() (from "
            "jax.experimental.pallas import triton as pltriton) for 'triton', "
            "pltpu.CompilerParams() for 'mosaic_tpu', plgpu.CompilerParams() for "
            "'mosaic_gpu'; under interpret mode neither is needed."),
)


def moved(module: str, name: str) -> Moved | None:
    return next((row for row in MOVED if (row.module, row.name) == (module, name)), None)


def gone(module: str, name: str) -> Gone | None:
    return next((row for row in GONE if (row.module, row.name) == (module, name)), None)


def keywords(function: str, keyword: str) -> tuple[Keyword, ...]:
    return tuple(row for row in KEYWORDS if (row.function, row.keyword) == (function, keyword))
