"""Gymnasium env: Texas Hold'em, one agent seat against policies (RULES.md §3)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from numba import njit
from numpy.typing import NDArray

from poker_env.episode import holdem as E
from poker_env.episode.holdem_result import HandResult, hand_result
from poker_env.errors import ConfigError, EpisodeFinishedError, IllegalActionError, as_int
from poker_env.fastcall import KernelEntry, OwnViews
from poker_env.games import holdem_kernels as K
from poker_env.games.holdem import STREET_NAMES, get_holdem_tables
from poker_env.policy import Policy
from poker_env.render.holdem import holdem_picture, holdem_text

__all__ = ["HoldemEnv", "observation_bounds"]

PASSIVE_ACTION = 1  # check/call: legal whenever the agent is to act

# Decided hands kept per step (the last ones if more): a step finishes one hand,
# sometimes two (a hand the agent folded, then one decided before he acts again).
_RING = 8


@njit(cache=True, _nrt=False)
def _play_on(  # type: ignore[no-untyped-def]
    s, rngs, code, reward, pr, hands, count
):
    # From resume_table's code on: each decided hand (HAND_OVER, P_STOP_AT_HAND_END
    # set) is copied into the ring `hands` (count[0] counts them) before the driver closes
    # it; stops where resume_table stops otherwise. Draws nothing: the same games as
    # without the stops (HoldemVectorEnv never stops).
    while code == E.HAND_OVER:
        k = count[0] % hands.shape[0]
        for j in range(hands.shape[1]):
            hands[k, j] = s[j]
        count[0] += 1
        code, r = E.resume_table(s, rngs, 0, pr)
        reward += r
    return code, reward


@njit(cache=True, _nrt=False)
def _step_agent(st, pr, actions, obs, masks, hands, count):  # type: ignore[no-untyped-def]
    # The agent's (legal: checked by the caller) action, the play on to his next
    # decision, recording the hands decided meanwhile, and his observation.
    s = st.rows[0]
    count[0] = 0
    if E.apply_index(s, actions[0], pr.fractions, pr.tables) != K.OK:
        return E.ILLEGAL, 0.0
    code, r = E.resume_table(s, st.rngs, 0, pr)
    code, r = _play_on(s, st.rngs, code, r, pr, hands, count)
    if code != E.OPPONENT_TURN:
        E.observe_agent(s, pr.fractions, float(pr.ints[E.P_STACK]), obs[0], masks[0])
    return code, r


@njit(cache=True, _nrt=False)
def _reset_agent(st, pr, obs, masks, hands, count):  # type: ignore[no-untyped-def]
    # E.reset_table (an episode decided before the agent acts, a walk, is dealt again;
    # its hands are not in hands_ended, the walk is counted in the row's walk fields),
    # recording the hands decided before his first decision.
    s = st.rows[0]
    while True:
        count[0] = 0
        code = E.reset_table(s, st.rngs, 0, pr)
        code, r = _play_on(s, st.rngs, code, 0.0, pr, hands, count)
        if code != E.EPISODE_DONE:
            break
        E.note_walk(s, r)  # a walk: counted, then dealt again
    if code != E.OPPONENT_TURN:
        E.observe_agent(s, pr.fractions, float(pr.ints[E.P_STACK]), obs[0], masks[0])
    return code


_EPISODE_DONE = E.EPISODE_DONE
_OPPONENT_TURN = E.OPPONENT_TURN


def observation_bounds(
    n: int, evaluator_features: bool = False
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Low and high of every observation entry at a table of ``n`` seats (see the table)."""
    size = E.obs_size(n, evaluator_features)
    low = np.zeros(size, dtype=np.float32)
    high = np.ones(size, dtype=np.float32)
    high[108:110] = n  # pot, to call: at most every chip of the table
    high[110 : 110 + 2 * n] = n  # stacks, bets
    high[110 + 4 * n : 110 + 8 * n] = n  # chips per street
    return low, high


