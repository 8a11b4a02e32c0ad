"""Versioned judge prompt templates (data files, loaded by ``collabrl.rewards.judges.prompts``)."""
