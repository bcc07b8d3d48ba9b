"""Red Dog baselines: moved to :mod:`agents.baselines.red_dog` (this name stays for old imports)."""

from __future__ import annotations

from agents.baselines.red_dog import (
    FORFEIT_ACTION,
    AlwaysForfeitPolicy,
    RandomLegalPolicy,
    RedDogCallStation,
    ReferencePolicy,
)

__all__ = [
    "FORFEIT_ACTION",
    "AlwaysForfeitPolicy",
    "RandomLegalPolicy",
    "RedDogCallStation",
    "ReferencePolicy",
]
