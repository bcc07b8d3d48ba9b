"""Export a trained SB3 model to the numpy policy file (and ONNX).

    python scripts/export.py MODEL.zip --env poker_env/Holdem-v0 --env-option num_players=6 \\
        --out DIR [--onnx]

writes ``DIR/policy.npz`` (weights + manifest, run by ``poker_env_agents.runtime.load_policy``
with numpy alone) and, with ``--onnx``, ``DIR/policy.onnx``. ``--env-option`` values
are read as JSON where they parse (``6``, ``[0.5, 1]``, ``true``) and as text
otherwise (``deck=short``); give the options the model was trained with.
``--provenance KEY=VALUE`` adds facts to the manifest's provenance (an SB3 zip does
not record the command that trained it: ``--provenance command="..."``).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from poker_env_agents.cli._args import USER_ERRORS, needs_extras, say_error
from poker_env_agents.training.export import ExportError, export_policy


def parse_option(text: str) -> tuple[str, Any]:
    """``k=v`` -> (k, v), v read as JSON where it parses, else kept as text."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        # argparse names the option (--env-option or --provenance) before this.
        raise argparse.ArgumentTypeError(f"{text!r}: expected KEY=VALUE")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def load_model(path: Path, algo: str) -> Any:
    """Load an SB3 model zip: MaskablePPO, PPO, or whichever of them loads (``auto``)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import PPO

    table: dict[str, list[Any]] = {
        "maskable_ppo": [MaskablePPO],
        "ppo": [PPO],
        "auto": [MaskablePPO, PPO],
    }
    from poker_env_agents.runtime import PolicyFileError
    from poker_env_agents.sb3_load import load_sb3, safe_custom_objects

    classes = table[algo]
    try:
        safe_custom_objects(path)  # a file that names code is refused before any class
    except PolicyFileError as exc:
        raise ExportError(str(exc)) from None
    errors = []
    for cls in classes:
        try:
            return load_sb3(path, cls, device="cpu")
        except Exception as exc:  # the next class may fit; all reported below
            errors.append(f"{cls.__name__}: {exc}")
    raise ExportError(f"cannot load {path} as an SB3 model ({'; '.join(errors)})")


@needs_extras("poker-export", "train", "export")
def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    ap = argparse.ArgumentParser(
        prog="poker-export", description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    ap.add_argument("model", type=Path, help="the SB3 model zip (model.save(...))")
    ap.add_argument("--env", required=True, help="the Gymnasium id, e.g. poker_env/Holdem-v0")
    ap.add_argument(
        "--env-option",
        action="append",
        default=[],
        type=parse_option,
        metavar="KEY=VALUE",
        help="an env option the model was trained with (repeatable)",
    )
    ap.add_argument(
        "--provenance",
        action="append",
        default=[],
        type=parse_option,
        metavar="KEY=VALUE",
        help="a fact for the manifest's provenance, e.g. command='train.py draw' (repeatable)",
    )
    ap.add_argument("--out", required=True, type=Path, help="output folder")
    ap.add_argument("--onnx", action="store_true", help="also write policy.onnx")
    ap.add_argument(
        "--force",
        action="store_true",
        help="replace a policy.npz (policy.onnx) already in --out (refused without it)",
    )
    ap.add_argument("--algo", choices=["auto", "maskable_ppo", "ppo"], default="auto")
    args = ap.parse_args(argv)

    import gymnasium as gym

    import poker_env  # noqa: F401  (registers the ids)

    if not args.model.is_file():
        print(f"{ap.prog}: error: no such model file: {args.model}", file=sys.stderr)
        return 2
    if not args.force:
        # Another run's exported policy (a training run's folder holds one) is not
        # overwritten by a slip of --out.
        names = ["policy.npz", "policy.onnx"] if args.onnx else ["policy.npz"]
        there = [str(args.out / n) for n in names if (args.out / n).exists()]
        if there:
            print(
                f"{ap.prog}: error: {' and '.join(there)} already there; give another --out, "
                "or --force to replace it",
                file=sys.stderr,
            )
            return 2
    options = dict(args.env_option)
    from poker_env_agents.registry import GAMES, check_run_config

    ours = sorted(k for k in gym.registry if k.startswith("poker_env/"))
    if args.env not in gym.registry:
        print(
            f"{ap.prog}: error: unknown env id {args.env!r}; allowed: {', '.join(ours)}",
            file=sys.stderr,
        )
        return 2
    game = next((g.name for g in GAMES.values() if g.env_id == args.env), None)
    try:
        if game is not None:
            GAMES[game].options(options)  # an unknown option, named with the allowed ones
        env = gym.make(args.env, disable_env_checker=True, **options).unwrapped
    except Exception as exc:  # shown to the user as the reason
        print(f"{ap.prog}: error: cannot make {args.env} with {options}: {exc}", file=sys.stderr)
        return 2
    try:
        if game is not None:
            # A zip of a training run: its config.toml's game and options must be these.
            check_run_config(args.model, game, options)
        model = load_model(args.model, args.algo)
        command = shlex.join(["scripts/export.py", *(sys.argv[1:] if argv is None else argv)])
        result = export_policy(
            model,
            args.out / "policy.npz",
            env,
            # An SB3 zip does not record the command that trained it: None unless given.
            provenance={
                "command": None,
                "export_command": command,
                "source_model": str(args.model),
                **dict(args.provenance),
            },
            onnx=args.onnx,
        )
    except USER_ERRORS as exc:  # an ExportError is a ValueError
        return say_error(ap.prog, exc)
    m = result.manifest
    shape = [m["observation"]["size"]] + [layer["out"] for layer in m["network"]["layers"]]
    acts = [layer["activation"] for layer in m["network"]["layers"]]
    print(f"wrote {result.npz}  ({m['env']['id']}, mlp {shape}, activations {acts})")
    if result.onnx is not None:
        print(f"wrote {result.onnx}  (input 'observation', output 'logits', mask applied outside)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
