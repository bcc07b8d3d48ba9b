"""Calling a compiled kernel from a single env's step without numba's per-call typing.

A numba dispatcher types every argument on every call to pick its compiled
overload: for a step's ten arguments (arrays, a tuple of tables) that costs a
microsecond or more, as much as the step's compiled work. An env whose arguments
keep their types (its own arrays, Python ints and bools) can call the overload's
entry point directly, which unboxes the same arguments without the typing.
"""

from __future__ import annotations

from typing import Any

__all__ = ["KernelEntry", "entry_point"]


def entry_point(dispatcher: Any, args: tuple[Any, ...]) -> Any:
    """The compiled entry of ``dispatcher`` for arguments typed like ``args``.

    Call it after the dispatcher has run once with such arguments (which compiles
    the overload or loads it from the cache). The entry takes the same arguments
    and returns the same result; it must only ever get arguments of the same
    types. Falls back to the dispatcher itself when the overload is not found.
    """
    import numba

    sig = tuple(numba.typeof(a) for a in args)
    cres = dispatcher.overloads.get(sig)
    return dispatcher if cres is None else cres.entry_point


class KernelEntry:
    """The one way a single env calls its compiled step or reset: ``entry.call(*args)``.

    The first call goes through the numba dispatcher (which compiles the kernel or
    loads it from the cache) and then puts :func:`entry_point`'s entry in its place,
    so every later call skips numba's typing of the arguments. The arguments must keep
    their types from call to call (the env's own arrays and records, Python ints,
    numpy uint64 keys).

    >>> from numba import njit
    >>> @njit
    ... def add(a, b):
    ...     return a + b
    >>> entry = KernelEntry(add)
    >>> entry.call(1, 2), entry.call(3, 4)
    (3, 7)
    """

    __slots__ = ("call",)
    call: Any

    def __init__(self, dispatcher: Any) -> None:
        def first(*args: Any) -> Any:
            result = dispatcher(*args)  # compiles the kernel or loads it
            self.call = entry_point(dispatcher, args)
            return result

        self.call = first
