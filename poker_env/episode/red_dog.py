"""Red Dog observations, action mapping and the compiled env step (no RL framework here).

The single env (:mod:`poker_env.envs.red_dog`), the multi-agent env and the
batched env all use these kernels, which drive the rules kernels of
:mod:`poker_env.games.red_dog`; none of them holds rules of its own.

The observation layout (``obs_size(num_players) = 162 + num_players`` float32:
own hand, turned and shown cards of this deal, pot, chips, betting place,
players still to bet, exact win probability, deals left) is documented as a
table in the docstring of :class:`poker_env.envs.red_dog.RedDogEnv`, which a
test checks against the real observation space.

Total chips = ``num_players * starting_chips``. A seat that left holds 0 chips.

One episode driver serves every face: :func:`env_reset_table` and
:func:`env_step_table` take the tables' state record
(:class:`~poker_env.games.red_dog_kernels.RedDogState`), the env's parameter record
(:class:`RedDogParams`) and an action log. What happened in a step, for the envs'
info and render (issue 12 §4): the single env passes an action log
(:func:`new_action_log`) in which each action's events row of the rules kernels is
kept, read as dicts by :func:`action_dict` / :class:`ActionLog` and as text by
:func:`action_text`; the batched env passes an empty one and keeps nothing (the
same calls in the same order, so the same games).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, overload

import numpy as np
from numba import njit
from numpy.typing import NDArray

from poker_env.cards import format_cards
from poker_env.episode.layout import ObsField, fields_from_widths
from poker_env.episode.options import check_illegal_action
from poker_env.episode.records import LazyRecord
from poker_env.errors import ConfigError, as_int
from poker_env.games.red_dog import (
    ERR_KIND,
    F_HAS_BET,
    F_SEATED,
    I_AGENT,
    I_ANTE,
    I_BASE,
    I_DEALER,
    I_DEALS_DONE,
    I_HAND_SIZE,
    I_NUM_PLAYERS,
    I_PHASE,
    I_POT,
    I_ROUNDS,
    I_START_CHIPS,
    I_TO_ACT,
    KIND_BET,
    KIND_FORFEIT,
    MAX_PLAYERS,
    OK,
    PHASE_BET,
    PHASE_OVER,
    PUB_SHOWN,
    PUB_TURNED,
    RedDogConfig,
    fraction_bet,
    max_bet,
    new_game,
    play_builtin_until,
    rand_below,
    rand_u64,
    win_probability_kernel,
)
from poker_env.games.red_dog_kernels import (
    E_AMOUNT,
    E_DEAL_END,
    E_GAME_OVER,
    E_KIND,
    E_LEFT,
    E_NSHOWN,
    E_REANTE,
    E_SEAT,
    E_SHOWN,
    E_TURNED,
    E_WON,
    NUM_EVENTS,
    RedDogState,
    apply_action_inline,
    keep_events,
)

__all__ = [
    "DEFAULT_BET_FRACTIONS",
    "LOG_CAPACITY",
    "ActionLog",
    "BetRecord",
    "RedDogParams",
    "action_dict",
    "action_text",
    "action_to_bet",
    "aec_act",
    "aec_reset",
    "aec_summary_size",
    "agent_done",
    "collect_reward",
    "encode_observation",
    "env_reset_table",
    "env_step_table",
    "new_action_log",
    "obs_size",
    "observation_fields",
    "own_action_dict",
    "red_dog_params",
]

#: FORFEIT, then bets of 1 chip, 1/4, 1/2, 3/4 and all of the largest legal bet.
DEFAULT_BET_FRACTIONS = (0.0, 0.25, 0.5, 0.75, 1.0)


#: Rows of an action log (:func:`new_action_log`): the agent's action and the
#: opponents' actions up to its next turn, at most 2 * (10 - 1) of them (the rest of
#: one deal, then the next deal up to the agent's place). More happen only after the
#: agent's seat has left (the default opponents play the game out); those are counted,
#: not kept.
LOG_CAPACITY = 32


def action_dict(row: NDArray[np.int64] | Sequence[int]) -> dict[str, Any]:
    """One action of the log (an events row of the rules kernels) as plain values.

    Keys: ``seat``; ``kind`` ("bet" or "forfeit"); ``amount`` (chips bet, 1 for a
    forfeit); ``turned_card`` (the card the dealer turned against the bet, -1 for a
    forfeit); ``won``; ``shown`` (the cards the bettor showed: the winning card, or
    his whole hand); ``pot_refilled`` (the action emptied the pot and everyone
    anted again); ``deal_ended`` (it was the deal's last action).
    """
    r = row.tolist() if isinstance(row, np.ndarray) else row  # list indexing is faster
    return {
        "seat": r[E_SEAT],
        "kind": "forfeit" if r[E_KIND] == KIND_FORFEIT else "bet",
        "amount": r[E_AMOUNT],
        "turned_card": r[E_TURNED],
        "won": r[E_WON] != 0,
        "shown": tuple(r[E_SHOWN : E_SHOWN + r[E_NSHOWN]]),
        "pot_refilled": r[E_REANTE] != 0,
        "deal_ended": r[E_DEAL_END] != 0,
    }


def own_action_dict(action: int, p: float, r: list[int]) -> dict[str, Any]:
    """The items of an agent's ``info["last_bet"]`` (:class:`BetRecord` builds them
    with this when first read): ``action`` (the index it played) and ``p`` (its exact
    win probability when it decided), then :func:`action_dict`'s keys from the events
    row ``r`` (a list: one dict literal, no merge of two dicts). Its entries are
    action_dict's written out again; ``tests/envs/test_red_dog.py`` checks that the two
    agree, key order included."""
    return {
        "action": action,
        "p": p,
        "seat": r[E_SEAT],
        "kind": "forfeit" if r[E_KIND] == KIND_FORFEIT else "bet",
        "amount": r[E_AMOUNT],
        "turned_card": r[E_TURNED],
        "won": r[E_WON] != 0,
        "shown": tuple(r[E_SHOWN : E_SHOWN + r[E_NSHOWN]]),
        "pot_refilled": r[E_REANTE] != 0,
        "deal_ended": r[E_DEAL_END] != 0,
    }


#: The keys of a :class:`BetRecord`, in order: own_action_dict's.
BET_KEYS = (
    "action",
    "p",
    "seat",
    "kind",
    "amount",
    "turned_card",
    "won",
    "shown",
    "pot_refilled",
    "deal_ended",
)


class BetRecord(LazyRecord):
    """An agent's own action, settled (``info["last_bet"]``), as a read-only mapping
    (:class:`~poker_env.episode.records.LazyRecord`): :func:`own_action_dict`'s keys
    and values, ``dict(record)`` for a plain dict. It holds the action, ``p`` and the
    events row and builds the dict on first access. Not a dict, as the draw envs'
    hand records are not, so that Gymnasium's vector envs keep it whole.
    """

    __slots__ = ("_action", "_p", "_row")

    KEYS = BET_KEYS

    def __init__(self, action: int, p: float, row: list[int]) -> None:
        self._action = action
        self._p = p
        self._row = row
        self._dict = None

    def _decode(self) -> dict[str, Any]:
        return own_action_dict(self._action, self._p, self._row)

    def __reduce__(self) -> tuple[Any, ...]:
        return (BetRecord, (self._action, self._p, self._row))


class ActionLog(Sequence[dict[str, Any]]):
    """Actions of a log as a read-only sequence of :func:`action_dict` dicts.

    Holds the rows (the events rows of the rules kernels: an int64 array of shape
    (k, NUM_EVENTS), or lists of ints) and builds each dict when it is read, so an
    env step that returns one pays for a copy, not for a dict per action.
    """

    __slots__ = ("_rows",)

    def __init__(self, rows: NDArray[np.int64] | Sequence[Sequence[int]]) -> None:
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, i: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, i: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(i, slice):
            return [action_dict(r) for r in self._rows[i]]
        return action_dict(self._rows[i])

    def __iter__(self) -> Iterator[dict[str, Any]]:
        rows = self._rows.tolist() if isinstance(self._rows, np.ndarray) else self._rows
        return (action_dict(r) for r in rows)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ActionLog({list(self)!r})"

    def rows(self) -> NDArray[np.int64]:
        """The events rows themselves, shape (len, NUM_EVENTS)."""
        return np.array(self._rows, np.int64).reshape(len(self._rows), NUM_EVENTS)


def action_text(row: NDArray[np.int64] | Sequence[int], you: bool = False) -> str:
    """One action of the log as a line of text ("you ..." instead of "seat s ...")."""
    d = action_dict(row)
    name, s = ("you", "") if you else (f"seat {d['seat']}", "s")
    if d["kind"] == "forfeit":
        text = f"{name} forfeit{s} 1 chip"
    else:
        verb = ("win" if d["won"] else "lose") + s
        text = (
            f"{name} bet{s} {d['amount']}, turned {format_cards([d['turned_card']])}: "
            f"{verb}, showing {format_cards(d['shown'])}"
        )
    extra = []
    if d["pot_refilled"]:
        extra.append("the pot is empty: everyone antes again")
    left = int(row[E_LEFT])
    if left:
        seats = ", ".join(str(s) for s in range(MAX_PLAYERS) if left >> s & 1)
        extra.append(f"seat {seats} out of chips: left")
    if d["deal_ended"] and not row[E_GAME_OVER]:
        extra.append("the deal ends")
    return "; ".join([text, *extra])


def obs_size(num_players: int) -> int:
    """Length of one observation for a table of ``num_players``."""
    return 162 + int(num_players)


def observation_fields(num_players: int) -> tuple[ObsField, ...]:
    """The observation layout for a table of ``num_players`` (RedDogEnv's docstring table)."""
    return fields_from_widths(
        [
            ("own_hand", 52),
            ("turned", 52),
            ("shown", 52),
            ("pot", 1),
            ("own_chips", 1),
            ("chips", num_players),
            ("betting_place", 1),
            ("still_to_bet", 1),
            ("beat_probability", 1),
            ("deals_left", 1),
        ]
    )


def new_action_log() -> NDArray[np.int64]:
    """An empty action log: one row per action, the rules kernels' events row of it.

    Read a row with the ``E_*`` columns of :mod:`poker_env.games.red_dog_kernels`
    (seat, kind, amount, turned card, won, shown cards, refill, seats that left,
    deal ended, new deal, game over).
    """
    return np.zeros((LOG_CAPACITY, NUM_EVENTS), np.int64)


class RedDogParams(NamedTuple):
    """What every table of an env shares, built once from its options.

    Passed whole to the compiled episode step (a NamedTuple costs nothing inside
    numba), beside the tables' :class:`~poker_env.games.red_dog_kernels.RedDogState`.

    Attributes:
        rules: int64 (5,): :meth:`RedDogConfig.kernel_array` (num_players,
            starting_chips, ante, hand_size, rounds).
        agent_seat: the agent's seat; -1: drawn from the table's stream per episode.
        builtin: the compiled default opponent plays the other seats (False: the
            env's policies do, between calls).
        random_share: the default opponent's chance of a uniformly random action.
        fractions: float64: the bet actions, as fractions of the largest legal bet.
    """

    rules: NDArray[np.int64]
    agent_seat: int
    builtin: bool
    random_share: float
    fractions: NDArray[np.float64]


def red_dog_params(
    config: RedDogConfig,
    *,
    agent_seat: int | None,
    builtin: bool,
    random_share: float,
    fractions: NDArray[np.float64],
) -> RedDogParams:
    """The :class:`RedDogParams` of an env's (already checked) options."""
    return RedDogParams(
        rules=config.kernel_array(),
        agent_seat=-1 if agent_seat is None else int(agent_seat),
        builtin=bool(builtin),
        random_share=float(random_share),
        fractions=np.ascontiguousarray(fractions, np.float64),
    )


@dataclass(frozen=True, kw_only=True)
class RedDogEnvConfig:
    """The options every Red Dog face takes (single, batched, multi-agent), checked once.

    Keyword-only and frozen; :meth:`__post_init__` validates every field and raises a
    :class:`~poker_env.errors.ConfigError` naming the field, the bad value and what
    is allowed. The faces build it from their keywords and take the compiled
    driver's parameter record from it (:meth:`params`).

    Attributes:
        num_players, starting_chips, ante, hand_size, rounds: the rules
            (:class:`~poker_env.games.red_dog.RedDogConfig`, as :attr:`rules`).
        agent_seat: the agent's seat, or None: drawn per episode.
        opponent_random_share: the default opponent's chance of a random action.
        bet_fractions: the bet actions, as fractions of the largest legal bet.
        illegal_action: ``"passive"`` or ``"raise"`` (:mod:`poker_env.episode.options`).

    >>> RedDogEnvConfig(num_players=3).params(builtin=True).rules.tolist()
    [3, 50, 1, 5, 3]
    >>> RedDogEnvConfig(agent_seat=4)
    Traceback (most recent call last):
    ...
    poker_env.errors.ConfigError: bad config: agent_seat=4; allowed: None or 0..3
    """

    num_players: int = 4
    starting_chips: int = 50
    ante: int = 1
    hand_size: int = 5
    rounds: int | None = None
    agent_seat: int | None = None
    opponent_random_share: float = 0.2
    bet_fractions: Sequence[float] = DEFAULT_BET_FRACTIONS
    illegal_action: str = "passive"

    def __post_init__(self) -> None:
        check_illegal_action(self.illegal_action)
        rules = RedDogConfig(
            num_players=self.num_players,
            starting_chips=self.starting_chips,
            ante=self.ante,
            hand_size=self.hand_size,
            rounds=self.rounds,
        )
        object.__setattr__(self, "rules", rules)
        n = rules.num_players
        seat = self.agent_seat
        if seat is not None:
            i = as_int(seat)
            if i is None or not 0 <= i < n:
                raise ConfigError("agent_seat", seat, f"None or 0..{n - 1}")
            object.__setattr__(self, "agent_seat", i)
        share = self.opponent_random_share
        if (
            isinstance(share, bool)
            or not isinstance(share, (int, float, np.integer, np.floating))
            or not 0.0 <= share <= 1.0
        ):
            raise ConfigError("opponent_random_share", share, "a number in [0, 1]")
        fr = np.asarray(self.bet_fractions, dtype=np.float64)
        if fr.ndim != 1 or fr.size == 0 or np.any(~np.isfinite(fr)) or np.any((fr < 0) | (fr > 1)):
            raise ConfigError(
                "bet_fractions", tuple(self.bet_fractions), "a non-empty list of numbers in [0, 1]"
            )
        object.__setattr__(self, "fractions", fr)

    # Set by __post_init__ from the fields (not fields themselves).
    rules: RedDogConfig = field(init=False, repr=False, compare=False)
    fractions: NDArray[np.float64] = field(init=False, repr=False, compare=False)

    def params(self, *, builtin: bool) -> RedDogParams:
        """The compiled driver's :class:`RedDogParams` (``builtin``: the default
        opponents play the other seats inside the compiled step)."""
        return red_dog_params(
            self.rules,
            agent_seat=self.agent_seat,
            builtin=builtin,
            random_share=float(self.opponent_random_share),
            fractions=self.fractions,
        )


@njit(cache=True, _nrt=False)
def encode_observation(
    st: RedDogState, t: int, s: int, out: NDArray[np.float32]
) -> None:  # pragma: no cover - compiled
    """Write seat ``s``'s observation of table ``t`` into ``out`` (only what ``s`` may know)."""
    _encode(st, t, s, out)


@njit(cache=True, _nrt=False, inline="always")
def _encode(
    st: RedDogState, t: int, s: int, out: NDArray[np.float32]
) -> None:  # pragma: no cover - compiled
    # encode_observation's body, inlined into the env step (a call passes ~50 words).
    ints, chips, flags, hands, public = st.ints, st.chips, st.flags, st.hands, st.public
    p = ints[t, I_NUM_PLAYERS]
    total = float(p * ints[t, I_START_CHIPS])
    # Every slot is written below (no clearing pass); branch-free selects vectorize.
    for k in range(52):
        out[k] = 0.0
    for k in range(ints[t, I_HAND_SIZE]):
        c = hands[t, s, k]
        if c >= 0:
            out[c] = 1.0
    for c in range(52):
        v = public[t, c]
        out[52 + c] = 1.0 if v == PUB_TURNED else 0.0
        out[104 + c] = 1.0 if v == PUB_SHOWN else 0.0
    out[156] = ints[t, I_POT] / total
    out[157] = chips[t, s] / total
    for i in range(p):
        q = s + i
        out[158 + i] = chips[t, q - p if q >= p else q] / total
    # Seated players between the dealer's left and s, and others still to bet; counted
    # branch-free (seats are seated or not at random, so branches mispredict).
    dealer = ints[t, I_DEALER]
    ds = s - dealer - 1 + p
    ds = ds - p if ds >= p else ds  # s's place from the dealer's left, 0..p-1
    place = 0
    waiting = 0
    for q in range(p):
        f = flags[t, q]
        dq = q - dealer - 1 + p
        dq = dq - p if dq >= p else dq
        place += (f & F_SEATED) & (dq < ds)
        waiting += ((f & (F_SEATED | F_HAS_BET)) == F_SEATED) & (q != s)
    out[158 + p] = place
    out[159 + p] = waiting
    out[160 + p] = win_probability_kernel(ints, hands, public, t, s)
    left = ints[t, I_ROUNDS] - ints[t, I_DEALS_DONE]
    out[161 + p] = left if ints[t, I_PHASE] == PHASE_BET else 0


@njit(cache=True, _nrt=False, inline="always")
def action_to_bet(
    st: RedDogState, t: int, action: int, fractions: NDArray[np.float64]
) -> tuple[int, int]:  # pragma: no cover - compiled
    """Discrete action -> (kind, amount): 0 FORFEIT, ``k`` a bet of ``fractions[k-1]``
    of the largest legal bet (at least 1 chip). Returns kind -1 for an unknown index."""
    if action == 0:
        return KIND_FORFEIT, 1
    if action < 0 or action > fractions.shape[0]:
        return -1, 0
    return KIND_BET, fraction_bet(fractions[action - 1], max_bet(st.ints, st.chips, t))


@njit(cache=True, _nrt=False, inline="always")
def _agent_done(st: RedDogState, t: int) -> bool:  # pragma: no cover
    ints = st.ints
    return ints[t, I_PHASE] != PHASE_BET or not (st.flags[t, ints[t, I_AGENT]] & F_SEATED)


@njit(cache=True, _nrt=False, inline="always")
def env_reset_table(
    st: RedDogState,
    t: int,
    key: np.uint64,
    pr: RedDogParams,
    out: NDArray[np.float32],
    log: NDArray[np.int64],
) -> int:  # pragma: no cover - compiled
    """Start an episode at table ``t``: a new game, the agent's seat (drawn from the
    table's stream where ``pr.agent_seat`` is -1), the default opponents up to the
    agent's first turn, its observation.

    The default opponents' actions are kept in ``log`` (an action log,
    :func:`new_action_log`, or an empty one: nothing kept); returns their count.
    Without ``pr.builtin`` the opponents are left to the caller and nothing is
    encoded (returns 0). A game that ends before the agent's first decision (only
    possible with tiny stacks) is replaced by the next game of the stream.
    """
    k = key
    n = 0
    while True:
        new_game(st, t, k, pr.rules)
        seat = pr.agent_seat if pr.agent_seat >= 0 else rand_below(st.rng, t, pr.rules[0])
        st.ints[t, I_AGENT] = seat
        st.ints[t, I_BASE] = pr.rules[1]  # the first reward includes the first ante
        if not pr.builtin:
            return 0  # the caller's own policies play the other seats, then encode
        n = play_builtin_until(st, t, seat, pr.random_share, pr.fractions, log, 0)
        if not _agent_done(st, t):
            break
        k = rand_u64(st.rng, t)
    _encode(st, t, seat, out)
    return int(n)


@njit(cache=True, _nrt=False, inline="always")
def env_step_table(
    st: RedDogState,
    t: int,
    action: int,
    pr: RedDogParams,
    out: NDArray[np.float32],
    log: NDArray[np.int64],
) -> tuple[int, float, bool, int, float]:  # pragma: no cover - compiled
    """The agent plays ``action``; default opponents play until its next turn.

    What happened is kept in ``log`` (or nothing, where it has no rows): row 0 the
    agent's action, rows 1.. the default opponents' actions up to its next turn.

    Returns:
        (status, reward in antes, done, actions played (the agent's included; more
        than ``log``'s rows when the opponents played on after the agent's seat
        left), the agent's exact win probability when it decided (0 without a log)).
        On a bad status nothing changed.
    """
    seat = st.ints[t, I_AGENT]
    p = win_probability_kernel(st.ints, st.hands, st.public, t, seat) if log.shape[0] else 0.0
    kind, amount = action_to_bet(st, t, action, pr.fractions)
    if kind < 0:
        return ERR_KIND, 0.0, False, 0, p
    status = apply_action_inline(st, t, kind, amount)
    if status != OK:
        return status, 0.0, False, 0, p
    keep_events(st, t, log, 0)
    n = play_builtin_until(st, t, seat, pr.random_share, pr.fractions, log, 1)
    reward = collect_reward(st, t)
    _encode(st, t, seat, out)
    return OK, reward, _agent_done(st, t), n, p


@njit(cache=True, _nrt=False, inline="always")
def collect_reward(st: RedDogState, t: int) -> float:  # pragma: no cover
    """Agent's chips won or lost since the last reward, in antes."""
    ints = st.ints
    seat = ints[t, I_AGENT]
    reward = float((st.chips[t, seat] - ints[t, I_BASE]) / ints[t, I_ANTE])
    ints[t, I_BASE] = st.chips[t, seat]
    return reward


@njit(cache=True, _nrt=False)
def agent_done(st: RedDogState, t: int) -> bool:  # pragma: no cover
    """Whether the agent's episode is over: game over, or its seat left."""
    return bool(_agent_done(st, t))


# ---- the multi-agent env's step (poker_env.multiagent.red_dog): every seat an agent
def aec_summary_size(num_players: int) -> int:
    """Length of the int64 summary :func:`aec_reset` and :func:`aec_act` write: game
    over (0/1), the seat to act, each seat's chips, each seat's seated flag (0/1), then
    the events row of the last action (``NUM_EVENTS``, the ``E_*`` columns)."""
    return 2 + 2 * int(num_players) + NUM_EVENTS


@njit(cache=True, _nrt=False, inline="always")
def _aec_summary(st: RedDogState, t: int, out: NDArray[np.int64]) -> None:  # pragma: no cover
    ints = st.ints
    p = ints[t, I_NUM_PLAYERS]
    out[0] = 1 if ints[t, I_PHASE] == PHASE_OVER else 0
    out[1] = ints[t, I_TO_ACT]
    for s in range(p):
        out[2 + s] = st.chips[t, s]
        out[2 + p + s] = 1 if st.flags[t, s] & F_SEATED else 0
    for k in range(NUM_EVENTS):
        out[2 + 2 * p + k] = st.events[t, k]


@njit(cache=True, _nrt=False, inline="always")
def _aec_encode_to_act(
    st: RedDogState, t: int, obs: NDArray[np.float32]
) -> None:  # pragma: no cover
    # The observation of the seat to act (its agent is the next one asked), if any.
    if st.ints[t, I_PHASE] != PHASE_OVER:
        _encode(st, t, st.ints[t, I_TO_ACT], obs)


@njit(cache=True, _nrt=False)
def aec_reset(
    st: RedDogState,
    t: int,
    key: np.uint64,
    rules: NDArray[np.int64],
    out: NDArray[np.int64],
    obs: NDArray[np.float32],
) -> None:  # pragma: no cover - compiled
    """A new game at table ``t`` from ``key`` (:func:`new_game`: the draw, the first
    ante, the first deal); its summary into ``out`` (:func:`aec_summary_size`) and the
    observation of the seat to act into ``obs`` (:func:`encode_observation`)."""
    new_game(st, t, key, rules)
    _aec_summary(st, t, out)
    _aec_encode_to_act(st, t, obs)


@njit(cache=True, _nrt=False)
def aec_act(
    st: RedDogState,
    t: int,
    action: int,
    fractions: NDArray[np.float64],
    out: NDArray[np.int64],
    obs: NDArray[np.float32],
) -> tuple[int, float]:  # pragma: no cover - compiled
    """The seat to act at table ``t`` plays the discrete ``action``
    (:func:`action_to_bet`); the summary after it into ``out``, the observation of
    the next seat to act (if the game goes on) into ``obs``.

    Returns (status, the seat's exact win probability when it decided). On a bad
    status nothing changed (and neither ``out`` nor ``obs`` is written).
    """
    seat = st.ints[t, I_TO_ACT]
    p = win_probability_kernel(st.ints, st.hands, st.public, t, seat)
    kind, amount = action_to_bet(st, t, action, fractions)
    if kind < 0:
        return ERR_KIND, p
    status = apply_action_inline(st, t, kind, amount)
    if status == OK:
        _aec_summary(st, t, out)
        _aec_encode_to_act(st, t, obs)
    return status, p
