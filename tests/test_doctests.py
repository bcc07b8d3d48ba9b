"""Every example in the package's docstrings runs (STYLE.md: doctests where an example
says more than prose). The modules are found, not listed, so a new example runs too."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted(
    ".".join(p.relative_to(ROOT).with_suffix("").parts).replace("agents", "poker_env_agents", 1)
    for folder in ("poker_env", "agents")
    for p in (ROOT / folder).rglob("*.py")
    if ">>> " in p.read_text(encoding="utf-8")
)


def test_the_examples_are_found() -> None:
    # The modules whose docstrings teach by example (cards, evaluator, games, ...).
    assert {"poker_env.cards", "poker_env.evaluator.core", "poker_env.rng"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    # Every example of the file is found: one in a compiled function's docstring
    # (a numba dispatcher, which doctest does not look into) would never run.
    path = Path(module.__file__ or "")
    found = sum(len(t.examples) for t in doctest.DocTestFinder().find(module))
    assert found == path.read_text(encoding="utf-8").count(">>> "), f"{name}: examples not found"
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name}: no example found"
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"
