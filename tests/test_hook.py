"""The exception hook: chaining, restoring, falling through, never hiding a traceback."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

from conftest import Notebook


class ColabLikeError(ImportError):
    pass


def _previous_handler(seen: list[str]):
    def handler(shell, etype, value, tb, tb_offset=None):
        seen.append(f"{etype.__name__}: {value}")
        print("previous handler saw", etype.__name__)
        return ["previous handler"]

    return handler


def test_unrelated_error_gets_ipythons_own_traceback(nb: Notebook) -> None:
    before = nb.run("1/0")
    nb.ok("%load_ext jax_nbhelp")
    nb.ok("import jax")
    after = nb.run("1/0")
    assert isinstance(after.error, ZeroDivisionError)
    assert "ZeroDivisionError" in after.stdout
    # Only the cell number differs (IPython 8+: "In[4]"; IPython 7: "<ipython-input-4-...>").
    def numbered(text: str) -> str:
        return re.sub(r"(In\[|ipython-input-)\d+", r"\1N", text)

    assert numbered(after.stdout) == numbered(before.stdout)
    assert after.diagnoses == []
    assert after.stderr == ""


def _numbered(text: str) -> str:
    return re.sub(r"(In\[|ipython-input-)\d+(-[0-9a-f]+)?", r"\1N", text)


def test_a_traceback_through_cells_is_ipythons_text_without_the_module_walks(
        nb: Notebook) -> None:
    """A RecursionError through a helper in an earlier cell and the failing cell: the same
    text as IPython alone, and while the extension is loaded inspect.getmodule finds the
    cells' files to be of no module without walking sys.modules (see shell/cell_frames);
    unloading takes those entries out."""
    import inspect

    helper, call = "def deep(n):\n    return deep(n + 1)", "x = 1\ndeep(0)"
    nb.ok(helper)
    before = nb.run(call)
    nb.ok("%load_ext jax_nbhelp")
    nb.ok(helper)
    cached = dict(inspect.modulesbyfile)
    after = nb.run(call)
    assert isinstance(after.error, RecursionError)
    # (how many frames fit under the recursion limit can differ by one between runs)
    def counted(text: str) -> str:
        return re.sub(r"\(\d+ times\)", "(M times)", _numbered(text))

    assert counted(after.stdout) == counted(before.stdout)
    assert "RecursionError" in after.stdout
    ours = {key for key, name in inspect.modulesbyfile.items()
            if key not in cached and "ipython-input" in key}
    assert ours, "no cell files entered"
    assert all(inspect.getmodule(inspect.currentframe(), key) is None for key in ours)
    nb.ok("%unload_ext jax_nbhelp")
    assert not any(key in inspect.modulesbyfile for key in ours)


def test_syntax_and_indentation_errors_still_reported_by_ipython(nb: Notebook) -> None:
    nb.ok("%load_ext jax_nbhelp")
    syntax = nb.run("x = (1,")
    assert isinstance(syntax.error, SyntaxError)
    assert "SyntaxError" in syntax.stdout + syntax.stderr
    indent = nb.run("if True:\nprint(1)")
    assert isinstance(indent.error, IndentationError)
    assert "IndentationError" in indent.stdout + indent.stderr


def test_handler_registered_before_keeps_working_and_is_restored(nb: Notebook) -> None:
    seen: list[str] = []
    nb.shell.set_custom_exc((ColabLikeError,), _previous_handler(seen))
    before = (nb.shell.custom_exceptions, nb.shell.CustomTB)
    nb.shell.user_ns["ColabLikeError"] = ColabLikeError

    nb.ok("%load_ext jax_nbhelp")
    out = nb.run("raise ColabLikeError('no module named foo')")
    assert seen == ["ColabLikeError: no module named foo"]
    assert "previous handler saw ColabLikeError" in out.stdout
    other = nb.run("1/0")
    assert "ZeroDivisionError" in other.stdout
    assert len(seen) == 1

    nb.ok("%unload_ext jax_nbhelp")
    assert nb.shell.custom_exceptions == before[0]
    assert nb.shell.CustomTB is before[1]
    nb.run("raise ColabLikeError('again')")
    assert seen[-1] == "ColabLikeError: again"


def test_second_load_is_a_no_op_and_unload_restores_default(nb: Notebook) -> None:
    before = (nb.shell.custom_exceptions, nb.shell.CustomTB)
    loaded = nb.ok("%load_ext jax_nbhelp")
    # one line says it is on, what it does, and how to turn it off
    assert loaded.stdout.count("\n") == 1
    assert "%unload_ext jax_nbhelp" in loaded.stdout
    assert nb.ok("%load_ext jax_nbhelp").stdout.startswith("The jax_nbhelp extension is "
                                                          "already loaded")
    installed = nb.shell.CustomTB
    import jax_nbhelp

    jax_nbhelp.load_ipython_extension(nb.shell)
    assert nb.shell.CustomTB is installed
    nb.ok("%unload_ext jax_nbhelp")
    assert (nb.shell.custom_exceptions, nb.shell.CustomTB) == before
    assert "jax_nbhelp" not in nb.shell.magics_manager.magics["line"]
    nb.ok("%load_ext jax_nbhelp")
    assert "jax_nbhelp" in nb.shell.magics_manager.magics["line"]


def test_unload_leaves_a_later_extensions_handler_alone(nb: Notebook) -> None:
    nb.ok("%load_ext jax_nbhelp")
    seen: list[str] = []
    nb.shell.set_custom_exc((ColabLikeError,), _previous_handler(seen))
    later = nb.shell.CustomTB
    nb.ok("%unload_ext jax_nbhelp")
    assert nb.shell.CustomTB is later


def test_a_bug_in_a_diagnosis_never_hides_the_traceback(nb: Notebook, monkeypatch) -> None:
    # The entry asked about JAX's RuntimeErrors (its trigger), broken on purpose.
    from jax_nbhelp.catalog.devices import accelerator_backend_missing as entry

    def broken(ctx):
        raise RuntimeError("bug in jax_nbhelp")

    monkeypatch.setattr(entry, "diagnose", broken)
    nb.ok("%load_ext jax_nbhelp")
    nb.ok("import jax")
    # A real JAX error (the catalog only looks at errors JAX raised).
    out = nb.run("jax.devices('tpu')")
    assert "RuntimeError" in out.stdout
    assert "a diagnosis failed" in out.stderr
    # Still registered: IPython drops a handler that raises, jax_nbhelp's must not.
    assert nb.run("1/0").stdout.count("ZeroDivisionError") >= 1
    assert nb.shell.custom_exceptions != ()


def test_importing_and_loading_does_not_import_jax() -> None:
    code = textwrap.dedent(
        """
        import sys
        import jax_nbhelp
        from IPython.core.interactiveshell import InteractiveShell
        shell = InteractiveShell.instance()
        shell.run_line_magic("load_ext", "jax_nbhelp")
        shell.run_cell("1/0")
        shell.run_line_magic("jax_nbhelp", "")
        assert "jax" not in sys.modules, "jax imported"
        print("ok")
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("ok")
