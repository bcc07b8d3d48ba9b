"""Train an agent with MaskablePPO over the batched envs.

Examples::

    python scripts/train.py draw --timesteps 300000 --seed 0
    python scripts/train.py holdem --option num_players=6 --timesteps 2000000
    python scripts/train.py --config draw52                # a shipped recipe, by name
    python scripts/train.py --config my-recipe.toml        # or a TOML file
    python scripts/train.py --resume runs/draw-seed0      # continue a run
    python scripts/train.py --resume runs/draw52 --config draw52  # on to the recipe's

Options on the command line override the config file. The run folder (``--out``,
default ``runs/<game>-seed<seed>``) gets the config, checkpoints, the snapshot pool,
TensorBoard logs (``tensorboard --logdir RUN/tb``), the model, the exported policy
and the final evaluation. See docs/agents.md.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import MISSING
from pathlib import Path
from typing import Any

# The numpy runtime's batched inference: on a busy 2-core machine OpenBLAS with two
# threads was 4x slower than with one (set before numpy is imported).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from poker_env.errors import ConfigError
from poker_env_agents import assets
from poker_env_agents.cli._args import (
    FILE_AND_CONFIG_ERRORS,
    command_for,
    game_name,
    needs_extras,
    say_error,
    tool_command,
)
from poker_env_agents.registry import GAMES, parse_option
from poker_env_agents.training.selfplay import OPPONENT_KINDS


def _key_value(text: str) -> tuple[str, Any]:
    try:
        return parse_option(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _opponents(text: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for part in text.split(","):
        kind, sep, weight = part.partition(":")
        if kind not in OPPONENT_KINDS:
            raise argparse.ArgumentTypeError(f"opponent kind {kind!r}; allowed: {OPPONENT_KINDS}")
        try:
            out[kind] = float(weight) if sep else 1.0
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"weight of {kind!r}: a number, got {weight!r}"
            ) from None
    return out


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="poker-train",
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "game", type=game_name, nargs="?", choices=sorted(GAMES), help="the game (or from --config)"
    )
    p.add_argument(
        "--config",
        metavar="FILE|NAME",
        help="a TOML file of TrainConfig fields, or a shipped recipe by name: "
        + ", ".join(assets.shipped_configs()),
    )
    p.add_argument("--resume", type=Path, metavar="RUN", help="continue the run in this folder")
    p.add_argument(
        "--option",
        type=_key_value,
        action="append",
        default=[],
        metavar="K=V",
        help="an env option, e.g. num_players=6 or deck=32 (repeatable)",
    )
    p.add_argument("--timesteps", type=int)
    p.add_argument("--seed", type=int)
    p.add_argument("--num-tables", type=int, dest="num_tables")
    p.add_argument("--num-groups", type=int, dest="num_groups")
    p.add_argument(
        "--opponents", type=_opponents, help="opponent mix, e.g. random:0.2,heuristic:0.5,pool:0.3"
    )
    p.add_argument(
        "--fixed-opponent",
        dest="fixed_opponent",
        metavar="POLICY",
        help="what opponent kind 'fixed' plays: a baseline kind or FILE.npz[@sample]",
    )
    p.add_argument("--pool-size", type=int, dest="pool_size")
    p.add_argument("--snapshot-every", type=int, dest="snapshot_every")
    p.add_argument(
        "--net-arch",
        type=_layer_widths,
        dest="net_arch",
        help="hidden sizes, e.g. 128,128",
    )
    p.add_argument("--activation", choices=["tanh", "relu"])
    p.add_argument("--learning-rate", type=float, dest="learning_rate")
    p.add_argument(
        "--learning-rate-final",
        type=float,
        dest="learning_rate_final",
        help="the learning rate at the end (a linear decay; -1: constant)",
    )
    p.add_argument("--n-steps", type=int, dest="n_steps")
    p.add_argument("--batch-size", type=int, dest="batch_size")
    p.add_argument("--n-epochs", type=int, dest="n_epochs")
    p.add_argument("--ent-coef", type=float, dest="ent_coef")
    p.add_argument("--clip-range", type=float, dest="clip_range")
    p.add_argument(
        "--algo", choices=["ppo", "mmd"], help="MaskablePPO, or it with the MMD term (mmd)"
    )
    p.add_argument("--kl-coef", type=float, dest="kl_coef", help="the MMD term's weight")
    p.add_argument(
        "--magnet",
        choices=["uniform", "ema"],
        help="mmd: the ent_coef term's magnet, uniform (entropy) or ema (moving average)",
    )
    p.add_argument(
        "--magnet-tau", type=float, dest="magnet_tau", help="the moving magnet's step per update"
    )
    p.add_argument(
        "--ent-coef-final",
        type=float,
        dest="ent_coef_final",
        help="mmd: the ent_coef term's weight at the end (a linear decay; -1: constant)",
    )
    p.add_argument("--gamma", type=float)
    p.add_argument(
        "--warm-start",
        dest="warm_start",
        metavar="POLICY",
        help="imitate this policy (a baseline kind or FILE.npz) before PPO starts",
    )
    p.add_argument("--warm-start-steps", type=int, dest="warm_start_steps")
    p.add_argument("--warm-start-epochs", type=int, dest="warm_start_epochs")
    p.add_argument(
        "--features",
        help="a feature set the policy reads after the observation (poker_env_agents.features), "
        "e.g. draw-strength",
    )
    p.add_argument("--torch-threads", type=int, dest="torch_threads")
    p.add_argument("--checkpoint-every", type=int, dest="checkpoint_every")
    p.add_argument("--eval-every", type=int, dest="eval_every")
    p.add_argument("--eval-hands", type=int, dest="eval_hands")
    p.add_argument("--out", type=str, help="the run folder")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--no-eval", action="store_true", help="skip the final evaluation")
    # An option without its own help says what it sets and the default (docs/agents.md
    # "Training" has the table).
    import dataclasses

    from poker_env_agents.training.train import TrainConfig

    defaults = {
        f.name: f.default for f in dataclasses.fields(TrainConfig) if f.default is not MISSING
    }
    for action in p._actions:
        if action.help is None and action.dest in defaults:
            default = defaults[action.dest]
            action.help = f"TrainConfig.{action.dest} (default {default!r})"
    return p


FIELDS = (
    "timesteps",
    "seed",
    "num_tables",
    "num_groups",
    "opponents",
    "fixed_opponent",
    "pool_size",
    "snapshot_every",
    "net_arch",
    "activation",
    "learning_rate",
    "learning_rate_final",
    "n_steps",
    "batch_size",
    "n_epochs",
    "ent_coef",
    "clip_range",
    "algo",
    "kl_coef",
    "magnet",
    "magnet_tau",
    "ent_coef_final",
    "gamma",
    "features",
    "warm_start",
    "warm_start_steps",
    "warm_start_epochs",
    "torch_threads",
    "checkpoint_every",
    "eval_every",
    "eval_hands",
    "out",
)


def _layer_widths(text: str) -> list[int]:
    """``--net-arch 128,128``: the hidden layers' widths (it said "invalid <lambda>
    value")."""
    try:
        widths = [int(x) for x in text.split(",")]
    except ValueError:
        widths = []
    if not widths or min(widths) < 1:
        raise argparse.ArgumentTypeError(
            f"the hidden layers' widths, positive integers separated by commas "
            f"(e.g. 128,128), got {text!r}"
        )
    return widths


