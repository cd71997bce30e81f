"""The catalog index (which entry can claim which error) is current, and it lets the first
error import only the entries it may concern."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from jax_nbhelp.diagnosis import catalog_index
from jax_nbhelp.diagnosis.engine import entries


def test_index_is_current() -> None:
    proc = subprocess.run([sys.executable, "-m", "jax_nbhelp.diagnosis.catalog_index", "--check"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_every_entry_names_its_triggers() -> None:
    for entry in entries():
        triggers = catalog_index.triggers_of(entry)
        assert triggers, entry.__name__
        assert all(isinstance(t, str) and t for t in triggers), entry.__name__
        # one way to claim an error: a MATCH (with diagnose(ctx, link, ...)) or TRIGGERS
        assert not (hasattr(entry, "MATCH") and hasattr(entry, "TRIGGERS")), entry.__name__


def test_an_error_imports_only_the_entries_it_may_concern() -> None:
    script = textwrap.dedent("""
        import sys
        from IPython.testing.globalipapp import start_ipython
        ip = start_ipython()
        ip.run_cell("import jax, jax.numpy as jnp")
        ip.run_cell("from jax_nbhelp.diagnosis import engine")
        ip.run_cell("f = jax.jit(lambda x: 1 if x > 0 else 0)")
        result = ip.run_cell("f(1.0)")
        from jax_nbhelp.diagnosis.engine import diagnose
        diagnosis = diagnose(result.error_in_exec, ip)
        print(diagnosis.code)
        print(sorted(m.rpartition(".")[2] for m in sys.modules  # the entries, not families
                     if m.startswith("jax_nbhelp.catalog.") and "._" not in m
                     and m.count(".") == 3))
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    code, imported = proc.stdout.strip().splitlines()[-2:]
    assert code == "JNH301"
    # TracerBoolConversionError is a ConcretizationTypeError: the entry for the latter is
    # asked too (and declines); the other 21 are never imported.
    assert eval(imported) == ["python_branch_on_traced_value",
                              "traced_value_where_concrete_needed"]


def test_a_module_missing_from_the_index_means_every_entry_is_asked(tmp_path,
                                                                     monkeypatch) -> None:
    stale = dict(json.loads(catalog_index.PATH.read_text()))
    stale.pop(next(iter(stale)))
    path = tmp_path / "index.json"
    path.write_text(json.dumps(stale))
    monkeypatch.setattr(catalog_index, "PATH", path)
    catalog_index.load.cache_clear()
    try:
        assert catalog_index.load() is None
        assert catalog_index.modules_for("anything") is None
    finally:
        catalog_index.load.cache_clear()
