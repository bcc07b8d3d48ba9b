#!/usr/bin/env python
"""Evaluate policies head to head: mean per hand with a 95% interval, duplicate deals. (the code: :mod:`poker_env_agents.cli.evaluate`)."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from poker_env_agents.cli.evaluate import main

if __name__ == "__main__":
    raise SystemExit(main())
