"""tablegames: casino table card games — play them, prove their math, simulate them fast.

Layers, each importing only the ones before it:
``cards`` and ``randomness`` → ``rules`` (one module per game) → ``engine`` (rounds, tables) →
``analysis`` (exact) and ``simulation`` (Monte Carlo) → ``server`` and ``cli``.
"""

__version__ = "0.1.0"
