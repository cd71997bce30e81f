"""PRNG keys: a batch where one key is expected, typed and raw keys mixed, int seeds."""
