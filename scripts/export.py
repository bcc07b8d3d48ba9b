#!/usr/bin/env python
"""Export a trained SB3 model to the numpy policy file (and ONNX). (the code: :mod:`poker_env_agents.cli.export`)."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from poker_env_agents.cli.export import main

if __name__ == "__main__":
    raise SystemExit(main())
