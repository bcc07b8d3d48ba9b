"""Gymnasium env of Red Dog / High-Card Pool: ``poker_env/RedDog-v0``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from poker_env.episode.red_dog import (
    DEFAULT_BET_FRACTIONS,
    LOG_CAPACITY,
    ActionLog,
    BetRecord,
    RedDogEnvConfig,
    action_to_bet,
    agent_done,
    collect_reward,
    encode_observation,
    env_reset_table,
    env_step_table,
    new_action_log,
    obs_size,
)
from poker_env.errors import ConfigError, EpisodeFinishedError, IllegalActionError, as_int
from poker_env.fastcall import KernelEntry, OwnViews
from poker_env.games.red_dog import (
    I_AGENT,
    I_PHASE,
    I_TO_ACT,
    KIND_FORFEIT,
    OK,
    PHASE_BET,
    PHASE_NAMES,
    RedDogConfig,
    apply_action,
    new_state,
    rand_u64,
    win_probability_kernel,
)
from poker_env.policy import Policy
from poker_env.render.red_dog import red_dog_picture, red_dog_text

__all__ = ["RedDogEnv", "observation_space_for"]


def observation_space_for(config: RedDogConfig) -> spaces.Box:
    """The Box of one observation (bounds per element, see the env docstring)."""
    p = config.num_players
    low = np.zeros(obs_size(p), np.float32)
    high = np.ones(obs_size(p), np.float32)
    high[158 + p] = p - 1
    high[159 + p] = p - 1
    high[161 + p] = config.num_rounds
    return spaces.Box(low, high, dtype=np.float32)


# The opponents' actions of a step without any: one shared, read-only empty log.
_NO_ACTIONS = new_action_log()[:0].copy()
_NO_ACTIONS.setflags(write=False)


class RedDogEnv(OwnViews, gym.Env[NDArray[np.float32], int]):
    """Red Dog (High-Card Pool), RULES.md §2, from one seat; the other seats are policies.

    ## Description

    Each deal every player gets five cards (four above eight players) and, in turn
    from the dealer's left, bets from 1 chip up to the pot, or forfeits one chip.
    After a bet the dealer turns the top card of the stock: a card of the same suit
    and higher rank in the bettor's hand wins the bet from the pot, otherwise the
    bet goes into the pot. An empty pot is refilled by a new ante from everyone.
    The agent plays one seat; the others are played by the ``opponents``.

    ## Action Space

    ``Discrete(1 + len(bet_fractions))``: 0 is FORFEIT (one chip to the pot);
    action ``k >= 1`` bets ``bet_fractions[k-1]`` of the largest legal bet
    ``min(pot, own chips)``, rounded down, at least 1 chip. Default fractions
    (0, 1/4, 1/2, 3/4, 1): 1 chip, a quarter, half, three quarters, all of it.

    ## Observation Space

    ``Box`` of float32, length ``162 + P`` (``P = num_players``), total chips
    ``T = P * starting_chips``:

    | slice | meaning | range |
    |---|---|---|
    | [0:52] | own hand, one-hot by card index (rank * 4 + suit) | [0, 1] |
    | [52:104] | cards turned this deal | [0, 1] |
    | [104:156] | cards shown from hands this deal | [0, 1] |
    | [156:157] | pot / T | [0, 1] |
    | [157:158] | own chips / T | [0, 1] |
    | [158:158+P] | each seat's chips / T, own seat first, then to its left | [0, 1] |
    | [158+P:159+P] | own place in this deal's betting order, 0 = first | [0, P-1] |
    | [159+P:160+P] | players still to bet this deal, self not counted | [0, P-1] |
    | [160+P:161+P] | exact probability that the own hand beats the next card | [0, 1] |
    | [161+P:162+P] | deals left, this one included | [0, rounds] |

    Only what the agent's seat may know: other hands appear only once shown.

    ## Action Mask

    ``info["action_mask"]`` and :meth:`action_masks` (int8): every action is legal
    on the agent's turn (each maps to a legal bet; several may map to the same
    amount when the largest bet is small); all zeros once the episode is over.

    Illegal actions (``illegal_action``): by default ("passive") a masked-out
    action of the space plays the passive action, FORFEIT (RULES.md §2), and
    ``info["illegal_action"]`` is True; with "raise" it raises
    :class:`~poker_env.errors.IllegalActionError` and changes nothing. Since every
    action of the space is legal on the agent's turn, neither happens in this
    game: ``info["illegal_action"]`` is always False. In both modes a value that
    is not an action of the space (a float such as 1.7, a string, a bool, an
    integer outside [0, n)) raises ``IllegalActionError`` and changes nothing.

    ## Starting State

    The draw picks the first dealer, everyone antes, the first deal is dealt, and
    the opponents before the agent act. The agent's seat is ``agent_seat``, or
    uniformly random per episode when it is None. ``reset(seed=s)`` draws the
    game's 64-bit key from ``np_random`` seeded with ``s``; a later ``reset()``
    without a seed plays the next game of the table's own stream (what
    ``RedDogVectorEnv`` does on autoreset, so batches equal single envs).

    ## Rewards

    Chips won or lost by the agent since its last step, in antes (the first
    step includes the first ante). The episode's sum is (final chips - starting
    chips) / ante.

    ## Episode End

    ``terminated`` when the game ends (after ``rounds`` deals or when fewer than
    two players remain) or when the agent's seat runs out of chips and leaves.
    Never truncated (a game has at most ``rounds * P`` decisions). Stepping a
    finished (or never reset) episode raises
    :class:`~poker_env.errors.EpisodeFinishedError`.

    ## Info

    Every ``reset`` and ``step`` info holds ``action_mask``, ``seat`` (the agent's
    seat), ``illegal_action`` (see Action Mask), ``last_bet`` (None after
    ``reset``) and ``opponent_actions``:

    - ``last_bet``: how the agent's action of this step was settled, before any
      next deal: ``action`` (the index played), ``kind`` ("bet" or "forfeit"),
      ``amount``, ``p`` (its exact win probability when it decided),
      ``turned_card`` (the card turned against the bet, an int, -1 for a
      forfeit), ``won``, ``shown`` (the cards it showed: the winning card, or
      its whole hand), ``pot_refilled``, ``deal_ended``, ``seat``. A read-only
      mapping (:class:`~poker_env.episode.red_dog.BetRecord`; ``dict(...)`` for a
      dict), not a dict, so that Gymnasium's vector envs keep it whole.
    - ``opponent_actions``: what the other seats did since then (after
      ``reset``: before the agent's first turn), in order, one dict each with
      the keys of ``last_bet`` but ``action`` and ``p``. At most
      ``LOG_CAPACITY - 1`` are kept; only after the agent's seat has left can
      there be more (the opponents play the game out); ``num_opponent_actions``
      counts them all.

    The ``"ansi"`` render shows the same: the agent's last action with the
    turned card and its outcome, then the opponents' actions since.

    ## Arguments

    - ``num_players`` (4), ``starting_chips`` (50), ``ante`` (1), ``hand_size`` (5),
      ``rounds`` (None: one deal each): the RULES.md §2 options.
    - ``agent_seat``: the agent's seat, or None for a random seat each episode.
    - ``opponents``: None for the default opponent (the reference policy of
      RULES.md §2, bet the maximum when p > 1/2 else 1, taking a uniformly random
      action instead with probability ``opponent_random_share``, default 0.2);
      or one :class:`~poker_env.policy.Policy` for every other seat; or a
      sequence of ``num_players`` policies (the agent's entry is ignored).
      Policies see the same observation layout from their own seat.
    - ``bet_fractions``: the bet actions, as fractions of the largest legal bet.
    - ``illegal_action``: "passive" (default) or "raise" (see Action Mask).
    - ``render_mode``: None, "ansi" or "rgb_array" (the table as a picture).

    ## Version History

    - v0: first version. Later in v0 (no change to the spaces or the games):
      ``illegal_action``, the ``last_bet`` and ``opponent_actions`` info, the
      last actions in the render, ``EpisodeFinishedError`` on a finished episode,
      non-integer actions refused.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}  # type: ignore[misc]

    def __init__(
        self,
        *,
        num_players: int = 4,
        starting_chips: int = 50,
        ante: int = 1,
        hand_size: int = 5,
        rounds: int | None = None,
        agent_seat: int | None = None,
        opponents: Policy | Sequence[Policy | None] | None = None,
        opponent_random_share: float = 0.2,
        bet_fractions: Sequence[float] = DEFAULT_BET_FRACTIONS,
        illegal_action: str = "passive",
        render_mode: str | None = None,
    ) -> None:
        # Every option checked once, as every Red Dog face checks it.
        env_config = RedDogEnvConfig(
            num_players=num_players,
            starting_chips=starting_chips,
            ante=ante,
            hand_size=hand_size,
            rounds=rounds,
            agent_seat=agent_seat,
            opponent_random_share=opponent_random_share,
            bet_fractions=bet_fractions,
            illegal_action=illegal_action,
        )
        if render_mode not in (None, "ansi", "rgb_array"):
            raise ConfigError("render_mode", render_mode, "None, 'ansi' or 'rgb_array'")
        self.env_config = env_config
        self.illegal_action = env_config.illegal_action
        self.config = env_config.rules
        self.fractions = env_config.fractions
        self.agent_seat_option = env_config.agent_seat
        self.random_share = float(opponent_random_share)
        self.opponents = self._check_opponents(opponents)
        self.render_mode = render_mode
        self.num_actions = 1 + int(self.fractions.size)
        self.action_space = spaces.Discrete(self.num_actions)  # type: ignore[assignment]
        self.observation_space = observation_space_for(self.config)  # type: ignore[assignment]
        self.state = new_state(1)
        self._obs = np.zeros(obs_size(num_players), np.float32)
        self._opp_obs = np.zeros(obs_size(num_players), np.float32)
        self._done = True
        self._started = False
        # On the agent's turn every action maps to a legal bet (RULES.md §2).
        self._legal = np.ones(self.num_actions, np.int8)
        self._legal_list = [True] * self.num_actions  # the same, read without numpy
        # What happened in the last reset or step: row 0 the agent's action (when
        # self._has_own), then the opponents'; see poker_env.episode.red_dog.
        self._log = new_action_log()
        self._make_views()
        # The compiled driver's parameters, built once (the options are frozen).
        self.params = env_config.params(builtin=self.opponents is None)
        self._num_logged = 0
        self._has_own = False
        self._own_action = 0
        self._own_p = 0.0
        self._replaced = False
        self._seat = -1
        # The compiled driver's entries (poker_env.fastcall: after the first call,
        # no typing of the records per call).
        self._step_fn = KernelEntry(env_step_table)
        self._reset_fn = KernelEntry(env_reset_table)
        self._rand_fn = KernelEntry(rand_u64)

    def _make_views(self) -> None:
        # The log's first row, a view made once (and again in a copy: OwnViews).
        self._log_row0 = self._log[0]

    def _check_opponents(
        self, opponents: Policy | Sequence[Policy | None] | None
    ) -> list[Policy | None] | None:
        if opponents is None:
            return None
        if isinstance(opponents, Policy):
            return [opponents] * self.config.num_players
        seq = list(opponents)
        if len(seq) != self.config.num_players:
            raise ConfigError(
                "opponents", opponents, f"None, one Policy, or {self.config.num_players} policies"
            )
        return seq

    # ---- gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[NDArray[np.float32], dict[str, Any]]:
        """Start a new game (see Starting State); ``seed`` makes it reproducible."""
        st = self.state
        if seed is not None or not self._started:
            super().reset(seed=seed)
            key = np.uint64(self.np_random.integers(0, 2**63, dtype=np.int64))
        else:
            # The next game continues the table's own stream, as the vector env does.
            key = np.uint64(self._rand_fn.call(st.rng, 0))
        self._started = True
        n = self._reset_fn.call(st, 0, key, self.params, self._obs, self._log)
        if self.opponents is not None:
            # The driver stopped after the deal: the policies play up to the agent's turn.
            while True:
                n = self._play_opponents(0)
                if not agent_done(st, 0):
                    encode_observation(st, 0, self.agent_seat, self._obs)
                    break
                key = np.uint64(rand_u64(st.rng, 0))
                self._reset_fn.call(st, 0, key, self.params, self._obs, self._log)
        self._seat = self.agent_seat
        self._num_logged = int(n)
        self._has_own = False
        self._replaced = False
        self._done = False
        return self._obs.copy(), self._info()

    def step(
        self, action: int | np.integer[Any]
    ) -> tuple[NDArray[np.float32], SupportsFloat, bool, bool, dict[str, Any]]:
        """Play the agent's action; the opponents answer until its next turn.

        Raises:
            EpisodeFinishedError: the episode is over (or was never reset).
            IllegalActionError: ``action`` is not an action of the space (nothing
                changes), or, with ``illegal_action="raise"``, it is masked out.
        """
        if self._done:
            raise EpisodeFinishedError("RedDog-v0")
        st = self.state
        kind = type(action)  # the common types first
        a: int | None = (
            action if type(action) is int else int(action) if kind is np.int64 else as_int(action)
        )
        if a is None or not 0 <= a < self.num_actions:
            raise IllegalActionError(
                action,
                f"an integer in [0, {self.num_actions})",
                PHASE_NAMES[int(st.ints[0, I_PHASE])],
                f"not an action of the space Discrete({self.num_actions})",
            )
        replaced = False
        if not self._legal_list[a]:
            # Never on the agent's turn in Red Dog (every index maps to a legal bet):
            # the convention every env shares (../shared/STYLE.md "Illegal actions").
            if self.illegal_action == "raise":
                raise IllegalActionError(
                    a, np.flatnonzero(self._legal).tolist(), "bet", "masked out"
                )
            a, replaced = KIND_FORFEIT, True  # the passive action (RULES.md §2: forfeit)
        if self.opponents is None:
            status, reward, done, n, p = self._step_fn.call(
                st, 0, a, self.params, self._obs, self._log
            )
            if status != OK:  # not reached: the index was checked above
                raise IllegalActionError(a, f"an integer in [0, {self.num_actions})", "bet")
        else:
            p = float(win_probability_kernel(st.ints, st.hands, st.public, 0, self.agent_seat))
            kind, amount = action_to_bet(st, 0, a, self.fractions)
            if kind < 0 or apply_action(st, 0, kind, amount) != OK:
                raise IllegalActionError(a, f"an integer in [0, {self.num_actions})", "bet")
            self._log[0] = st.events[0]
            n = self._play_opponents(1)
            reward = collect_reward(st, 0)
            done = bool(agent_done(st, 0))
            encode_observation(st, 0, self.agent_seat, self._obs)
        self._num_logged = int(n)
        self._has_own = True
        self._own_action = a
        self._own_p = float(p)
        self._replaced = replaced
        self._done = bool(done)
        return self._obs.copy(), float(reward), self._done, False, self._info()

    def _play_opponents(self, n: int) -> int:
        """Play the (Python policy) other seats until the agent's turn or the end; log
        their actions from row ``n`` on; returns the new row count."""
        assert self.opponents is not None
        st = self.state
        agent = self.agent_seat
        mask = np.ones(self.num_actions, np.int8)
        while st.ints[0, I_PHASE] == PHASE_BET and st.ints[0, I_TO_ACT] != agent:
            s = int(st.ints[0, I_TO_ACT])
            policy = self.opponents[s]
            if policy is None:
                raise ConfigError("opponents", self.opponents, f"a policy for seat {s}")
            encode_observation(st, 0, s, self._opp_obs)
            action = policy.act(self._opp_obs.copy(), mask.copy())
            a = as_int(action)
            kind, amount = (-1, 0) if a is None else action_to_bet(st, 0, a, self.fractions)
            if kind < 0 or apply_action(st, 0, kind, amount) != OK:
                raise IllegalActionError(
                    action, f"an integer in [0, {mask.size})", "bet", f"opponent at seat {s}"
                )
            if n < LOG_CAPACITY:
                self._log[n] = st.events[0]
            n += 1
        return n

    def action_masks(self) -> NDArray[np.int8]:
        """Legal actions now (int8; the form MaskablePPO reads)."""
        if self._done:
            return np.zeros(self.num_actions, np.int8)
        return self._legal.copy()

    def _info(self) -> dict[str, Any]:
        # Plain Python values from one tolist() of the agent's row; the opponents'
        # rows as one copy that builds its dicts when read (numpy scalar reads and a
        # dict per opponent action would cost more than the rest of a step).
        n = self._num_logged
        if self._has_own:
            own = 1
            r = self._log_row0.tolist()
            last_bet: BetRecord | None = BetRecord(self._own_action, self._own_p, r)
        else:
            own = 0
            last_bet = None
        kept = n if n < LOG_CAPACITY else LOG_CAPACITY
        # No opponent action (a common step): a shared empty log, nothing to copy.
        rows = self._log[own:kept].copy() if kept > own else _NO_ACTIONS
        return {
            "action_mask": self._legal.copy() if not self._done else self.action_masks(),
            "seat": self._seat,
            "illegal_action": self._replaced,
            "last_bet": last_bet,
            "opponent_actions": ActionLog(rows),
            "num_opponent_actions": n - own,
        }

    @property
    def agent_seat(self) -> int:
        """The agent's seat in this episode."""
        return int(self.state.ints[0, I_AGENT])

    def render(self) -> str | NDArray[np.uint8] | None:
        """The table from the agent's seat: text ("ansi") or a picture ("rgb_array")."""
        if self.render_mode == "rgb_array":
            log = self._log[: min(self._num_logged, LOG_CAPACITY)]
            return red_dog_picture(self.state, 0, self.agent_seat, log=log, has_own=self._has_own)
        if self.render_mode != "ansi":
            return None
        return red_dog_text(
            self.state,
            0,
            self.agent_seat,
            self.config,
            self._log,
            self._num_logged,
            has_own=self._has_own,
            own_p=self._own_p,
        )
