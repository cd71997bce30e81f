"""What a missing import needs: the distribution to install, and whether it is one of the JAX
ecosystem's (the card speaks only for those) or runs only on a GPU.

Plain data, read by the catalog (the card for a missing ecosystem package) and the doctor
(every missing package, named in its report).
"""

from __future__ import annotations

# import name -> the name pip installs, where they differ; a dotted name first, so that
# `orbax.checkpoint` missing beside an installed `orbax` still names the right distribution
PIP_NAMES: dict[str, str] = {
    "orbax.checkpoint": "orbax-checkpoint",
    "orbax.export": "orbax-export",
    "google.protobuf": "protobuf",
    "absl": "absl-py",
    "array_record": "array-record",
    "attr": "attrs",
    "bs4": "beautifulsoup4",
    "cv2": "opencv-python",
    "cuda": "cuda-python",
    "cutlass": "nvidia-cutlass-dsl",
    "dateutil": "python-dateutil",
    "dm_pix": "dm-pix",
    "haiku": "dm-haiku",
    "huggingface_hub": "huggingface-hub",
    "jax_md": "jax-md",
    "jax_triton": "jax-triton",
    "kfac_jax": "kfac-jax",
    "ml_collections": "ml-collections",
    "neural_tangents": "neural-tangents",
    "orbax": "orbax-checkpoint",
    "PIL": "pillow",
    "sklearn": "scikit-learn",
    "skimage": "scikit-image",
    "tensorflow_datasets": "tensorflow-datasets",
    "tensorflow_probability": "tensorflow-probability",
    "tensorflow_text": "tensorflow-text",
    "tree": "dm-tree",
    "yaml": "pyyaml",
}

# libraries built on JAX (import names): a missing one gets a card in the notebook
JAX_ECOSYSTEM: frozenset[str] = frozenset({
    "blackjax", "brax", "chex", "clu", "diffrax", "distrax", "dm_pix", "equinox", "evosax",
    "flax", "grain", "gymnax", "haiku", "jax_md", "jax_triton", "jaxopt", "jaxtyping", "jmp",
    "jraph", "kfac_jax", "lineax", "ml_collections", "neural_tangents", "numpyro",
    "optax", "optimistix", "orbax", "penzai", "rlax", "tensorflow_datasets",
    "tensorflow_probability", "treescope",
})

# packages that run only with an NVIDIA GPU: missing on a machine without one, the notebook
# needs a GPU more than a `pip install`
GPU_ONLY: frozenset[str] = frozenset({
    "cuda", "cupy", "cutlass", "jax_triton", "pycuda", "pynvml", "tensorrt", "triton",
})


def top_level(module: str) -> str:
    return module.split(".", 1)[0]


def pip_name(module: str) -> str:
    """The distribution that provides ``module`` (an import name, dotted or not)."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        name = ".".join(parts[:end])
        if name in PIP_NAMES:
            return PIP_NAMES[name]
    return parts[0].replace("_", "-")


def in_ecosystem(module: str) -> bool:
    return top_level(module) in JAX_ECOSYSTEM


def gpu_only(module: str) -> bool:
    return top_level(module) in GPU_ONLY
