"""JNH58x: what JAX's debugging switches report: jax_debug_nans stopping at the operation
that made a NaN."""
