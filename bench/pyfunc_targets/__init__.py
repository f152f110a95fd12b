"""Buggy functions for bench/pyfunc.py, one planted bug each.

Every module exports ``PLANTED``: function name -> the exception type its bug
raises. Each function's docstring says what the bug is; apart from it the
function is meant to behave (no other failure of that type, no hang).
"""
