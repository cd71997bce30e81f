"""JNH50x: what a JAX array is: immutable, numeric, made from arrays (not lists), one
truth value only when it has one element; and array refs, which are not arrays."""
