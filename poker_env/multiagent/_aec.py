"""What the AEC envs on compiled kernels share beyond PettingZoo's ``AECEnv``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from numpy.typing import NDArray

__all__ = ["CompiledAEC"]


class CompiledAEC:
    """A direct ``last()`` and pickling without the compiled entries.

    ``AECEnv.last`` reads the same five things through ``observe`` and properties; an
    ``agent_iter()`` loop calls it at every step, so the envs read their own dicts.
    The env's ``KernelEntry`` objects (named in ``_ENTRIES``) hold compiled entry
    points, which do not pickle: a copy leaves them out and makes them again
    (``_make_entries``).
    """

    _ENTRIES: ClassVar[tuple[str, ...]]
    _make_entries: Callable[[], None]
    observe: Callable[[str], dict[str, NDArray[Any]]]
    agent_selection: str
    _cumulative_rewards: dict[str, float]
    terminations: dict[str, bool]
    truncations: dict[str, bool]
    infos: dict[str, dict[str, Any]]

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

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        for name in self._ENTRIES:
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._make_entries()
