"""Determinized rollouts (``poker_env_agents.analysis.search``) against exact figures:
facing an all-in on the flop, calling is worth the seat's exact equity against a
uniformly random hand times the final pot, less the stack it puts in (the equity from
``holdem_equity``'s exact enumeration over every hand and every turn and river); folding
is worth nothing. The game itself is not changed by a search."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from poker_env.cards import parse_cards
from poker_env.errors import ArgumentError, IllegalActionError
from poker_env.evaluator import holdem_equity
from poker_env.games.holdem import HoldemConfig, HoldemGame
from poker_env_agents.analysis.search import action_values, best_action, candidate_actions
from tests.games.test_holdem import rigged_deck


def _facing_a_flop_all_in(hero: str, flop: str) -> HoldemGame:
    """Heads-up, 200 each, blinds 1/2: both limp, the flop comes, the small blind and
    dealer (seat 0, ``hero``; first to act after the flop, RULES.md §3) checks, the big
    blind goes all in; the hero is to act."""
    game = HoldemGame(HoldemConfig(num_seats=2), rng=0)
    deck = rigged_deck([0, 1], {0: hero, 1: "2c 7d"}, flop + " 3h 4s")
    game.start_hand(deck=deck, button=0)
    game.check_or_call()  # the small blind completes
    game.check_or_call()  # the big blind checks
    assert game.street == "flop" and game.to_act == 0
    game.check_or_call()
    game.all_in()
    assert game.to_act == 0
    return game


@pytest.mark.parametrize(("hero", "flop"), [("As Ks", "Ah 9d 4c"), ("8h 7h", "6h 5c Kh")])
def test_calling_an_all_in_is_worth_the_exact_equity(hero: str, flop: str) -> None:
    game = _facing_a_flop_all_in(hero, flop)
    before = game.to_json(), game.stacks(), game.state.copy()
    stack = game.stacks()[0]
    pot_after_call = game.pot + game.legal_actions().call_amount
    values = action_values(game, np.random.default_rng(1), worlds=3000)
    assert (game.to_json(), game.stacks()) == before[:2] and np.array_equal(game.state, before[2])
    assert set(values) == {"fold", "call"}  # nothing left to raise: all-in is a call
    assert values["fold"].mean == 0.0 and values["fold"].stderr == 0.0
    # Exact: the opponent's hand uniform over the 47 unseen cards' pairs.
    seen = set(parse_cards(hero + " " + flop))
    unseen = [c for c in range(52) if c not in seen]
    equities = [
        float(holdem_equity([hero, np.array(pair)], board=flop).equity[0])
        for pair in combinations(unseen, 2)
    ]
    exact = float(np.mean(equities)) * pot_after_call - stack
    call = values["call"]
    assert abs(call.mean - exact) < 4 * call.stderr, (call, exact)
    assert best_action(values) == ("call" if exact > 0 else "fold")


def test_the_candidates_and_the_refusals() -> None:
    game = HoldemGame(HoldemConfig(num_seats=3), rng=5)
    game.start_hand()
    names = list(candidate_actions(game))
    assert names[:2] == ["fold", "call"] and names[-1] == "all_in"
    assert all(n.startswith("raise_to ") for n in names[2:-1]) and len(names) >= 3
    with pytest.raises(ArgumentError, match="worlds"):
        action_values(game, np.random.default_rng(0), worlds=1)
    with pytest.raises(ArgumentError, match="rng"):
        action_values(game, 7, worlds=10)  # type: ignore[arg-type]
    idle = HoldemGame(HoldemConfig(num_seats=2), rng=1)
    with pytest.raises(IllegalActionError, match="no decision"):
        action_values(idle, np.random.default_rng(0))
    # The same seed gives the same values.
    a = action_values(game, np.random.default_rng(3), worlds=20)
    b = action_values(game, np.random.default_rng(3), worlds=20)
    assert a == b
