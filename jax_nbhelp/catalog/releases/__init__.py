"""Names, keywords and modules of another JAX release (JNH210, JNH213)."""
