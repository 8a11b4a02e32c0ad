"""Local models: tiny offline test models and preparation of small real ones (SmolLM2)."""
