"""Fuzz the annotated functions of a Python module with values from their hints.

The target is imported only inside a sandboxed child process
(:mod:`engines.pyfunc.child`); the parent sees its functions as plain-data
type descriptors (:mod:`engines.pyfunc.hints`), generates values for them
(:mod:`engines.pyfunc.values`) and sends calls to the child
(:mod:`engines.pyfunc.executor`). :func:`engines.pyfunc.engine.run` is the
entry point.
"""
