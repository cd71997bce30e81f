"""The IPython face: loading and unloading, the exception hook, the magics, the warm-up, and
what the JupyterLab extension calls. The top layer: it may import every layer below.
"""
