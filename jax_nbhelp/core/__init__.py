"""The bottom layer: the plain data a diagnosis is made of (``model``), the per-process memory
(``state``) and the settings (``classroom``). Nothing here imports a layer above.
"""
