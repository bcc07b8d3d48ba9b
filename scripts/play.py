#!/usr/bin/env python
"""Play against the computer in the terminal (also installed as ``poker-play``).

Examples::

    python scripts/play.py draw                      # the match with her wardrobe
    python scripts/play.py draw --deck 32 --opponent hard --seed 7
    python scripts/play.py reddog --players 5
    python scripts/play.py holdem --players 6
    python scripts/play.py draw --resume draw-save.json
    python scripts/play.py web                       # the browser version (serve.py)

Keys are shown on every screen; ``q`` (or Ctrl-C) saves the game as JSON. See
docs/play.md.
"""

from __future__ import annotations

import os
import sys

# The numpy runtime's inference: one OpenBLAS thread (set before numpy is imported).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from poker_env_agents.cli.play import main

if __name__ == "__main__":
    raise SystemExit(main())
