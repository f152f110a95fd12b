"""Crash analysis without Django: trace extraction and parsing, normalisation, signatures, similarity.

Shared by the web app (``triage/``, which stores and shows what this
computes), the ingest client and the benchmarks. Nothing here imports Django
or touches a database; ``tests/unit/test_crashes_django_free.py`` checks it.
"""
