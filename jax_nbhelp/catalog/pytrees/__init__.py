"""JNH54x: pytrees: two trees of different structure, a class JAX does not know how to
flatten, dict keys that cannot be sorted."""
