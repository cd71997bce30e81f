"""JNH1xx: ``pl.run_scoped`` in the wrong context (collective scratch outside a kernel,
in an interpreter, eagerly, under vmap or grad)."""
