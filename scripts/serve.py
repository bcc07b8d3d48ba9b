#!/usr/bin/env python
"""Play against the computer in the browser: serves the app on http://localhost:8000/.

Examples::

    python scripts/serve.py                          # binds 127.0.0.1:8000
    python scripts/serve.py --port 8080 --data /tmp/poker-games

Games are kept as JSON files in ``--data`` (default ``~/.poker_env/games`` or
``$POKER_ENV_PLAY_DIR``); a restart loses nothing. See docs/play.md.
"""

from __future__ import annotations

import os
import sys

# The numpy runtime's inference: one OpenBLAS thread (set before numpy is imported).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from poker_env_agents.cli.serve import main

if __name__ == "__main__":
    raise SystemExit(main(prog="serve.py"))
