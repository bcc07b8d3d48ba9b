"""PettingZoo AEC env: Texas Hold'em with every seat an agent (RULES.md §3)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray
from pettingzoo import AECEnv

from poker_env.bitgen import pointers
from poker_env.episode import holdem as E
from poker_env.episode.holdem_result import RESULT_ROW_SIZE, HandResult
from poker_env.errors import ConfigError, EpisodeFinishedError, IllegalActionError, as_int
from poker_env.fastcall import KernelEntry
from poker_env.games import holdem_kernels as K
from poker_env.games.holdem import STREET_NAMES, get_holdem_tables
from poker_env.multiagent._aec import CompiledAEC
from poker_env.render.holdem import holdem_aec_text, holdem_picture

__all__ = ["HoldemAECEnv", "env"]

PASSIVE_ACTION = 1  # check/call: legal whenever a seat is to act


# An info's entries at an episode's start, before its "action_mask".
_INFO_START: dict[str, Any] = {"illegal_action": False, "last_hand": None, "hands_ended": ()}


class HoldemAECEnv(CompiledAEC, AECEnv):  # type: ignore[misc]
    """Hold'em for 2 to 10 players, agents ``player_0 .. player_{n-1}`` (seat = index).

    Each agent observes a dict: ``"observation"`` (the vector documented in
    :mod:`poker_env.episode.holdem` and :class:`poker_env.envs.holdem.HoldemEnv`,
    from that seat's view: its own hole cards only) and ``"action_mask"``
    (``int8``, all zeros when it is not that agent's turn). Actions are the same
    discrete fold / check-call / raises / all-in. Rewards: chips won or lost, in
    big blinds, at the end of each hand. The episode is ``hands_per_episode``
    hands (default 1); busted players are terminated between hands.
    ``evaluator_features=True`` adds the hand category and the Monte Carlo equity
    (``equity_samples`` boards) of ``HoldemEnv``, from each seat's view.

    Illegal actions, as ``HoldemEnv``: with ``illegal_action="passive"`` (the
    default) a masked-out action of the space plays check/call and that agent's
    ``infos[agent]["illegal_action"]`` is True (False after its legal actions);
    ``illegal_action="raise"`` refuses it with
    :class:`~poker_env.errors.IllegalActionError`, nothing changed. A value that
    is not an action of the space (a float, a string, a bool, ``None`` for a live
    agent, an int outside ``[0, n)``) is refused in both modes. Stepping before
    ``reset`` or after every agent is done raises
    :class:`~poker_env.errors.EpisodeFinishedError`.

    ``infos[agent]["last_hand"]`` is the episode's last decided hand, a
    :class:`~poker_env.episode.holdem_result.HandResult` (None before the first),
    the same for every agent (public facts only: hole cards of hands shown down,
    the evaluator's hand names, chips paid and net per seat, folds and leavers);
    ``infos[agent]["hands_ended"]`` the hands decided by the last ``step`` (a tuple,
    usually empty or one). The ansi render ends with the last hand. Each agent's info
    dict is updated in place from step to step; its ``action_mask`` array is replaced
    when its mask changes (a seat that neither acted nor is to act keeps its zeros).

    The options are checked by :class:`~poker_env.episode.holdem.HoldemEnvConfig`, as
    ``HoldemEnv``'s (the same values accepted, the same ``ConfigError``); a step is
    one compiled call (:func:`poker_env.episode.holdem.aec_act`: the action, the next
    seat's mask and observation) on the table row the single env's kernels use.
    """

    metadata = {  # noqa: RUF012
        "render_modes": ["ansi", "rgb_array"],
        "name": "holdem_v0",
        "is_parallelizable": False,
    }
    # Whether every value of `rewards` is 0.0; False (the safe answer: a step then makes
    # a new dict) for an env pickled before the flag existed.
    _rewards_zero = False

    def __init__(
        self,
        num_players: int = 2,
        *,
        hands_per_episode: int = 1,
        raise_fractions: Sequence[float] = E.DEFAULT_FRACTIONS,
        rules: Literal["seed", "standard"] = "seed",
        base: int = 2,
        starting_stack: int | None = None,
        max_bet: int | None = None,
        penalty_to: Literal["burn", "pot"] = "burn",
        evaluator_features: bool = False,
        equity_samples: int = 200,
        illegal_action: Literal["passive", "raise"] = "passive",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        # Every option checked once, as HoldemEnv checks it.
        env_config = E.HoldemEnvConfig(
            num_players=num_players,
            hands_per_episode=hands_per_episode,
            raise_fractions=raise_fractions,
            rules=rules,
            base=base,
            starting_stack=starting_stack,
            max_bet=max_bet,
            penalty_to=penalty_to,
            evaluator_features=evaluator_features,
            equity_samples=equity_samples,
            illegal_action=illegal_action,
        )
        if render_mode not in (None, "ansi", "rgb_array"):
            raise ConfigError("render_mode", render_mode, "None, 'ansi' or 'rgb_array'")
        self.env_config = env_config
        self.config = env_config.table
        self.illegal_action = illegal_action
        self.evaluator_features = bool(evaluator_features)
        self.equity_samples = equity_samples
        fr = env_config.fractions
        self.fractions = fr
        self.hands_per_episode = hands_per_episode
        self.render_mode = render_mode
        n = num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        na = E.num_actions(fr.size)
        size = E.obs_size(n, self.evaluator_features)
        high = np.ones(size, dtype=np.float32)
        high[108:110] = n
        high[110 : 110 + 2 * n] = n
        high[110 + 4 * n : 110 + 8 * n] = n
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(np.zeros(size, dtype=np.float32), high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(na,), dtype=np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: spaces.Discrete(na) for a in self.possible_agents}
        self._tables = get_holdem_tables()
        self._rng = np.random.default_rng()
        self._s = self.config.new_state()
        self._stack = int(self.config.stack)
        self._scale = float(self.config.stack)
        # The Monte Carlo equity's stream, drawn once a hand (only with the features on,
        # so the games are the same either way): observe() is repeatable.
        self._feature_seed = np.zeros(1, dtype=np.uint64)
        self._last_hand: HandResult | None = None
        self._seat = {a: q for q, a in enumerate(self.possible_agents)}
        self._na = na
        self._obs_size = size
        # The legal mask of the seat to act (-1: none), computed once per state change
        # by the compiled step; every mask handed out is a fresh copy of it or zeros.
        self._legal = np.zeros(na, dtype=np.int8)
        self._zeros = np.zeros(na, dtype=np.int8)
        self._amounts = np.zeros(na, dtype=np.int64)
        self._legal_seat = -1
        self._hands_ended_set = False
        self._rewards_zero = True
        # The observation of that seat, encoded in the same call (the agent asked
        # next); empty with the evaluator features, which observe() adds itself.
        self._next_obs = np.zeros(0 if self.evaluator_features else size, np.float32)
        self._deck = np.zeros(52, dtype=np.int64)  # the compiled deal's scratch deck
        self._won = np.zeros(n, dtype=np.int64)  # the chips each seat won in a hand
        self._make_entries()

    def _make_entries(self) -> None:
        # The compiled entries (poker_env.fastcall: no numba typing per call), and the
        # Generator's pointers for the compiled deal (poker_env.bitgen: per object).
        self._rng_ptrs = pointers(self._rng)
        self._deal_fn = KernelEntry(E.aec_deal)
        self._act_fn = KernelEntry(E.aec_act)
        self._to_act_fn = KernelEntry(E.aec_observe_to_act)
        self._encode_fn = KernelEntry(E.encode)
        self._start_fn = KernelEntry(E.aec_start)
        self._close_fn = KernelEntry(E.aec_close_hand)

    # Made again in a copy: the Generator's pointers are its own (the entries would
    # pickle, by name; made afresh alike).
    _ENTRIES = (
        "_act_fn",
        "_to_act_fn",
        "_encode_fn",
        "_rng_ptrs",
        "_deal_fn",
        "_start_fn",
        "_close_fn",
    )

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ------------------------------------------------------------ episode
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._rng_ptrs = pointers(self._rng)
        # A new table, its first hand (the draws _deal makes) and the mask and
        # observation of the seat to act (_observe_to_act's), in one compiled call.
        state, next32 = self._rng_ptrs
        legal, zeros = self._legal, self._zeros
        legal_seat, to_act = self._start_fn.call(
            self._s,
            len(self.possible_agents),
            self._stack,
            state,
            next32,
            self._deck,
            self._tables,
            self.fractions,
            legal,
            self._amounts,
            self._scale,
            self._next_obs,
        )
        if self.evaluator_features:  # drawn after the deal, as _deal draws it
            self._feature_seed[0] = np.uint64(self._rng.integers(0, 2**63))
        self.agents = self.possible_agents[:]
        self._start_dicts()
        # Whether every reward is 0.0 (a step makes a new dict only after a hand's end).
        self._rewards_zero = True
        self._last_hand = None
        self._hands_left = self.hands_per_episode
        self._hands_ended_set = False  # whether some info's hands_ended is not ()
        # Each agent's info: a copy of _INFO_START (keys in this order), then its mask.
        infos: dict[str, dict[str, Any]] = {}
        for q, a in enumerate(self.agents):
            info = _INFO_START.copy()
            info["action_mask"] = legal.copy() if q == legal_seat else zeros.copy()
            infos[a] = info
        self.infos = infos
        self._select(legal_seat, to_act, None)

    def _deal(self, changed: bool) -> None:
        # The button draw and the deck, as int(rng.integers(1 << 30)) and
        # rng.permutation(52) would draw them, in one compiled call.
        state, next32 = self._rng_ptrs
        self._deal_fn.call(self._s, bool(changed), state, next32, self._deck, self._tables)
        if self.evaluator_features:
            self._feature_seed[0] = np.uint64(self._rng.integers(0, 2**63))

    def _observe_to_act(self) -> tuple[int, int]:
        # The mask and observation of the seat to act after a reset or a new hand.
        return self._to_act_fn.call(  # type: ignore[no-any-return]
            self._s, self.fractions, self._legal, self._amounts, self._scale, self._next_obs
        )

    def _select(self, legal_seat: int, to_act: int, ended: tuple[HandResult, ...] | None) -> None:
        # The next agent; the masks in the infos (zeros but the seat to act's legal
        # ones) and, unless `ended` is None (reset), every agent's hands_ended. The info
        # dicts are updated in place; a mask array is replaced where it changes (the seat
        # that acted and the seat to act: every other one still holds zeros), and
        # hands_ended where it changes, so a step does not pay for every seat.
        prev = self._legal_seat
        self._legal_seat = legal_seat
        if to_act >= 0:
            self.agent_selection = self.possible_agents[to_act]
        else:
            # The first agent not done; else the first agent (its dead step is next).
            terminations, truncations = self.terminations, self.truncations
            for a in self.agents:
                if not (terminations[a] or truncations[a]):
                    self.agent_selection = a
                    break
            else:
                self.agent_selection = self.agents[0] if self.agents else ""
        if ended is None:  # reset: the infos hold their masks already
            return
        infos, names = self.infos, self.possible_agents
        if ended or self._hands_ended_set:
            for a in self.agents:
                infos[a]["hands_ended"] = ended
            self._hands_ended_set = bool(ended)
        if prev >= 0 and prev != legal_seat:
            info = infos.get(names[prev])
            if info is not None:
                info["action_mask"] = self._zeros.copy()
        if legal_seat >= 0:
            infos[names[legal_seat]]["action_mask"] = self._legal.copy()

    def _mask(self, agent: str) -> NDArray[np.int8]:
        # The seat to act while betting: its legal actions; every other seat: zeros.
        if self._seat[agent] == self._legal_seat:
            return self._legal.copy()
        return np.zeros(self._na, dtype=np.int8)

    def observe(self, agent: str) -> dict[str, NDArray[Any]]:
        seat = self._seat[agent]
        if seat == self._legal_seat:
            if not self.evaluator_features:
                # Encoded by the last compiled call, the state unchanged since.
                return {"observation": self._next_obs.copy(), "action_mask": self._legal.copy()}
            mask = self._legal.copy()
        else:
            mask = self._zeros.copy()
        obs = np.zeros(self._obs_size, np.float32)
        self._encode_fn.call(self._s, seat, self._scale, obs)
        if self.evaluator_features:
            E.features(self._s, self._feature_seed, 0, seat, self.equity_samples, self._tables, obs)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: int | None) -> None:
        if not getattr(self, "agents", None):
            raise EpisodeFinishedError("HoldemAECEnv")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        s = self._s
        value: Any = action
        kind = type(value)  # the common types first
        a = value if kind is int else int(value) if kind is np.int64 else as_int(value)
        na = self._na
        if a is None or not 0 <= a < na:
            # Not an action of the space at all: refused in both modes, nothing changes.
            raise IllegalActionError(
                action,
                f"an integer in [0, {na})",
                STREET_NAMES[int(s[K.STREET])],
                "not in the action space",
            )
        mask = self._legal if self._seat[agent] == self._legal_seat else self._mask(agent)
        illegal = not mask.item(a)
        if illegal:
            if self.illegal_action == "raise":
                raise IllegalActionError(
                    a, np.flatnonzero(mask).tolist(), STREET_NAMES[int(s[K.STREET])]
                )
            # DESIGN.md: a masked-out action of the space plays the passive action.
            a = PASSIVE_ACTION
        self.infos[agent]["illegal_action"] = illegal
        self._cumulative_rewards[agent] = 0.0
        legal, amounts, obs = self._legal, self._amounts, self._next_obs
        _, over, legal_seat, to_act = self._act_fn.call(
            s, a, self.fractions, self._tables, legal, amounts, self._scale, obs
        )
        # A new rewards dict when a hand ends (its rewards go in it) and at the step
        # after (zeros again); the all-zero dict of a quiet step is kept, never written.
        if over:
            self.rewards = self._zero_rewards()
            self._rewards_zero = False
            ended, finished = self._end_hand()
            # As _accumulate_rewards (the rewards are 0.0 when no hand ended: nothing to add).
            cumulative = self._cumulative_rewards
            for name, reward in self.rewards.items():
                cumulative[name] += reward
            if finished:
                # Every agent terminated and no hand dealt: finish_hand left no seat to
                # act (what _observe_to_act would read), and every agent is done.
                self._select(-1, -1, ended)
                self._deads_step_first()
                return
            self._select(*self._observe_to_act(), ended)
            # Only a hand's end terminates agents (step(None) removes them before any
            # other step): no done agent to select otherwise.
            if any(self.terminations.values()):  # keyed by self.agents
                self._deads_step_first()
        else:
            if not self._rewards_zero:
                self.rewards = self._zero_rewards()
                self._rewards_zero = True
            if to_act < 0 or self._hands_ended_set:
                self._select(legal_seat, to_act, ())
                return
            # _select(legal_seat, to_act, ()) when a seat is to act and no info shows an
            # ended hand (the common step), inline: the next agent and the two masks.
            prev = self._legal_seat
            self._legal_seat = legal_seat
            names, infos = self.possible_agents, self.infos
            self.agent_selection = names[to_act]
            if prev >= 0 and prev != legal_seat:
                info = infos.get(names[prev])
                if info is not None:
                    info["action_mask"] = self._zeros.copy()
            if legal_seat >= 0:
                infos[names[legal_seat]]["action_mask"] = legal.copy()

    def _end_hand(self) -> tuple[tuple[HandResult, ...], bool]:
        """Close the decided hand (and any next one decided at once): their results, and
        whether the episode is over (every agent terminated, no hand dealt)."""
        s = self._s
        n = len(self.possible_agents)
        ended: list[HandResult] = []
        rewards, infos, terminations, seats = (
            self.rewards,
            self.infos,
            self.terminations,
            self._seat,
        )
        while True:
            base = s.item(K.BASE)  # a Python int: x / base is x / float(base)
            # The result's copy of the row, the chips each seat won, then finish_hand
            # (RULES.md §3: busted players leave), in one compiled call.
            row = np.empty(RESULT_ROW_SIZE, np.int64)
            changed = self._close_fn.call(s, row, self._won)
            assert changed >= 0, "only a decided hand is closed"
            won = self._won.tolist()
            for a in self.agents:
                rewards[a] += won[seats[a]] / base
            # The row as it was before finish_hand cleared the folds and leavers.
            last = self._last_hand = HandResult(row, self.hands_per_episode - self._hands_left + 1)
            ended.append(last)
            for a in self.agents:
                infos[a]["last_hand"] = last
            self._hands_left -= 1
            if self._hands_left > 0:
                status = s[K.STATUS : K.STATUS + n].tolist()
                seated = [q for q in range(n) if status[q] == K.SEATED]
            if self._hands_left <= 0 or len(seated) < 2:
                for a in self.agents:
                    terminations[a] = True
                return tuple(ended), True
            for a in self.agents:
                if seats[a] not in seated:
                    terminations[a] = True
            self._deal(changed)
            # Blinds can put everyone all-in: such a hand is decided at once.
            if s[K.PHASE] != K.PHASE_OVER:
                return tuple(ended), False

    def render(self) -> str | NDArray[np.uint8] | None:
        if self.render_mode == "rgb_array":
            # Every hand face up, as the ansi render shows them, seen from the seat to act.
            seat = max(int(self._s[K.TO_ACT]), 0)
            n = len(self.possible_agents)
            return holdem_picture(self._s, n, seat, show_all=True, last=self._last_hand)
        if self.render_mode != "ansi":
            return None
        return holdem_aec_text(self._s, self.possible_agents, self._last_hand)

    def close(self) -> None:
        pass


def env(**kwargs: Any) -> HoldemAECEnv:
    """PettingZoo-style constructor: ``holdem.env(num_players=6)``."""
    return HoldemAECEnv(**kwargs)
