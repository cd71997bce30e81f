"""The renderers: the text form, the static HTML card, the live card (an anywidget), and the
mime bundle every frontend reads. Imports jaxapi, rewrite and core (never diagnosis).
"""
