"""docs/architecture.md names real places: every module path and function it gives exists."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
GAMES = ("draw", "red_dog", "holdem")


def test_every_path_exists_for_every_game() -> None:
    paths = set(re.findall(r"`((?:poker_env|agents)/[\w/<>.]+\.py)`", DOC))
    paths |= {
        f"poker_env/{p}"
        for p in re.findall(
            r"`((?:episode|games|render|vector|envs|multiagent|evaluator)/[\w<>.]+\.py)`", DOC
        )
    }
    assert len(paths) > 10
    for path in sorted(paths):
        for game in GAMES if "<game>" in path else ("",):
            concrete = path.replace("<game>", game)
            assert (ROOT / concrete).is_file(), f"docs/architecture.md names {concrete}"


def test_the_named_functions_exist() -> None:
    for module, names in {
        "poker_env.episode.holdem": (
            "observation_fields",
            "apply_index",
            "resume_table",
            "observe_agent",
            "step_row",
            "HoldemTables",
            "HoldemParams",
            "HoldemEnvConfig",
            "holdem_params",
            "aec_act",
        ),
        "poker_env.episode.red_dog": (
            "RedDogParams",
            "RedDogEnvConfig",
            "red_dog_params",
            "env_reset_table",
            "env_step_table",
            "aec_act",
            "aec_reset",
        ),
        "poker_env.games.red_dog_kernels": ("RedDogState",),
        "poker_env.episode.draw": (
            "DrawTables",
            "DrawParams",
            "DrawEnvConfig",
            "single_step",
            "single_reset",
        ),
        "poker_env.vector.draw": ("DrawTables", "DrawParams", "_agent_row_step"),
        "poker_env.vector.red_dog": ("_row_step",),
        "poker_env.episode.outputs": ("StepOutputs",),
        "poker_env.vector.batch": ("step_rows", "step_chunks"),
        "poker_env.fastcall": ("KernelEntry",),
        "poker_env.render.draw": ("draw_picture", "draw_text"),
        "poker_env.render.red_dog": ("red_dog_picture", "red_dog_text", "red_dog_aec_text"),
        "poker_env.render.holdem": ("holdem_picture", "holdem_text", "holdem_aec_text"),
        "poker_env.evaluator.equity_batch": ("sample_holdem_equity",),
        "poker_env.episode.options": ("check_illegal_action",),
    }.items():
        mod = importlib.import_module(module)
        for name in names:
            assert hasattr(mod, name), f"{module}.{name}"
    for game in GAMES:
        assert hasattr(importlib.import_module(f"poker_env.episode.{game}"), "observation_fields")
        # The batch loop's two wrappers, by the same names in every game.
        vector = importlib.import_module(f"poker_env.vector.{game}")
        assert hasattr(vector, "_step_all") and hasattr(vector, "_step_threads"), game
