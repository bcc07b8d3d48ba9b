"""An observation layout as data: named, consecutive slices of the observation vector.

Each game's episode module says what its observation holds with
``observation_fields(...)``; the env docstrings' observation tables are checked
against it (tests/episode), and a trained policy's manifest hashes it
(``poker_env_agents.runtime``), so fixing the wording of a table changes nothing
that a model file depends on, and moving a slice does.

>>> fields_from_widths([("cards", 52), ("pot", 1)])
(ObsField(name='cards', start=0, stop=52), ObsField(name='pot', start=52, stop=53))
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

__all__ = ["ObsField", "fields_from_widths"]


class ObsField(NamedTuple):
    """One slice of the observation: ``obs[start:stop]`` holds ``name``."""

    name: str
    start: int
    stop: int


def fields_from_widths(widths: Iterable[tuple[str, int]]) -> tuple[ObsField, ...]:
    """Consecutive fields from ``(name, width)`` pairs, the first at index 0."""
    out: list[ObsField] = []
    at = 0
    for name, width in widths:
        out.append(ObsField(name, at, at + int(width)))
        at += int(width)
    return tuple(out)