def _with_flags(config: Any, flags: dict[str, Any]) -> dict[str, Any]:
    """``config``'s fields with the command line's over them (``options`` and
    ``opponents`` key by key, as ``load_config`` does over a file)."""
    import dataclasses

    fields = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    for key, value in flags.items():
        if value is None:
            continue
        if key in ("options", "opponents") and isinstance(value, dict):
            fields[key] = {**fields[key], **value}
        else:
            fields[key] = value
    return fields


def _interrupted(out: Path | None) -> int:
    """Ctrl-C: one line saying where the run stands and how to go on (exit 130)."""
    from poker_env_agents.training.train import find_checkpoint

    where = ""
    if out is not None and (out / "config.toml").is_file():
        ckpt, _ = find_checkpoint(out)
        where = (
            f"; its newest checkpoint is at step {ckpt.steps:,}; continue with: "
            f"{command_for('poker-train')} --resume {out}"
            if ckpt is not None
            else f"; it has no checkpoint yet: start it again ({command_for('poker-train')} "
            f"--resume {out} "
            "starts over)"
        )
    print(f"\npoker-train: interrupted{where}", file=sys.stderr)
    return 130


@needs_extras("poker-train", "train")
def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    from poker_env_agents.training.train import TrainConfig, config_fields, load_config, train

    config: TrainConfig | None = None
    try:
        overrides: dict[str, Any] = {f: getattr(args, f) for f in FIELDS}
        if args.game:
            overrides["game"] = args.game
        if args.option:
            overrides["options"] = dict(args.option)
        if args.resume is not None:
            config_file = args.resume / "config.toml"
            if not config_file.is_file():
                raise ConfigError("resume", str(args.resume), "a run folder with config.toml")
            overrides["out"] = str(args.resume)
            run_game = load_config(config_file).game
            recipe: dict[str, Any] = {}
            if args.config is not None:
                # The recipe's fields go over the run's, whole (its [opponents] table is
                # the mix, not added to the run's), the flags over both (an --option
                # key by key); a change to the model's shape is refused by train.
                recipe = config_fields(assets.config_file(args.config))
                recipe.pop("out", None)
            game = overrides.get("game") or recipe.get("game")
            if game and game != run_game:
                raise ConfigError("game", game, f"{run_game!r}, the game of the run {args.resume}")
            base = load_config(None, **{**config_fields(config_file), **recipe})
            config = load_config(None, **_with_flags(base, overrides))
        else:
            recipe_file = assets.config_file(args.config) if args.config is not None else None
            config = load_config(recipe_file, **overrides)
        run = train(
            config,
            resume=args.resume is not None,
            progress_bar=not args.no_progress,
            evaluate=not args.no_eval,
            command="python scripts/train.py " + " ".join(sys.argv[1:] if argv is None else argv),
        )
    except FILE_AND_CONFIG_ERRORS as exc:
        return say_error("poker-train", exc)
    except KeyboardInterrupt:
        return _interrupted(config.run_dir() if config is not None else None)
    print(f"\nrun folder: {run}")
    print(f"  exported policy: {run / 'policy.npz'}")
    print(f"  TensorBoard:     {tool_command('tensorboard')} --logdir {run / 'tb'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
