"""The kernel gallery's runner: builds each example for a backend, runs it, checks it against a
NumPy reference, times it and records evidence.

Nothing here imports pydantic, rapidfuzz or tree-sitter: the runner must work on GPU machines
that have only NumPy, PyYAML and the vendor toolchains.
"""
