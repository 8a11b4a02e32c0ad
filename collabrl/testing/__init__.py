"""Test helpers shipped with the package (usable by tests and benchmarks of any checkout)."""
