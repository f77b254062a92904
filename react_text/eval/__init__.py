"""Evaluation: suites, judging answers, compare runs, metrics and reports.

``suites`` loads tasks and judges them (``answers``: one pure rule per match kind);
``compare`` runs cells planned by ``planning``, recording with ``records`` and ``progress``;
``metrics`` and ``report`` turn results into tables, charts and pages. ``suite_tools`` and
``toolbox/`` are the tools the ``tools`` and ``many_tools`` suites offer.
"""
