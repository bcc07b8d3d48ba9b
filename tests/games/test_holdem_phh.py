"""PHH export: standard hands load in PokerKit and end with the same stacks."""

from __future__ import annotations

import numpy as np
import pytest

from poker_env.games.holdem import HoldemConfig, HoldemGame
from poker_env.games.holdem_phh import phh_player_seats, to_phh


def _random_hand(game: HoldemGame, rng: np.random.Generator) -> None:
    game.start_hand()
    while not game.is_hand_over:
        la = game.legal_actions()
        r = rng.random()
        if la.can_fold and r < 0.25:
            game.fold()
        elif la.min_raise_to is not None and r < 0.5:
            assert la.max_raise_to is not None
            game.raise_to(int(rng.integers(la.min_raise_to, la.max_raise_to + 1)))
        elif la.can_all_in and r < 0.55:
            game.all_in()
        else:
            game.check_or_call()


def test_player_order_starts_after_the_dealer() -> None:
    record = {"seated": [True, True, False, True], "start_stacks": [5, 5, 0, 5], "button": 1}
    assert phh_player_seats(record) == [3, 0, 1]


def test_seed_profile_and_escapes_are_refused() -> None:
    game = HoldemGame(HoldemConfig(num_seats=3), rng=0)
    game.start_hand()
    game.fold()
    game.fold()
    with pytest.raises(ValueError, match="standard"):
        game.to_phh()


def _round_trip(n: int, num_hands: int, seed: int) -> None:
    notation = pytest.importorskip("pokerkit.notation")
    rng = np.random.default_rng(seed)
    game = HoldemGame(HoldemConfig(num_seats=n, rules="standard"), rng=seed)
    for _ in range(num_hands):
        game._close_hand()
        for q in range(n):
            if game._status(q) == 0:
                game.join(q)
        _random_hand(game, rng)
        record = game.hand_record()
        text = to_phh(record)
        hh = notation.HandHistory.loads(text)
        *_, last = iter(hh)
        seats = phh_player_seats(record)
        assert list(last.stacks) == [record["final_stacks"][q] for q in seats], text


@pytest.mark.parametrize("n", [2, 3, 6, 10])
def test_pokerkit_round_trip_same_stacks(n: int) -> None:
    _round_trip(n, 25, seed=n)


@pytest.mark.slow
@pytest.mark.parametrize("n", range(2, 11))
def test_pokerkit_round_trip_many_hands(n: int) -> None:
    _round_trip(n, 300, seed=1000 + n)
