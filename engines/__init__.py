"""Fuzzing engines, free of Django.

An engine takes a plain configuration and a budget, runs the target in
sandboxed child processes, and reports what happens through an
:class:`engines.events.EventSink`. Everything here can be run and tested from
the command line without the web application (``python -m engines.pyfunc``).
"""
