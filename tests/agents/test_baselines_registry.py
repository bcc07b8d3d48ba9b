"""make_baseline: every game and kind by name, and the refusals."""

from __future__ import annotations

import pytest

from agents.baselines import (
    GAMES,
    KINDS,
    DrawCallStation,
    DrawHeuristic,
    HoldemCallStation,
    HoldemEquityBot,
    RedDogCallStation,
    ReferencePolicy,
    make_baseline,
)
from poker_env.policy import BatchPolicy, Policy, RandomPolicy

EXPECTED = {
    ("draw", "random"): RandomPolicy,
    ("draw", "call"): DrawCallStation,
    ("draw", "heuristic"): DrawHeuristic,
    ("red_dog", "random"): RandomPolicy,
    ("red_dog", "call"): RedDogCallStation,
    ("red_dog", "heuristic"): ReferencePolicy,
    ("holdem", "random"): RandomPolicy,
    ("holdem", "call"): HoldemCallStation,
    ("holdem", "heuristic"): HoldemEquityBot,
}


@pytest.mark.parametrize(("game", "kind"), sorted(EXPECTED))
def test_every_game_and_kind(game: str, kind: str) -> None:
    for name in (game, *GAMES[game]):
        policy = make_baseline(name, kind, seed=0)
        assert type(policy) is EXPECTED[(game, kind)]
        assert isinstance(policy, Policy) and isinstance(policy, BatchPolicy)
    assert set(KINDS) == {k for _, k in EXPECTED}


def test_env_options_reach_the_policies_that_need_them() -> None:
    draw = make_baseline("FiveCardDraw-v0", "heuristic", seed=1, deck=32, pot_fractions=(1.0, 2.0))
    assert draw.deck == "short" and draw.pot_fractions == (1.0, 2.0)
    # Options a policy does not use are ignored (the same options serve every kind).
    make_baseline("draw", "call", deck=32)
    ref = make_baseline("red_dog", "heuristic", bet_fractions=(0.0, 1.0))
    assert ref.max_action == 2 and ref.min_action == 1
    bot = make_baseline("poker_env/Holdem-v0", "heuristic", raise_fractions=(1.0,))
    assert bot.raise_fractions == (1.0,)


def test_refusals_name_what_is_allowed() -> None:
    with pytest.raises(ValueError, match=r"unknown game 'chess'.*holdem"):
        make_baseline("chess", "random")
    with pytest.raises(ValueError, match=r"unknown baseline kind 'smart'.*heuristic"):
        make_baseline("draw", "smart")
    with pytest.raises(ValueError, match=r"unknown env option.*num_players"):
        make_baseline("holdem", "heuristic", num_players=6)
