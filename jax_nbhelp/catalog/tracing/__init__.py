"""JNH3xx: tracer errors: Python control flow, ints and NumPy on traced values, concrete
values needed, leaked tracers, static arguments."""
