#!/usr/bin/env python
"""Train a self-play agent with PPO on Ray RLlib (one machine or a Ray cluster). (the code: :mod:`poker_env_agents.cli.train_rllib`)."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from poker_env_agents.cli.train_rllib import main

if __name__ == "__main__":
    raise SystemExit(main())
