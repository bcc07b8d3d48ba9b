"""Learning curves of a training run: every checkpoint measured against the held-out
panel, the heuristic and a best response.

Examples::

    python scripts/learning_curves.py runs/draw52 --png docs/img/draw52_learning_curves.png
    python scripts/learning_curves.py runs/holdem_hu --lbr-hands 4000
    python scripts/learning_curves.py runs/draw52 --plot-only --png docs/img/x.png

For every complete checkpoint of the run folder (``checkpoints/step_<n>``, the rules of
``--resume``: :func:`poker_env_agents.training.train.complete_checkpoints`) it exports
the model to the numpy policy (``curves/step_<n>.npz`` in the run folder), plays it
by argmax, as the shipped policies play, and measures:

- **panel**: the held-out panel's worst case
  (:func:`poker_env_agents.analysis.panel.panel_worst_case`, ``--panel-hands``
  duplicate hands per bot; heads-up: the policy's lowest result; 6-max: minus the best
  bot's result among copies of the policy; draw-match: her lowest share of matches).
- **heuristic**: the policy against the game's heuristic on duplicate deals with its
  95% interval: exactly ``scripts/evaluate.py GAME curves/step_<n>.npz heuristic
  --hands H --seed S --tables T`` (the same seeds, the same figure).
- **exploit**: Hold'em heads-up: LBR (:func:`~poker_env_agents.analysis.lbr.local_best_response`,
  mbb/hand, ``--lbr-hands``; no training, the exploit module's cheapest sound
  measure there). Every other game: a best response trained against the frozen
  checkpoint on a small fixed budget (``--br-timesteps``, the exploit module's recipe,
  :data:`~poker_env_agents.analysis.exploit.BEST_RESPONSE_BUDGET`, otherwise), then
  played against it (``--br-hands``). Its win is a lower bound on the checkpoint's
  exploitability; with the same budget and seed at every checkpoint the points
  compare, but a small budget finds less than the 1M-step figure of the shipped
  tables. Five-card draw has no LBR.

The points go to ``learning_curves.json`` in the run folder (``--json``), written
whole after each checkpoint; a rerun measures only the checkpoints that are not there
yet (it refuses a file measured with other settings, or a checkpoint that changed
since), so a killed run loses at most the checkpoint it was measuring. The
TensorBoard scalars (``curves/panel_worst``, ``curves/vs_heuristic``,
``curves/best_response`` or ``curves/lbr_mbb``, each with ``_ci_low`` / ``_ci_high``;
steps = checkpoint steps) are written again from the JSON into ``tb/curves`` on every
run, so they always show each point once. The plot (``--png``, default
``learning_curves.png`` in the run folder) has one panel per measure.

The training code never imports the panel (an import-linter contract); this command
sits above both, in the command layer.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from poker_env.errors import ConfigError

FORMAT = "poker_env.learning_curves"
#: The measures of a point, in the plot's order: JSON key -> TensorBoard tag.
TAGS = {"panel": "curves/panel_worst", "heuristic": "curves/vs_heuristic"}
EXPLOIT_KINDS = ("auto", "lbr", "br", "none")


@dataclass(frozen=True)
class CurveSettings:
    """What every point of a run's curves is measured with (the same for all of them).

    Attributes:
        seed: the seed of every match (the panel's, the heuristic's, LBR's deals and the
            best response's training).
        hands: duplicate hands against the heuristic; ``tables`` tables per round.
        panel_hands: duplicate hands per panel bot (draw-match: matches).
        exploit: ``auto`` (LBR in Hold'em heads-up, a best response elsewhere), ``lbr``,
            ``br`` or ``none``.
        lbr_hands: LBR's hands (two a deal).
        br_timesteps, br_warm_start_steps, br_hands: the best response's training
            steps, its warm start's steps (imitating the heuristic) and its match's hands.
        br_budget: other :class:`~poker_env_agents.training.train.TrainConfig` fields of
            the best response (over the exploit module's budget; tests make it tiny).
    """

    seed: int = 0
    hands: int = 20_000
    tables: int = 1024
    panel_hands: int = 4_000
    exploit: str = "auto"
    lbr_hands: int = 2_000
    br_timesteps: int = 200_000
    br_warm_start_steps: int = 100_000
    br_hands: int = 20_000
    br_budget: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("hands", "tables", "panel_hands", "lbr_hands", "br_timesteps", "br_hands"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ConfigError(name, v, "an integer >= 1")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ConfigError("seed", self.seed, "an integer >= 0")
        if self.exploit not in EXPLOIT_KINDS:
            raise ConfigError("exploit", self.exploit, f"one of {EXPLOIT_KINDS}")

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["br_budget"] = {
            k: (list(v) if isinstance(v, tuple) else v) for k, v in d["br_budget"].items()
        }
        return json.loads(json.dumps(d))  # type: ignore[no-any-return]


#: Smaller budgets where an episode is a whole match (the draw match: ``hands`` and
#: ``br_hands`` are matches, ``panel_hands`` matches per bot).
GAME_BUDGETS: dict[str, dict[str, int]] = {
    "draw-match": {"hands": 1_000, "panel_hands": 200, "br_hands": 1_000},
}


def default_settings(game: str, **given: Any) -> CurveSettings:
    """:class:`CurveSettings` for ``game``: ``given`` (None values left out) over the
    game's budgets (:data:`GAME_BUDGETS`) over the defaults."""
    fields = {**GAME_BUDGETS.get(game, {}), **{k: v for k, v in given.items() if v is not None}}
    return CurveSettings(**fields)


def exploit_kind(settings: CurveSettings, game: str, options: Mapping[str, Any]) -> str:
    """The exploitability measure of ``game``: ``lbr``, ``br`` or ``none``."""
    heads_up = game != "holdem" or int(options.get("num_players", 2)) == 2
    if settings.exploit == "auto":
        return "lbr" if game == "holdem" and heads_up else "br"
    if settings.exploit == "lbr" and not (game == "holdem" and heads_up):
        raise ConfigError("exploit", "lbr", "LBR is for heads-up Hold'em; 'br' or 'none' here")
    return settings.exploit


def _interval(mean: float, low: float, high: float, hands: int, unit: str) -> dict[str, Any]:
    return {"mean": mean, "ci_low": low, "ci_high": high, "hands": hands, "unit": unit}


def measure_policy(
    policy_file: Path,
    game: str,
    options: Mapping[str, Any],
    settings: CurveSettings,
    *,
    br_out: Path,
    label: str = "policy",
) -> dict[str, Any]:
    """The three measures of one exported policy (argmax play): ``panel``, ``heuristic``
    and ``exploit`` (None with ``exploit="none"``), each ``{mean, ci_low, ci_high,
    hands, unit, ...}``. ``br_out``: the best response's run folder (replaced)."""
    from poker_env_agents.analysis.exploit import local_best_response, train_best_response
    from poker_env_agents.analysis.panel import panel_worst_case
    from poker_env_agents.evaluate import head_to_head
    from poker_env_agents.registry import get_game, resolve_policy

    spec = get_game(game)
    opts = spec.options(options)
    s = settings
    worst = panel_worst_case(policy_file, hands=s.panel_hands, seed=s.seed)
    # The kind panel_worst_case plots: the match, heads-up, or the bot among policies.
    kinds = worst["worst"]
    row = kinds.get("match") or kinds.get("heads-up") or kinds["bot among policies"]
    sign = -1.0 if row["kind"] == "bot among policies" else 1.0
    lo, hi = sorted((sign * row["ci_low"], sign * row["ci_high"]))
    panel = {
        **_interval(worst["value"], lo, hi, int(row["hands"]), str(row["unit"])),
        "bot": worst["bot"],
        "kind": row["kind"],
    }
    # As scripts/evaluate.py GAME FILE heuristic plays it: players seeded seed + 17 k.
    policy = resolve_policy(str(policy_file), game, opts, seed=s.seed)
    heuristic = resolve_policy("heuristic", game, opts, seed=s.seed + 17)
    r = head_to_head(
        policy,
        heuristic,
        game=game,
        options=opts,
        hands=s.hands,
        seed=s.seed,
        num_tables=s.tables,
        names=(label, "heuristic"),
    )
    vs_heuristic = _interval(r.mean, r.ci_low, r.ci_high, r.hands, r.unit)
    kind = exploit_kind(s, spec.name, opts)
    exploit: dict[str, Any] | None = None
    if kind == "lbr":
        lbr = local_best_response(policy, hands=s.lbr_hands, seed=s.seed, name=label)
        exploit = {
            **_interval(lbr.mean, lbr.ci_low, lbr.ci_high, lbr.hands, "mbb/hand"),
            "kind": "lbr",
        }
    elif kind == "br":
        if br_out.exists():
            shutil.rmtree(br_out)  # a best response cut short by a kill: train it again
        br = train_best_response(
            policy,
            game,
            opts,
            out=br_out,
            timesteps=s.br_timesteps,
            seed=s.seed,
            hands=s.br_hands,
            name=label,
            warm_start_steps=s.br_warm_start_steps,
            **dict(s.br_budget),
        )
        m = br.result
        exploit = {
            **_interval(m.mean, m.ci_low, m.ci_high, m.hands, m.unit),
            "kind": "br",
            "steps": br.steps,
        }
    return {"panel": panel, "heuristic": vs_heuristic, "exploit": exploit}


def _load(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ConfigError("curves file", str(path), f"valid JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ConfigError("curves file", str(path), f"a {FORMAT} JSON file")
    return doc


def learning_curves(
    run: Path,
    settings: CurveSettings | None = None,
    *,
    json_path: Path | None = None,
    progress: bool = True,
    limit: int | None = None,
) -> dict[str, Any]:
    """Measure every complete checkpoint of ``run`` not yet in its curves file and
    write the file (after each checkpoint) and the TensorBoard scalars.

    Args:
        run: a run folder of :func:`poker_env_agents.training.train.train`.
        settings: the measures' settings (default: :func:`default_settings`); a file
            measured with other settings is refused.
        json_path: the curves file (default ``run/learning_curves.json``).
        progress: a progress bar over the checkpoints, and a line per point.
        limit: measure at most this many new checkpoints (None: all).

    Returns:
        The curves document (``points`` in step order).
    """
    from tqdm import tqdm

    from poker_env_agents.training.checkpoints import atomic_write_text, sha256_of
    from poker_env_agents.training.train import (
        complete_checkpoints,
        export_checkpoint,
        load_config,
    )

    run = Path(run)
    if not (run / "config.toml").is_file():
        raise ConfigError("run", str(run), "a run folder with its config.toml")
    config = load_config(run / "config.toml")
    game = config.spec.name
    if game == "red-dog":
        raise ConfigError(
            "run", str(run), "a draw, draw-match or Hold'em run (no panel for Red Dog)"
        )
    opts = config.spec.options(config.options)
    s = settings or default_settings(game)
    kind = exploit_kind(s, game, opts)
    path = json_path or run / "learning_curves.json"
    doc = _load(path) or {
        "format": FORMAT,
        "run": str(run),
        "game": game,
        "options": opts,
        "settings": s.to_dict(),
        "exploit": kind,
        "points": [],
    }
    if doc["settings"] != s.to_dict():
        raise ConfigError(
            "settings",
            s.to_dict(),
            f"the settings {path} was measured with, {doc['settings']} (or another --json file)",
        )
    ckpts, skipped = complete_checkpoints(run)
    for name, why in skipped:
        print(f"{run}: skipped {name}: {why}", file=sys.stderr)
    done = {int(p["steps"]): p for p in doc["points"]}
    for c in ckpts:
        p = done.get(c.steps)
        if p is not None and p["checkpoint_sha256"] != sha256_of(c.zip):
            raise ConfigError(
                "checkpoint",
                c.name,
                f"the one measured in {path} (its model changed since: a new run in the "
                "same folder? use another --json)",
            )
    todo = [c for c in ckpts if c.steps not in done][:limit]
    curves_dir = run / "curves"
    bar = tqdm(todo, desc=f"learning curves {run.name}", unit="ckpt", disable=not progress)
    for c in bar:
        bar.set_postfix_str(f"step {c.steps:,}")
        t0 = time.monotonic()
        npz = export_checkpoint(run, c, curves_dir / f"{c.zip.stem}.npz")
        point = {
            "steps": c.steps,
            "checkpoint": c.name,
            "checkpoint_sha256": sha256_of(c.zip),
            **measure_policy(
                npz, game, opts, s, br_out=curves_dir / "br" / c.zip.stem, label=c.zip.stem
            ),
        }
        point["seconds"] = round(time.monotonic() - t0, 1)
        doc["points"] = sorted([*doc["points"], point], key=lambda q: int(q["steps"]))
        atomic_write_text(path, json.dumps(doc, indent=1) + "\n")
        if progress:
            tqdm.write(point_line(point))
    write_tensorboard(run, doc)
    return doc


def point_line(p: Mapping[str, Any]) -> str:
    """One point as a line of text."""

    def fmt(m: Mapping[str, Any]) -> str:
        half = (m["ci_high"] - m["ci_low"]) / 2
        if m["unit"] == "share of matches":
            return f"{m['mean']:.1%} ± {half:.1%}"
        return f"{m['mean']:+.3f} ± {half:.3f} {m['unit']}"

    text = (
        f"step {int(p['steps']):>10,}: panel worst {fmt(p['panel'])} ({p['panel']['bot']}), "
        f"vs heuristic {fmt(p['heuristic'])}"
    )
    e = p.get("exploit")
    if e:
        text += f", {'LBR' if e['kind'] == 'lbr' else 'best response'} {fmt(e)}"
    return text


def _series(doc: Mapping[str, Any]) -> dict[str, list[tuple[int, Mapping[str, Any]]]]:
    out: dict[str, list[tuple[int, Mapping[str, Any]]]] = {}
    for p in doc["points"]:
        for key in ("panel", "heuristic", "exploit"):
            if p.get(key):
                out.setdefault(key, []).append((int(p["steps"]), p[key]))
    return out


def _tag(key: str, doc: Mapping[str, Any]) -> str:
    if key == "exploit":
        return "curves/lbr_mbb" if doc["exploit"] == "lbr" else "curves/best_response"
    return TAGS[key]


def write_tensorboard(run: Path, doc: Mapping[str, Any]) -> Path:
    """The curves as TensorBoard scalars in ``run/tb/curves`` (written again whole from
    ``doc``: a fresh folder renamed over the old one, so each point shows once)."""
    from torch.utils.tensorboard import SummaryWriter

    tb = Path(run) / "tb"
    tb.mkdir(parents=True, exist_ok=True)
    for old in tb.glob(".curves.*.tmp"):
        shutil.rmtree(old, ignore_errors=True)
    tmp = tb / f".curves.{os.getpid()}.tmp"
    with SummaryWriter(str(tmp)) as writer:
        for key, points in _series(doc).items():
            tag = _tag(key, doc)
            for steps, m in points:
                writer.add_scalar(tag, float(m["mean"]), steps)
                writer.add_scalar(tag + "_ci_low", float(m["ci_low"]), steps)
                writer.add_scalar(tag + "_ci_high", float(m["ci_high"]), steps)
    final = tb / "curves"
    if final.exists():
        shutil.rmtree(final)
    tmp.rename(final)
    return final


TITLES = {
    "panel": "held-out panel: worst case",
    "heuristic": "against the heuristic",
    "exploit": "exploitability",
}


def plot(docs: Sequence[Mapping[str, Any]], out: Path, labels: Sequence[str] | None = None) -> Path:
    """One panel per measure, one line per run (95% intervals shaded); ``out`` a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    for k, doc in enumerate(docs):
        label = labels[k] if labels else Path(str(doc["run"])).name
        series = _series(doc)
        for ax, key in zip(axes, ("panel", "heuristic", "exploit"), strict=True):
            pts = series.get(key, [])
            if not pts:
                continue
            x = [st for st, _ in pts]
            y = [m["mean"] for _, m in pts]
            share = pts[0][1]["unit"] == "share of matches"
            f = 100.0 if share else 1.0
            ax.plot(x, [v * f for v in y], marker="o", label=label)
            ax.fill_between(
                x,
                [m["ci_low"] * f for _, m in pts],
                [m["ci_high"] * f for _, m in pts],
                alpha=0.2,
            )
            unit = "% of matches won" if share else pts[0][1]["unit"]
            title = TITLES[key]
            if key == "exploit":
                e = pts[0][1]
                title = (
                    "LBR (win against the policy)"
                    if e["kind"] == "lbr"
                    else f"best response, {doc['settings']['br_timesteps']:,} steps (lower bound)"
                )
            ax.set_title(title)
            ax.set_ylabel(unit)
    for ax in axes:
        ax.set_xlabel("training steps")
        ax.axhline(0.0, color="grey", lw=0.8)
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def parser() -> argparse.ArgumentParser:
    d = CurveSettings()
    p = argparse.ArgumentParser(
        description=" ".join(__doc__.split("\n\n")[0].split()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("run", type=Path, help="the training run folder")
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument(
        "--hands", type=int, help=f"hands against the heuristic (default {d.hands:,}; matches)"
    )
    p.add_argument("--tables", type=int, default=d.tables, help="tables per round (heuristic)")
    p.add_argument(
        "--panel-hands",
        type=int,
        dest="panel_hands",
        help=f"hands per panel bot (default {d.panel_hands:,}; the draw match: 200 matches)",
    )
    p.add_argument("--exploit", choices=EXPLOIT_KINDS, default=d.exploit)
    p.add_argument("--lbr-hands", type=int, default=d.lbr_hands, dest="lbr_hands")
    p.add_argument("--br-timesteps", type=int, default=d.br_timesteps, dest="br_timesteps")
    p.add_argument(
        "--br-warm-start-steps", type=int, default=d.br_warm_start_steps, dest="br_warm_start_steps"
    )
    p.add_argument(
        "--br-hands", type=int, dest="br_hands", help=f"hands (default {d.br_hands:,}; matches)"
    )
    p.add_argument("--json", type=Path, help="the curves file (default RUN/learning_curves.json)")
    p.add_argument("--png", type=Path, help="the plot (default RUN/learning_curves.png)")
    p.add_argument("--limit", type=int, help="measure at most this many new checkpoints")
    p.add_argument(
        "--plot-only", action="store_true", dest="plot_only", help="measure nothing: plot the file"
    )
    p.add_argument("--no-progress", action="store_true", dest="no_progress")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    json_path = args.json or args.run / "learning_curves.json"
    try:
        if args.plot_only:
            doc = _load(json_path)
            if doc is None:
                raise ConfigError("curves file", str(json_path), "a file written by this command")
            write_tensorboard(args.run, doc)
        else:
            from poker_env_agents.training.train import load_config

            if not (args.run / "config.toml").is_file():
                raise ConfigError("run", str(args.run), "a run folder with its config.toml")
            settings = default_settings(
                load_config(args.run / "config.toml").spec.name,
                seed=args.seed,
                hands=args.hands,
                tables=args.tables,
                panel_hands=args.panel_hands,
                exploit=args.exploit,
                lbr_hands=args.lbr_hands,
                br_timesteps=args.br_timesteps,
                br_warm_start_steps=args.br_warm_start_steps,
                br_hands=args.br_hands,
            )
            doc = learning_curves(
                args.run,
                settings,
                json_path=json_path,
                progress=not args.no_progress,
                limit=args.limit,
            )
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for p in doc["points"]:
        print(point_line(p))
    png = plot([doc], args.png or args.run / "learning_curves.png")
    print(f"wrote {json_path}, {args.run / 'tb' / 'curves'} and {png}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
