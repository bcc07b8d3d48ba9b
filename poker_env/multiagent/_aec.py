"""What the AEC envs share beyond PettingZoo's ``AECEnv``."""

from __future__ import annotations

from typing import Any

from numpy.typing import NDArray

__all__ = ["DirectLast"]


class DirectLast:
    """PettingZoo's ``last()`` returning the same values with one call less.

    ``AECEnv.last`` reads the same five things through ``observe`` and properties; an
    ``agent_iter()`` loop calls it at every step, so the AEC envs read their own dicts.
    """

    agent_selection: str
    _cumulative_rewards: dict[str, float]
    terminations: dict[str, bool]
    truncations: dict[str, bool]
    infos: dict[str, dict[str, Any]]

    def observe(self, agent: str) -> dict[str, NDArray[Any]]:  # each env defines its own
        raise NotImplementedError

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
