"""Prompts: templates, few-shot episodes and their choice, the Jinja sandbox."""
