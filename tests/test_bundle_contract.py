"""The diagnosis bundle and the frontend calls, against the contract both sides share
(docs/diagnosis.schema.json): real bundles from a real shell, and the fixtures the
TypeScript tests read."""

from __future__ import annotations

import json

import pytest
from bundle_fixtures import FIXTURES
from conftest import SCALED_HELPER, Notebook, validate_bundle

from jax_nbhelp.catalog._example import unmet
from jax_nbhelp.core.session import current
from jax_nbhelp.diagnosis.engine import entries
from jax_nbhelp.shell.frontend import RESULT_MIME

CALL = "out = jax.jit(scaled)(jnp.ones((8, 128)))\nfloat(out.sum())"


def _answer(nb: Notebook, call: str) -> dict[str, object]:
    out = nb.ok(f"import jax_nbhelp.shell.frontend as _f; _f.{call}")
    (answer,) = [bundle[RESULT_MIME] for bundle in out.bundles if RESULT_MIME in bundle]
    validate_bundle(answer, "result")
    return answer


def test_a_published_bundle_carries_its_card_and_session(loaded: Notebook) -> None:
    loaded.ok(SCALED_HELPER)
    (bundle,) = loaded.run(CALL).diagnoses
    validate_bundle(bundle)
    assert bundle["session"] == current().id
    assert bundle["card_id"] in current().cards
    assert _answer(loaded, f"status({bundle['card_id']!r})") == {
        "known": True, "session": current().id}


def test_apply_from_the_frontend_reports_the_outcome_and_value(loaded: Notebook) -> None:
    loaded.ok(SCALED_HELPER)
    (bundle,) = loaded.run(CALL).diagnoses
    answer = _answer(loaded, f"apply({bundle['card_id']!r}, 2)")
    assert answer["known"] is True
    assert answer["ok"] is True
    assert answer["value"] == "3072.0"
    assert float(loaded["out"].sum()) == 3072.0


def test_a_failed_fix_answers_the_new_diagnosis_with_its_own_card(loaded: Notebook) -> None:
    loaded.ok(SCALED_HELPER)
    (bundle,) = loaded.run("out = scaled(jnp.ones((8, 128)))").diagnoses
    answer = _answer(loaded, f"apply({bundle['card_id']!r}, 1)")
    assert answer["ok"] is False
    nested = answer["diagnosis"]
    assert isinstance(nested, dict)
    assert nested["code"] == "JNH101"
    assert nested["card_id"] in current().cards
    again = _answer(loaded, f"apply({nested['card_id']!r}, 2)")
    assert again["ok"] is True


def test_a_card_the_kernel_does_not_know_is_stale_not_an_error(loaded: Notebook) -> None:
    assert _answer(loaded, "status('from-another-session')")["known"] is False
    assert _answer(loaded, "apply('from-another-session', 1)")["known"] is False


def test_a_known_card_id_from_another_session_is_refused(loaded: Notebook) -> None:
    """A bundle carrying this kernel's card id with another kernel's session (copied or
    forged) applies nothing; neither do arguments of the wrong kind."""
    loaded.ok(SCALED_HELPER)
    (bundle,) = loaded.run(CALL).diagnoses
    card = bundle["card_id"]
    assert _answer(loaded, f"status({card!r}, {current().id!r})")["known"] is True
    assert _answer(loaded, f"status({card!r}, 'another-kernel')")["known"] is False
    assert _answer(loaded, f"apply({card!r}, 2, 'another-kernel')")["known"] is False
    assert "out" not in loaded.shell.user_ns  # nothing ran
    for call in (f"apply({card!r}, True)", f"apply({card!r}, '2')", f"apply({card!r}, 2.0)",
                 f"apply({card!r}, 99)"):
        answer = _answer(loaded, call)
        assert answer["ok"] is False, call
    assert _answer(loaded, "apply(['not', 'an', 'id'], 1)")["known"] is False
    assert "out" not in loaded.shell.user_ns


def test_the_typescript_fixtures_are_real_bundles_of_the_whole_catalog() -> None:
    data = json.loads(FIXTURES.read_text())
    for bundle in data["diagnoses"]:
        validate_bundle(bundle)
    for result in data["results"]:
        validate_bundle(result, "result")
    runnable = {entry.CODE for entry in entries() if unmet(entry.EXAMPLES[0]) is None}
    # A new catalog entry needs `python tests/bundle_fixtures.py`; the general and the
    # explained view too.
    assert {bundle["code"] for bundle in data["diagnoses"]} == runnable | {"JNH000", "JNH001"}


@pytest.mark.parametrize("broken", [{"code": "JNH101"}, {"version": 2}])
def test_the_schema_rejects_what_the_frontend_cannot_read(broken: dict[str, object]) -> None:
    import jsonschema

    data = json.loads(FIXTURES.read_text())["diagnoses"][0]
    with pytest.raises(jsonschema.ValidationError):
        validate_bundle({**data, **broken} if "version" in broken else
                        {k: v for k, v in data.items() if k != "title"})
