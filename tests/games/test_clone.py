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
    # A resampled world (its Generator still a seed) likewise.
    world = h.clone(resample_for=h.to_act, rng=np.random.default_rng(2))
    copies = [world, pickle.loads(pickle.dumps(world)), copy.deepcopy(world)]
    for x in copies:
        _play(x, _holdem_move, 10, 200)
    assert _view(copies[0]) == _view(copies[1]) == _view(copies[2])
    # A clone of a resampled world (a search's node copied again) has its future.
    world = h.clone(resample_for=h.to_act, rng=np.random.default_rng(3))
    twins = [world.clone(), copy.deepcopy(world)]
    for x in (world, *twins):
        _play(x, _holdem_move, 11, 200)
    assert _view(world) == _view(twins[0]) == _view(twins[1])


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


# --- clone(resample_for=seat, rng=...): a world consistent with what one seat saw ---


def _holdem_on_the_flop(seed: int, seats: int = 4) -> HoldemGame:
    g = HoldemGame(HoldemConfig(num_seats=seats), rng=seed)
    g.start_hand()
    while g.street == "preflop":
        g.check_or_call()
    assert g.phase == "betting" and len(g.board().split()) == 3
    return g


def test_resample_keeps_what_the_seat_saw_and_deals_the_rest_again() -> None:
    from poker_env.games import holdem_kernels as K

    g = _holdem_on_the_flop(21)
    seat = g.to_act
    before = _view(g)
    twin = g.clone(resample_for=seat, rng=np.random.default_rng(0))
    assert _view(g) == before  # the original is untouched
    assert twin.hole_cards(seat) == g.hole_cards(seat) and twin.board() == g.board()
    deck = twin.state[K.DECK : K.DECK + 52]
    assert sorted(deck.tolist()) == list(range(52))
    # Every hole card and board card is where the deal of the new deck puts it: the
    # same deck positions as the original's deal, the same cards where they were seen.
    old_deck = g.state[K.DECK : K.DECK + 52].tolist()
    for first, count in ((K.HOLE, 2 * K.MAX_SEATS), (K.BOARD, 5)):
        for i in range(count):
            card = int(g.state[first + i])
            if card >= 0:
                assert twin.state[first + i] == deck[old_deck.index(card)]
    others = [twin.hole_cards(q) for q in range(4) if q != seat]
    assert others != [g.hole_cards(q) for q in range(4) if q != seat]
    # The same rng seed gives the same world.
    again = g.clone(resample_for=seat, rng=np.random.default_rng(0))
    assert _view(again) == _view(twin)
    # Its later hands are not the table's: the next deck differs from the one a plain
    # clone (the table's own future) deals.
    plain = g.clone()
    for x in (twin, plain):
        while x.phase == "betting":
            x.check_or_call()
        x.start_hand()
    assert twin.history() == plain.history() == []
    assert twin.state[K.DECK : K.DECK + 52].tolist() != plain.state[K.DECK : K.DECK + 52].tolist()


def test_resampled_worlds_are_uniform_over_the_unseen_cards() -> None:
    """Heads-up before the flop, seat 0 has seen its two cards: the opponent's first
    hole card and the river are each uniform over the other 50 (chi-square against
    the uniform counts, fixed seed; the 0.1% point of chi-square with 49 degrees of
    freedom is 85.4)."""
    from poker_env.cards import parse_cards
    from poker_env.games import holdem_kernels as K

    g = HoldemGame(HoldemConfig(num_seats=2), rng=4)
    g.start_hand()
    seen = set(parse_cards(g.hole_cards(0)))
    rng = np.random.default_rng(1)
    draws = 5000
    hole = np.zeros(52)
    river = np.zeros(52)
    for _ in range(draws):
        world = g.clone(resample_for=0, rng=rng)
        hole[parse_cards(world.hole_cards(1))[0]] += 1
        river[world.state[K.BOARD + 4]] += 1
    unseen = np.array([c for c in range(52) if c not in seen])
    expected = draws / 50
    for counts in (hole, river):
        assert counts.sum() == counts[unseen].sum() == draws  # never a seen card
        chi2 = float((((counts[unseen] - expected) ** 2) / expected).sum())
        assert chi2 < 85.4, chi2


