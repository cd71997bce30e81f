"""JNH59x: host callbacks under transformations: pure_callback and io_callback have no
derivative, and an ordered io_callback cannot be batched."""
