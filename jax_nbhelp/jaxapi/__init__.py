"""What the installed JAX can do: capabilities probed (never version numbers), the
interpret modes and their switches, and what an interpreted kernel costs.
"""
