"""Example models for realify, kept out of the installed package: the model zoo (zoo) and Llama 3 (llama3).

Tests, benchmarks and examples/demo.py import them with examples/ on the path (pytest's pythonpath setting does
that for the tests; the scripts put it there themselves).
"""
