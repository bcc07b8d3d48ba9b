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

from poker_env_agents.cli._args import needs_extras

__all__ = ["main"]


@needs_extras("poker-play", "play")
def main(argv: list[str] | None = None) -> int:
    """``poker-play``: :func:`poker_env_agents.play.terminal.main` (imported here, so that a missing extra is named)."""
    from poker_env_agents.play.terminal import main as run

    return run(argv)


if __name__ == "__main__":
    raise SystemExit(main())
