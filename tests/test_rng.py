"""The one SplitMix64 stream: published outputs, a pure-Python reference, and its users.

Every compiled draw of the project (the Hold'em and Red Dog kernels, the equity
sampler, LBR) goes through :mod:`poker_env.rng`; these tests pin the stream to
the published generator and the samplers to slow references built on it, so a
change to either would show.
"""

from __future__ import annotations

import numpy as np
import pytest

from poker_env import rng as R
from poker_env.evaluator import evaluate
from poker_env.evaluator.equity_batch import holdem_equity_batch
from poker_env.games import holdem_kernels as HK
from poker_env.games import red_dog_kernels as RK

_MASK = (1 << 64) - 1


def _ref_next(state: int) -> tuple[int, int]:
    """Vigna's reference splitmix64.c, in Python integers: (new state, output)."""
    state = (state + 0x9E3779B97F4A7C15) & _MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return state, z ^ (z >> 31)


def _ref_draw(deck: list[int], need: int, state: int) -> int:
    size = len(deck)
    for j in range(need):
        state, z = _ref_next(state)
        r = j + (((z >> 32) * (size - j)) >> 32)
        deck[j], deck[r] = deck[r], deck[j]
    return state


def test_published_outputs() -> None:
    # The first outputs of SplitMix64 seeded 0 and 1234567 (as Java's SplittableRandom
    # and the xoshiro authors' splitmix64.c give them).
    state = np.zeros(1, np.uint64)
    assert [int(R.next_u64(state, 0)) for _ in range(4)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
        0xF88BB8A8724C81EC,
    ]
    state = np.array([1234567], np.uint64)
    assert [int(R.next_u64(state, 0)) for _ in range(5)] == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
        4593380528125082431,
        16408922859458223821,
    ]


def test_draws_follow_the_reference_stream() -> None:
    seeds = np.random.default_rng(7).integers(0, 2**63, 50, dtype=np.uint64)
    for seed in seeds.tolist():
        state = np.array([seed], np.uint64)
        ref = seed
        for k in (1, 2, 7, 52, 1 << 30):
            ref, z = _ref_next(ref)
            assert R.below(state, 0, k) == ((z >> 32) * k) >> 32
        ref, z = _ref_next(ref)
        assert R.uniform(state, 0) == (z >> 11) / 2.0**53
        assert int(state[0]) == ref


def test_draw_is_a_partial_fisher_yates_on_the_stream() -> None:
    gen = np.random.default_rng(3)
    for _ in range(30):
        size = int(gen.integers(5, 53))
        need = int(gen.integers(0, size + 1))
        deck = gen.permutation(52)[:size].astype(np.int64)
        seed = int(gen.integers(0, 2**63))
        ref = deck.tolist()
        ref_state = _ref_draw(ref, need, seed)
        out = deck.copy()
        state = R.draw(out, size, need, np.uint64(seed))
        assert out.tolist() == ref and int(state) == ref_state
        assert sorted(out.tolist()) == sorted(deck.tolist())  # a permutation


def test_games_draw_from_the_one_stream() -> None:
    # Red Dog's and Hold'em's per-table draws are this stream's, not copies of it.
    assert RK.rand_u64 is R.next_u64 and RK.rand_float is R.uniform
    assert HK.rng_next is R.next_u64 and HK.rng_below is R.below
    deck = np.zeros(52, np.int64)
    state = np.array([99], np.uint64)
    HK.rng_deal(state, 0, deck, 9)
    ref = list(range(52))
    assert int(state[0]) == _ref_draw(ref, 9, 99) and deck.tolist() == ref


def _ref_equity(hole: list[int], board: list[int], m: int, seed: int, samples: int) -> float:
    """The sampler written out slowly: the stream's draw, then ranks from ``evaluate``."""
    seen = set(hole) | {c for c in board if c >= 0}
    known = [c for c in board if c >= 0]
    deck = [c for c in range(52) if c not in seen]
    need = 2 * m + 5 - len(known)
    state = seed
    total = 0.0
    for _ in range(samples):
        state = _ref_draw(deck, need, state)
        full = known + deck[2 * m : need]
        ranks = evaluate(
            np.array([hole + full] + [deck[2 * o : 2 * o + 2] + full for o in range(m)])
        )
        best = ranks.max()
        if ranks[0] == best:
            total += 1.0 / int((ranks == best).sum())
    return total / samples


@pytest.mark.parametrize("dealt", [0, 3, 4, 5])
def test_equity_sampler_against_a_slow_reference(dealt: int) -> None:
    gen = np.random.default_rng(dealt)
    cards = np.array([gen.choice(52, 7, replace=False) for _ in range(6)])
    boards = cards[:, 2:].copy()
    boards[:, dealt:] = -1
    opponents = gen.integers(1, 4, 6)
    seeds = gen.integers(0, 2**63, 6, dtype=np.uint64)
    got = holdem_equity_batch(cards[:, :2], boards, opponents, seeds=seeds, num_samples=40)
    for i in range(6):
        want = _ref_equity(
            cards[i, :2].tolist(), boards[i].tolist(), int(opponents[i]), int(seeds[i]), 40
        )
        assert got[i] == pytest.approx(want, abs=1e-12)
