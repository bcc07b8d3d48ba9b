"""Read-only records in an env's info, built when first read.

An env step that reports a settled action or a finished hand keeps the raw ints and
pays for one small object; the record decodes them into its items on first access.
A record is a ``Mapping``, not a ``dict``: Gymnasium's vector envs merge an info
value that is a dict key by key (which fails where one env's value is None and
another's is not), and keep any other value whole.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

__all__ = ["LazyRecord"]


class LazyRecord(Mapping[str, Any]):
    """A read-only mapping over ``KEYS`` whose items ``_decode()`` builds once.

    Subclasses set ``KEYS`` (the keys, in order), keep their raw values in slots of
    their own, and define ``_decode`` (the items as a dict) and ``__reduce__``
    (pickling from the raw values). Equal to any mapping with the same items.
    """

    __slots__ = ("_dict",)

    KEYS: ClassVar[tuple[str, ...]]

    def __init__(self) -> None:
        self._dict: dict[str, Any] | None = None

    @abstractmethod
    def _decode(self) -> dict[str, Any]:
        """The items as a dict, from the subclass's raw values (called once)."""

    def _decoded(self) -> dict[str, Any]:
        d = self._dict
        if d is None:
            d = self._dict = self._decode()
        return d

    def __getitem__(self, key: str) -> Any:
        return self._decoded()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.KEYS)

    def __len__(self) -> int:
        return len(self.KEYS)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self._decoded() == dict(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._decoded()!r})"
