"""Prompt texts and descriptor wording of the profile pipeline (package data, each versioned)."""
