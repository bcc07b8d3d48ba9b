"""DrawEnvConfig: the one check of the draw options, and every draw face refusing alike."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from poker_env.envs.draw import DrawMatchEnv, FiveCardDrawEnv
from poker_env.episode.draw import DrawEnvConfig
from poker_env.errors import ConfigError
from poker_env.games.draw import DrawConfig
from poker_env.multiagent.draw import DrawAECEnv
from poker_env.vector.draw import DrawVectorEnv

# Every face, with the options it takes beyond the rules, pot_fractions and
# illegal_action (which all of them take).
FACES: dict[str, tuple[Callable[..., Any], set[str]]] = {
    "FiveCardDraw-v0": (FiveCardDrawEnv, {"agent_seat"}),
    "DrawMatch-v0": (DrawMatchEnv, {"agent_seat", "match_bonus", "max_hands"}),
    "DrawVectorEnv-pot": (
        lambda **kw: DrawVectorEnv(2, **kw),
        {"agent_seat", "mode", "match_bonus", "max_hands"},
    ),
    "DrawVectorEnv-match": (
        lambda **kw: DrawVectorEnv(2, **{"mode": "match", **kw}),
        {"agent_seat", "mode", "match_bonus", "max_hands"},
    ),
    "DrawAECEnv": (DrawAECEnv, {"mode", "match_bonus", "max_hands"}),
    "DrawAECEnv-match": (
        lambda **kw: DrawAECEnv(**{"mode": "match", **kw}),
        {"mode", "match_bonus", "max_hands"},
    ),
}
SHARED = {"pot_fractions", "illegal_action", "config", "ante", "deck"}

BAD: list[tuple[dict[str, Any], str]] = [
    ({"agent_seat": 2}, "agent_seat"),
    ({"agent_seat": -1}, "agent_seat"),
    ({"agent_seat": "her"}, "agent_seat"),
    ({"agent_seat": True}, "agent_seat"),
    ({"agent_seat": 1.0}, "agent_seat"),
    ({"agent_seat": None}, "agent_seat"),
    ({"mode": "matches"}, "mode"),
    ({"mode": None}, "mode"),
    ({"pot_fractions": (1.0, 0.5)}, "pot_fractions"),
    ({"pot_fractions": ()}, "pot_fractions"),
    ({"pot_fractions": (0.0, 1.0)}, "pot_fractions"),
    ({"pot_fractions": tuple(range(1, 18))}, "pot_fractions"),
    ({"match_bonus": float("nan")}, "match_bonus"),
    ({"match_bonus": float("inf")}, "match_bonus"),
    ({"match_bonus": "100"}, "match_bonus"),
    ({"match_bonus": True}, "match_bonus"),
    ({"max_hands": 0}, "max_hands"),
    ({"max_hands": 2.0}, "max_hands"),
    ({"max_hands": True}, "max_hands"),
    ({"illegal_action": "call"}, "illegal_action"),
    ({"illegal_action": None}, "illegal_action"),
    ({"ante": 0}, "ante"),
    ({"deck": 33}, "deck"),
    ({"config": DrawConfig(), "ante": 3}, "rules"),
]


def _takes(options: set[str], kwargs: dict[str, Any]) -> bool:
    return all(k in options or k in SHARED for k in kwargs)


@pytest.mark.parametrize(("kwargs", "field"), BAD, ids=[f"{f}={v}" for v, f in BAD])
def test_every_face_refuses_a_bad_option_with_the_same_config_error(
    kwargs: dict[str, Any], field: str
) -> None:
    errors = {}
    for name, (make, options) in FACES.items():
        if not _takes(options, kwargs):
            continue
        with pytest.raises(ConfigError) as e:
            make(**kwargs)
        errors[name] = (e.value.field, str(e.value))
    # The option is named, and every face that takes it says the very same thing.
    assert len(errors) >= 2, kwargs
    assert {f for f, _ in errors.values()} == {field}, errors
    assert len(set(errors.values())) == 1, errors
    # The env config is where they all come from.
    fields = {f.name for f in dataclasses.fields(DrawEnvConfig)}
    config = {k: v for k, v in kwargs.items() if k in fields}
    config["rules"] = {k: v for k, v in kwargs.items() if k not in fields}
    with pytest.raises(ConfigError) as e:
        DrawEnvConfig(**config)
    assert (e.value.field, str(e.value)) == next(iter(errors.values()))


@pytest.mark.parametrize(
    ("seat", "number"),
    [(0, 0), (1, 1), ("human", 0), ("computer", 1), (np.int64(1), 1), (np.int8(0), 0)],
)
def test_every_face_with_a_seat_accepts_the_same_seats(seat: Any, number: int) -> None:
    # The seats of the single envs, the batched env and the env config are one set:
    # 0 / "human" (no wardrobe) and 1 / "computer" (the wardrobe), numpy ints included.
    for name, (make, options) in FACES.items():
        if "agent_seat" in options:
            env = make(agent_seat=seat)
            assert env.agent_seat == number and type(env.agent_seat) is int, name
            # The computer's observation says it is the computer (O_IS_COMPUTER).
            obs = env.reset(seed=0)[0]
            assert np.all(obs[..., 75] == number), name
    assert DrawEnvConfig(agent_seat=seat).agent_seat == number


def test_the_env_config_is_frozen_keyword_only_and_builds_the_parameters_once() -> None:
    c = DrawEnvConfig(agent_seat="computer", mode="match", match_bonus=50, max_hands=7)
    assert (c.agent_seat, c.match_bonus, c.max_hands) == (1, 50.0, 7)
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.mode = "pot"  # type: ignore[misc]
    with pytest.raises(TypeError):
        DrawEnvConfig(None)  # type: ignore[misc]
    p = c.params(builtin=True)
    # [agent seat, mode (1 = match), random opponent, sizes (3 fractions + all-in)]
    assert p.ep.tolist() == [1, 1, 1, 4]
    assert p.fp.tolist() == [50.0, 0.5, 1.0, 2.0]
    assert p.max_hands == 7
    # Pot mode: no bonus, never truncated; the AEC env: every seat an agent.
    p = DrawEnvConfig(max_hands=7).params(builtin=False)
    assert p.ep.tolist() == [0, 0, 0, 4] and p.fp[0] == 0.0 and p.max_hands == 0
    assert DrawEnvConfig(self_play=True).params(builtin=True).ep.tolist()[:3] == [-1, 0, 0]
    # The rules from config= or from the keywords, the same either way.
    assert DrawEnvConfig(rules={"deck": 32}).draw_config == DrawConfig(deck=32)
    assert DrawEnvConfig(config=DrawConfig(deck=32)).draw_config == DrawConfig(deck=32)
