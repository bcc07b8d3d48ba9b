"""Learning curves over a run's checkpoints (poker_env_agents.cli.learning_curves), on a tiny run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from poker_env.errors import ConfigError
from poker_env_agents.analysis.stats import read_scalars
from poker_env_agents.baselines.panel import panel_names
from poker_env_agents.cli import evaluate as evaluate_cli
from poker_env_agents.cli import learning_curves as lc
from poker_env_agents.runtime import load_policy
from poker_env_agents.training.train import (
    TrainConfig,
    complete_checkpoints,
    export_checkpoint,
    train,
)

TINY = {
    "timesteps": 1024,
    "num_tables": 16,
    "num_groups": 2,
    "n_steps": 32,
    "batch_size": 256,
    "n_epochs": 1,
    "snapshot_every": 512,
    "checkpoint_every": 512,
    "net_arch": [16],
}
SETTINGS = lc.CurveSettings(
    seed=3,
    hands=256,
    tables=16,
    panel_hands=256,
    exploit="br",
    br_timesteps=512,
    br_warm_start_steps=256,
    br_hands=256,
    br_budget={
        "num_tables": 16,
        "n_steps": 32,
        "batch_size": 256,
        "n_epochs": 1,
        "net_arch": [16],
        "features": "",
    },
)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("curves") / "run"
    cfg = TrainConfig(game="draw", opponents={"random": 0.5, "pool": 0.5}, out=str(out), **TINY)
    return train(cfg, progress_bar=False, evaluate=False)


def _weights(path: Path) -> dict[str, np.ndarray[Any, Any]]:
    with np.load(path) as z:
        return {k: z[k] for k in z.files if k != "manifest"}


def test_the_last_checkpoint_exports_the_runs_final_policy(run: Path, tmp_path: Path) -> None:
    ckpts, skipped = complete_checkpoints(run)
    assert [c.steps for c in ckpts] == [512, 1024] and skipped == []
    npz = export_checkpoint(run, ckpts[-1], tmp_path / "last.npz")
    final, mine = _weights(run / "policy.npz"), _weights(npz)
    assert final.keys() == mine.keys()
    for k in final:
        np.testing.assert_array_equal(final[k], mine[k])
    assert load_policy(npz).manifest["provenance"]["steps"] == 1024
    # The first checkpoint is another model.
    first = _weights(export_checkpoint(run, ckpts[0], tmp_path / "first.npz"))
    assert any(not np.array_equal(first[k], final[k]) for k in final)


def test_curves_are_incremental_and_match_evaluate(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = run / "learning_curves.json"
    one = lc.learning_curves(run, SETTINGS, progress=False, limit=1)
    assert [p["steps"] for p in one["points"]] == [512]
    first_point = one["points"][0]
    doc = lc.learning_curves(run, SETTINGS, progress=False)
    # One point per complete checkpoint, in step order; the first kept as it was.
    assert [p["steps"] for p in doc["points"]] == [512, 1024]
    assert doc["points"][0] == first_point
    assert json.loads(path.read_text()) == doc
    for p in doc["points"]:
        assert p["panel"]["bot"] in panel_names("draw") and p["panel"]["kind"] == "heads-up"
        for key in ("panel", "heuristic", "exploit"):
            m = p[key]
            assert m["ci_low"] <= m["mean"] <= m["ci_high"] and m["hands"] >= 256, (key, m)
        assert p["exploit"]["kind"] == "br" and p["exploit"]["unit"] == "antes/hand"
        # The heuristic figure is scripts/evaluate.py's for that checkpoint's policy.
        out = tmp_path / f"eval{p['steps']}.json"
        npz = run / "curves" / f"step_{p['steps']:010d}.npz"
        argv = ["draw", str(npz), "heuristic", "--hands", "256", "--seed", "3", "--tables", "16"]
        assert evaluate_cli.main([*argv, "--json", str(out)]) == 0
        (ev,) = json.loads(out.read_text())["matches"]
        assert (ev["mean"], ev["ci_low"], ev["ci_high"], ev["hands"]) == (
            p["heuristic"]["mean"],
            p["heuristic"]["ci_low"],
            p["heuristic"]["ci_high"],
            p["heuristic"]["hands"],
        )
    # TensorBoard: each checkpoint's step once, the JSON's values.
    scalars = read_scalars(run / "tb" / "curves")
    for tag, key in (
        ("curves/vs_heuristic", "heuristic"),
        ("curves/panel_worst", "panel"),
        ("curves/best_response", "exploit"),
    ):
        steps, values = scalars[tag]
        assert steps.tolist() == [512, 1024]
        np.testing.assert_allclose(values, [p[key]["mean"] for p in doc["points"]], rtol=1e-6)

    # A rerun measures nothing and leaves the file as it was.
    before = path.read_bytes()

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a rerun measured a checkpoint again")

    monkeypatch.setattr(lc, "measure_policy", refuse)
    again = lc.learning_curves(run, SETTINGS, progress=False)
    assert again == doc and path.read_bytes() == before
    assert read_scalars(run / "tb" / "curves")["curves/vs_heuristic"][0].tolist() == [512, 1024]

    # Other settings, or a checkpoint that changed since it was measured: refused.
    with pytest.raises(ConfigError, match="settings"):
        lc.learning_curves(run, lc.CurveSettings(hands=512), progress=False)
    changed = json.loads(before)
    changed["points"][1]["checkpoint_sha256"] = "0" * 64
    other = tmp_path / "changed.json"
    other.write_text(json.dumps(changed))
    with pytest.raises(ConfigError, match="changed"):
        lc.learning_curves(run, SETTINGS, json_path=other, progress=False)

    # The command: plot the file.
    png = tmp_path / "curves.png"
    assert lc.main([str(run), "--plot-only", "--png", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_settings_and_runs_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="hands"):
        lc.CurveSettings(hands=0)
    with pytest.raises(ConfigError, match="exploit"):
        lc.CurveSettings(exploit="exact")
    with pytest.raises(ConfigError, match="LBR"):
        lc.exploit_kind(lc.CurveSettings(exploit="lbr"), "draw", {"deck": 52})
    assert lc.exploit_kind(lc.CurveSettings(), "holdem", {"num_players": 2}) == "lbr"
    assert lc.exploit_kind(lc.CurveSettings(), "holdem", {"num_players": 6}) == "br"
    match = lc.default_settings("draw-match", hands=50)
    assert (match.hands, match.panel_hands) == (50, 200)
    assert lc.default_settings("draw") == lc.CurveSettings()
    with pytest.raises(ConfigError, match=r"config\.toml"):
        lc.learning_curves(tmp_path, progress=False)
