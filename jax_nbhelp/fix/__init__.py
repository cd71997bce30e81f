"""What a fix runs and running it: the plan of statements to re-run, the runtime switches, and
the exact re-run in the user's shell. Imports diagnosis, jaxapi, rewrite and core.
"""
