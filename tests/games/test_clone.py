"""``clone()`` of the game objects (OpenSpiel's ``state.clone()``), against
``copy.deepcopy`` as the slow reference: a clone taken at any point has the
original's future (the same actions give the same deals, records and payouts, across
hands, so across the random draws a hand start or a buffer refill makes), and the
two are independent (playing one leaves the other as a deep copy taken at the same
moment)."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from poker_env.games import draw_layout as L
from poker_env.games._generator import GeneratorSnapshot, materialize, snapshot
from poker_env.games.draw import DrawAction, DrawConfig, DrawGame
from poker_env.games.holdem import HoldemConfig, HoldemGame
from poker_env.games.red_dog import RedDogConfig, RedDogGame

Game = DrawGame | HoldemGame | RedDogGame


def _draw_move(g: DrawGame, rng: np.random.Generator) -> bool:
    if g.is_over:
        return False
    legal = g.legal_actions()
    la = legal[int(rng.integers(len(legal)))]
    # small bets, so that the match lasts many hands (any slots for a discard)
    top = (
        la.max_amount if la.action is DrawAction.DISCARD else min(la.max_amount, la.min_amount + 10)
    )
    g.act(la.action, int(rng.integers(la.min_amount, top + 1)))
    return True


def _holdem_move(g: HoldemGame, rng: np.random.Generator) -> bool:
    if g.phase != "betting":
        if sum(1 for x in g.stacks() if x > 0) < 2:
            return False
        g.start_hand()  # draws the deck and the button from the Generator
        return True
    la = g.legal_actions()
    r = rng.random()
    if la.can_fold and r < 0.15:
        g.fold()
    elif la.min_raise_to is not None and la.max_raise_to is not None and r < 0.35:
        # mostly small raises, so that the table lasts many hands
        top = min(la.max_raise_to, la.min_raise_to + 3 * g.config.base)
        g.raise_to(int(rng.integers(la.min_raise_to, top + 1)))
    else:
        g.check_or_call()
    return True


def _red_dog_move(g: RedDogGame, rng: np.random.Generator) -> bool:
    if g.is_over:
        return False
    g.bet(int(rng.integers(1, g.legal_actions().max_bet + 1)))
    return True


def _view(g: Game) -> tuple[Any, ...]:
    """Everything a user can read of a game (its JSON, its records, its arrays)."""
    if isinstance(g, HoldemGame):
        return (
            g.to_json(),
            g.history(),
            g.hand_record() if g.phase != "idle" or g.hand_number else None,
            g.state.tolist(),
            g.hand_number,
            g.rng.bit_generator.state,
        )
    if isinstance(g, DrawGame):
        return (g.to_json(), list(g.history), g.state.tolist(), g.rand.buf.tolist())
    return (g.to_json(), list(g.history), tuple(x.tolist() for x in g.state))


CASES: dict[str, tuple[Callable[[int], Game], Callable[[Any, np.random.Generator], bool]]] = {
    "draw": (lambda seed: DrawGame(DrawConfig(starting_money=5000), seed=seed), _draw_move),
    "draw32-decide": (
        lambda seed: DrawGame(
            DrawConfig(deck="short", starting_money=5000), seed=seed, buyback="decide"
        ),
        _draw_move,
    ),
    "holdem-2": (lambda seed: HoldemGame(HoldemConfig(num_seats=2), rng=seed), _holdem_move),
    "holdem-6": (lambda seed: HoldemGame(HoldemConfig(num_seats=6), rng=seed), _holdem_move),
    "red-dog-5": (
        lambda seed: RedDogGame(
            RedDogConfig(num_players=5, starting_chips=500), rng=np.random.default_rng(seed)
        ),
        _red_dog_move,
    ),
}


def _play(g: Game, move: Callable[[Any, np.random.Generator], bool], seed: int, n: int) -> int:
    rng = np.random.default_rng(seed)
    done = 0
    while done < n and move(g, rng):
        done += 1
    return done


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_clone_has_the_originals_future(case: str, seed: int) -> None:
    make, move = CASES[case]
    g = make(seed)
    _play(g, move, seed + 100, 7 + 5 * seed)  # mid-hand
    twin = g.clone()
    reference = copy.deepcopy(g)
    assert _view(twin) == _view(g) == _view(reference)
    # The same actions on all three, far enough to start new hands and draw again.
    steps = [_play(x, move, seed + 200, 400) for x in (g, twin, reference)]
    assert steps[0] == steps[1] == steps[2] > 0
    assert _view(twin) == _view(g) == _view(reference)


def test_clone_crosses_random_draws() -> None:
    """The futures compared above include draws made after the clone: a Hold'em
    hand start and a refill of the draw match's buffer of uniforms."""
    h = HoldemGame(HoldemConfig(num_seats=2), rng=5)
    _play(h, _holdem_move, 5, 3)
    twin = h.clone()
    assert isinstance(twin._rng, GeneratorSnapshot)  # no Generator made yet
    _play(twin, _holdem_move, 6, 60)
    assert twin.hand_number > h.hand_number and isinstance(twin._rng, np.random.Generator)

    d = DrawGame(DrawConfig(starting_money=10_000), seed=5)
    twin_d = d.clone()
    before = int(twin_d.state[L.S_CURSOR])
    cursors = []
    rng = np.random.default_rng(5)
    for _ in range(3000):
        _draw_move(twin_d, rng)
        cursors.append(int(twin_d.state[L.S_CURSOR]))
    assert min(cursors) < before and not np.array_equal(twin_d.rand.buf, d.rand.buf)


