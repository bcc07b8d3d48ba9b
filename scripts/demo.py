"""`make demo`: the main job on a small budget.

Trains a five-card draw agent with the shipped recipe on a small budget (the
draw-strength features, imitation of the heuristic, then MMD self-play; a progress
bar; about three minutes here), evaluates it against the baselines (a table with
95% intervals from duplicate deals) and shows its worst case against the held-out
panel beside the shipped ``draw52``'s, exports it for the numpy runtime, plays one
hand of it against the heuristic rendered as text, and says how to go on.

``python scripts/demo.py --timesteps N --out DIR`` changes the budget or folder;
the run is the documented command ``python scripts/train.py --config
agents/configs/demo.toml`` with the same seed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

# The numpy runtime's batched inference: on a busy 2-core machine OpenBLAS with two
# threads was 4x slower than with one (set before numpy is imported).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CONFIG = Path(__file__).resolve().parent.parent / "agents" / "configs" / "demo.toml"


def one_hand(policy_path: Path, seed: int = 3) -> None:
    """One FiveCardDraw-v0 hand: the trained policy (seat 0) against the heuristic."""
    import gymnasium as gym

    import poker_env  # noqa: F401  (registers the env ids)
    from poker_env_agents.registry import make_baseline
    from poker_env_agents.runtime import load_policy

    env = gym.make(
        "poker_env/FiveCardDraw-v0",
        render_mode="ansi",
        opponent=make_baseline("draw", "heuristic", 1),
    )
    policy = load_policy(policy_path, env)
    obs, info = env.reset(seed=seed)
    done, total = False, 0.0
    while not done:
        print(env.render())
        a = policy.act(obs, info["action_mask"])
        print(f"   agent plays: {policy.action_names[a]}")
        obs, r, term, trunc, info = env.step(a)
        total += float(r)
        done = term or trunc
    print(env.render())
    print(
        f"-- hand over: the agent {'won' if total > 0 else 'lost' if total < 0 else 'drew'} {abs(total):.1f} antes"
    )


def panel_lines(policy_path: Path, hands: int) -> list[str]:
    """The held-out panel's worst case for the trained policy and the shipped draw52
    (the same deals), one line each."""
    from poker_env_agents.analysis.panel import panel_worst_case

    shipped = Path(__file__).resolve().parent.parent / "agents" / "models" / "draw52.npz"
    out = []
    for label, path in (("this agent", policy_path), ("shipped draw52", shipped)):
        w = panel_worst_case(path, hands=hands, seed=0)
        row = w["worst"]["heads-up"]
        half = (row["ci_high"] - row["ci_low"]) / 2
        out.append(
            f"  {label:15s} worst case: {row['bot']}: {row['mean']:+.3f} ± {half:.3f} "
            f"{row['unit']} ({row['hands']:,} hands)"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--timesteps", type=int, help="training budget (default: the config's)")
    p.add_argument("--out", type=Path, default=Path("runs/demo"))
    p.add_argument("--eval-hands", type=int, help="hands per evaluation match")
    p.add_argument(
        "--panel-hands", type=int, default=4000, help="hands per panel bot (0: no panel)"
    )
    args = p.parse_args(argv)

    from poker_env_agents.training.train import load_config, train

    config = load_config(
        CONFIG, timesteps=args.timesteps, out=str(args.out), eval_hands=args.eval_hands
    )
    if args.out.exists():
        shutil.rmtree(args.out)  # the demo always starts fresh
    print(f"== Training a five-card draw agent: {config.timesteps:,} steps, seed {config.seed} ==")
    print(
        f"   (the same run: python scripts/train.py --config {CONFIG.relative_to(Path.cwd()) if CONFIG.is_relative_to(Path.cwd()) else CONFIG})\n"
    )
    t0 = time.perf_counter()
    run = train(config, command="python scripts/demo.py")
    print(f"\ntrained, evaluated and exported in {time.perf_counter() - t0:.0f} s")
    if args.panel_hands:
        print(
            f"\n== The held-out panel (never trained against): the worst of its bots, "
            f"{args.panel_hands:,} duplicate hands each =="
        )
        print("\n".join(panel_lines(run / "policy.npz", args.panel_hands)))
    print("\n== One hand: the trained agent (seat 0) against the heuristic ==")
    one_hand(run / "policy.npz")
    print(
        f"""
== What next ==
  the exported policy (numpy only):  {run / "policy.npz"}
  TensorBoard curves:                .venv/bin/tensorboard --logdir {run / "tb"}
  evaluate it again, longer:         .venv/bin/python scripts/evaluate.py draw {run / "policy.npz"}@sample heuristic call random --hands 200000
                                     (@sample: played as in the table above; without it, its argmax)
  train on (resumable, same recipe):  .venv/bin/python scripts/train.py --resume {run} --timesteps 2000000
  the shipped recipe, whole:         .venv/bin/python scripts/ship_model.py draw52   (agents/configs/draw52.toml)
  its panel, longer:                 .venv/bin/python scripts/evaluate.py draw {run / "policy.npz"} --panel
  use it as an env's opponent:       poker_env_agents.runtime.load_policy("{run / "policy.npz"}")
  play against it:                   .venv/bin/python scripts/play.py draw --opponent {run / "policy.npz"}
  play the shipped opponent (hard):  .venv/bin/python scripts/play.py draw --opponent hard
  compare with the shipped policy:   .venv/bin/python scripts/evaluate.py draw {run / "policy.npz"} agents/models/draw52.npz
"""
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
