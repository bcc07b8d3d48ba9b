"""Fuzz of the Red Dog engine (issue 12 §3): random values into every public method
and config field, random bytes and random edits of a saved game into
``RedDogGame.from_json``. Every outcome is a success or a documented error
(``docs/red_dog.md``, "Errors"); a refused call changes nothing; a replay that
succeeds gives what the history claims."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import fields
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poker_env.errors import HistoryError
from poker_env.games.red_dog import RedDogAction, RedDogConfig, RedDogGame
from tests.games.fuzz_values import is_documented, json_edit, odd_values

FIELDS = [f.name for f in fields(RedDogConfig)]


def _config_call(name: str) -> Callable[[RedDogGame, Any, Any], Any]:
    def call(g: RedDogGame, a: Any, b: Any) -> Any:
        return RedDogConfig(**{name: a})

    return call


CALLS: list[Callable[[RedDogGame, Any, Any], Any]] = [
    lambda g, a, b: g.act(a, b),
    lambda g, a, b: g.act(a),
    lambda g, a, b: g.act(RedDogAction.BET, a),
    lambda g, a, b: g.act(RedDogAction.FORFEIT, a),
    lambda g, a, b: g.bet(a),
    lambda g, a, b: g.can_bet(a),
    lambda g, a, b: g.forfeit(),
    lambda g, a, b: g.hand(a),
    lambda g, a, b: g.has_bet(a),
    lambda g, a, b: g.win_probability(a),
    lambda g, a, b: g.legal_actions(),
    lambda g, a, b: g.describe(),
    lambda g, a, b: g.to_json(),
    lambda g, a, b: RedDogGame(RedDogConfig(), key=a),
    lambda g, a, b: RedDogGame(RedDogConfig(), rng=a),
    lambda g, a, b: RedDogGame(a),
    lambda g, a, b: RedDogGame.from_json(a),
    *[_config_call(name) for name in FIELDS],
]


def _snapshot(g: RedDogGame) -> tuple[Any, ...]:
    return (tuple(x.tolist() for x in g.state), list(g.history), g.to_json())


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    num_players=st.integers(2, 10),
    steps=st.lists(
        st.tuples(st.integers(0, len(CALLS) - 1), odd_values, odd_values),
        min_size=1,
        max_size=20,
    ),
)
def test_random_values_into_every_public_method(
    seed: int, num_players: int, steps: list[tuple[int, Any, Any]]
) -> None:
    rng = np.random.default_rng(seed)
    g = RedDogGame(RedDogConfig(num_players=num_players, starting_chips=8), rng=rng)
    total = 8 * num_players
    for which, a, b in steps:
        before = _snapshot(g)
        try:
            CALLS[which](g, a, b)
        except Exception as exc:
            assert is_documented(exc), f"call {which}({a!r}, {b!r}) raised {exc!r}"
            assert _snapshot(g) == before, f"call {which}({a!r}, {b!r}) changed the game"
        # RULES.md "Everywhere": every chip is somewhere, whatever was passed.
        assert sum(g.chips) + g.pot == total and min(g.chips) >= 0
        if not g.is_over:
            g.bet(int(rng.integers(1, g.legal_actions().max_bet + 1)))


def _saved_game() -> dict[str, Any]:
    rng = np.random.default_rng(9)
    g = RedDogGame(RedDogConfig(num_players=3, starting_chips=10), rng=rng)
    for _ in range(8):
        g.bet(int(rng.integers(1, g.legal_actions().max_bet + 1)))
    assert not g.is_over
    return dict(json.loads(g.to_json()))


SAVED = _saved_game()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_edits_of_a_saved_game(data: st.DataObject) -> None:
    edited = data.draw(json_edit(SAVED))
    try:
        game = RedDogGame.from_json(json.dumps(edited))
    except HistoryError:
        return
    if edited.get("version") == 2:
        # A replay that succeeds gives what the (edited) history claims.
        assert json.loads(game.to_json())["result"] == edited["result"]


@settings(max_examples=150, deadline=None)
@given(blob=st.one_of(st.binary(max_size=120), st.text(max_size=120)))
def test_random_bytes_are_a_history_error(blob: bytes | str) -> None:
    try:
        RedDogGame.from_json(blob)
    except HistoryError as exc:
        assert exc.field in ("text", "game", "version") or exc.field in SAVED
