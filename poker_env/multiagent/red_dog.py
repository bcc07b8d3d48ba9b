"""PettingZoo AEC env of Red Dog / High-Card Pool: every seat is an agent."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray
from pettingzoo import AECEnv
from pettingzoo.utils import AgentSelector

from poker_env.episode.red_dog import (
    DEFAULT_BET_FRACTIONS,
    RedDogEnvConfig,
    action_dict,
    action_text,
    action_to_bet,
    encode_observation,
    obs_size,
)
from poker_env.errors import ConfigError, EpisodeFinishedError, IllegalActionError, as_int
from poker_env.games.red_dog import (
    F_SEATED,
    I_PHASE,
    I_TO_ACT,
    KIND_FORFEIT,
    PHASE_OVER,
    RedDogGame,
)
from poker_env.render.red_dog import red_dog_picture

__all__ = ["RedDogAECEnv", "env", "raw_env"]


class RedDogAECEnv(AECEnv[str, dict[str, NDArray[Any]], int | None]):  # type: ignore[misc]
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
    last action, settled: the keys of ``RedDogEnv``'s ``info["last_bet"]``, None
    before its first) and ``opponent_actions`` (every other seat's action since,
    in order). The ``"ansi"`` render shows the whole table and the last actions.

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
        self.game: RedDogGame | None = None
        self._obs_size = obs_size(p)
        # The seat to act (-1 once the game is over), read from the game once per
        # state change in _update_after_action; the masks are copies of these two.
        self._act_seat = -1
        self._ones = np.ones(n, np.int8)
        self._zeros = np.zeros(n, np.int8)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; ``seed`` makes it reproducible."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.game = RedDogGame(self.config, rng=self._rng)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._base = [self.config.starting_chips] * self.config.num_players
        p = self.config.num_players
        # Every action of the game as a dict (encoding.red_dog.action_dict), and per
        # seat: its last own action (with the index played and p), where the actions
        # since then start, whether its last action was replaced (passive mode).
        self._actions_log: list[dict[str, Any]] = []
        self._action_rows: list[list[int]] = []
        self._last_own: list[dict[str, Any] | None] = [None] * p
        self._since = [0] * p
        self._replaced = [False] * p
        self._agent_selector = AgentSelector(self.agents)
        self._update_after_action(collect=False)

    def observe(self, agent: str) -> dict[str, NDArray[Any]]:
        assert self.game is not None
        seat = self.agent_name_mapping[agent]
        st = self.game.state
        obs = np.zeros(self._obs_size, np.float32)
        encode_observation(st, 0, seat, obs)
        return {"observation": obs, "action_mask": self._mask(seat)}

    def _mask(self, seat: int) -> NDArray[np.int8]:
        # Every index for the seat to act (RULES.md §2: any bet size may be played),
        # none for the others and once the game is over.
        return (self._ones if seat == self._act_seat else self._zeros).copy()

    def step(self, action: int | None) -> None:
        """Play ``action`` for ``agent_selection`` (None for a terminated agent).

        Raises:
            EpisodeFinishedError: before ``reset()``, or once every agent is done.
            IllegalActionError: ``action`` is not an action of the space (nothing
                changes), or, with ``illegal_action="raise"``, it is masked out.
        """
        if self.game is None or not self.agents:
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
                self.game.phase,
                f"{agent}: not an action of the space Discrete({n})",
            )
        replaced = False
        mask = self._mask(seat)
        if not mask[a]:
            # Not reached in Red Dog (the seat to act may play every index): the
            # convention every env shares (../shared/STYLE.md "Illegal actions").
            if self.illegal_action == "raise":
                raise IllegalActionError(
                    a, np.flatnonzero(mask).tolist(), self.game.phase, f"{agent}: masked out"
                )
            a, replaced = KIND_FORFEIT, True  # the passive action (RULES.md §2: forfeit)
        st = self.game.state
        kind, amount = action_to_bet(st, 0, a, self.fractions)
        assert seat == self.game.to_act
        p = self.game.win_probability(seat)
        self.game.act(kind, amount)
        row = st.events[0].tolist()
        entry = action_dict(row)
        self._actions_log.append(entry)
        self._action_rows.append(row)
        self._last_own[seat] = {"action": a, "p": p, **entry}
        self._since[seat] = len(self._actions_log)
        self._replaced[seat] = replaced
        self._cumulative_rewards[agent] = 0.0
        self._update_after_action()
        self._accumulate_rewards()
        self._deads_step_first()

    def _update_after_action(self, collect: bool = True) -> None:
        assert self.game is not None
        st = self.game.state
        p = self.config.num_players
        # The game's chips, seated and is_over, read from its state once.
        chips = st.chips[0, :p].tolist()
        flags = st.flags[0, :p].tolist()
        over = bool(st.ints[0, I_PHASE] == PHASE_OVER)
        self._act_seat = -1 if over else int(st.ints[0, I_TO_ACT])
        ante, base, log = self.config.ante, self._base, self._actions_log
        rewards, terminations, infos = self.rewards, self.terminations, self.infos
        for a in self.agents:
            s = self.agent_name_mapping[a]
            if collect:  # the first ante is charged with the first step
                rewards[a] = (chips[s] - base[s]) / ante
                base[s] = chips[s]
            if over or not flags[s] & F_SEATED:
                terminations[a] = True
            infos[a] = {
                "action_mask": self._mask(s),
                "illegal_action": self._replaced[s],
                "last_bet": self._last_own[s],
                "opponent_actions": tuple(log[self._since[s] :]),
            }
        if not over:
            self.agent_selection = self.possible_agents[self._act_seat]
        else:
            self.agent_selection = self.agents[0] if self.agents else ""

    def render(self) -> str | NDArray[np.uint8] | None:
        """The whole table: text ("ansi") or a picture ("rgb_array", every hand face up)."""
        if self.render_mode == "rgb_array" and self.game is not None:
            recent = self._action_rows[-self.config.num_players :]
            seat = max(int(self.game.to_act), 0)
            return red_dog_picture(self.game.state, 0, seat, show_all=True, log=recent)
        if self.render_mode != "ansi" or self.game is None:
            return None
        lines = [self.game.describe()]
        # Issue 12 §4: the last round of actions, turned cards and outcomes included
        # (describe() shows this deal's cards only; the last bet may close a deal).
        recent = self._action_rows[-self.config.num_players :]
        if recent:
            lines.append("last actions:")
            lines.extend(f"  {action_text(row)}" for row in recent)
        return "\n".join(lines) + "\n"

    def close(self) -> None:
        pass

    def seated(self, agent: str) -> bool:
        """Whether ``agent``'s seat is still in the game."""
        assert self.game is not None
        return bool(self.game.state.flags[0, self.agent_name_mapping[agent]] & F_SEATED)


def raw_env(**kwargs: Any) -> RedDogAECEnv:
    """The env without wrappers."""
    return RedDogAECEnv(**kwargs)


def env(**kwargs: Any) -> RedDogAECEnv:
    """The env (PettingZoo naming convention)."""
    return RedDogAECEnv(**kwargs)
