"""Copies of a :class:`numpy.random.Generator` for ``clone()``, made when first drawn from.

A game's ``clone()`` must give the copy the original's random future (the same
actions deal the same cards on both), so the copy needs its own Generator in the
original's state. Making one costs about 10 µs (a bit generator's constructor seeds
itself first; numpy offers no cheaper way), several times the rest of a clone, while
a search that clones a state mid-hand seldom draws from the copy at all (Hold'em
draws only when a hand starts). So a clone holds a :class:`GeneratorSnapshot`, the
bit generator's class and state as they were at the clone (about 1 µs), and turns it
into a Generator when it first draws (:func:`materialize`). The snapshot never
changes, so clones of a clone share it.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = [
    "GeneratorSeed",
    "GeneratorSnapshot",
    "LazyGenerator",
    "LazyRng",
    "materialize",
    "snapshot",
]

# numpy's own bit generators: each takes a seed as its first argument and restores
# its whole state from ``.state``.
_NUMPY_BIT_GENERATORS = (
    np.random.PCG64,
    np.random.PCG64DXSM,
    np.random.MT19937,
    np.random.Philox,
    np.random.SFC64,
)


class LazyGenerator(ABC):
    """A Generator to be made when first drawn from (:func:`materialize`); never changes."""

    __slots__ = ()

    @abstractmethod
    def generator(self) -> np.random.Generator:
        """A new Generator (the lazy one is left as it was)."""


class GeneratorSeed(LazyGenerator):
    """``numpy.random.default_rng(seed)``, made when needed (a resampled clone's new
    future: see ``HoldemGame.clone``)."""

    __slots__ = ("seed",)

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def generator(self) -> np.random.Generator:
        return np.random.default_rng(self.seed)

    def __reduce__(self) -> tuple[type, tuple[int]]:  # every pickle protocol
        return GeneratorSeed, (self.seed,)


class GeneratorSnapshot(LazyGenerator):
    """A Generator's bit generator class and state, to be made a Generator when needed."""

    __slots__ = ("kind", "state")

    def __init__(self, kind: type[np.random.BitGenerator], state: Mapping[str, Any]) -> None:
        self.kind = kind
        self.state = state

    def __reduce__(self) -> tuple[type, tuple[type[np.random.BitGenerator], Mapping[str, Any]]]:
        return GeneratorSnapshot, (self.kind, self.state)  # every pickle protocol

    def generator(self) -> np.random.Generator:
        """A new Generator in the snapshot's state (the snapshot is left as it was)."""
        bit_generator = self.kind(0)
        bit_generator.state = self.state
        return np.random.Generator(bit_generator)


def snapshot(rng: np.random.Generator | LazyGenerator) -> np.random.Generator | LazyGenerator:
    """What a clone keeps of ``rng``: a snapshot of its state, the same lazy Generator
    again, or (a Generator subclass, or a bit generator numpy does not ship) a deep copy."""
    if isinstance(rng, LazyGenerator):
        return rng
    bit_generator = rng.bit_generator
    if type(rng) is np.random.Generator and type(bit_generator) in _NUMPY_BIT_GENERATORS:
        return GeneratorSnapshot(type(bit_generator), bit_generator.state)
    return copy.deepcopy(rng)


def materialize(rng: np.random.Generator | LazyGenerator) -> np.random.Generator:
    """``rng`` as a Generator: a lazy one made, a Generator as it is."""
    return rng.generator() if isinstance(rng, LazyGenerator) else rng


class LazyRng:
    """The ``rng`` attribute of an object that ``clone()`` copies: its Generator, or a
    lazy one made into a Generator when first read. The value lives in ``_rng``; an
    object pickled before ``rng`` became this property (``rng`` in its dict) loads."""

    _rng: np.random.Generator | LazyGenerator

    @property
    def rng(self) -> np.random.Generator:
        """The Generator (a clone's own copy, made when first needed)."""
        rng = self._rng
        if isinstance(rng, LazyGenerator):
            rng = self._rng = materialize(rng)
        return rng

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        self._rng = value

    def __setstate__(self, state: dict[str, Any]) -> None:
        if "rng" in state:
            state["_rng"] = state.pop("rng")
        self.__dict__.update(state)