@pytest.mark.parametrize("case", sorted(CASES))
def test_clone_and_original_are_independent(case: str) -> None:
    make, move = CASES[case]
    g = make(11)
    _play(g, move, 12, 9)
    as_it_was = copy.deepcopy(g)
    twin = g.clone()
    _play(twin, move, 13, 300)  # the clone plays on, other actions
    assert _view(g) == _view(as_it_was)
    assert _view(twin) != _view(g)
    # ... and the other way round, with a clone of the clone, before and after either drew.
    second = twin.clone()
    frozen = copy.deepcopy(twin)
    _play(second, move, 14, 50)
    _play(g, move, 15, 50)
    assert _view(twin) == _view(frozen)


@pytest.mark.parametrize("case", sorted(CASES))
def test_clone_copies_every_field(case: str) -> None:
    """A field added to a game later and forgotten by clone() fails here: the clone has
    the same attributes, and shares no array with the original except the read-only
    config row and evaluator tables."""
    make, move = CASES[case]
    g = make(3)
    _play(g, move, 4, 5)
    twin = g.clone()
    assert set(vars(twin)) == set(vars(g))
    shared_ok = {"cfg", "tables", "_tables", "config"}

    def arrays(x: Any) -> list[np.ndarray]:
        if isinstance(x, np.ndarray):
            return [x]
        if isinstance(x, tuple):
            return [a for item in x for a in arrays(item)]
        if hasattr(x, "buf"):  # the draw's RandomBuffer
            return [x.buf]
        return []

    for name, value in vars(g).items():
        if name in shared_ok:
            continue
        for a, b in zip(arrays(value), arrays(vars(twin)[name]), strict=True):
            assert not np.shares_memory(a, b), name
        if isinstance(value, list):
            assert vars(twin)[name] is not value, name


def test_pickle_and_deepcopy_of_a_clone() -> None:
    """A clone whose Generator is still a snapshot pickles and copies as a table does,
    and the copy plays on as the original."""
    h = HoldemGame(HoldemConfig(num_seats=3), rng=8)
    _play(h, _holdem_move, 8, 6)
    twin = h.clone()
    restored = pickle.loads(pickle.dumps(twin))
    deep = copy.deepcopy(twin)
    for x in (h, twin, restored, deep):
        _play(x, _holdem_move, 9, 200)
    assert _view(h) == _view(twin) == _view(restored) == _view(deep)


def test_pickled_before_rng_was_a_property() -> None:
    """A table or buffer pickled by the code before clone() (``rng`` in its dict)
    loads with its Generator."""
    h = HoldemGame(HoldemConfig(num_seats=2), rng=1)
    state = dict(vars(h))
    state["rng"] = state.pop("_rng")
    old = object.__new__(HoldemGame)
    old.__setstate__(state)
    assert old.rng is h.rng
    d = DrawGame(seed=1)
    buffer_state = dict(vars(d.rand))
    buffer_state["rng"] = buffer_state.pop("_rng")
    buffer = object.__new__(type(d.rand))
    buffer.__setstate__(buffer_state)
    assert buffer.rng is d.rand.rng


@pytest.mark.parametrize(
    "bit_generator",
    [np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937, np.random.Philox, np.random.SFC64],
)
def test_generator_snapshot_draws_as_the_original(bit_generator: type) -> None:
    rng = np.random.Generator(bit_generator(42))
    rng.random(7)
    snap = snapshot(rng)
    expected = rng.random(20)  # the original moves on; the snapshot does not
    assert isinstance(snap, GeneratorSnapshot)
    assert snapshot(snap) is snap  # a clone of a clone shares it
    assert np.array_equal(materialize(snap).random(20), expected)
    assert np.array_equal(materialize(snap).random(20), expected)  # still unchanged


def test_generator_subclass_is_deep_copied() -> None:
    """A Generator subclass is not snapshotted but deep-copied at once (numpy's copy,
    as ``copy.deepcopy`` of the game would make)."""

    class Mine(np.random.Generator):
        pass

    rng = Mine(np.random.PCG64(3))
    copied = snapshot(rng)
    assert isinstance(copied, np.random.Generator) and copied is not rng
    assert np.array_equal(copied.random(5), rng.random(5))
    assert materialize(rng) is rng
