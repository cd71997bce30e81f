"""JNH52x: what differentiation asks of a function: a scalar output (or has_aux), float
inputs, loops it can reverse, custom rules of the right structure."""
