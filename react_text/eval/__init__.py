"""Evaluation: suites, judging answers, compare runs, metrics and reports."""
