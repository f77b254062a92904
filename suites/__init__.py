"""Data package: the shipped task suites (*.jsonl) and their search corpus."""
