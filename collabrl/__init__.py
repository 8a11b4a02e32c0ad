"""collabrl: train LLM agents to collaborate with diverse simulated human partners."""

__version__ = "0.1.0"
