"""Calling a compiled kernel from a single env's step without numba's per-call typing.

A numba dispatcher types every argument on every call to pick its compiled
overload: for a step's ten arguments (arrays, a tuple of tables) that costs a
microsecond or more, as much as the step's compiled work. An env whose arguments
keep their types (its own arrays, Python ints and bools) can call the overload's
entry point directly, which unboxes the same arguments without the typing.
"""

from __future__ import annotations

from typing import Any

__all__ = ["KernelEntry", "OwnViews", "entry_point"]


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

    __slots__ = ("call", "dispatcher")
    call: Any
    dispatcher: Any

    def __init__(self, dispatcher: Any) -> None:
        self.dispatcher = dispatcher

        def first(*args: Any) -> Any:
            result = dispatcher(*args)  # compiles the kernel or loads it
            self.call = entry_point(dispatcher, args)
            return result

        self.call = first

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # A copy (pickle, deepcopy) is a new entry of the same kernel, named by its
        # module and name: the compiled entry point does not pickle, and numba would
        # pickle the dispatcher by value (its code and globals, ~30 KB, compiled again
        # in a new process instead of loaded from the cache).
        import pickle

        func = getattr(self.dispatcher, "py_func", self.dispatcher)
        name = (func.__module__, func.__qualname__)
        try:
            found = _kernel_by_name(*name)
        except (ImportError, AttributeError):
            found = None
        if found is not self.dispatcher:  # a kernel made in a function: say so now
            raise pickle.PicklingError(
                f"KernelEntry of {name[0]}.{name[1]}: not found under that name, so a copy "
                "could not find it again (only module-level kernels can be copied)"
            )
        return _entry_by_name, name


def _kernel_by_name(module: str, qualname: str) -> Any:
    import importlib

    target: Any = importlib.import_module(module)
    for part in qualname.split("."):
        target = getattr(target, part)
    return target


def _entry_by_name(module: str, qualname: str) -> KernelEntry:
    """A new :class:`KernelEntry` of the kernel ``module.qualname`` (an unpickled copy)."""
    return KernelEntry(_kernel_by_name(module, qualname))


class OwnViews:
    """An env that keeps views of its own arrays (a table's row, for the compiled step)
    and makes them again in a copy.

    ``pickle`` and ``copy.deepcopy`` copy a view as an array of its own, no longer a
    view: a copied env whose kernel writes the base array would read stale views (its
    observations and masks frozen at the copy). The env makes its views in
    ``_make_views``, from ``__init__`` and, through this ``__setstate__``, in a copy.
    """

    _make_views: Any

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._make_views()
