"""collabrl: train LLM agents to collaborate with diverse simulated human partners."""

__version__ = "0.3.0.dev0"  # the one place the version is written (pyproject reads it)
