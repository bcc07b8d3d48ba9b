"""Test-wide settings.

Hypothesis draws its examples from a fixed seed (``derandomize``): the property tests
explore the same inputs on every machine and every run, so ``make test`` on a clean
clone passes or fails the same way (a new seed is a new search, run on purpose:
``HYPOTHESIS_PROFILE=explore make test``).

The checkpoint signing key (``agents/training/checkpoints.py``) lives in a temporary
folder of the test run, never in the user's ``~/.config`` (subprocesses inherit it).
"""

from __future__ import annotations

import os
import tempfile

from hypothesis import settings

settings.register_profile("repeatable", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))
os.environ["POKER_ENV_CONFIG_DIR"] = tempfile.mkdtemp(prefix="poker_env_test_config_")
