"""Test-wide settings.

Hypothesis draws its examples from a fixed seed (``derandomize``): the property tests
explore the same inputs on every machine and every run, so ``make test`` on a clean
clone passes or fails the same way (a new seed is a new search, run on purpose:
``HYPOTHESIS_PROFILE=explore make test``).
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("repeatable", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))
