#!/usr/bin/env python
"""Learning curves of a training run: the held-out panel, the heuristic and a best response at every checkpoint. (the code: :mod:`poker_env_agents.cli.learning_curves`)."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from poker_env_agents.cli.learning_curves import main

if __name__ == "__main__":
    raise SystemExit(main())
