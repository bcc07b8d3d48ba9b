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
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

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
    KIND_BET,
    KIND_FORFEIT,
    OK,
    PHASE_BET,
    PUB_SHOWN,
    PUB_TURNED,
    fraction_bet,
    max_bet,
    new_game,
    play_builtin_until,
    rand_below,
    rand_u64,
    win_probability_kernel,
)
from poker_env.games.red_dog_kernels import apply_action_inline

__all__ = [
    "DEFAULT_BET_FRACTIONS",
    "action_to_bet",
    "agent_done",
    "collect_reward",
    "encode_observation",
    "env_reset_table",
    "env_step_table",
    "obs_size",
]

#: FORFEIT, then bets of 1 chip, 1/4, 1/2, 3/4 and all of the largest legal bet.
DEFAULT_BET_FRACTIONS = (0.0, 0.25, 0.5, 0.75, 1.0)


def obs_size(num_players: int) -> int:
    """Length of one observation for a table of ``num_players``."""
    return 162 + int(num_players)


@njit(cache=True, _nrt=False)
def encode_observation(
    ints: NDArray[np.int64],
    chips: NDArray[np.int64],
    flags: NDArray[np.int8],
    hands: NDArray[np.int8],
    public: NDArray[np.int8],
    t: int,
    s: int,
    out: NDArray[np.float32],
) -> None:  # pragma: no cover - compiled
    """Write seat ``s``'s observation of table ``t`` into ``out`` (only what ``s`` may know)."""
    _encode(ints, chips, flags, hands, public, t, s, out)


@njit(cache=True, _nrt=False, inline="always")
def _encode(
    ints: NDArray[np.int64],
    chips: NDArray[np.int64],
    flags: NDArray[np.int8],
    hands: NDArray[np.int8],
    public: NDArray[np.int8],
    t: int,
    s: int,
    out: NDArray[np.float32],
) -> None:  # pragma: no cover - compiled
    # encode_observation's body, inlined into the env step (a call passes ~50 words).
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
    ints: NDArray[np.int64],
    chips: NDArray[np.int64],
    t: int,
    action: int,
    fractions: NDArray[np.float64],
) -> tuple[int, int]:  # pragma: no cover - compiled
    """Discrete action -> (kind, amount): 0 FORFEIT, ``k`` a bet of ``fractions[k-1]``
    of the largest legal bet (at least 1 chip). Returns kind -1 for an unknown index."""
    if action == 0:
        return KIND_FORFEIT, 1
    if action < 0 or action > fractions.shape[0]:
        return -1, 0
    return KIND_BET, fraction_bet(fractions[action - 1], max_bet(ints, chips, t))


@njit(cache=True, _nrt=False, inline="always")
def _agent_done(
    ints: NDArray[np.int64], flags: NDArray[np.int8], t: int
) -> bool:  # pragma: no cover
    return ints[t, I_PHASE] != PHASE_BET or not (flags[t, ints[t, I_AGENT]] & F_SEATED)


@njit(cache=True, _nrt=False)
def env_reset_table(
    ints: NDArray[np.int64],
    chips: NDArray[np.int64],
    flags: NDArray[np.int8],
    hands: NDArray[np.int8],
    deck: NDArray[np.int8],
    public: NDArray[np.int8],
    rng: NDArray[np.uint64],
    events: NDArray[np.int64],
    draw_log: NDArray[np.int64],
    t: int,
    key: np.uint64,
    num_players: int,
    starting_chips: int,
    ante: int,
    hand_size: int,
    rounds: int,
    agent_seat: int,
    builtin: bool,
    random_share: float,
    fractions: NDArray[np.float64],
    out: NDArray[np.float32],
) -> None:  # pragma: no cover - compiled
    """Start an episode at table ``t``: a new game, the agent's seat (-1: drawn from the
    table's stream), the default opponents up to the agent's first turn, its observation.

    With ``builtin`` False the opponents are left to the caller and nothing is encoded.
    A game that ends before the agent's first decision (only possible with tiny
    stacks) is replaced by the next game of the stream.
    """
    k = key
    while True:
        new_game(
            ints,
            chips,
            flags,
            hands,
            deck,
            public,
            rng,
            events,
            draw_log,
            t,
            k,
            num_players,
            starting_chips,
            ante,
            hand_size,
            rounds,
        )
        seat = agent_seat if agent_seat >= 0 else rand_below(rng, t, num_players)
        ints[t, I_AGENT] = seat
        ints[t, I_BASE] = starting_chips  # the first reward includes the first ante
        if not builtin:
            return  # the caller's own policies play the other seats, then encode
        play_builtin_until(
            ints, chips, flags, hands, deck, public, rng, events, t, seat, random_share, fractions
        )
        if not _agent_done(ints, flags, t):
            break
        k = rand_u64(rng, t)
    _encode(ints, chips, flags, hands, public, t, seat, out)


@njit(cache=True, _nrt=False, inline="always")
def env_step_table(
    ints: NDArray[np.int64],
    chips: NDArray[np.int64],
    flags: NDArray[np.int8],
    hands: NDArray[np.int8],
    deck: NDArray[np.int8],
    public: NDArray[np.int8],
    rng: NDArray[np.uint64],
    events: NDArray[np.int64],
    t: int,
    action: int,
    random_share: float,
    fractions: NDArray[np.float64],
    out: NDArray[np.float32],
) -> tuple[int, float, bool]:  # pragma: no cover - compiled
    """The agent plays ``action``; default opponents play until its next turn.

    Returns:
        (status, reward in antes, done). On a bad status nothing changed.
    """
    kind, amount = action_to_bet(ints, chips, t, action, fractions)
    if kind < 0:
        return ERR_KIND, 0.0, False
    status = apply_action_inline(
        ints, chips, flags, hands, deck, public, rng, events, t, kind, amount
    )
    if status != OK:
        return status, 0.0, False
    seat = ints[t, I_AGENT]
    play_builtin_until(
        ints, chips, flags, hands, deck, public, rng, events, t, seat, random_share, fractions
    )
    reward = collect_reward(ints, chips, t)
    _encode(ints, chips, flags, hands, public, t, seat, out)
    return OK, reward, _agent_done(ints, flags, t)


@njit(cache=True, _nrt=False, inline="always")
def collect_reward(
    ints: NDArray[np.int64], chips: NDArray[np.int64], t: int
) -> float:  # pragma: no cover
    """Agent's chips won or lost since the last reward, in antes."""
    seat = ints[t, I_AGENT]
    reward = float((chips[t, seat] - ints[t, I_BASE]) / ints[t, I_ANTE])
    ints[t, I_BASE] = chips[t, seat]
    return reward


@njit(cache=True, _nrt=False)
def agent_done(
    ints: NDArray[np.int64], flags: NDArray[np.int8], t: int
) -> bool:  # pragma: no cover
    """Whether the agent's episode is over: game over, or its seat left."""
    return bool(_agent_done(ints, flags, t))
