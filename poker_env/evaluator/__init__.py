"""Hand evaluation: the only place in poker_env that ranks hands (DESIGN.md).

- :func:`evaluate` ranks arrays of 5-, 6- or 7-card hands in bulk (numba).
- :func:`hand_category`, :func:`hand_name`, :func:`describe_hand` name ranks.
- :func:`get_tables` and :mod:`poker_env.evaluator.kernels` serve compiled callers.
- :func:`holdem_equity` and :func:`draw_equity` compute equities exactly or by
  seeded Monte Carlo.
"""

from __future__ import annotations

from poker_env.evaluator.core import (
    CATEGORY_NAMES,
    describe_hand,
    evaluate,
    get_tables,
    hand_category,
    hand_name,
    release_buffers,
    validate_hands,
)
from poker_env.evaluator.equity import DrawEquity, HoldemEquity, draw_equity, holdem_equity

__all__ = [
    "CATEGORY_NAMES",
    "DrawEquity",
    "HoldemEquity",
    "describe_hand",
    "draw_equity",
    "evaluate",
    "get_tables",
    "hand_category",
    "hand_name",
    "holdem_equity",
    "release_buffers",
    "validate_hands",
]
