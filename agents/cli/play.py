"""Play against the computer in the terminal: ``poker-play`` (the code: :mod:`poker_env_agents.play.terminal`).

Examples::

    poker-play draw --opponent hard        # python -m poker_env_agents.cli.play draw ...
    poker-play reddog --players 5
    poker-play web                         # the browser version (poker-serve)
"""

from __future__ import annotations

import os

# The numpy runtime's inference: one OpenBLAS thread (set before numpy is imported).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from poker_env_agents.play.terminal import main

__all__ = ["main"]

if __name__ == "__main__":
    raise SystemExit(main())
