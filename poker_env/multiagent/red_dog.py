"""PettingZoo AEC env of Red Dog / High-Card Pool: every seat is an agent."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray
from pettingzoo import AECEnv
from pettingzoo.utils import AgentSelector

from poker_env.encoding.red_dog import (
    DEFAULT_BET_FRACTIONS,
    action_to_bet,
    encode_observation,
    obs_size,
)
from poker_env.errors import ConfigError, IllegalActionError
from poker_env.games.red_dog import F_SEATED, RedDogConfig, RedDogGame

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
    Illegal actions raise :class:`~poker_env.errors.IllegalActionError`.

    Args:
        num_players, starting_chips, ante, hand_size, rounds: the RULES.md §2 options.
        bet_fractions: the bet actions.
        render_mode: None or "ansi".
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"],
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
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.config = RedDogConfig(
            num_players=num_players,
            starting_chips=starting_chips,
            ante=ante,
            hand_size=hand_size,
            rounds=rounds,
        )
        fr = np.asarray(bet_fractions, dtype=np.float64)
        if fr.ndim != 1 or fr.size == 0 or np.any(~np.isfinite(fr)) or np.any((fr < 0) | (fr > 1)):
            raise ConfigError(
                "bet_fractions", tuple(bet_fractions), "a non-empty list of numbers in [0, 1]"
            )
        if render_mode not in (None, "ansi"):
            raise ConfigError("render_mode", render_mode, "None or 'ansi'")
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
        self._agent_selector = AgentSelector(self.agents)
        self._update_after_action(collect=False)

    def observe(self, agent: str) -> dict[str, NDArray[Any]]:
        assert self.game is not None
        seat = self.agent_name_mapping[agent]
        st = self.game.state
        obs = np.zeros(obs_size(self.config.num_players), np.float32)
        encode_observation(st.ints, st.chips, st.flags, st.hands, st.public, 0, seat, obs)
        return {"observation": obs, "action_mask": self._mask(seat)}

    def _mask(self, seat: int) -> NDArray[np.int8]:
        assert self.game is not None
        n = 1 + self.fractions.size
        if self.game.is_over or self.game.to_act != seat:
            return np.zeros(n, np.int8)
        return np.ones(n, np.int8)

    def step(self, action: int | None) -> None:
        """Play ``action`` for ``agent_selection`` (None for a terminated agent)."""
        assert self.game is not None
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.agent_name_mapping[agent]
        n = 1 + self.fractions.size
        if action is None or not 0 <= int(action) < n:
            raise IllegalActionError(
                action, list(range(n)), self.game.phase, f"{agent}: unknown action"
            )
        st = self.game.state
        kind, amount = action_to_bet(st.ints, st.chips, 0, int(action), self.fractions)
        assert seat == self.game.to_act
        self.game.act(kind, amount)
        self._cumulative_rewards[agent] = 0.0
        self._update_after_action()
        self._accumulate_rewards()
        self._deads_step_first()

    def _update_after_action(self, collect: bool = True) -> None:
        assert self.game is not None
        chips = self.game.chips
        seated = set(self.game.seated)
        over = self.game.is_over
        for a in self.agents:
            s = self.agent_name_mapping[a]
            if collect:  # the first ante is charged with the first step
                self.rewards[a] = (chips[s] - self._base[s]) / self.config.ante
                self._base[s] = chips[s]
            if over or s not in seated:
                self.terminations[a] = True
            self.infos[a] = {"action_mask": self._mask(s)}
        if not over:
            self.agent_selection = self.possible_agents[self.game.to_act]
        else:
            self.agent_selection = self.agents[0] if self.agents else ""

    def render(self) -> str | None:
        """Text of the whole table (render_mode "ansi")."""
        if self.render_mode != "ansi" or self.game is None:
            return None
        return self.game.describe() + "\n"

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
