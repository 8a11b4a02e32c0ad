"""Demonstrations and the supervised fine-tuning (SFT) baseline.

``demos`` plays rule-based experts (or an LLM teacher) in the policy's seat and records every
decision with the exact prompt the policy would see; ``trainer`` fine-tunes the policy on those
responses (LoRA or full) and writes an HF folder that evaluation and GiGPO load by path.
"""
