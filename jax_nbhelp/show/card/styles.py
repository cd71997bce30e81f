"""The static card's CSS (the live card's is the JupyterLab extension's own, ``static/card.css``).

Colours come from JupyterLab's theme variables (also defined by Notebook 7, and mapped onto
the editor theme by VS Code's Jupyter extension). Every variable has a fallback, and the
fallbacks are translucent or ``inherit`` so that they read on light and dark backgrounds
alike (Colab, nbviewer, exported HTML).
"""

from __future__ import annotations

CARD_CSS = """
.jnh-card {
  color: var(--jp-ui-font-color1, inherit);
  font-family: var(--jp-ui-font-family, system-ui, -apple-system, "Segoe UI", sans-serif);
  font-size: var(--jp-ui-font-size1, 13px);
  line-height: 1.45;
  border: 1px solid var(--jp-border-color1, rgba(128, 128, 128, 0.45));
  border-left: 4px solid var(--jp-warn-color1, #e08e0b);
  border-radius: 4px;
  padding: 8px 12px;
  margin: 4px 0;
  background: var(--jp-layout-color1, transparent);
  box-sizing: border-box;
  max-width: 100%;
}
.jnh-card .jnh-card { margin: 8px 0 0 0; }
.jnh-card .jnh-body { line-height: 1.45; white-space: normal; }
.jnh-card .jnh-title { font-size: var(--jp-ui-font-size2, 15px); font-weight: 600; }
.jnh-card .jnh-code {
  font-size: var(--jp-ui-font-size0, 11px);
  font-weight: 400;
  color: var(--jp-ui-font-color2, inherit);
  border: 1px solid var(--jp-border-color2, rgba(128, 128, 128, 0.35));
  border-radius: 3px;
  padding: 0 4px;
  margin-left: 2px;
  vertical-align: middle;
}
.jnh-card .jnh-error {
  font-family: var(--jp-code-font-family, monospace);
  font-size: var(--jp-code-font-size, 12px);
  color: var(--jp-error-color1, #d32f2f);
  margin: 2px 0 6px 0;
  overflow-wrap: anywhere;
}
.jnh-card .jnh-text { margin: 4px 0; }
.jnh-card .jnh-text code {
  font-family: var(--jp-code-font-family, monospace);
  font-size: 0.92em;
  padding: 0 3px;
  border-radius: 3px;
  background: var(--jp-layout-color2, rgba(128, 128, 128, 0.12));
}
.jnh-card .jnh-heading {
  font-weight: 600;
  margin: 8px 0 2px 0;
  color: var(--jp-ui-font-color1, inherit);
}
.jnh-card .jnh-muted { color: var(--jp-ui-font-color2, inherit); opacity: 0.9; }
.jnh-card pre.jnh-src, .jnh-card pre.jnh-preview, .jnh-card pre.jnh-copy,
.jnh-card pre.jnh-trace {
  font-family: var(--jp-code-font-family, monospace);
  font-size: var(--jp-code-font-size, 12px);
  line-height: 1.4;
  color: var(--jp-content-font-color1, inherit);
  background: var(--jp-cell-editor-background, rgba(128, 128, 128, 0.08));
  border: 1px solid var(--jp-border-color2, rgba(128, 128, 128, 0.3));
  border-radius: 3px;
  margin: 2px 0 4px 0;
  padding: 4px 8px;
  overflow-x: auto;
  white-space: pre;
}
.jnh-card pre.jnh-preview, .jnh-card pre.jnh-trace {
  white-space: pre-wrap;
  word-break: normal;
  overflow-wrap: break-word;
}
.jnh-card pre.jnh-trace { max-height: 24em; overflow-y: auto; }
.jnh-card .jnh-line { display: inline-block; min-width: 100%; box-sizing: border-box; }
.jnh-card .jnh-ln { color: var(--jp-ui-font-color3, #888); user-select: none; }
.jnh-card .jnh-hit { background: rgba(255, 170, 0, 0.22); font-weight: 600; }
.jnh-card .jnh-add { background: rgba(46, 160, 67, 0.2); }
.jnh-card .jnh-del { background: rgba(248, 81, 73, 0.2); }
.jnh-card .jnh-hunk { color: var(--jp-ui-font-color2, inherit); opacity: 0.8; }
.jnh-card .jnh-fix {
  border-top: 1px solid var(--jp-border-color2, rgba(128, 128, 128, 0.3));
  margin-top: 8px;
  padding-top: 6px;
}
.jnh-card .jnh-fix-title { font-weight: 600; }
.jnh-card .jnh-safe { color: var(--jp-success-color1, #2e7d32); font-weight: 600; }
.jnh-card .jnh-unsafe { color: var(--jp-warn-color1, #e08e0b); font-weight: 600; }
.jnh-card .jnh-unavailable { color: var(--jp-error-color1, #d32f2f); }
.jnh-card .jnh-outcome {
  border-radius: 3px;
  padding: 6px 10px;
  margin: 8px 0 4px 0;
}
.jnh-card .jnh-ok {
  border-left: 4px solid var(--jp-success-color1, #2e7d32);
  background: rgba(46, 160, 67, 0.12);
}
.jnh-card .jnh-fail {
  border-left: 4px solid var(--jp-error-color1, #d32f2f);
  background: rgba(248, 81, 73, 0.12);
}
.jnh-card summary { cursor: pointer; }
.jnh-card .jnh-cause { margin: 2px 0 6px 0; }
.jnh-card .jnh-primary, .jnh-card .jnh-others {
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: 4px 10px;
  margin: 4px 0;
}
.jnh-card .jnh-primary .jnh-short { margin: 0; flex: 1 1 20em; }
.jnh-card .jnh-more { margin: 6px 0 2px 0; }
.jnh-card .jnh-more > summary { color: var(--jp-ui-font-color2, inherit); }
"""


def hide_rules(card_id: str) -> str:
    """CSS that pairs a static copy with its live card, by ``card_id``.

    While the live card is on the page its static copy is hidden. When the widget model is
    missing (the notebook reopened after its kernel went away), JupyterLab and Notebook 7
    show "Error displaying widget: model not found" in the output right after the copy
    (the renderer adds the ``jupyter-widgets`` class to the output only then); that output
    is hidden instead, so only the explanation remains.
    """
    static, live = f".jnh-static-{card_id}", f".jnh-live-{card_id}"
    return (
        f":root:has({live}) {static} {{ display: none !important; }}\n"
        f".jp-OutputArea-child:has({static}):has(+ .jp-OutputArea-child {live})"
        " { display: none; }\n"
        f".jp-OutputArea-child:has({static}) + .jp-OutputArea-child:has("
        "> .jp-OutputArea-output.jupyter-widgets) { display: none; }\n"
    )
