"""What the benchmarks' child processes share: loading jax_nbhelp and timing its hook where
it runs (its own share of a failing cell), as code text each script puts in its process.

The process defines ``with_extension``, ``run(source)`` and the list ``own`` first.
"""

TIMED_HOOK = """\
if with_extension:
    run("%load_ext jax_nbhelp")
    # jax_nbhelp's own share of a failing cell: the diagnosis, timed where it runs.
    import jax_nbhelp.shell.hook as hook
    diagnose = hook.ExceptionHook._diagnose

    def timed(self, value):
        start = time.perf_counter()
        try:
            diagnose(self, value)
        finally:
            own.append((time.perf_counter() - start) * 1000)

    hook.ExceptionHook._diagnose = timed
"""