def test_a_resampled_world_plays_out_and_its_record_replays() -> None:
    """The copy is a whole, legal hand: played to the end, every chip is somewhere and
    its JSON record replays to the same payouts (replay_json checks the claims)."""
    from poker_env.games.holdem import replay_json

    for seed in range(5):
        g = _holdem_on_the_flop(30 + seed, seats=6)
        world = g.clone(resample_for=int(g.to_act), rng=np.random.default_rng(seed))
        rng = np.random.default_rng(seed)
        while world.phase == "betting":
            _holdem_move(world, rng)
        assert world.total_chips() == g.total_chips()
        replayed = replay_json(world.to_json())
        assert replayed.payouts == world.payouts and replayed.showdown() == world.showdown()


def test_resample_refusals_name_what_was_wrong() -> None:
    from poker_env.errors import ArgumentError, IllegalActionError

    g = _holdem_on_the_flop(5)
    before = _view(g)
    with pytest.raises(ArgumentError, match="rng"):
        g.clone(resample_for=0)
    with pytest.raises(ArgumentError, match="None unless resample_for"):
        g.clone(rng=np.random.default_rng(0))
    with pytest.raises(ArgumentError, match="seat"):
        g.clone(resample_for=9, rng=np.random.default_rng(0))
    idle = HoldemGame(HoldemConfig(num_seats=2), rng=1)
    with pytest.raises(IllegalActionError, match="no hand under way"):
        idle.clone(resample_for=0, rng=np.random.default_rng(0))
    assert _view(g) == before


def test_a_record_edited_by_a_caller_changes_neither_table() -> None:
    """A clone shared its hand log's lists with the original, and hand_record() handed
    those lists out: editing one table's record changed the other's (found in
    review). Records are copies now, and a clone copies the log's lists."""
    g = HoldemGame(HoldemConfig(num_seats=3), rng=1)
    g.start_hand()
    twin = g.clone()
    expected = g.hand_record()
    record = twin.hand_record()
    record["start_stacks"][0] = 999
    record["seated"][1] = "x"
    assert g.hand_record() == expected and twin.hand_record() == expected
    mine = g.hand_record()
    mine["start_stacks"][1] = 5
    assert g.hand_record() == expected
    assert g._log is not None and twin._log is not None
    for name in ("records", "start_stacks", "seated", "deck"):
        assert getattr(twin._log, name) is not getattr(g._log, name), name


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_a_clone_pickles_at_every_protocol(protocol: int) -> None:
    """The lazy Generators have __slots__: protocols 0 and 1 refused them (review)."""
    h = HoldemGame(HoldemConfig(num_seats=2), rng=3)
    h.start_hand()
    d = DrawGame(seed=3)
    copies = [h.clone(), h.clone(resample_for=0, rng=np.random.default_rng(0)), d.clone()]
    for x in copies:
        y = pickle.loads(pickle.dumps(x, protocol=protocol))
        move = _draw_move if isinstance(x, DrawGame) else _holdem_move
        _play(x, move, 4, 100)
        _play(y, move, 4, 100)
        assert _view(x) == _view(y)


def test_resample_refuses_the_tables_own_generator_and_names_its_argument() -> None:
    from poker_env.errors import ArgumentError

    g = HoldemGame(HoldemConfig(num_seats=2), rng=3)
    g.start_hand()
    plain = g.clone()
    with pytest.raises(ArgumentError, match="the search's own Generator"):
        g.clone(resample_for=0, rng=g.rng)
    with pytest.raises(ArgumentError, match="resample_for=5"):
        g.clone(resample_for=5, rng=np.random.default_rng(0))
    # The refusal drew nothing from the table's Generator: its next deck is a plain
    # clone's.
    for x in (g, plain):
        while x.phase == "betting":
            x.check_or_call()
        x.start_hand()
    assert _view(g) == _view(plain)
