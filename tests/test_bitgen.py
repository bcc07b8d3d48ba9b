"""poker_env.bitgen draws exactly what numpy's Generator calls draw, and moves its state alike."""

from __future__ import annotations

import copy
import pickle

import numpy as np
from numba import njit

from poker_env.bitgen import integers_below, key63, permutation_into, pointers


@njit(cache=False)
def _draws(state: int, fn: int, k: int, out: np.ndarray) -> int:
    b = integers_below(state, fn, k)
    permutation_into(state, fn, out)
    return b


def test_the_draws_and_the_state_are_numpys() -> None:
    out = np.empty(52, np.int64)
    small = np.empty(5, np.int64)
    for seed in range(60):
        ref, rng = np.random.default_rng(seed), np.random.default_rng(seed)
        state, fn = pointers(rng)
        for t in range(12):
            k = (1 << 30, 2, 3, 7, 52, 1000003, (1 << 32) - 1)[t % 7]
            want = int(ref.integers(k)), ref.permutation(52)
            assert _draws(state, fn, k, out) == want[0]
            assert out.tolist() == want[1].tolist()
            # numpy's own calls in between, on the same state (the 32-bit buffer too)
            assert ref.integers(0, 2**63) == rng.integers(0, 2**63)
            assert ref.random() == rng.random()
            want_small = int(ref.integers(3)), ref.permutation(5).tolist()
            assert (_draws(state, fn, 3, small), small.tolist()) == want_small
        assert ref.bit_generator.state == rng.bit_generator.state


def test_a_copy_has_its_own_pointers() -> None:
    rng = np.random.default_rng(1)
    for twin in (copy.deepcopy(rng), pickle.loads(pickle.dumps(rng))):
        assert pointers(twin)[0] != pointers(rng)[0]
        assert pointers(twin)[1] == pointers(rng)[1]  # the same C function


def test_key63_is_numpys_int64_draw_below_2_63() -> None:
    for seed in range(40):
        ref, rng = np.random.default_rng(seed), np.random.default_rng(seed)
        for t in range(30):
            assert key63(rng) == int(ref.integers(0, 2**63, dtype=np.int64))
            if t % 3 == 0:  # other draws between (PCG64's buffered 32-bit half included)
                assert int(rng.integers(52)) == int(ref.integers(52))
                assert rng.random() == ref.random()
        assert rng.bit_generator.state == ref.bit_generator.state
    # a bit generator whose raw draws are 32 bits goes through integers
    ref, rng = (np.random.Generator(np.random.MT19937(7)) for _ in range(2))
    assert [key63(rng) for _ in range(5)] == [
        int(ref.integers(0, 2**63, dtype=np.int64)) for _ in range(5)
    ]
