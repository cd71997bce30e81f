"""JNH61x: what a notebook needs installed: a library of the JAX ecosystem that the kernel's
environment lacks. The one family that speaks for errors JAX did not raise (the engine asks it
only about import errors)."""
