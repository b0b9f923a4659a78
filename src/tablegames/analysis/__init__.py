"""Exact analysis of the three games (RULES.md, "What every analysis assumes").

* one module per game (named by its definition's ``analyzer``, an :class:`~tablegames.analysis.common.Analyzer`):
  exhaustive enumeration with card removal, built on lookup tables
  filled by the rule functions; each offers ``analyze(rules, ...) -> Analysis`` and the cached
  ``optimal_strategy(rules)`` whose methods give the exact EV of every option at every decision (for bots and
  hints, which the CLI and the server inject into the engine).
* :mod:`~tablegames.analysis.api`: ``analyze_game``, the pay-table solver ``tune``, ``--meter`` parsing.
* :mod:`~tablegames.analysis.render` / :mod:`~tablegames.analysis.report`: Rich, Markdown, HTML and the PNGs.

Submodules import NumPy (and Numba for One Eyed Flush), so nothing is imported here.
"""
