"""The bottom layer: the plain data a diagnosis is made of (``model``), what a loaded
extension remembers (``session``) and how its settings are configured (``classroom``).
Nothing here imports a layer above.
"""
