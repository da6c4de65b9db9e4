"""realify's version: a leaf module (it imports nothing), so that anything may read it without importing the package.
pyproject.toml and REALIFY_VERSION in include/realify.h carry the same string (tests/python/test_options.py)."""

__version__ = "0.1.0"
