"""Bit-set intrinsics of the compiled rules against Python's own integer bit counts."""

from __future__ import annotations

import numpy as np
from numba import njit

from poker_env.games._bits import popcount, trailing_zeros


@njit(cache=True)
def _both(xs: np.ndarray, counts: np.ndarray, zeros: np.ndarray) -> None:
    for i in range(xs.shape[0]):
        counts[i] = popcount(xs[i])
        zeros[i] = trailing_zeros(xs[i])


def test_popcount_and_trailing_zeros_match_python_ints() -> None:
    rng = np.random.default_rng(0)
    # Random words of every density, single bits at every position, and 0.
    xs = rng.integers(0, 2**63, 2000, dtype=np.int64)
    xs[:1000] &= rng.integers(0, 2**63, 1000, dtype=np.int64)
    xs[1000:1063] = np.int64(1) << np.arange(63, dtype=np.int64)
    xs[1063] = 0
    counts = np.zeros_like(xs)
    zeros = np.zeros_like(xs)
    _both(xs, counts, zeros)
    assert counts.tolist() == [int(x).bit_count() for x in xs]
    assert zeros.tolist() == [(int(x) & -int(x)).bit_length() - 1 if x else 64 for x in xs]
