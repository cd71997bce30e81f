"""JNH55x: what jax.jit accepts as arguments: arrays and pytrees of arrays; everything else
is static (part of the compiled function's key) or a pytree it is told about."""
