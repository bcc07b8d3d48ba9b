"""The AEC envs take their options through the single envs' configs (issue 22): the same
values accepted, the same ConfigError (field, value and allowed values) for the others."""

from __future__ import annotations

from typing import Any

import pytest

from poker_env.envs.holdem import HoldemEnv
from poker_env.envs.red_dog import RedDogEnv
from poker_env.errors import ConfigError
from poker_env.multiagent.holdem import HoldemAECEnv
from poker_env.multiagent.red_dog import RedDogAECEnv

HOLDEM = [
    {"num_players": 1},
    {"num_players": 11},
    {"num_players": 2.0},
    {"hands_per_episode": 0},
    {"hands_per_episode": 1.5},
    {"raise_fractions": ()},
    {"raise_fractions": (0.5, -1.0)},
    {"raise_fractions": [[0.5]]},
    {"rules": "wild"},
    {"base": 0},
    {"starting_stack": 2},
    {"starting_stack": 3},
    {"max_bet": -5},
    {"penalty_to": "nowhere"},
    {"equity_samples": 0},
    {"illegal_action": "ignore"},
    {"render_mode": "human"},
    # two bad options: the one the single env names first
    {"illegal_action": "ignore", "raise_fractions": ()},
    {"equity_samples": 0, "raise_fractions": (-1.0,)},
    # accepted
    {"num_players": 10, "starting_stack": 3},
    {"hands_per_episode": 3, "raise_fractions": (0.25,), "rules": "standard"},
    {"max_bet": 40, "penalty_to": "pot", "evaluator_features": True, "equity_samples": 5},
    {"illegal_action": "raise", "render_mode": "ansi"},
]

RED_DOG = [
    {"num_players": 1},
    {"num_players": 11},
    {"starting_chips": 1},
    {"ante": 0},
    {"hand_size": 6},
    {"rounds": 0},
    {"bet_fractions": ()},
    {"bet_fractions": (0.5, 1.5)},
    {"illegal_action": None},
    {"render_mode": "rgb"},
    # accepted
    {"num_players": 10, "hand_size": 5, "rounds": 3},
    {"starting_chips": 2, "bet_fractions": (1.0,), "illegal_action": "raise"},
]


def _outcome(make: Any, kw: dict[str, Any]) -> tuple[str, ...]:
    try:
        make(**kw)
    except ConfigError as exc:
        return ("ConfigError", exc.field, str(exc))
    return ("accepted",)


@pytest.mark.parametrize("kw", HOLDEM, ids=repr)
def test_holdem_aec_accepts_and_refuses_what_the_single_env_does(kw: dict[str, Any]) -> None:
    assert _outcome(HoldemAECEnv, kw) == _outcome(HoldemEnv, kw)


@pytest.mark.parametrize("kw", RED_DOG, ids=repr)
def test_red_dog_aec_accepts_and_refuses_what_the_single_env_does(kw: dict[str, Any]) -> None:
    assert _outcome(RedDogAECEnv, kw) == _outcome(RedDogEnv, kw)


def test_some_options_are_refused_and_some_accepted() -> None:
    # The lists above test something: both outcomes occur for both games.
    for make, cases in ((HoldemAECEnv, HOLDEM), (RedDogAECEnv, RED_DOG)):
        outcomes = {_outcome(make, kw)[0] for kw in cases}
        assert outcomes == {"ConfigError", "accepted"}
