#!/usr/bin/env python
"""Train, ship and evaluate one of the computer opponents in ``agents/models/``.

Examples::

    python scripts/ship_model.py draw52                 # train (or resume), ship, evaluate
    python scripts/ship_model.py red_dog --eval-only    # evaluate the shipped file again
    python scripts/ship_model.py holdem_hu --exploit    # add BR and LBR to its table
    python scripts/ship_model.py --list

For ``NAME`` it runs ``scripts/train.py --config agents/configs/NAME.toml`` (resuming
the run folder the config names when it holds checkpoints), copies the run's
``policy.npz`` to ``agents/models/NAME.npz``, then evaluates that file and writes
``agents/models/NAME.eval.json``: head-to-head matches against the baselines
(duplicate deals, 95% intervals; poker_env_agents.evaluate) and the game's own measures (Red
Dog's exact decision value against the reference, the draw's share of best-equity
discards, the match's share of matches won), the held-out panel's table with its
worst case (``panel``; poker_env_agents.analysis.panel) and the play measures
(``measures``: folds with nothing to call per phase and bet sizes as fractions of the
pot, against a never-betting opponent and the panel). The same seed gives the same
file and the same table.

A ship is one unit: the new ``NAME.npz`` and its ``NAME.eval.json`` are staged in
``agents/models/`` (hidden names), then swapped in together; a ship killed on the
way leaves the folder as it was (the next ``ship_model.py`` run, any command, puts
back the old pair of a swap that was cut short). ``--no-eval`` ships the file and
removes the old table (which would describe another file).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from poker_env.errors import ConfigError  # noqa: E402
from poker_env_agents.training.checkpoints import atomic_write_text  # noqa: E402

#: name -> hands per baseline match (the heuristic's match gets ``strong_hands``), and
#: the extra measures: ``panel`` duplicate hands per held-out panel bot (draw-match:
#: matches; 6-max: per direction), ``measures`` decisions per opponent of the play
#: measures (dominated folds, bet sizes).
MODELS: dict[str, dict[str, Any]] = {
    "draw52": {
        "hands": 100_000,
        "strong_hands": 200_000,
        "discards": 100_000,
        "panel": 50_000,
        "measures": 10_000,
    },
    "draw32": {
        "hands": 100_000,
        "strong_hands": 200_000,
        "discards": 100_000,
        "panel": 50_000,
        "measures": 10_000,
    },
    "draw_match52": {"match_wins": 2_000, "panel": 500, "measures": 10_000},
    "red_dog": {"hands": 40_000, "strong_hands": 40_000, "decision_value": 100_000},
    "holdem_hu": {"hands": 40_000, "strong_hands": 60_000, "panel": 50_000, "measures": 10_000},
    "holdem_6max": {"hands": 20_000, "strong_hands": 30_000, "panel": 20_000, "measures": 10_000},
}
#: name -> the exploitability measures ``--exploit`` adds to the table (issue 25's
#: budgets): ``br`` a best response trained against the frozen file (steps, hands of its
#: final match), ``lbr`` Local Best Response hands in each pre-flop setting.
EXPLOIT: dict[str, dict[str, Any]] = {
    "draw52": {"br": (400_000, 131_072)},
    "draw32": {"br": (400_000, 131_072)},
    "holdem_hu": {"br": (400_000, 65_536), "lbr": 4_000},
    "holdem_6max": {"br": (200_000, 12_000)},
}
MODELS_DIR = ROOT / "agents" / "models"
CONFIGS_DIR = ROOT / "agents" / "configs"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def train(name: str) -> Path:
    """Train (or resume) the run of ``agents/configs/NAME.toml``; its folder."""
    from poker_env_agents.training.train import find_checkpoint, load_config

    config_path = CONFIGS_DIR / f"{name}.toml"
    config = load_config(config_path)
    run = ROOT / config.run_dir()
    cmd = [sys.executable, str(ROOT / "scripts" / "train.py"), "--config", str(config_path)]
    latest, _ = find_checkpoint(run)
    if latest is not None or (run / "config.toml").is_file():
        if latest is not None and latest.steps >= config.timesteps:
            if (run / "policy.npz").is_file():
                print(f"{run}: already trained to {latest.steps:,} steps")
                return run
        # The newest complete checkpoint (a run killed before its first starts over).
        cmd += ["--resume", str(run)]
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, cwd=ROOT)
    return run


def stage_model(models_dir: Path, name: str, policy: Path) -> Path:
    """A copy of ``policy`` staged in ``models_dir`` for :func:`ship_files`."""
    from poker_env_agents.training.checkpoints import stage

    with policy.open("rb") as src:
        return stage(models_dir, f"{name}.npz", lambda f: shutil.copyfileobj(src, f))


def ship_files(models_dir: Path, name: str, staged: Path, doc: dict[str, Any] | None) -> None:
    """Swap in the staged ``NAME.npz`` and its table ``doc`` (None: no table, the old
    one removed) together: a kill on the way leaves ``models_dir`` as it was once
    :func:`recover` has run."""
    from poker_env_agents.training.checkpoints import replace_together, stage

    table = None
    if doc is not None:
        text = (json.dumps(doc, indent=1) + "\n").encode("utf-8")
        table = stage(models_dir, f"{name}.eval.json", lambda f: f.write(text))
    replace_together(models_dir, {f"{name}.npz": staged, f"{name}.eval.json": table}, name)


def recover(models_dir: Path) -> list[str]:
    """Undo the ships a kill cut short (the models whose old files were put back)."""
    from poker_env_agents.training.checkpoints import undo_unfinished

    return undo_unfinished(models_dir)


def evaluate(
    name: str, path: Path, seed: int = 0, panel_hands: int | None = None
) -> dict[str, Any]:
    """The evaluation table of a shipped file (see the module docstring)."""
    from poker_env_agents.evaluate import (
        draw_discard_agreement,
        draw_match_wins,
        head_to_head,
        red_dog_decision_value,
        results_table,
    )
    from poker_env_agents.registry import make_baseline
    from poker_env_agents.runtime import load_policy

    spec = MODELS[name]
    policy = load_policy(path, deterministic=True)
    manifest = policy.manifest
    game = {"draw": "draw", "red_dog": "red-dog", "holdem": "holdem"}[manifest["game"]]
    if manifest["env"]["id"] == "poker_env/DrawMatch-v0":
        game = "draw-match"
    env_opts = manifest["env"]["options"]
    options: dict[str, Any] = {}
    if game.startswith("draw"):
        options["deck"] = 52 if env_opts["deck"] == "standard" else 32
    else:
        options["num_players"] = int(env_opts["num_players"])
    doc: dict[str, Any] = {
        "model": name,
        "file": f"agents/models/{name}.npz",
        "sha256": _sha256(path),
        "game": game,
        "options": options,
        "trained": {k: manifest["provenance"].get(k) for k in ("command", "seed", "steps")},
        "policy_play": "argmax (the 'hard' level)",
        "matches": [],
    }
    started = time.time()
    if game == "draw-match":
        wins = []
        for k, kind in enumerate(("heuristic", "call", "random")):
            human = make_baseline("draw-match", kind, seed=seed + 100 + k, **options)
            w = draw_match_wins(
                policy,
                human,
                options=options,
                matches=spec["match_wins"],
                seed=seed,
                names=(name, kind),
            )
            print(w, flush=True)
            wins.append({**dataclasses.asdict(w), "share": w.share, "half_width": w.half_width})
        doc["match_wins"] = wins
        from poker_env_agents.evaluate import buy_back_table

        human = make_baseline("draw-match", "heuristic", seed=seed + 200, **options)
        doc["buy_back"] = buy_back_table(policy, human, options=options, offers=5000, seed=seed)
        for row in doc["buy_back"]:
            print(
                f"buy-back: {row['lost']} lost, money {row['money']}: "
                f"{row['bought']:.0%} of {row['offers']} offers",
                flush=True,
            )
    else:

        def against_baselines(player: Any, label: str) -> list[Any]:
            rows = []
            for k, kind in enumerate(("random", "call", "heuristic")):
                opponent = make_baseline(game, kind, seed=seed + 100 + k, **options)
                r = head_to_head(
                    player,
                    opponent,
                    game=game,
                    options=options,
                    hands=spec["strong_hands"] if kind == "heuristic" else spec["hands"],
                    seed=seed,
                    names=(label, kind),
                )
                print(r, flush=True)
                rows.append(r)
            return rows

        results = against_baselines(policy, name)
        doc["matches"] = [dataclasses.asdict(r) for r in results]
        print(results_table(results, title=f"{name} against the baselines"))
        if game == "red-dog":
            # Red Dog is not zero-sum for one seat (the pot left at the end is
            # nobody's): the reference policy in the same seat against the same
            # opponents is the figure to compare with.
            reference = make_baseline(game, "heuristic", seed=seed + 50, **options)
            doc["reference_matches"] = [
                dataclasses.asdict(r) for r in against_baselines(reference, "reference")
            ]
    if "decision_value" in spec:
        v = red_dog_decision_value(
            policy,
            num_players=options["num_players"],
            decisions=spec["decision_value"],
            seed=seed,
        )
        print(v, flush=True)
        doc["decision_value"] = {**dataclasses.asdict(v), "ratio": v.ratio}
    if "discards" in spec:
        opponent = make_baseline(game, "heuristic", seed=seed + 7, **options)
        d = draw_discard_agreement(
            policy, opponent, game=game, options=options, decisions=spec["discards"], seed=seed
        )
        print(d, flush=True)
        doc["discards"] = dataclasses.asdict(d)
    if "panel" in spec:
        from poker_env_agents.analysis.panel import evaluate_panel, measures_lines, play_measures

        hands = panel_hands or spec["panel"]
        print(f"{name} against the held-out panel ({hands:,} per bot):", flush=True)
        panel = evaluate_panel(policy, game, options, hands=hands, seed=seed, progress=True)
        for line in panel.worst_lines():
            print(line, flush=True)
        doc["panel"] = panel.to_dict()
        doc["measures"] = play_measures(
            policy, game, options, decisions=spec["measures"], seed=seed
        )
        for line in measures_lines(doc["measures"]):
            print(line, flush=True)
    doc["seconds"] = round(time.time() - started, 1)
    return doc


def exploitability(name: str, path: Path, seed: int = 0) -> dict[str, Any]:
    """The exploitability measures of a shipped file (:data:`EXPLOIT`), seeded.

    A best response (``scripts/exploit.py br``) trained against the frozen file for the
    budget given, then its argmax against the file on duplicate deals; in heads-up
    Hold'em also LBR (``scripts/exploit.py lbr``) with the pre-flop fold/call setting and
    with ``--preflop-raises``. Both are lower bounds on the file's exploitability.
    """
    from poker_env_agents.analysis.exploit import (
        local_best_response,
        resolve_target,
        train_best_response,
    )

    spec = EXPLOIT[name]
    cfg = CONFIGS_DIR / f"{name}.toml"
    game = _config_game(cfg)
    options = _config_options(cfg)
    out: dict[str, Any] = {"sha256": _sha256(path)}
    started = time.time()
    rel = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
    steps, hands = spec["br"]
    br = train_best_response(
        rel,
        game,
        options,
        out=ROOT / "runs" / "best-response" / name,
        timesteps=steps,
        seed=seed,
        hands=hands,
        name=rel,
    )
    print(br, flush=True)
    out["best_response"] = br.to_dict()
    out["best_response"]["command"] = (
        f"python scripts/exploit.py br {game} {rel} --timesteps {steps} --hands {hands}"
        + "".join(f" --option {k}={v}" for k, v in options.items() if k != "deck" or v != 52)
    )
    if "lbr" in spec:
        out["lbr"] = []
        for raises in (False, True):
            target = resolve_target(rel, "holdem", {"num_players": 2}, seed=seed + 1)
            result = local_best_response(
                target, hands=spec["lbr"], seed=seed, preflop_raises=raises, name=rel
            )
            print(result, flush=True)
            out["lbr"].append(result.to_dict())
    out["seconds"] = round(time.time() - started, 1)
    return out


def _config_game(cfg: Path) -> str:
    import tomllib

    return str(tomllib.loads(cfg.read_text())["game"])


def _config_options(cfg: Path) -> dict[str, Any]:
    import tomllib

    return dict(tomllib.loads(cfg.read_text()).get("options", {}))


def add_exploitability(name: str, target: Path, seed: int = 0) -> None:
    """Measure the shipped ``target`` and add the figures to its ``.eval.json``.

    The table must describe this very file (its ``sha256``): a table of another file
    is refused, so the figures never land beside a file they were not measured on.
    """
    table_path = target.with_suffix(".eval.json")
    if not table_path.is_file():
        raise ConfigError(
            "model", name, f"an evaluated file (no {table_path.name}; run ship_model first)"
        )
    table = json.loads(table_path.read_text())
    if table.get("sha256") != _sha256(target):
        raise ConfigError(
            "model",
            name,
            f"a {table_path.name} of the shipped file (its sha256 differs: re-evaluate)",
        )
    table["exploitability"] = exploitability(name, target, seed=seed)
    if table["exploitability"]["sha256"] != _sha256(target):
        raise ConfigError("model", name, "a file left unchanged while it was measured")
    atomic_write_text(table_path, json.dumps(table, indent=1) + "\n")


def _kept_exploitability(target: Path) -> dict[str, Any] | None:
    """The exploitability figures of the current table, when they are of this file."""
    table_path = target.with_suffix(".eval.json")
    if not table_path.is_file():
        return None
    old = json.loads(table_path.read_text()).get("exploitability")
    if isinstance(old, dict) and old.get("sha256") == _sha256(target):
        return old
    return None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("name", nargs="?", help="the model: " + ", ".join(MODELS))
    p.add_argument("--list", action="store_true", help="list the models and their files")
    p.add_argument("--eval-only", action="store_true", help="evaluate the shipped file only")
    p.add_argument("--no-eval", action="store_true", help="train and ship without evaluating")
    p.add_argument("--seed", type=int, default=0, help="the evaluation's seed")
    p.add_argument(
        "--panel-hands",
        type=int,
        metavar="N",
        help="hands per held-out panel bot (default: the model's, 50,000 heads-up)",
    )
    p.add_argument(
        "--exploit",
        action="store_true",
        help="add the exploitability measures (best response, heads-up LBR) of the shipped "
        "file to its table, and do nothing else",
    )
    p.add_argument(
        "--no-exploit",
        action="store_true",
        help="ship without the exploitability measures (add them later with --exploit)",
    )
    args = p.parse_args(argv)
    for unit in recover(MODELS_DIR):
        print(f"{MODELS_DIR.relative_to(ROOT)}: undid the unfinished ship of {unit}")
    if args.list or not args.name:
        for name in MODELS:
            f = MODELS_DIR / f"{name}.npz"
            state = f"{f.stat().st_size / 1024:.0f} KiB" if f.is_file() else "not shipped"
            print(f"{name:14s} agents/configs/{name}.toml -> agents/models/{name}.npz ({state})")
        return 0
    if args.name not in MODELS:
        print(f"error: unknown model {args.name!r}; one of {', '.join(MODELS)}", file=sys.stderr)
        return 2
    target = MODELS_DIR / f"{args.name}.npz"
    try:
        if args.exploit:
            if args.name not in EXPLOIT:
                raise ConfigError(
                    "model", args.name, f"one with exploit measures: {', '.join(EXPLOIT)}"
                )
            add_exploitability(args.name, target, seed=args.seed)
            print(
                f"added the exploitability measures to {target.with_suffix('.eval.json').relative_to(ROOT)}"
            )
            return 0
        if not args.eval_only:
            run = train(args.name)
            MODELS_DIR.mkdir(parents=True, exist_ok=True)
            staged = stage_model(MODELS_DIR, args.name, run / "policy.npz")
            doc = (
                None
                if args.no_eval
                else evaluate(args.name, staged, seed=args.seed, panel_hands=args.panel_hands)
            )
            ship_files(MODELS_DIR, args.name, staged, doc)
            print(f"shipped {target.relative_to(ROOT)} ({target.stat().st_size / 1024:.0f} KiB)")
            if doc is not None and args.name in EXPLOIT and not args.no_exploit:
                add_exploitability(args.name, target, seed=args.seed)
        elif not target.is_file():
            raise ConfigError("model", args.name, f"a shipped file {target} (train it first)")
        elif not args.no_eval:
            doc = evaluate(args.name, target, seed=args.seed, panel_hands=args.panel_hands)
            kept = _kept_exploitability(target)
            if kept is not None:
                doc["exploitability"] = kept
            atomic_write_text(target.with_suffix(".eval.json"), json.dumps(doc, indent=1) + "\n")
        if not args.no_eval:
            print(f"wrote {target.with_suffix('.eval.json').relative_to(ROOT)}")
    except (ConfigError, ValueError, subprocess.CalledProcessError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
