"""Train a self-play agent with PPO on Ray RLlib (one machine or a Ray cluster).

Examples::

    python scripts/train_rllib.py holdem --players 6 --iterations 50
    python scripts/train_rllib.py holdem --players 6 --address auto --num-env-runners 16
    python scripts/train_rllib.py red-dog --players 4 --sampler stock --iterations 5
    python scripts/train_rllib.py draw --option deck=32 --out runs/rllib-draw32

``--address local`` (default) starts a Ray cluster in this process with
``--num-cpus`` CPUs; ``--address auto`` joins the cluster started with ``ray start``
on this machine (``ray start --head`` here, ``ray start --address HEAD:6379`` on the
others): the env runners spread over its machines. The run folder (``--out``,
default ``runs/rllib-<game>[-<players>p]-seed<seed>``) gets ``config.json``,
``checkpoints/iter_<n>/`` (RLlib checkpoints), ``tb/`` (``tensorboard --logdir
RUN/tb``), ``metrics.jsonl`` and ``policy.npz``, the exported policy that
``scripts/evaluate.py`` and ``play`` take. See docs/distributed.md.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# Ray 2.60 turns token authentication on by default; a local cluster started here
# needs none (set RAY_AUTH_MODE yourself for a shared cluster).
os.environ.setdefault("RAY_AUTH_MODE", "disabled")

from poker_env.errors import ConfigError
from poker_env_agents.cli._args import (
    float_above,
    float_at_least,
    game_name,
    int_at_least,
    needs_extras,
)
from poker_env_agents.registry import parse_option

GAMES = ("draw", "draw-match", "red-dog", "holdem")
SAMPLERS = ("batched", "stock")


def _key_value(text: str) -> tuple[str, Any]:
    try:
        return parse_option(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="poker-train-rllib",
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("game", type=game_name, choices=GAMES)
    p.add_argument(
        "--address",
        default="local",
        help="'local' (start a Ray cluster here, default), 'auto' (join this machine's "
        "cluster) or HOST:PORT",
    )
    p.add_argument("--num-env-runners", type=int_at_least(0), default=1, dest="num_env_runners")
    p.add_argument(
        "--num-envs-per-env-runner",
        type=int_at_least(1),
        dest="num_envs_per_env_runner",
        help="tables per runner (default 256 batched, 8 stock)",
    )
    p.add_argument("--players", type=int, help="seats at the table (red-dog, holdem: 2..10)")
    p.add_argument("--option", type=_key_value, action="append", default=[], metavar="K=V")
    p.add_argument("--sampler", choices=SAMPLERS, default="batched")
    p.add_argument("--iterations", type=int_at_least(1), default=10)
    p.add_argument("--seed", type=int_at_least(0), default=0)
    p.add_argument("--train-batch-size", type=int_at_least(1), dest="train_batch_size")
    p.add_argument("--minibatch-size", type=int_at_least(1), dest="minibatch_size")
    p.add_argument("--num-epochs", type=int_at_least(1), dest="num_epochs")
    p.add_argument("--lr", type=float_above(0), help="learning rate (> 0)")
    p.add_argument(
        "--entropy-coeff", type=float_at_least(0), dest="entropy_coeff", help="entropy bonus (>= 0)"
    )
    p.add_argument("--checkpoint-every", type=int_at_least(1), dest="checkpoint_every")
    p.add_argument(
        "--num-learners",
        type=int_at_least(0),
        dest="num_learners",
        help="remote learners (default 0: in the driver); with GPUs, one per GPU",
    )
    p.add_argument(
        "--num-gpus-per-learner",
        type=float_at_least(0),
        dest="num_gpus_per_learner",
        help="default 0",
    )
    p.add_argument("--num-cpus", type=int_at_least(1), default=None, help="CPUs of a local cluster")
    p.add_argument("--out", default="", help="the run folder")
    p.add_argument(
        "--resume",
        metavar="CHECKPOINT",
        help="continue from a checkpoint folder (RUN/checkpoints/iter_<n>) or a run "
        "folder (its newest complete checkpoint) with the same options; --iterations "
        "more iterations. Ray unpickles a checkpoint, so it must be signed with your "
        "key (~/.config/poker_env/checkpoint.key): checkpoints you wrote",
    )
    p.add_argument(
        "--trust-checkpoint",
        action="store_true",
        help="resume from a checkpoint not signed with your key (your own run from "
        "another machine: or copy that machine's key). A crafted checkpoint runs code",
    )
    return p


@needs_extras("poker-train-rllib", "train", "rllib", install="train,rllib")
def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    options = dict(args.option)
    if args.players is not None:
        if args.game not in ("red-dog", "holdem"):
            print(
                f"error: --players: {args.game} is heads-up (only red-dog and holdem take "
                "--players)",
                file=sys.stderr,
            )
            return 2
        options["num_players"] = args.players
    from poker_env_agents.training.rllib import RLlibConfig, train

    fields: dict[str, Any] = {
        k: getattr(args, k)
        for k in (
            "train_batch_size",
            "minibatch_size",
            "num_epochs",
            "lr",
            "entropy_coeff",
            "checkpoint_every",
            "num_learners",
            "num_gpus_per_learner",
        )
        if getattr(args, k) is not None
    }
    per_runner = args.num_envs_per_env_runner or (256 if args.sampler == "batched" else 8)
    cfg = RLlibConfig(
        game=args.game,
        options=options,
        sampler=args.sampler,
        num_env_runners=args.num_env_runners,
        num_envs_per_env_runner=per_runner,
        iterations=args.iterations,
        seed=args.seed,
        out=args.out,
        **fields,
    )
    try:
        cfg.validate()
    except ConfigError as exc:
        print(f"poker-train-rllib: error: {exc}", file=sys.stderr)
        return 2
    from poker_env_agents.training.checkpoints import UntrustedCheckpointError, signing_key

    try:
        signing_key()  # made now, or a bad key file named, before Ray starts
    except (OSError, ValueError) as exc:
        print(f"poker-train-rllib: error: checkpoint signing key: {exc}", file=sys.stderr)
        return 2
    if args.resume:
        from poker_env_agents.training.rllib import find_rllib_checkpoint

        try:
            find_rllib_checkpoint(args.resume, trust=args.trust_checkpoint)
        except (FileNotFoundError, UntrustedCheckpointError) as exc:
            print(f"poker-train-rllib: error: {exc}", file=sys.stderr)
            return 2
    import ray

    if args.address == "local":
        cpus = args.num_cpus or max(2, args.num_env_runners + (args.num_learners or 0) + 1)
        ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
    else:
        ray.init(address=args.address, log_to_driver=False)
    try:
        result = train(cfg, resume=args.resume, trust_checkpoint=args.trust_checkpoint)
    except (ConfigError, FileNotFoundError, UntrustedCheckpointError) as exc:
        print(f"poker-train-rllib: error: {exc}", file=sys.stderr)
        return 2
    finally:
        ray.shutdown()
    print(f"run folder: {result.run_dir}")
    print(f"checkpoint: {result.checkpoint}")
    print(f"policy:     {result.policy}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
