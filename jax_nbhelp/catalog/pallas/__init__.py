"""JNH2xx: Pallas kernels on a CPU runtime and in the interpreters: the missing interpret
mode, the interpreter that does not fit, TPU-only queries, BlockSpecs and kernel indexing."""
