"""The renderers: the text form, the static HTML card, the ipywidgets card, and the mime
bundle every frontend reads. Imports diagnosis, jaxapi and core.
"""
