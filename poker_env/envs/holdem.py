"""Gymnasium env: Texas Hold'em, one agent seat against policies (RULES.md §3)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from poker_env.cards import format_cards
from poker_env.encoding import holdem as E
from poker_env.errors import ConfigError, IllegalActionError
from poker_env.evaluator import describe_hand
from poker_env.games import holdem_kernels as K
from poker_env.games.holdem import STREET_NAMES, HoldemConfig, get_holdem_tables
from poker_env.policy import Policy

__all__ = ["HoldemEnv", "observation_bounds"]


def _entry_point(dispatcher: Any, args: tuple[Any, ...]) -> Any:
    """The compiled entry of ``dispatcher`` for ``args``, skipping numba's per-call typing.

    Typing the evaluator's table tuple costs microseconds a call, more than a
    whole step; the entry point takes the same arguments. Falls back to the
    dispatcher itself when the overload cannot be found.
    """
    import numba

    dispatcher(*args)  # compiles (or loads from the cache) the overload
    sig = tuple(numba.typeof(a) for a in args)
    cres = dispatcher.overloads.get(sig)
    return dispatcher if cres is None else cres.entry_point


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


class HoldemEnv(gym.Env[NDArray[np.float32], np.int64]):
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
    | 3+k | all-in |

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
    decision (an episode decided before that is dealt again).

    ## Rewards

    Chips won or lost by the agent, in big blinds (E), paid at the end of each
    hand (so the sum over an episode is its net result).

    ## Episode End

    Terminated after ``hands_per_episode`` hands, or when the agent is busted,
    or when no opponent is left. Never truncated. Stepping a finished episode
    raises ``RuntimeError``; an illegal (masked) action raises
    :class:`~poker_env.errors.IllegalActionError` and changes nothing (with
    ``illegal_action="call"`` it is played as check/call instead, for tools
    that sample unmasked actions, such as SB3's ``check_env``).

    ## Arguments

    ``num_players`` (2..10), ``seat`` (None = random per episode),
    ``opponents`` (None = random legal, or one :class:`~poker_env.policy.Policy`
    or a list, one per other seat in clockwise order from the agent),
    ``hands_per_episode`` (1), ``raise_fractions`` ((0.5, 0.75, 1, 2)),
    ``escape_prob`` (0.0: chance an opponent leaves instead of acting),
    ``rules`` ("seed"), ``base`` (2), ``starting_stack`` (100 × base),
    ``max_bet`` (None), ``penalty_to`` ("burn"), ``illegal_action`` ("raise" or
    "call"), ``evaluator_features`` (False: add the hand category and the Monte
    Carlo equity against random hands of the opponents still in, from
    ``equity_samples`` (200) random boards; compiled, a few µs a step at 200
    samples, and the same numbers as ``HoldemVectorEnv``'s), ``render_mode``
    (None or "ansi").

    ## Version History

    * v0: initial version.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012

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
        illegal_action: Literal["raise", "call"] = "raise",
        evaluator_features: bool = False,
        equity_samples: int = 200,
        render_mode: str | None = None,
    ) -> None:
        self.config = HoldemConfig(
            num_seats=num_players,
            base=base,
            starting_stack=starting_stack,
            max_bet=max_bet,
            rules=rules,
            penalty_to=penalty_to,
        )
        if self.config.stack <= base:
            # Stacks all-in from the blinds would never give anyone a decision.
            raise ConfigError("starting_stack", starting_stack, f"more than the big blind ({base})")
        n = num_players
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < n):
            raise ConfigError("seat", seat, f"None or 0..{n - 1}")
        if not isinstance(hands_per_episode, int) or hands_per_episode < 1:
            raise ConfigError("hands_per_episode", hands_per_episode, "an int >= 1")
        fr = np.asarray(raise_fractions, dtype=np.float64)
        if fr.ndim != 1 or not 0 < fr.size <= E.MAX_FRACTIONS or np.any(fr <= 0):
            raise ConfigError(
                "raise_fractions", raise_fractions, "a non-empty sequence of positive pot fractions"
            )
        if not 0.0 <= escape_prob <= 1.0:
            raise ConfigError("escape_prob", escape_prob, "a probability in [0, 1]")
        if illegal_action not in ("raise", "call"):
            raise ConfigError("illegal_action", illegal_action, "'raise' or 'call'")
        self.illegal_action = illegal_action
        if not isinstance(equity_samples, int) or equity_samples < 1:
            raise ConfigError("equity_samples", equity_samples, "an int >= 1")
        self.evaluator_features = bool(evaluator_features)
        self.equity_samples = equity_samples
        if render_mode not in (None, "ansi"):
            raise ConfigError("render_mode", render_mode, "None or 'ansi'")
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
        self.params = np.array(
            [n, self.config.stack, hands_per_episode, -1 if seat is None else seat, 0], np.int64
        )
        self.params[E.P_EXTERNAL] = 0 if self._opponents is None else 1
        self.action_space = spaces.Discrete(E.num_actions(fr.size))
        low, high = observation_bounds(n, self.evaluator_features)
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        self._tables = get_holdem_tables()
        self._states = self.config.new_state()[None, :].copy()
        self._rngs = np.zeros(1, dtype=np.uint64)
        self._obs = np.zeros((1, E.obs_size(n)), dtype=np.float32)
        self._masks = np.zeros((1, fr.size + 4), dtype=np.int8)
        self._actions = np.zeros(1, dtype=np.int64)
        self._rewards = np.zeros(1, dtype=np.float64)
        self._dones = np.zeros(1, dtype=np.bool_)
        self._seeded = False
        self._done = True
        self._step_args = (
            self._states,
            self._rngs,
            self._actions,
            self.params,
            self.fractions,
            self.escape_prob,
            self._tables,
            self._obs,
            self._masks,
            self._rewards,
            self._dones,
            self._obs,  # no autoreset: the final obs is the obs
            False,
        )
        self._step_fn: Any = None

    # ------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[NDArray[np.float32], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None or not self._seeded:
            # The compiled stream that shuffles, draws buttons and plays the
            # random opponents starts from the env's seeded Generator.
            self._rngs[0] = np.uint64(self.np_random.integers(0, 2**63, dtype=np.int64))
            self._seeded = True
        s = self._states[0]
        if self._opponents is None:
            E.batch_reset(
                self._states,
                self._rngs,
                self.params,
                self.fractions,
                self.escape_prob,
                self._tables,
                self._obs,
                self._masks,
            )
        else:
            code = E.reset_table(
                s, self._rngs, 0, self.params, self.fractions, self.escape_prob, self._tables
            )
            while code == E.OPPONENT_TURN:
                code, _ = self._play_opponent()
                if code == E.EPISODE_DONE:
                    code = E.reset_table(
                        s,
                        self._rngs,
                        0,
                        self.params,
                        self.fractions,
                        self.escape_prob,
                        self._tables,
                    )
            self._observe()
        self._done = False
        return self._observation(), {"action_mask": self._masks[0].copy()}

    def step(
        self, action: int | np.integer
    ) -> tuple[NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        if self._done:
            raise RuntimeError("step() on a finished episode: call reset() first")
        a = int(action)
        if not (0 <= a < self._masks.shape[1]) or self._masks[0, a] == 0:
            if self.illegal_action == "call":
                a = 1  # check/call is always legal
            else:
                raise IllegalActionError(a, np.flatnonzero(self._masks[0]).tolist(), self._street())
        if self._opponents is None:
            self._actions[0] = a
            if self._step_fn is None:
                self._step_fn = _entry_point(E.batch_step, self._step_args)
            else:
                self._step_fn(*self._step_args)
            reward = float(self._rewards[0])
            done = bool(self._dones[0])
        else:
            s = self._states[0]
            code, reward = E.step_table(
                s, self._rngs, 0, a, self.params, self.fractions, self.escape_prob, self._tables
            )
            while code == E.OPPONENT_TURN:
                code, r = self._play_opponent()
                reward += r
            done = code == E.EPISODE_DONE
            self._observe()
        self._done = done
        return self._observation(), reward, done, False, {"action_mask": self._masks[0].copy()}

    def action_masks(self) -> NDArray[np.int8]:
        """The legal actions now (the form sb3-contrib's MaskablePPO reads)."""
        mask: NDArray[np.int8] = self._masks[0].copy()
        return mask

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        s = self._states[0]
        agent = int(s[E.AGENT])
        lines = [
            f"{STREET_NAMES[int(s[K.STREET])]}  board: {format_cards(s[K.BOARD : K.BOARD + s[K.NUM_BOARD]]) or '-'}"
            f"  pot: {int(s[K.COMMIT : K.COMMIT + K.MAX_SEATS].sum() + s[K.POT_EXTRA]) if s[K.PHASE] == K.PHASE_BETTING else 0}"
        ]
        names = {
            K.EMPTY: "empty",
            K.SEATED: "waiting",
            K.ACTIVE: "in",
            K.ALLIN: "all-in",
            K.FOLDED: "folded",
            K.LEFT: "left",
        }
        over = s[K.PHASE] != K.PHASE_BETTING
        if over:
            lines[0] = (
                f"hand over  board: {format_cards(s[K.BOARD : K.BOARD + s[K.NUM_BOARD]]) or '-'}"
            )
        for q in range(self.num_players):
            role = (
                "D"
                if q == s[K.BUTTON]
                else ("SB" if q == s[K.SB] else ("BB" if q == s[K.BB] else ""))
            )
            # Hole cards are the agent's own, or public once shown down (RULES.md §3 showdown).
            shown = int(s[K.RANK + q]) >= 0
            cards = (
                format_cards(s[K.HOLE + 2 * q : K.HOLE + 2 * q + 2])
                if (q == agent or shown) and s[K.HOLE + 2 * q] >= 0
                else "?? ??"
            )
            mark = ">" if q == s[K.TO_ACT] and not over else " "
            line = (
                f"{mark} seat {q}{' (you)' if q == agent else ''} {role:<2} {cards}  stack {int(s[K.STACK + q])}"
                f"  bet {int(s[K.BET + q])}  {names[int(s[K.STATUS + q])]}"
            )
            if over and shown:
                line += f"  shows {describe_hand(int(s[K.RANK + q]))}"
            if over and int(s[K.WON + q]) > 0:
                line += f"  wins {int(s[K.WON + q])}"
            lines.append(line)
        return "\n".join(lines)

    # ------------------------------------------------------------ helpers
    def _observation(self) -> NDArray[np.float32]:
        if not self.evaluator_features:
            obs: NDArray[np.float32] = self._obs[0].copy()
            return obs
        # Compiled (poker_env.encoding.holdem): the same numbers as HoldemVectorEnv's.
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
        code, r = E.resume_table(
            s, self._rngs, 0, self.params, self.fractions, self.escape_prob, self._tables
        )
        return int(code), float(r)
