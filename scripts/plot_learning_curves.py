#!/usr/bin/env python
"""Plot the learning curves of training runs from their TensorBoard logs.

Example::

    python scripts/plot_learning_curves.py runs/draw52 runs/draw32 runs/holdem_hu \\
        --out docs/img/learning_curves.png

Each run is a panel: the evaluations that ``scripts/train.py`` logs every
``eval_every`` steps (``eval/vs_<baseline>_mean`` with its 95% interval, against
random, the call station and the heuristic), and, where ``scripts/exploit.py`` wrote
``exploit/*`` scalars or a run holds ``lbr.json`` curves, those too.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

KINDS = ("random", "call", "heuristic")
COLOURS = {"random": "#7f7f7f", "call": "#1f77b4", "heuristic": "#d62728", "lbr": "#2ca02c"}


def read_scalars(run: Path) -> dict[str, list[tuple[int, float]]]:
    """Every scalar of the run's TensorBoard logs: tag -> [(step, value)] in step order."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    out: dict[str, list[tuple[int, float]]] = {}
    for d in sorted(glob.glob(str(run / "tb" / "*"))):
        ea = EventAccumulator(d, size_guidance={"scalars": 0})
        ea.Reload()
        for tag in ea.Tags()["scalars"]:
            out.setdefault(tag, []).extend((e.step, e.value) for e in ea.Scalars(tag))
    for tag in out:
        out[tag].sort()
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("runs", nargs="+", type=Path)
    p.add_argument("--out", type=Path, default=Path("docs/img/learning_curves.png"))
    p.add_argument(
        "--unit", action="append", default=[], help="RUN=UNIT labels, e.g. runs/x=bb/100"
    )
    args = p.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    units = dict(u.split("=", 1) for u in args.unit)
    fig, axes = plt.subplots(1, len(args.runs), figsize=(4.2 * len(args.runs), 3.6), squeeze=False)
    for ax, run in zip(axes[0], args.runs, strict=True):
        scalars = read_scalars(run)
        for kind in KINDS:
            mean = scalars.get(f"eval/vs_{kind}_mean", [])
            if not mean:
                continue
            lo = dict(scalars.get(f"eval/vs_{kind}_ci_low", []))
            hi = dict(scalars.get(f"eval/vs_{kind}_ci_high", []))
            xs = [s / 1e6 for s, _ in mean]
            ax.plot(xs, [v for _, v in mean], "o-", color=COLOURS[kind], label=f"vs {kind}")
            ax.fill_between(
                xs,
                [lo.get(s, v) for s, v in mean],
                [hi.get(s, v) for s, v in mean],
                color=COLOURS[kind],
                alpha=0.2,
            )
        lbr_file = run / "lbr_curve.json"
        if lbr_file.is_file():
            pts = json.loads(lbr_file.read_text())
            ax2 = ax.twinx()
            ax2.errorbar(
                [q["steps"] / 1e6 for q in pts],
                [q["mean"] for q in pts],
                yerr=[q["half_width"] for q in pts],
                color=COLOURS["lbr"],
                marker="s",
                label="LBR's win (mbb/hand)",
            )
            ax2.set_ylabel("LBR's win, mbb/hand", color=COLOURS["lbr"])
            ax2.legend(loc="lower right", fontsize=8)
        ax.axhline(0, color="black", lw=0.6)
        ax.set_title(run.name)
        ax.set_xlabel("training steps (millions)")
        ax.set_ylabel(units.get(str(run), "mean per hand (95% interval)"))
        ax.legend(fontsize=8, loc="upper left")
        ax.grid(alpha=0.3)
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