class HoldemEnv(OwnViews, gym.Env[NDArray[np.float32], np.int64]):
    """Texas Hold'em for 2 to 10 players; the agent holds one seat.

    ## Description

    No-limit Texas Hold'em as settled in RULES.md §3 (seed 003): blinds E/2 and
    E, side pots, split pots with the odd chip, the seed's or the standard
    profile, the button rule and, optionally, opponents who leave mid-hand
    ("escape") and pay the penalty. The agent plays one seat (fixed or random
    per episode); the other seats are played by policies (default: uniformly
    random legal actions, played inside the compiled step).

    ## Action Space

    ``Discrete(4 + k)`` for ``k`` raise fractions (default ``k = 4``):

    | index | action |
    |-------|--------|
    | 0 | fold (only when facing a bet) |
    | 1 | check or call (all-in for less when short) |
    | 2 | min-raise |
    | 3 .. 2+k | raise to current bet + fraction × (pot + call), default 1/2, 3/4, 1, 2 |
    | 3+k | all-in (masked out where it is only a call: raising closed, RULES.md §3) |

    Raise sizes are clipped into the legal range ``[min raise, stack]`` (and the
    ``max_bet`` cap).

    ## Observation Space

    ``Box(float32)`` of length ``114 + 8n`` (``124 + 8n`` with
    ``evaluator_features=True``) for ``n = num_players``; seats are
    listed from the agent clockwise (index 0 is the agent); chips are in units of
    the starting stack.

    | slice | meaning | range |
    |-------|---------|-------|
    | 0:52 | own hole cards, one-hot | 0..1 |
    | 52:104 | board cards dealt so far, one-hot | 0..1 |
    | 104:108 | street one-hot (preflop, flop, turn, river) | 0..1 |
    | 108:109 | pot | 0..n |
    | 109:110 | chips needed to call | 0..n |
    | 110:110+n | stack of each seat | 0..n |
    | 110+n:110+2n | bet of each seat this round | 0..n |
    | 110+2n:110+3n | position after the button / (n - 1) | 0..1 |
    | 110+3n:110+4n | seat still in the hand | 0..1 |
    | 110+4n:110+8n | chips each seat put in per street (street-major) | 0..n |
    | 110+8n:114+8n | bets and raises per street / 10, at most 1 | 0..1 |
    | 114+8n:123+8n | (evaluator_features) category of own best hand, one-hot; 0 pre-flop | 0..1 |
    | 123+8n:124+8n | (evaluator_features) Monte Carlo equity against random hands | 0..1 |

    Nothing else: other seats' hole cards and the undealt board never appear.

    ## Action Mask

    ``info["action_mask"]`` and ``action_masks()``: ``int8`` of length ``4 + k``,
    exactly the legal indices; a raise index whose clipped amount equals another
    legal index's amount is masked out (all-in keeps the all-in amount). All
    zeros once the episode is over.

    ## Starting State

    ``num_players`` players with ``starting_stack`` chips each, a random button,
    a shuffled deck, blinds posted; opponents act until the agent's first
    decision (an episode decided before that, a walk, is dealt again and reported
    in the info: see Info).

    ## Rewards

    Chips won or lost by the agent, in big blinds (E), paid at the end of each
    hand (so the sum over an episode is its net result).

    ## Episode End

    Terminated after ``hands_per_episode`` hands, or when the agent is busted,
    or when no opponent is left. Never truncated. Stepping a finished (or never
    reset) episode raises :class:`~poker_env.errors.EpisodeFinishedError`.

    ## Illegal Actions

    Every action of the space is accepted by default (``illegal_action="passive"``),
    as Gymnasium's and SB3's checkers and plain PPO or DQN sample them: a masked-out
    index plays check/call (index 1, legal whenever the agent is to act) and
    ``info["illegal_action"]`` is True. ``illegal_action="raise"`` refuses it with
    :class:`~poker_env.errors.IllegalActionError` (naming the action, the legal
    indices and the street) and changes nothing. Anything that is not an action of
    the space (a float such as ``1.7``, a string, a bool, an int outside
    ``[0, 4 + k)``) is refused in both modes, naming the value and "an integer in
    [0, n)"; nothing changes.

    ## Info

    Every ``reset`` and ``step`` returns the same keys:

    | key | meaning |
    |-----|---------|
    | ``action_mask`` | the mask above |
    | ``illegal_action`` | True when the step's action was masked out and check/call was played (always False at reset) |
    | ``last_hand`` | the episode's last decided hand, a :class:`~poker_env.episode.holdem_result.HandResult` (None before the first): board, each seat's outcome (shown down with its hole cards and the evaluator's hand name, ``"Royal Flush"`` included; won uncontested; folded; left), chips put in, paid and net |
    | ``hands_ended`` | the hands decided during this step (or reset), oldest first; usually one at a hand's end, two when a later hand is decided before the agent acts again |
    | ``walks`` | episodes decided before the agent's first decision (a walk: everyone folds to his big blind) that ``reset`` dealt again; they are not in the rewards nor in ``hands_ended`` (0 at every step) |
    | ``walk_reward`` | the agent's net in those walks, big blinds (0.0 when none) |
    | ``first_walk_reward`` | that of the first walk: what the episode seeded at ``reset`` paid (an evaluation on duplicate deals counts it as that deal's result) |

    The hand that ends an episode is in the final step's ``last_hand``; with
    ``hands_per_episode > 1`` each hand's result arrives with the step that decided
    it, before the agent's first decision of the next hand.

    ## Arguments

    ``num_players`` (2..10), ``seat`` (None = random per episode),
    ``opponents`` (None = random legal, or one :class:`~poker_env.policy.Policy`
    or a list, one per other seat in clockwise order from the agent),
    ``hands_per_episode`` (1), ``raise_fractions`` ((0.5, 0.75, 1, 2)),
    ``escape_prob`` (0.0: chance an opponent leaves instead of acting),
    ``rules`` ("seed"), ``base`` (2), ``starting_stack`` (100 × base),
    ``max_bet`` (None), ``penalty_to`` ("burn"), ``illegal_action`` ("passive",
    the default, or "raise": see Illegal Actions), ``evaluator_features`` (False:
    add the hand category and the Monte
    Carlo equity against random hands of the opponents still in, from
    ``equity_samples`` (200) random boards; compiled, a few µs a step at 200
    samples, and the same numbers as ``HoldemVectorEnv``'s), ``render_mode``
    (None or "ansi": the table from the agent's view, then the last decided hand's
    result as in ``info["last_hand"]``; "rgb_array": the same as a picture).

    ## Version History

    * v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        num_players: int = 2,
        *,
        seat: int | None = None,
        opponents: Policy | Sequence[Policy] | None = None,
        hands_per_episode: int = 1,
        raise_fractions: Sequence[float] = E.DEFAULT_FRACTIONS,
        escape_prob: float = 0.0,
        rules: Literal["seed", "standard"] = "seed",
        base: int = 2,
        starting_stack: int | None = None,
        max_bet: int | None = None,
        penalty_to: Literal["burn", "pot"] = "burn",
        illegal_action: Literal["passive", "raise"] = "passive",
        evaluator_features: bool = False,
        equity_samples: int = 200,
        render_mode: str | None = None,
    ) -> None:
        # Every option checked once, as the batched env checks it.
        env_config = E.HoldemEnvConfig(
            num_players=num_players,
            seat=seat,
            hands_per_episode=hands_per_episode,
            raise_fractions=raise_fractions,
            escape_prob=escape_prob,
            rules=rules,
            base=base,
            starting_stack=starting_stack,
            max_bet=max_bet,
            penalty_to=penalty_to,
            evaluator_features=evaluator_features,
            equity_samples=equity_samples,
            illegal_action=illegal_action,
        )
        self.env_config = env_config
        self.config = env_config.table
        n = num_players
        fr = env_config.fractions
        self.illegal_action = illegal_action
        self.evaluator_features = bool(evaluator_features)
        self.equity_samples = equity_samples
        if render_mode not in (None, "ansi", "rgb_array"):
            raise ConfigError("render_mode", render_mode, "None, 'ansi' or 'rgb_array'")
        if opponents is None:
            self._opponents: list[Policy] | None = None
        elif isinstance(opponents, Policy):
            self._opponents = [opponents] * (n - 1)
        else:
            self._opponents = list(opponents)
            if len(self._opponents) != n - 1:
                raise ConfigError("opponents", opponents, f"None, one Policy or {n - 1} policies")
        self.num_players = n
        self.render_mode = render_mode
        self.fractions = fr
        self.escape_prob = float(escape_prob)
        self.hands_per_episode = hands_per_episode
        self.action_space = spaces.Discrete(E.num_actions(fr.size))
        low, high = observation_bounds(n, self.evaluator_features)
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        self._tables = get_holdem_tables()
        # Stop at each decided hand, so that its result reaches info and the render.
        self._params = env_config.params(
            external=self._opponents is not None, stop_at_hand_end=True, tables=self._tables
        )
        self.params = self._params.ints
        self._states = self.config.new_state()[None, :].copy()
        self._base = float(self._states[0, K.BASE])
        self._rngs = np.zeros(1, dtype=np.uint64)
        self._obs = np.zeros((1, E.obs_size(n)), dtype=np.float32)
        self._masks = np.zeros((1, fr.size + 4), dtype=np.int8)
        self._make_views()
        self._num_actions = self._masks.shape[1]
        self._actions = np.zeros(1, dtype=np.int64)
        self._rewards = np.zeros(1, dtype=np.float64)
        self._dones = np.zeros(1, dtype=np.bool_)
        self._seeded = False
        self._done = True
        # Rows of the hands decided during a step (a ring), and how many there were.
        self._hands = np.zeros((_RING, K.STATE_SIZE), dtype=np.int64)
        self._hand_count = np.zeros(1, dtype=np.int64)
        self._last_hand: HandResult | None = None
        # The one table's record, and the compiled step's and reset's arguments.
        self._table = E.HoldemTables(self._states, self._rngs)
        self._step_args = (
            self._table,
            self._params,
            self._actions,
            self._obs,
            self._masks,
            self._hands,
            self._hand_count,
        )
        # The compiled step's and reset's entries (poker_env.fastcall): typing the
        # records, the evaluator's tables among them, would cost more than a step.
        self._step_fn = KernelEntry(_step_agent)
        self._reset_args = (
            self._table,
            self._params,
            self._obs,
            self._masks,
            self._hands,
            self._hand_count,
        )
        self._reset_fn = KernelEntry(_reset_agent)

    def _make_views(self) -> None:
        # Views of the single rows, made once (and again in a copy: OwnViews): the
        # walk counters (episodes dealt again before the agent acted), the mask and
        # the observation.
        self._walk = self._states[0, E.WALKS : E.FIRST_WALK_CHIPS + 1]
        self._mask = self._masks[0]
        self._obs_row = self._obs[0]

    # ------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[NDArray[np.float32], dict[str, Any]]:
        if seed is not None or not self._seeded:
            super().reset(seed=seed)
            # The compiled stream that shuffles, draws buttons and plays the
            # random opponents starts from the env's seeded Generator.
            self._rngs[0] = np.uint64(self.np_random.integers(0, 2**63, dtype=np.int64))
            self._seeded = True
        code = self._reset_fn.call(*self._reset_args)
        if self._opponents is not None:
            while code == _OPPONENT_TURN:
                code, r = self._play_opponent()
                if code == _EPISODE_DONE:  # decided before the agent acts: dealt again
                    E.note_walk(self._states[0], r)
                    code = self._reset_fn.call(*self._reset_args)
            self._observe()
        self._done = False
        self._last_hand = None
        return self._observation(), self._info(False)

    def step(
        self, action: int | np.integer
    ) -> tuple[NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        if self._done:
            raise EpisodeFinishedError("Holdem-v0")
        # (the common types first: as_int's checks cost more than the rest of a step's Python)
        kind = type(action)
        a = action if kind is int else int(action) if kind is np.int64 else as_int(action)
        mask = self._mask
        if a is None or not 0 <= a < self._num_actions:
            # Not an action of the space at all: refused in both modes, nothing changes.
            raise IllegalActionError(
                action,
                f"an integer in [0, {self._num_actions})",
                self._street(),
                "not in the action space",
            )
        illegal = not mask[a]
        if illegal:
            if self.illegal_action == "raise":
                raise IllegalActionError(a, np.flatnonzero(mask).tolist(), self._street())
            # DESIGN.md: a masked-out action of the space plays the passive action.
            a = PASSIVE_ACTION
        self._actions[0] = a
        code, reward = self._step_fn.call(*self._step_args)
        if self._opponents is not None:
            while code == _OPPONENT_TURN:
                code, r = self._play_opponent()
                reward += r
            self._observe()
        done = code == _EPISODE_DONE
        self._done = done
        return self._observation(), reward, done, False, self._info(illegal)

    def action_masks(self) -> NDArray[np.int8]:
        """The legal actions now (the form sb3-contrib's MaskablePPO reads)."""
        mask: NDArray[np.int8] = self._masks[0].copy()
        return mask

    def render(self) -> str | NDArray[np.uint8] | None:
        if self.render_mode == "rgb_array":
            s = self._states[0]
            return holdem_picture(s, self.num_players, int(s[E.AGENT]), last=self._last_hand)
        if self.render_mode != "ansi":
            return None
        return holdem_text(self._states[0], self.num_players, self._last_hand)

    # ------------------------------------------------------------ helpers
    def _info(self, illegal: bool) -> dict[str, Any]:
        """The info of a step or reset; also reads the hands decided meanwhile."""
        if self._hand_count[0]:
            finished = self._finished_hands()
            self._last_hand = finished[-1]
        else:
            finished = ()
        w = self._walk
        if w[0]:  # episodes dealt again before the agent acted (rare): read and clear
            walks, chips, first = w.tolist()
            w.fill(0)
            walk_reward, first_walk_reward = chips / self._base, first / self._base
        else:
            walks, walk_reward, first_walk_reward = 0, 0.0, 0.0
        return {
            "action_mask": self._mask.copy(),
            "illegal_action": illegal,
            "last_hand": self._last_hand,
            "hands_ended": finished,
            "walks": walks,
            "walk_reward": walk_reward,
            "first_walk_reward": first_walk_reward,
        }

    def _finished_hands(self) -> tuple[HandResult, ...]:
        """The hands decided in the last step or reset (the ring keeps the last _RING)."""
        n = int(self._hand_count[0])
        first = self.hands_per_episode + 1
        if n == 1:  # the common case
            row = self._hands[0]
            return (hand_result(row, first - int(row[E.HANDS_LEFT])),)
        out = []
        for k in range(max(0, n - _RING), n):
            row = self._hands[k % _RING]
            # HANDS_LEFT still counts the hand: the driver stopped before closing it.
            out.append(hand_result(row, first - int(row[E.HANDS_LEFT])))
        return tuple(out)

    def _observation(self) -> NDArray[np.float32]:
        if not self.evaluator_features:
            obs: NDArray[np.float32] = self._obs_row.copy()
            return obs
        # Compiled (poker_env.episode.holdem): the same numbers as HoldemVectorEnv's.
        s = self._states[0]
        agent = int(s[E.AGENT])
        base = self._obs.shape[1]
        out = np.empty(base + E.NUM_CATEGORIES + 1, dtype=np.float32)
        out[:base] = self._obs[0]
        E.features(s, self._rngs, 0, agent, self.equity_samples, self._tables, out)
        return out

    def _street(self) -> str:
        return STREET_NAMES[int(self._states[0, K.STREET])]

    def _observe(self) -> None:
        E.observe_agent(
            self._states[0],
            self.fractions,
            float(self.params[E.P_STACK]),
            self._obs[0],
            self._masks[0],
        )

    def _play_opponent(self) -> tuple[int, float]:
        s = self._states[0]
        seat = int(s[K.TO_ACT])
        agent = int(s[E.AGENT])
        assert self._opponents is not None
        policy = self._opponents[(seat - agent) % self.num_players - 1]
        obs = np.zeros(E.obs_size(self.num_players, self.evaluator_features), dtype=np.float32)
        mask = np.zeros(self._masks.shape[1], dtype=np.int8)
        amounts = np.zeros(self._masks.shape[1], dtype=np.int64)
        E.encode(s, seat, float(self.params[E.P_STACK]), obs)
        if self.evaluator_features:
            # The opponent's view has the same entries as the agent's.
            E.features(s, self._rngs, 0, seat, self.equity_samples, self._tables, obs)
        E.action_mask(s, self.fractions, mask, amounts)
        a = int(policy.act(obs, mask))
        if E.apply_index(s, a, self.fractions, self._tables) != K.OK:
            raise IllegalActionError(
                a, np.flatnonzero(mask).tolist(), self._street(), f"from the policy of seat {seat}"
            )
        code, r = E.resume_table(s, self._rngs, 0, self._params)
        code, r = _play_on(s, self._rngs, code, r, self._params, self._hands, self._hand_count)
        return int(code), float(r)
