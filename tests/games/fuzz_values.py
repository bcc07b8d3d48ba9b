"""Hypothesis strategies shared by the engines' fuzz tests (``test_fuzz_*.py``).

``odd_values`` are what a careless caller passes where an integer, a seat, a card
or a name is expected: huge and negative integers, floats (whole, fractional, nan,
inf), strings, None, bools, numpy scalars and arrays, lists. ``json_edit`` changes
one random place of a saved history (replace, delete, duplicate, nudge a number).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from hypothesis import strategies as st

from poker_env.errors import PokerEnvError

__all__ = ["DOCUMENTED_ERRORS", "is_documented", "json_edit", "json_values", "odd_values"]

#: What the engines may raise for bad input: the project's errors, all ValueErrors
#: (IllegalActionError, ConfigError, ArgumentError, HistoryError).
DOCUMENTED_ERRORS = (PokerEnvError,)


def is_documented(exc: BaseException) -> bool:
    """The exception is one of the project's documented errors for bad input."""
    return isinstance(exc, PokerEnvError) and isinstance(exc, ValueError)


_NUMPY = [
    np.int64(3),
    np.int8(-1),
    np.int32(40),
    np.uint64(2**64 - 1),
    np.uint8(1),
    np.float32(2.5),
    np.float64(5.0),
    np.bool_(True),
    np.array(4),
    np.array(2.5),
    np.array([1, 2]),
    np.array([], dtype=np.int64),
]

odd_values: st.SearchStrategy[Any] = st.one_of(
    st.integers(-3, 60),
    st.integers(-(2**70), 2**70),
    st.sampled_from([2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64, 2**62, 2**31]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, 1.0, 2.0, 4.9, 7.9, -1.5]),
    st.text(max_size=6),
    st.sampled_from(["0", "1", "10", "BET", "fold", "standard", "As Ks"]),
    st.none(),
    st.booleans(),
    st.sampled_from(_NUMPY),
    st.lists(st.integers(-2, 60), max_size=4),
)

json_values: st.SearchStrategy[Any] = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 60),
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=8),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def json_edit(draw: st.DrawFn, doc: Any) -> Any:
    """A deep copy of the JSON document ``doc`` with one random place changed."""
    doc = copy.deepcopy(doc)
    parent: Any = None
    key: Any = None
    node = doc
    # Walk down a random path; stop at a random depth.
    while isinstance(node, dict | list) and len(node) > 0 and draw(st.integers(0, 3)) > 0:
        keys = list(node.keys()) if isinstance(node, dict) else list(range(len(node)))
        k = draw(st.sampled_from(keys))
        parent, key, node = node, k, node[k]
    if parent is None:
        return draw(json_values)
    how = draw(st.sampled_from(["replace", "delete", "duplicate", "nudge"]))
    if how == "delete":
        del parent[key]
    elif how == "duplicate" and isinstance(parent, list):
        parent.insert(key, copy.deepcopy(node))
    elif how == "nudge" and isinstance(node, int) and not isinstance(node, bool):
        parent[key] = node + draw(st.sampled_from([-1, 1, -100, 2**63]))
    else:
        parent[key] = draw(json_values)
    return doc
