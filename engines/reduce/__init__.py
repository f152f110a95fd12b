"""Test-case reducers, free of Django: given a program and an interestingness test, a smaller program."""
