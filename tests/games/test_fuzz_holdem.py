"""Fuzz of the Hold'em engine (issue 12 §3): random values into every public method
and config field; random bytes and random edits of a saved hand into
``replay_json``; random text and random line edits of a PHH history into
``from_phh``. Every outcome is a success or a documented error (``docs/holdem.md``,
"Errors"); a refused call changes nothing; a replay that succeeds gives what the
record claims."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import fields
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poker_env.errors import HistoryError
from poker_env.games import holdem_kernels as K
from poker_env.games.holdem import ActionRecord, HoldemConfig, HoldemGame, replay_json
from poker_env.games.holdem_phh import from_phh, to_phh
from tests.games.fuzz_values import is_documented, json_edit, odd_values

FIELDS = [f.name for f in fields(HoldemConfig)]
SEATS = 4


def _config_call(name: str) -> Callable[[HoldemGame, Any, Any], Any]:
    def call(g: HoldemGame, a: Any, b: Any) -> Any:
        return HoldemConfig(**{name: a})

    return call


CALLS: list[Callable[[HoldemGame, Any, Any], Any]] = [
    lambda g, a, b: g.join(a, b),
    lambda g, a, b: g.join(a),
    lambda g, a, b: g.remove(a),
    lambda g, a, b: g.leave(a),
    lambda g, a, b: g.raise_to(a),
    lambda g, a, b: g.can_raise_to(a),
    lambda g, a, b: g.fold(),
    lambda g, a, b: g.check_or_call(),
    lambda g, a, b: g.all_in(),
    lambda g, a, b: g.hole_cards(a),
    lambda g, a, b: g.in_hand(a),
    lambda g, a, b: g.can_leave(a),
    lambda g, a, b: g.start_hand(deck=a, button=b),
    lambda g, a, b: g.start_hand(button=a),
    lambda g, a, b: g.start_hand(deck=a),
    lambda g, a, b: g.apply(a),
    lambda g, a, b: g.apply(ActionRecord("preflop", a, "raise_to", 0, b)),
    lambda g, a, b: g.apply(ActionRecord(a, 0, b, 0)),
    lambda g, a, b: g.apply(ActionRecord("flop", a, "leave", 0, 0, b)),
    lambda g, a, b: g.legal_actions(),
    lambda g, a, b: g.hand_record(),
    lambda g, a, b: g.showdown(),
    lambda g, a, b: HoldemGame(HoldemConfig(num_seats=3), rng=a, num_players=b),
    lambda g, a, b: HoldemGame(a),
    lambda g, a, b: replay_json(a),
    lambda g, a, b: from_phh(a),
    *[_config_call(name) for name in FIELDS],
]


def _snapshot(g: HoldemGame) -> tuple[Any, ...]:
    # Scratch fields (from SCR_LEGAL on) are not game state.
    return (
        g.state[: K.SCR_LEGAL].tolist(),
        g.history(),
        g.hand_number,
        g.rng.bit_generator.state,
        g._changed,
    )


def _legal_move(g: HoldemGame, rng: np.random.Generator) -> None:
    if g.phase != "betting":
        if sum(1 for x in g.stacks() if x > 0) >= 2:
            g.start_hand()
        return
    la = g.legal_actions()
    r = rng.random()
    if la.can_fold and r < 0.2:
        g.fold()
    elif la.min_raise_to is not None and la.max_raise_to is not None and r < 0.5:
        g.raise_to(int(rng.integers(la.min_raise_to, la.max_raise_to + 1)))
    else:
        g.check_or_call()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    rules=st.sampled_from(["seed", "standard"]),
    steps=st.lists(
        st.tuples(st.integers(0, len(CALLS) - 1), odd_values, odd_values),
        min_size=1,
        max_size=20,
    ),
)
def test_random_values_into_every_public_method(
    seed: int, rules: str, steps: list[tuple[int, Any, Any]]
) -> None:
    g = HoldemGame(HoldemConfig(num_seats=SEATS, rules=rules), rng=seed, num_players=3)  # type: ignore[arg-type]
    rng = np.random.default_rng(seed)
    for which, a, b in steps:
        before = _snapshot(g)
        total = g.total_chips()
        try:
            CALLS[which](g, a, b)
        except Exception as exc:
            assert is_documented(exc), f"call {which}({a!r}, {b!r}) raised {exc!r}"
            assert _snapshot(g) == before, f"call {which}({a!r}, {b!r}) changed the game"
        # RULES.md "Everywhere": chips change only by a join, by its stack.
        joined = g.total_chips() - total
        assert joined == 0 or (which in (0, 1) and joined > 0)
        assert min(g.stacks()) >= 0
        _legal_move(g, rng)


def _saved_hand() -> dict[str, Any]:
    g = HoldemGame(HoldemConfig(num_seats=3), rng=5)
    g.start_hand()
    while not g.is_hand_over:
        la = g.legal_actions()
        if la.call_amount == 0 and la.min_raise_to is not None and g.street != "river":
            g.raise_to(la.min_raise_to)
        else:
            g.check_or_call()
    return dict(json.loads(g.to_json()))


SAVED = _saved_hand()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_edits_of_a_saved_hand(data: st.DataObject) -> None:
    edited = data.draw(json_edit(SAVED))
    try:
        game = replay_json(json.dumps(edited))
    except HistoryError:
        return
    if isinstance(edited, dict) and edited.get("version") == 2:
        # A replay that succeeds gives what the (edited) record claims.
        claims = json.loads(json.dumps(game._claims()))
        assert claims["final_stacks"] == edited["final_stacks"]
        assert claims["result"] == edited["result"]


@settings(max_examples=150, deadline=None)
@given(blob=st.one_of(st.binary(max_size=120), st.text(max_size=120)))
def test_random_bytes_are_a_history_error(blob: bytes | str) -> None:
    for replay in (replay_json, from_phh):
        try:
            replay(blob)  # type: ignore[arg-type]
        except HistoryError:
            pass


def _saved_phh() -> str:
    g = HoldemGame(HoldemConfig(num_seats=3, rules="standard"), rng=5)
    g.start_hand()
    while not g.is_hand_over:
        la = g.legal_actions()
        if la.call_amount == 0 and la.min_raise_to is not None and g.street != "river":
            g.raise_to(la.min_raise_to)
        else:
            g.check_or_call()
    return to_phh(g)


PHH = _saved_phh()
PHH_LINES = PHH.splitlines()


@st.composite
def phh_edit(draw: st.DrawFn) -> str:
    """The saved PHH with one line deleted, duplicated or changed, or one action changed."""
    lines = list(PHH_LINES)
    i = draw(st.integers(0, len(lines) - 1))
    how = draw(st.sampled_from(["delete", "duplicate", "replace", "action", "number"]))
    if how == "delete":
        del lines[i]
    elif how == "duplicate":
        lines.insert(i, lines[i])
    elif how == "replace":
        key = lines[i].split(" = ")[0]
        lines[i] = f"{key} = {draw(st.sampled_from(['1', '-5', '1.5', '[]', '[1, 2]', 'true']))}"
    else:
        actions_at = next(k for k, x in enumerate(lines) if x.startswith("actions"))
        items = json.loads(lines[actions_at].split(" = ", 1)[1])
        j = draw(st.integers(0, len(items) - 1))
        if how == "action":
            items[j] = draw(
                st.sampled_from(["p1 f", "p2 cc", "p3 cbr 7", "d db 2c", "p1 sm -", "zz", ""])
            )
        else:
            words = items[j].split()
            words[-1] = str(draw(st.integers(-3, 10**20)))
            items[j] = " ".join(words)
        lines[actions_at] = "actions = " + json.dumps(items)
    return "\n".join(lines) + "\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=phh_edit())
def test_random_edits_of_a_saved_phh(text: str) -> None:
    try:
        game = from_phh(text)
    except HistoryError:
        return
    # A history that replays reaches the finishing stacks it claims, if it claims them.
    claim = [x for x in text.splitlines() if x.startswith("finishing_stacks")]
    if claim:
        assert game.stacks() == json.loads(claim[0].split(" = ", 1)[1])


def test_a_record_whose_action_is_an_array_is_refused_by_name() -> None:
    """Found by the fuzz above: ``apply(ActionRecord(..., action=array))`` raised numpy's
    "truth value of an array is ambiguous" instead of the documented error."""
    from poker_env.errors import IllegalActionError

    g = HoldemGame(HoldemConfig(num_seats=SEATS), rng=0, num_players=3)
    before = _snapshot(g)
    with pytest.raises(IllegalActionError, match="action"):
        g.apply(ActionRecord("preflop", 0, np.array([1, 2]), 0))  # type: ignore[arg-type]
    assert _snapshot(g) == before
