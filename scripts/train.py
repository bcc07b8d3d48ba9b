#!/usr/bin/env python
"""Train an agent with MaskablePPO over the batched envs. (the code: :mod:`poker_env_agents.cli.train`)."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from poker_env_agents.cli.train import main

if __name__ == "__main__":
    raise SystemExit(main())
