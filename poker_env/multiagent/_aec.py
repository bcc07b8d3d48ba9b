"""What the AEC envs on compiled kernels share beyond PettingZoo's ``AECEnv``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, ClassVar

from numpy.typing import NDArray
from pettingzoo.utils.env import AECIterable

__all__ = ["CompiledAEC", "DirectAEC"]


class _AgentIterable(AECIterable):  # type: ignore[misc]
    """``AECEnv.agent_iter()``'s iterable, iterated by a generator.

    The same agents as PettingZoo's ``AECIterator``: ``agent_selection`` while
    ``agents`` is not empty, at most ``max_iter`` times (each ``iter()`` counts
    afresh); a generator step costs less than its ``__next__`` method call. Once
    it has stopped, it stays stopped (an iterator's usual contract).
    """

    def __iter__(self) -> Iterator[str]:
        env = self.env
        left = self.max_iter
        while env.agents and left > 0:
            left -= 1
            yield env.agent_selection


class DirectAEC:
    """PettingZoo's ``last()``, ``agent_iter()`` and dead-step helpers, cheaper.

    ``AECEnv.last`` reads the same five things through ``observe`` and properties; an
    ``agent_iter()`` loop calls it at every step, so the envs read their own dicts.
    ``_was_dead_step`` and ``_deads_step_first`` do what PettingZoo's do (the same
    dicts, the same agent selected, ``_skip_agent_selection`` and the rewards cleared
    to ``0`` alike) with a loop that stops at the first done agent instead of a list
    of them all.
    """

    observe: Callable[[str], dict[str, NDArray[Any]]]
    possible_agents: list[str]
    agents: list[str]
    agent_selection: str
    rewards: dict[str, float]
    _cumulative_rewards: dict[str, float]
    terminations: dict[str, bool]
    truncations: dict[str, bool]
    infos: dict[str, dict[str, Any]]
    _skip_agent_selection: str | None
    _zero_dict: dict[str, float]
    _false_dict: dict[str, bool]

    def _start_dicts(self) -> None:
        """``rewards`` and ``_cumulative_rewards`` (0.0), ``terminations`` and
        ``truncations`` (False) of every possible agent, as a reset sets them: copies
        of dicts made once (a dict's copy costs a fifth of ``dict.fromkeys``)."""
        zeros: dict[str, float] | None = self.__dict__.get("_zero_dict")
        if zeros is None:
            zeros = self._zero_dict = dict.fromkeys(self.possible_agents, 0.0)
            self._false_dict = dict.fromkeys(self.possible_agents, False)
        falses = self._false_dict
        self.rewards = zeros.copy()
        self._cumulative_rewards = zeros.copy()
        self.terminations = falses.copy()
        self.truncations = falses.copy()

    def _zero_rewards(self) -> dict[str, float]:
        """``dict.fromkeys(self.agents, 0.0)``, a copy where every agent is left."""
        agents = self.agents
        zeros: dict[str, float] | None = self.__dict__.get("_zero_dict")
        if zeros is not None and len(agents) == len(zeros):
            return zeros.copy()  # self.agents is possible_agents, in its order
        return dict.fromkeys(agents, 0.0)

    def agent_iter(self, max_iter: int = 2**63) -> AECIterable:
        """PettingZoo's ``agent_iter`` (the same agents; see :class:`_AgentIterable`)."""
        return _AgentIterable(self, max_iter)

    def last(
        self, observe: bool = True
    ) -> tuple[dict[str, NDArray[Any]] | None, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last()`` (the same values, one call less)."""
        agent = self.agent_selection
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def _deads_step_first(self) -> str:
        """PettingZoo's: select the first done agent, keeping the one it replaces."""
        terminations, truncations = self.terminations, self.truncations
        for agent in self.agents:
            if terminations[agent] or truncations[agent]:
                self._skip_agent_selection = self.agent_selection
                self.agent_selection = agent
                break
        return self.agent_selection

    def _was_dead_step(self, action: Any) -> None:
        """PettingZoo's: remove the done agent selected; select the next done one or
        the agent kept by ``_deads_step_first``; clear the rewards."""
        if action is not None:
            raise ValueError("when an agent is dead, the only valid action is None")
        agent = self.agent_selection
        terminations, truncations, rewards = self.terminations, self.truncations, self.rewards
        assert terminations[agent] or truncations[agent], (
            "an agent that was not dead as attempted to be removed"
        )
        del terminations[agent]
        del truncations[agent]
        del rewards[agent]
        del self._cumulative_rewards[agent]
        del self.infos[agent]
        agents = self.agents
        agents.remove(agent)
        for other in agents:
            if terminations[other] or truncations[other]:
                if getattr(self, "_skip_agent_selection", None) is None:
                    self._skip_agent_selection = agent
                self.agent_selection = other
                break
        else:
            skip = getattr(self, "_skip_agent_selection", None)
            if skip is not None:
                self.agent_selection = skip
            self._skip_agent_selection = None
        for other in rewards:
            rewards[other] = 0


class CompiledAEC(DirectAEC):
    """:class:`DirectAEC`, and copies that make some attributes again.

    The attributes named in ``_ENTRIES`` are left out of a copy (pickle, deepcopy) and
    made again by ``_make_entries``: raw pointers into the env's own Generator
    (``HoldemAECEnv``'s compiled deal), which would point into the original's.
    """

    _ENTRIES: ClassVar[tuple[str, ...]]
    _make_entries: Callable[[], None]

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        for name in self._ENTRIES:
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._make_entries()
