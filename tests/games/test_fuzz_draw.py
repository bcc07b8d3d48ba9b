"""Fuzz of the five-card draw engine (issue 12 §3): random values into every public
method and config field, random bytes and random edits of a saved match into
``DrawGame.from_json``. Every outcome is a success or a documented error
(``docs/draw.md``, "Errors"); a refused call changes nothing; a replay that succeeds
gives what the history claims."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import fields
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poker_env.errors import HistoryError
from poker_env.games.draw import DrawAction, DrawConfig, DrawGame
from tests.games.fuzz_values import is_documented, json_edit, odd_values

START = 60  # small stakes: matches end and items are staked within a few hands
FIELDS = [f.name for f in fields(DrawConfig)]


def _legal_kind_with(g: DrawGame, value: Any, _: Any) -> Any:
    legal = g.legal_actions()
    return g.act(legal[0].action, value) if legal else g.act(DrawAction.BET, value)


def _config_call(name: str, from_dict: bool) -> Callable[[DrawGame, Any, Any], Any]:
    def call(g: DrawGame, a: Any, b: Any) -> Any:
        return DrawConfig.from_json_dict({name: a}) if from_dict else DrawConfig(**{name: a})

    return call


# Each call takes the game and two random values.
CALLS: list[Callable[[DrawGame, Any, Any], Any]] = [
    lambda g, a, b: g.act(a, b),
    lambda g, a, b: g.act(a),
    _legal_kind_with,
    lambda g, a, b: g.act(DrawAction.DISCARD, a),
    lambda g, a, b: g.act(DrawAction.BET, a),
    lambda g, a, b: g.act(DrawAction.RAISE, a),
    lambda g, a, b: g.hand(a),
    lambda g, a, b: g.cards_drawn(a),
    lambda g, a, b: g.legal_actions(),
    lambda g, a, b: g.to_json(),
    lambda g, a, b: g.chips_total(),
    lambda g, a, b: DrawGame(DrawConfig(starting_money=START), seed=a, buyback=b),
    lambda g, a, b: DrawGame(a),
    lambda g, a, b: DrawConfig.from_json_dict(a),
    lambda g, a, b: DrawGame.from_json(a),
    *[_config_call(name, from_dict=False) for name in FIELDS],
    *[_config_call(name, from_dict=True) for name in FIELDS],
]


def _snapshot(g: DrawGame) -> tuple[Any, ...]:
    return (g.state.tolist(), list(g.history), g.to_json(), g.rand.buf.tolist())


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    seed=st.integers(0, 2**32 - 1),
    buyback=st.sampled_from(["rule", "decide"]),
    steps=st.lists(
        st.tuples(st.integers(0, len(CALLS) - 1), odd_values, odd_values),
        min_size=1,
        max_size=20,
    ),
)
def test_random_values_into_every_public_method(
    seed: int, buyback: str, steps: list[tuple[int, Any, Any]]
) -> None:
    g = DrawGame(DrawConfig(starting_money=START, item_value=20), seed=seed, buyback=buyback)
    rng = np.random.default_rng(seed)
    for which, a, b in steps:
        before = _snapshot(g)
        try:
            CALLS[which](g, a, b)
        except Exception as exc:
            assert is_documented(exc), f"call {which}({a!r}, {b!r}) raised {exc!r}"
            assert _snapshot(g) == before, f"call {which}({a!r}, {b!r}) changed the game"
        # RULES.md "Everywhere": every chip is somewhere, whatever was passed.
        assert g.chips_total() == 2 * START
        assert min(g.stacks) >= 0 and g.pot >= 0
        # A legal move, so that the random values meet every phase.
        if not g.is_over:
            legal = g.legal_actions()
            la = legal[int(rng.integers(len(legal)))]
            g.act(la.action, int(rng.integers(la.min_amount, la.max_amount + 1)))


def _saved_match() -> dict[str, Any]:
    g = DrawGame(DrawConfig(starting_money=300, item_value=50), seed=4)
    rng = np.random.default_rng(4)
    for _ in range(40):
        legal = g.legal_actions()
        la = legal[int(rng.integers(len(legal)))]
        g.act(la.action, int(rng.integers(la.min_amount, la.max_amount + 1)))
    assert not g.is_over
    return dict(json.loads(g.to_json()))


SAVED = _saved_match()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_edits_of_a_saved_match(data: st.DataObject) -> None:
    edited = data.draw(json_edit(SAVED))
    try:
        game = DrawGame.from_json(json.dumps(edited))
    except HistoryError:
        return
    # A replay that succeeds gives what the (edited) history claims.
    assert json.loads(game.to_json())["result"] == edited["result"]


@settings(max_examples=150, deadline=None)
@given(blob=st.one_of(st.binary(max_size=120), st.text(max_size=120)))
def test_random_bytes_are_a_history_error(blob: bytes | str) -> None:
    try:
        DrawGame.from_json(blob)
    except HistoryError as exc:
        assert exc.field in ("text", "game", "version") or exc.field in SAVED
