"""Differential testing: one generated program, many backends, outcomes compared.

Language-neutral: a generator makes a program, each backend (a compile
command and a run command, templated) processes it under limits, and the
comparator classifies every backend against a reference. Nothing here knows
C or Python beyond the backend tables of each language module.
"""
