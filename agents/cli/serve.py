"""Play against the computer in the browser: ``poker-serve`` (the code: :mod:`poker_env_agents.play.web.app`).

Examples::

    poker-serve                            # http://127.0.0.1:8000/ (python -m poker_env_agents.cli.serve)
    poker-serve --port 8080 --data /tmp/poker-games
"""

from __future__ import annotations

import os

# The numpy runtime's inference: one OpenBLAS thread (set before numpy is imported).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from poker_env_agents.cli._args import needs_extras

__all__ = ["main"]


@needs_extras("poker-serve", "play")
def main(argv: list[str] | None = None, prog: str = "poker-serve") -> int:
    """``poker-serve``: :func:`poker_env_agents.play.web.app.main` (imported here, so that
    a missing extra is named); ``prog``: the name its messages give the command."""
    from poker_env_agents.play.web.app import main as run

    return run(argv, prog=prog)


if __name__ == "__main__":
    raise SystemExit(main())
