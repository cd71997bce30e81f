"""JNH51x: dtypes: lax operations that want equal dtypes, updates and stores of another
dtype, samplers asked for a dtype they cannot draw, grad at integer inputs."""
