"""Demo targets shipped with fuzzweb, used by the demo campaign and the tests."""
