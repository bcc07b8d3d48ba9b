#!/usr/bin/env python
"""Print the shipped models' evaluation tables (agents/models/*.eval.json) as Markdown.

Example::

    python scripts/models_table.py            # what docs/agents.md's tables are made of
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ORDER = ("draw52", "draw32", "draw_match52", "red_dog", "holdem_hu", "holdem_6max")


def _interval(m: dict) -> str:
    return f"{m['mean']:+.2f} [{m['ci_low']:+.2f}, {m['ci_high']:+.2f}]"


def main() -> int:
    docs = {}
    for name in ORDER:
        f = ROOT / "agents" / "models" / f"{name}.eval.json"
        if f.is_file():
            docs[name] = json.loads(f.read_text())
    print(
        "| model | steps | vs random | vs call station | vs heuristic | unit | hands (vs heuristic) |"
    )
    print("|---|---:|---|---|---|---|---:|")
    for name, d in docs.items():
        if not d["matches"]:
            continue
        by = {m["opponent"]: m for m in d["matches"]}
        unit = d["matches"][0]["unit"]
        print(
            f"| {name} | {d['trained']['steps']:,} | {_interval(by['random'])} | "
            f"{_interval(by['call'])} | {_interval(by['heuristic'])} | {unit} | "
            f"{by['heuristic']['hands']:,} |"
        )
    for name, d in docs.items():
        if "reference_matches" in d:
            print(f"\n{name}: the reference policy in the same seat on the same deals")
            for m in d["reference_matches"]:
                print(
                    f"- vs {m['opponent']}: {_interval(m)} {m['unit']} ({m['hands']:,} decisions)"
                )
        if "decision_value" in d:
            v = d["decision_value"]
            print(
                f"\n{name} decision value: {v['policy']:+.4f} against the reference's "
                f"{v['reference']:+.4f} chips/decision on the same {v['decisions']:,} decisions "
                f"= {v['ratio']:.1%} (difference {v['policy'] - v['reference']:+.4f} ± "
                f"{v['diff_half_width']:.4f}); same action {v['agreement']:.1%}"
            )
        if "discards" in d:
            x = d["discards"]
            print(
                f"\n{name} discards: best-equity {x['best']:.1%} of {x['decisions']:,} draws; "
                f"equity given up {x['mean_equity_loss']:.4f} a draw; of the others "
                f"{x['more_cards']:.0%} replace more cards, {x['fewer_cards']:.0%} fewer"
            )
        if "match_wins" in d:
            print(f"\n{name}: whole matches, her seat")
            for w in d["match_wins"]:
                print(
                    f"- vs {w['human']} (human seat): won {w['share']:.1%} ± {w['half_width']:.1%} "
                    f"of {w['won'] + w['lost']:,} ({w['mean_hands']:.1f} hands a match)"
                )
        if "buy_back" in d:
            print(f"\n{name}: buy-back offers taken, by items lost (rows) and money (columns)")
            bands = sorted(
                {r["money"] for r in d["buy_back"]},
                key=lambda b: float(b.split("-")[0].lstrip(">=")),
            )
            print("| lost | " + " | ".join(bands) + " |")
            print("|---|" + "---|" * len(bands))
            for lost in sorted({r["lost"] for r in d["buy_back"]}):
                cells = []
                for b in bands:
                    row = [r for r in d["buy_back"] if r["lost"] == lost and r["money"] == b]
                    cells.append(f"{row[0]['bought']:.0%} of {row[0]['offers']}" if row else "-")
                print(f"| {lost} | " + " | ".join(cells) + " |")
    measured = {n: d["exploitability"] for n, d in docs.items() if "exploitability" in d}
    if measured:
        print("\n| model | best response | LBR, pre-flop fold/call | LBR, pre-flop raises |")
        print("|---|---|---|---|")
        for name, ex in measured.items():
            br = ex["best_response"]
            r = br["result"]
            cell = (
                f"{r['mean']:+.3f} ± {(r['ci_high'] - r['ci_low']) / 2:.3f} {r['unit']} "
                f"({br['steps']:,} steps, {r['hands']:,} hands)"
            )
            lbr = ["-", "-"]
            for x in ex.get("lbr", []):
                half = (x["ci_high_mbb"] - x["ci_low_mbb"]) / 2
                k = 1 if x["settings"]["preflop_raises"] else 0
                lbr[k] = f"{x['mean_mbb']:+,.1f} ± {half:,.1f} mbb/hand ({x['hands']:,} hands)"
            print(f"| {name} | {cell} | {lbr[0]} | {lbr[1]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
