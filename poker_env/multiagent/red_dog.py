"""PettingZoo AEC env of Red Dog / High-Card Pool: every seat is an agent."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray
from pettingzoo import AECEnv

from poker_env.bitgen import key63
from poker_env.episode.red_dog import (
    DEFAULT_BET_FRACTIONS,
    BetRecord,
    RedDogEnvConfig,
    action_dict,
    aec_act,
    aec_reset,
    aec_summary_size,
    encode_observation,
    obs_size,
)
from poker_env.errors import ConfigError, EpisodeFinishedError, IllegalActionError, as_int
from poker_env.fastcall import KernelEntry
from poker_env.games.red_dog import (
    F_SEATED,
    I_PHASE,
    I_TO_ACT,
    KIND_FORFEIT,
    OK,
    PHASE_NAMES,
    RedDogGame,
    new_state,
)
from poker_env.games.red_dog_kernels import (
    E_AMOUNT,
    E_KIND,
)
from poker_env.multiagent._aec import DirectAEC
from poker_env.render.red_dog import red_dog_aec_text, red_dog_picture

__all__ = ["RedDogAECEnv", "env", "raw_env"]


class RedDogAECEnv(DirectAEC, AECEnv[str, dict[str, NDArray[Any]], int | None]):  # type: ignore[misc]
    """Red Dog (RULES.md §2) with every seat an agent ``player_0 .. player_{P-1}``.

    Observation of each agent: a dict with ``"observation"`` (the layout of
    :class:`poker_env.envs.red_dog.RedDogEnv`, from that agent's seat) and
    ``"action_mask"`` (int8: all ones on its turn, zeros otherwise). Actions:
    0 FORFEIT, ``k >= 1`` a bet of ``bet_fractions[k-1]`` of the largest legal bet.
    Rewards: chips won or lost since the agent's last step, in antes (the first
    step of the game charges everyone's first ante). An agent is terminated when
    its seat runs out of chips and leaves, and every agent when the game ends.

    Illegal actions, as in :class:`poker_env.envs.red_dog.RedDogEnv`: with
    ``illegal_action="passive"`` (default) a masked-out action of the space plays
    FORFEIT and the agent's ``info["illegal_action"]`` is True until its next
    step; with "raise" it raises :class:`~poker_env.errors.IllegalActionError`.
    The seat to act may play every action of the space in Red Dog, so neither
    happens. In both modes a value outside the space (1.7, "1", True, None, an
    integer outside [0, n)) raises ``IllegalActionError`` and changes nothing;
    ``step()`` before ``reset()`` or after every agent is done raises
    :class:`~poker_env.errors.EpisodeFinishedError`.

    Info of each agent: ``action_mask``; ``illegal_action``; ``last_bet`` (its own
    last action, settled: as ``RedDogEnv``'s ``info["last_bet"]``, a read-only
    :class:`~poker_env.episode.red_dog.BetRecord`; None before its first) and ``opponent_actions`` (every other seat's action since,
    in order). Each agent's info dict is updated in place from step to step (as
    ``HoldemAECEnv``'s): a dict kept from an earlier step shows the current values;
    its ``action_mask`` array is replaced when its mask changes (a seat that neither
    was nor is to act keeps its zeros), and ``opponent_actions`` is a new tuple each
    step. The ``"ansi"`` render shows the whole table and the last actions.

    The game runs on the compiled rules kernels (one table of
    :class:`~poker_env.games.red_dog_kernels.RedDogState`, the records the single env
    uses). :attr:`game` is the same game as a :class:`~poker_env.games.red_dog.RedDogGame`
    (its ``history`` of records, ``describe()``, ``to_json()``), replayed from the
    episode's key and actions when it is read (lazily: few users read it, and keeping
    records would cost a step more than the rest of it). It is a view: acting on it
    does not move the env.

    Args:
        num_players, starting_chips, ante, hand_size, rounds: the RULES.md §2 options.
        bet_fractions: the bet actions.
        illegal_action: "passive" (default) or "raise".
        render_mode: None, "ansi" or "rgb_array" (a picture of the whole table).
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "rgb_array"],
        "name": "red_dog_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        *,
        num_players: int = 4,
        starting_chips: int = 50,
        ante: int = 1,
        hand_size: int = 5,
        rounds: int | None = None,
        bet_fractions: Sequence[float] = DEFAULT_BET_FRACTIONS,
        illegal_action: str = "passive",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        # The options RedDogEnv takes, checked as it checks them.
        env_config = RedDogEnvConfig(
            num_players=num_players,
            starting_chips=starting_chips,
            ante=ante,
            hand_size=hand_size,
            rounds=rounds,
            bet_fractions=bet_fractions,
            illegal_action=illegal_action,
        )
        self.illegal_action = env_config.illegal_action
        self.config = env_config.rules
        fr = env_config.fractions
        if render_mode not in (None, "ansi", "rgb_array"):
            raise ConfigError("render_mode", render_mode, "None, 'ansi' or 'rgb_array'")
        self.fractions = fr
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        p = num_players
        low = np.zeros(obs_size(p), np.float32)
        high = np.ones(obs_size(p), np.float32)
        high[158 + p] = p - 1
        high[159 + p] = p - 1
        high[161 + p] = self.config.num_rounds
        n = 1 + fr.size
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low, high, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (n,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self._rules = self.config.kernel_array()
        self._st = new_state(1)
        self._started = False
        self._p = p
        self._obs_size = obs_size(p)
        # What aec_reset / aec_act write after each change (episode.red_dog.aec_summary_size).
        self._summary = np.zeros(aec_summary_size(p), np.int64)
        # The observation of the seat to act, written by the same compiled call
        # (the agent asked next): observe() copies it instead of encoding again.
        self._next_obs = np.zeros(self._obs_size, np.float32)
        # The seat to act (-1 once the game is over), read from the summary once per
        # state change; the masks are copies of these two.
        self._act_seat = -1
        self._ones = np.ones(n, np.int8)
        self._zeros = np.zeros(n, np.int8)
        # This episode's key (the game is replayed from it for `game`) and that replay.
        self._key = 0
        self._game: RedDogGame | None = None
        self._pairs: list[tuple[str, int]] = []
        # The compiled entries (poker_env.fastcall: no numba typing per call).
        self._reset_fn = KernelEntry(aec_reset)
        self._act_fn = KernelEntry(aec_act)
        self._encode_fn = KernelEntry(encode_observation)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    @property
    def game(self) -> RedDogGame | None:
        """This episode's game as a :class:`~poker_env.games.red_dog.RedDogGame` (None
        before ``reset``): replayed from its key and actions when read after a change.
        A view of the env's game: acting on it does not move the env."""
        if not self._started:
            return None
        game = self._game
        if game is None:
            game = self._game = RedDogGame(self.config, key=self._key)
        done = len(game._actions)
        for row in self._action_rows[done:]:
            game.act(row[E_KIND], row[E_AMOUNT])
        return game

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; ``seed`` makes it reproducible."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        # The key RedDogGame(config, rng=...) draws (the same games as before).
        self._key = key63(self._rng)
        self._game = None
        self._reset_fn.call(
            self._st, 0, np.uint64(self._key), self._rules, self._summary, self._next_obs
        )
        self._started = True
        self.agents = list(self.possible_agents)
        self._start_dicts()
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._base = [self.config.starting_chips] * self.config.num_players
        p = self.config.num_players
        # Every action of the game as its events row (for `game` and the render), and
        # per seat: its last own action (with the index played and p), the actions
        # since then (a tuple that grows by one entry a step), whether its last action
        # was replaced (passive mode).
        self._action_rows: list[list[int]] = []
        self._last_own: list[BetRecord | None] = [None] * p
        self._opp: list[tuple[dict[str, Any], ...]] = [()] * p
        self._replaced = [False] * p
        # (agent, seat) of self.agents, for the step's loop (rebuilt when one leaves).
        self._pairs = [(a, self.agent_name_mapping[a]) for a in self.agents]
        self._publish(self._summary.tolist(), -1, ())

    def observe(self, agent: str) -> dict[str, NDArray[Any]]:
        seat = self.agent_name_mapping[agent]
        if seat == self._act_seat:
            # Encoded by the last reset or step's compiled call, the state unchanged since.
            return {"observation": self._next_obs.copy(), "action_mask": self._ones.copy()}
        obs = np.empty(self._obs_size, np.float32)  # encode writes every entry
        self._encode_fn.call(self._st, 0, seat, obs)
        return {"observation": obs, "action_mask": self._zeros.copy()}

    def _mask(self, seat: int) -> NDArray[np.int8]:
        # Every index for the seat to act (RULES.md §2: any bet size may be played),
        # none for the others and once the game is over. The env's own array, not a
        # copy; observe() and the infos hand out copies. step() reads the same two
        # things inline (the seat to act, then _ones), and calls this for a refusal.
        return self._ones if seat == self._act_seat else self._zeros

    def step(self, action: int | None) -> None:
        """Play ``action`` for ``agent_selection`` (None for a terminated agent).

        Raises:
            EpisodeFinishedError: before ``reset()``, or once every agent is done.
            IllegalActionError: ``action`` is not an action of the space (nothing
                changes), or, with ``illegal_action="raise"``, it is masked out.
        """
        if not self._started or not self.agents:
            raise EpisodeFinishedError("RedDogAECEnv")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.agent_name_mapping[agent]
        n = self._ones.size
        value: Any = action
        kind = type(value)  # the common types first
        a = value if kind is int else int(value) if kind is np.int64 else as_int(value)
        if a is None or not 0 <= a < n:
            raise IllegalActionError(
                action,
                f"an integer in [0, {n})",
                PHASE_NAMES[int(self._st.ints[0, I_PHASE])],
                f"{agent}: not an action of the space Discrete({n})",
            )
        replaced = False
        if seat != self._act_seat or not self._ones.item(a):  # what _mask(seat) would say
            # Not reached in Red Dog (the seat to act may play every index): the
            # convention every env shares (../shared/STYLE.md "Illegal actions").
            mask = self._mask(seat)
            if self.illegal_action == "raise":
                raise IllegalActionError(
                    a,
                    np.flatnonzero(mask).tolist(),
                    PHASE_NAMES[int(self._st.ints[0, I_PHASE])],
                    f"{agent}: masked out",
                )
            a, replaced = KIND_FORFEIT, True  # the passive action (RULES.md §2: forfeit)
        status, p = self._act_fn.call(self._st, 0, a, self.fractions, self._summary, self._next_obs)
        if status != OK:  # not reached: every index maps to a legal action
            raise IllegalActionError(
                a, f"an integer in [0, {n})", PHASE_NAMES[int(self._st.ints[0, I_PHASE])]
            )
        v = self._summary.tolist()
        row = v[2 + 2 * self._p :]
        entry = action_dict(row)
        self._action_rows.append(row)
        self._last_own[seat] = BetRecord(a, p, row)
        self._replaced[seat] = replaced
        self._cumulative_rewards[agent] = 0.0
        self._publish(v, seat, (entry,))

    def _publish(self, v: list[int], acted: int, tail: tuple[dict[str, Any], ...]) -> None:
        # The rewards (added to the cumulative ones, as _accumulate_rewards does),
        # terminations, infos and the next agent, from the summary `v` (aec_summary_size:
        # over, to act, chips from v[2], seated flags from v[2 + p]).
        # `acted`: the seat that acted (its opponent_actions start again), `tail` its
        # action, added to every other seat's; -1 and () at reset, where nothing is
        # collected: the first ante is charged with the first step.
        p = self._p
        over = v[0] != 0
        act = -1 if over else v[1]
        prev = self._act_seat
        self._act_seat = act
        agents = self.agents
        pairs = self._pairs
        if len(pairs) != len(agents):  # an agent was removed (PettingZoo's dead step)
            seats = self.agent_name_mapping
            pairs = self._pairs = [(a, seats[a]) for a in agents]
        terminations, infos = self.terminations, self.infos
        last_own, opp, replaced = self._last_own, self._opp, self._replaced
        # Only a step terminates agents, and step(None) removes them before the next
        # action: no done agent is left from before.
        dead = False
        if acted < 0:  # reset: every seat seated, no rewards, no actions yet
            ones, zeros = self._ones.copy, self._zeros.copy  # a fresh mask each
            for a, s in pairs:
                infos[a] = {
                    "action_mask": ones() if s == act else zeros(),
                    "illegal_action": replaced[s],
                    "last_bet": last_own[s],
                    "opponent_actions": opp[s],
                }
        else:
            # The info dicts are updated in place: every agent's opponent_actions, the
            # acting seat's last_bet and illegal_action, and a fresh mask array where a
            # mask changes (the seat that was to act and the seat to act now).
            ante, base = self.config.ante, self._base
            rewards, cumulative = self.rewards, self._cumulative_rewards
            for a, s in pairs:
                c = v[2 + s]
                b = base[s]
                if c != b:
                    r = (c - b) / ante
                    rewards[a] = r
                    base[s] = c
                    cumulative[a] += r
                else:  # (c - b) / ante is 0.0: adding it changes no cumulative reward
                    rewards[a] = 0.0
                if over or not v[2 + p + s]:  # the game's end, or the seat left
                    terminations[a] = dead = True
                if s != acted:
                    opp[s] = infos[a]["opponent_actions"] = opp[s] + tail
            names = self.possible_agents
            info = infos[names[acted]]
            opp[acted] = info["opponent_actions"] = ()
            info["illegal_action"] = replaced[acted]
            info["last_bet"] = last_own[acted]
            if act != prev:
                if act >= 0:
                    changed = infos.get(names[act])
                    if changed is not None:
                        changed["action_mask"] = self._ones.copy()
                if prev >= 0:
                    changed = infos.get(names[prev])
                    if changed is not None:
                        changed["action_mask"] = self._zeros.copy()
        if not over:
            self.agent_selection = self.possible_agents[act]
        else:
            self.agent_selection = agents[0] if agents else ""
        if dead:
            self._deads_step_first()

    def render(self) -> str | NDArray[np.uint8] | None:
        """The whole table: text ("ansi") or a picture ("rgb_array", every hand face up)."""
        if not self._started:
            return None
        recent = self._action_rows[-self.config.num_players :]
        if self.render_mode == "rgb_array":
            seat = max(int(self._st.ints[0, I_TO_ACT]), 0)
            return red_dog_picture(self._st, 0, seat, show_all=True, log=recent)
        if self.render_mode != "ansi":
            return None
        game = self.game
        assert game is not None
        return red_dog_aec_text(game, recent)

    def close(self) -> None:
        pass

    def seated(self, agent: str) -> bool:
        """Whether ``agent``'s seat is still in the game."""
        assert self._started
        return bool(self._st.flags[0, self.agent_name_mapping[agent]] & F_SEATED)


def raw_env(**kwargs: Any) -> RedDogAECEnv:
    """The env without wrappers."""
    return RedDogAECEnv(**kwargs)


def env(**kwargs: Any) -> RedDogAECEnv:
    """The env (PettingZoo naming convention)."""
    return RedDogAECEnv(**kwargs)
