"""``python -m jax_nbhelp doctor NOTEBOOK.ipynb``: the command line (jax_nbhelp.doctor)."""

from __future__ import annotations

import sys

from jax_nbhelp.doctor import main

if __name__ == "__main__":
    sys.exit(main())
