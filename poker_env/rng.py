"""The one random stream of the compiled code: SplitMix64, one ``uint64`` state per table.

Compiled kernels cannot take a :class:`numpy.random.Generator`, so every game and
sampler that draws inside numba keeps a SplitMix64 state (Steele, Lea and Flood,
"Fast splittable pseudorandom number generators", 2014) seeded from the
Generator its caller was given: same seed, same game, on every machine. This is
the only copy of the generator; the games, the envs, the equity sampler and the
analysis tools all draw through it.

A draw advances the state by the golden-ratio increment :data:`GOLDEN` and
mixes it with :func:`mix`. An integer below ``k`` takes the top 32 bits of a
draw by multiply-shift (no division; bias below ``k / 2**32``), a float the top
53 bits.

>>> import numpy as np
>>> from poker_env.rng import GOLDEN, mix
>>> hex(int(mix(np.uint64(GOLDEN))))  # the first output of the stream seeded 0
'0xe220a8397b1dcdaf'
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

__all__ = ["GOLDEN", "below", "draw", "mix", "next_u64", "uniform"]

#: The state's increment per draw: 2**64 divided by the golden ratio, odd.
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S11 = np.uint64(11)
_S27 = np.uint64(27)
_S30 = np.uint64(30)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_INV53 = 1.0 / 9007199254740992.0
_U = np.uintp  # unsigned array indices (no negative-index wraparound code)


@njit(cache=True, _nrt=False, inline="always")
def mix(z: np.uint64) -> np.uint64:  # pragma: no cover - compiled
    """SplitMix64's output function of state ``z``."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return np.uint64(z ^ (z >> _S31))


@njit(cache=True, _nrt=False, inline="always")
def next_u64(rng: NDArray[np.uint64], i: int) -> np.uint64:  # pragma: no cover - compiled
    """Next output of stream ``rng[i]`` (the state moves on by :data:`GOLDEN`)."""
    z = rng[i] + GOLDEN
    rng[i] = z
    return np.uint64(mix(z))


@njit(cache=True, _nrt=False, inline="always")
def below(rng: NDArray[np.uint64], i: int, k: int) -> int:  # pragma: no cover - compiled
    """A uniform integer in ``[0, k)``, ``k < 2**32``, from stream ``rng[i]`` (multiply-shift)."""
    return int(np.int64(((next_u64(rng, i) >> _S32) * np.uint64(k)) >> _S32))


@njit(cache=True, _nrt=False, inline="always")
def uniform(rng: NDArray[np.uint64], i: int) -> float:  # pragma: no cover - compiled
    """A uniform float in ``[0, 1)`` from stream ``rng[i]`` (53 bits)."""
    return float(next_u64(rng, i) >> _S11) * _INV53


@njit(cache=True, _nrt=False, inline="always")
def draw(
    deck: NDArray[np.int64], size: int, need: int, x: np.uint64
) -> np.uint64:  # pragma: no cover
    """Partial Fisher-Yates from the front: ``deck[:need]`` becomes a uniform ordered draw
    of ``need`` of the ``size`` cards ``deck[:size]``; returns the stream state after it.

    The state ``x`` is passed and returned (not read from an array) so that a caller
    that samples many times keeps it in a register. ``need <= size``; the indices are
    drawn as :func:`below` would draw them, one stream output per card.
    """
    for j in range(need):
        x += GOLDEN
        uj = _U(j)
        r = uj + _U(((mix(x) >> _S32) * np.uint64(size - j)) >> _S32)
        tmp = deck[uj]
        deck[uj] = deck[r]
        deck[r] = tmp
    return x
