"""Our evaluator against OMPEval (compiled into pokerfast's wheel): the same hand order.

OMPEval is an independent implementation (C++): on 100,000 random seven-card hands
and 100,000 random pairs of them, every comparison (better, worse, tie) must agree.
Skipped when pokerfast is not installed (it is a bench peer: ``make bench``).
"""

from __future__ import annotations

import numpy as np
import pytest

from bench.bench_evaluator import pokerfast_evaluate, pokerfast_library, random_hands
from poker_env.cards import parse_cards
from poker_env.evaluator import evaluate

pytest.importorskip("pokerfast")
LIB = pokerfast_library()
if LIB is None:  # pragma: no cover - a pokerfast wheel without its native library
    pytest.skip("pokerfast's OMPEval library is not available", allow_module_level=True)


def test_hand_order_on_random_pairs() -> None:
    rng = np.random.default_rng(24)
    hands = random_hands(rng, 100_000, 7)
    ours = evaluate(hands).astype(np.int64)
    omp = pokerfast_evaluate(LIB, hands).astype(np.int64)
    i = rng.integers(0, len(hands), 100_000)
    j = rng.integers(0, len(hands), 100_000)
    assert np.array_equal(np.sign(ours[i] - ours[j]), np.sign(omp[i] - omp[j]))
    # Every pair at once: sorted by our rank, OMPEval's never goes down, and it
    # stays equal exactly where ours does.
    order = np.lexsort((omp, ours))
    d_ours, d_omp = np.diff(ours[order]), np.diff(omp[order])
    assert np.all(d_omp[d_ours == 0] == 0)
    assert np.all(d_omp[d_ours > 0] > 0)
    assert (d_ours == 0).any() and (d_ours > 0).any()  # both kinds of pair occur


def test_known_hands_in_order() -> None:
    # Hand-worked: royal flush > quads > full house > flush > straight > wheel > trips.
    texts = [
        "As Ks Qs Js Ts 2c 3d",
        "9c 9d 9h 9s Ac 2d 3h",
        "Kc Kd Kh 2s 2c 5d 7h",
        "Ah Jh 8h 4h 2h Kc 9d",
        "6c 7d 8h 9s Tc 2d 2h",
        "Ac 2d 3h 4s 5c 9d Jh",
        "Qc Qd Qh 7s 4c 3d 2h",
    ]
    hands = np.stack([parse_cards(t) for t in texts])
    omp = pokerfast_evaluate(LIB, hands).astype(np.int64)
    assert np.all(np.diff(omp) < 0)
    assert np.all(np.diff(evaluate(hands).astype(np.int64)) < 0)
