"""Render the diagnosis card in a real JupyterLab and save it under docs/.

Runs the flagship notebook (a collective ``pl.run_scoped`` under ``jax.jit``) in JupyterLab
on 127.0.0.1 (a 1400-pixel-wide window) and screenshots the end of IPython's (folded)
traceback followed by the card as it first shows; with ``--fixed`` it first clicks "Remove
collective_axes" and waits for "Fixed" (the native card then folds to one line).

By default the card is the JupyterLab extension's native one (docs/card-native-light.png,
or -dark.png with ``--dark``); ``--widget`` disables the extension and shows the same card as
an anywidget, what VS Code and Colab get (docs/card.png), after its fix ran: there the
outcome gives the fixed cell to copy.

Needs Chromium from the system (Debian: ``apt-get install -y chromium``) and the test extra
(``pip install -e ".[test]"``: jupyterlab, playwright). Usage::

    python docs/make_screenshot.py [--dark] [--widget] [--fixed] [--out PATH]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

import lab_driver  # noqa: E402

LIVE_CARD = "[class*=jnh-live-] .jnh-native"
NATIVE_CARD = ".jnh-native"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dark", action="store_true", help="JupyterLab Dark theme")
    parser.add_argument("--widget", action="store_true",
                        help="the anywidget card (the extension disabled)")
    parser.add_argument("--fixed", action="store_true",
                        help="after 'Remove collective_axes' worked (the anywidget card: always)")
    parser.add_argument("--out", type=Path, default=None, help="default: under docs/")
    args = parser.parse_args()
    if args.widget:
        default = "card-dark.png" if args.dark else "card.png"
    else:
        default = "card-native-dark.png" if args.dark else "card-native-light.png"
    out = args.out or HERE / default
    reason = lab_driver.missing()
    if reason:
        print(f"cannot take the screenshot: {reason}", file=sys.stderr)
        return 1
    theme = "JupyterLab Dark" if args.dark else "JupyterLab Light"
    root = Path(tempfile.mkdtemp(prefix="jnh-shot-"))
    lab_driver.write_notebook(root / "card.ipynb", lab_driver.FLAGSHIP_CELLS)
    selector, button = (LIVE_CARD if args.widget else NATIVE_CARD), "button.jnh-button"
    with lab_driver.jupyterlab(root, extension=not args.widget) as url, \
            lab_driver.chromium(1400, 2000) as page:
        lab_driver.open_notebook(page, url, "card.ipynb", theme=theme)
        lab_driver.run_all(page)
        card = page.locator(selector).first
        card.locator(button).first.wait_for(timeout=180_000)
        lab_driver.wait_idle(page)
        page.wait_for_function(
            f"() => !document.querySelector('{selector} {button}').disabled", timeout=60_000)
        if args.fixed or args.widget:
            card.locator(button, has_text="Remove collective_axes").click()
            card.locator(".jnh-ok").wait_for(timeout=180_000)
        page.wait_for_timeout(500)
        # Put the card at the bottom of the window, under the end of the traceback.
        card.evaluate("el => el.scrollIntoView({block: 'end'})")
        page.wait_for_timeout(300)
        box = card.bounding_box()
        assert box is not None
        top = max(0, box["y"] - 70)
        page.screenshot(path=str(out), clip={"x": box["x"] - 70, "y": top,
                                             "width": box["width"] + 80,
                                             "height": box["y"] + box["height"] + 2 - top})
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
