"""A policy against the held-out panel, its worst case, and the measures of its play.

The panel (:mod:`poker_env_agents.baselines.panel`) is imported here, by evaluation
only, never by training (an import-linter contract). What is measured:

- :func:`evaluate_panel`: the policy against every panel bot of its game on duplicate
  deals (:func:`~poker_env_agents.evaluate.head_to_head`), each result with its 95%
  interval and hand count, and the **worst case**:

  - heads-up (``draw`` 52/32, ``holdem`` 2 seats): the policy's result against each
    bot; the worst case is the lowest.
  - 6-max (``holdem`` with more seats): the bot in one seat among copies of the
    policy (the bot's result: the policy's side wants it below zero) and the policy
    in one seat among copies of the bot; the worst cases are the best bot among the
    policies and the policy's lowest among the bots.
  - the draw match (``draw-match``): the policy in her seat against each bot in the
    human seat, whole matches (:func:`~poker_env_agents.evaluate.draw_match_wins`);
    the worst case is the lowest share of matches won.

- :func:`dominated_folds`: the share of folds with nothing to call (a fold where a
  free check, STAY or DRAW is there: dominated), per phase.
- :func:`bet_sizes`: the policy's bets and raises as fractions of the pot.
- :func:`panel_worst_case`: the worst case of a policy file, for learning curves (a
  function of the file alone, so a training callback can call it on each export).
- :func:`style_stats`: how a bot plays (VPIP-like continue rates, aggression), which
  the panel's tests check against each style.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from poker_env.errors import ConfigError
from poker_env.policy import BatchPolicy
from poker_env_agents.baselines.panel import family, make_panel_bot, panel_names
from poker_env_agents.evaluate import MatchResult, auto_tables, draw_match_wins, head_to_head
from poker_env_agents.registry import get_game, make_baseline

__all__ = [
    "PanelReport",
    "PanelRow",
    "bet_sizes",
    "dominated_folds",
    "evaluate_panel",
    "game_of_policy",
    "measures_lines",
    "panel_worst_case",
    "play_measures",
    "style_stats",
]


@dataclass(frozen=True)
class PanelRow:
    """One panel match: ``kind`` is ``"heads-up"``, ``"bot among policies"``,
    ``"policy among bots"`` or ``"match"`` (draw-match: ``mean`` is her share of
    matches won, ``hands`` the decided matches). ``mean`` and the interval are the
    figure of the side named first: the policy's, except in ``"bot among policies"``
    where it is the bot's result."""

    bot: str
    kind: str
    mean: float
    ci_low: float
    ci_high: float
    hands: int
    unit: str

    def __str__(self) -> str:
        half = (self.ci_high - self.ci_low) / 2
        if self.kind == "match":
            return (
                f"panel {self.bot} (human seat): she won {self.mean:.1%} ± {half:.1%} of "
                f"{self.hands:,} matches"
            )
        who = {
            "heads-up": f"policy vs {self.bot}",
            "bot among policies": f"{self.bot} (1 seat) among policies",
            "policy among bots": f"policy (1 seat) among {self.bot}",
        }[self.kind]
        return f"panel {who}: {self.mean:+.3f} ± {half:.3f} {self.unit} ({self.hands:,} hands)"


@dataclass(frozen=True)
class PanelReport:
    """The panel table of one policy and its worst case per kind of match."""

    game: str
    options: dict[str, Any]
    rows: list[PanelRow]
    worst: dict[str, PanelRow] = field(default_factory=dict)

    def worst_lines(self) -> list[str]:
        """The WORST CASE lines (one per kind of match)."""
        out = []
        for kind, r in self.worst.items():
            half = (r.ci_high - r.ci_low) / 2
            if kind == "match":
                text = f"she won {r.mean:.1%} ± {half:.1%} of {r.hands:,} matches"
            else:
                text = f"{r.mean:+.3f} ± {half:.3f} {r.unit} ({r.hands:,} hands)"
            label = {
                "heads-up": "the policy's lowest",
                "bot among policies": "the best bot among the policies",
                "policy among bots": "the policy's lowest among bots",
                "match": "her lowest share of matches",
            }[kind]
            out.append(f"WORST CASE ({label}): {r.bot}: {text}")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "options": self.options,
            "rows": [dataclasses.asdict(r) for r in self.rows],
            "worst": {k: dataclasses.asdict(r) for k, r in self.worst.items()},
        }

    def table(self, title: str = "") -> str:
        """A markdown table of the rows (what the docs copy)."""
        lines = [f"### {title}", ""] if title else []
        count = "matches" if self.game == "draw-match" else "hands"
        lines += [f"| bot | match | result | 95% interval | {count} |", "|---|---|---:|---|---:|"]
        for r in self.rows:
            if r.kind == "match":
                res = f"{r.mean:.1%} won"
                ci = f"[{r.ci_low:.1%}, {r.ci_high:.1%}]"
            else:
                res = f"{r.mean:+.3f} {r.unit}"
                ci = f"[{r.ci_low:+.3f}, {r.ci_high:+.3f}]"
            lines.append(f"| {r.bot} | {r.kind} | {res} | {ci} | {r.hands:,} |")
        return "\n".join(lines)


def _row(bot: str, kind: str, r: MatchResult) -> PanelRow:
    return PanelRow(bot, kind, r.mean, r.ci_low, r.ci_high, r.hands, r.unit)


def evaluate_panel(
    policy: BatchPolicy,
    game: str,
    options: Mapping[str, Any] | None = None,
    *,
    hands: int = 20_000,
    seed: int = 0,
    bots: Sequence[str] | None = None,
    num_tables: int | None = None,
    progress: bool = False,
) -> PanelReport:
    """``policy`` against every panel bot of ``game`` (module docstring).

    Args:
        hands: duplicate hands per match (draw-match: matches per bot).
        seed: the deals' seed (the same for every bot); bot ``j`` is seeded
            ``seed + 500 + j``.
        bots: a subset of the panel's names (default: all).
        num_tables: tables per round (default ``max(16, min(1024, hands // (16 x
            seats)))``, the rule the documented panel figures were measured with; it
            can overshoot a budget that is not whole rounds, where
            :func:`~poker_env_agents.evaluate.auto_tables` does not).
        progress: print each row as it is measured.
    """
    spec = get_game(game)
    opts = spec.options(options)
    names = list(panel_names(game) if bots is None else bots)
    if isinstance(hands, bool) or not isinstance(hands, int) or hands < 1:
        raise ConfigError("hands", hands, "an integer >= 1")
    seats = spec.num_seats(opts)
    tables = num_tables or auto_tables(hands, seats)
    rows: list[PanelRow] = []

    def add(row: PanelRow) -> None:
        rows.append(row)
        if progress:
            print(row, flush=True)

    for j, name in enumerate(names):
        bot = make_panel_bot(game, name, seed=seed + 500 + j, **opts)
        if game == "draw-match":
            w = draw_match_wins(
                policy,
                bot,
                options=opts,
                matches=hands,
                seed=seed,
                num_tables=min(256, max(16, hands // 4)),
                names=("policy", name),
            )
            decided = w.won + w.lost
            add(
                PanelRow(
                    name,
                    "match",
                    w.share,
                    max(0.0, w.share - w.half_width),
                    min(1.0, w.share + w.half_width),
                    decided,
                    "share of matches",
                )
            )
            continue
        kw: dict[str, Any] = {
            "game": game,
            "options": opts,
            "hands": hands,
            "seed": seed,
            "num_tables": tables,
        }
        if seats == 2:
            add(_row(name, "heads-up", head_to_head(policy, bot, names=("policy", name), **kw)))
        else:
            add(
                _row(
                    name,
                    "bot among policies",
                    head_to_head(bot, policy, names=(name, "policy"), **kw),
                )
            )
            add(
                _row(
                    name,
                    "policy among bots",
                    head_to_head(policy, bot, names=("policy", name), **kw),
                )
            )
    worst: dict[str, PanelRow] = {}
    for r in rows:
        w0 = worst.get(r.kind)
        # The bot's result among policies: its best is the policy's worst.
        if (
            w0 is None
            or (r.kind == "bot among policies" and r.mean > w0.mean)
            or (r.kind != "bot among policies" and r.mean < w0.mean)
        ):
            worst[r.kind] = r
    return PanelReport(game, opts, rows, worst)


# ----------------------------------------------------------------------- the policy's play
def _phase_names(game: str) -> dict[int, str]:
    if family(game) == "holdem":
        return {0: "pre-flop", 1: "flop", 2: "turn", 3: "river"}
    return {0: "pre-draw", 2: "post-draw"}


def _collect(
    policy: BatchPolicy,
    game: str,
    options: Mapping[str, Any],
    opponent: BatchPolicy,
    decisions: int,
    seed: int,
) -> dict[str, NDArray[Any]]:
    """The policy's betting decisions in ``game`` against ``opponent``: per decision the
    phase, chips to call, pot, own stack (the env's units) and the action; the mask's
    width in ``width``."""
    spec = get_game(game)
    # Few enough tables that the decisions span whole hands (every street or round).
    num_tables = max(8, min(256, decisions // 40))
    env = spec.make_vector(num_tables, options, opponent=opponent)
    holdem = family(game) == "holdem"
    cols: dict[str, list[NDArray[Any]]] = {
        k: [] for k in ("phase", "to_call", "pot", "stack", "action")
    }
    n = 0
    obs, info = env.reset(seed=seed)
    try:
        for _ in range(200_000):
            masks = np.asarray(info["action_mask"])
            acts = np.asarray(policy.act_batch(obs, masks), np.int64)
            o = np.asarray(obs, np.float64)
            if holdem:
                phase = o[:, 104:108].argmax(axis=1)
                to_call, pot, stack = o[:, 109], o[:, 108], o[:, 110]
                betting = masks.sum(axis=1) > 0
            else:
                phase = o[:, 57].astype(np.int64)
                to_call, pot, stack = o[:, 64], o[:, 59], o[:, 60]
                betting = (phase == 0) | (phase == 2)
            rows = np.flatnonzero(betting)
            for k, v in (
                ("phase", phase),
                ("to_call", to_call),
                ("pot", pot),
                ("stack", stack),
                ("action", acts),
            ):
                cols[k].append(np.asarray(v)[rows])
            n += rows.size
            if n >= decisions:
                break
            obs, _r, _t, _tr, info = env.step(acts)
        width = int(np.asarray(info["action_mask"]).shape[1])
    finally:
        env.close()
    out = {k: np.concatenate(v) for k, v in cols.items()}
    out["width"] = np.array(width)
    return out


def _merge(parts: Sequence[dict[str, NDArray[Any]]]) -> dict[str, NDArray[Any]]:
    out = {k: np.concatenate([p[k] for p in parts]) for k in parts[0] if k != "width"}
    out["width"] = parts[0]["width"]
    return out


def _dominated(d: Mapping[str, NDArray[Any]], game: str) -> dict[str, Any]:
    free = d["to_call"] <= 0
    fold = d["action"] == 0
    out: dict[str, Any] = {
        "decisions": int(d["phase"].size),
        "free": int(free.sum()),
        "folds": int((free & fold).sum()),
        "share": float((free & fold).sum() / max(int(free.sum()), 1)),
        "phases": {},
    }
    for ph, name in _phase_names(game).items():
        at = d["phase"] == ph
        f = int((at & free).sum())
        out["phases"][name] = {
            "decisions": int(at.sum()),
            "free": f,
            "folds": int((at & free & fold).sum()),
            "share": float((at & free & fold).sum() / max(f, 1)),
        }
    return out


def dominated_folds(
    policy: BatchPolicy,
    game: str,
    options: Mapping[str, Any] | None = None,
    *,
    opponent: BatchPolicy | None = None,
    decisions: int = 20_000,
    seed: int = 0,
) -> dict[str, Any]:
    """The policy's folds with nothing to call, per phase, against ``opponent`` (default
    the call station: it never bets, so every decision of the policy is free).

    Returns ``{"decisions", "free", "folds", "share", "phases": {name: {...}}}``:
    betting decisions seen, those with nothing to call, the folds among those, and
    their share (0 for a policy that never folds for free).
    """
    spec = get_game(game)
    opts = spec.options(options)
    if opponent is None:
        opponent = make_baseline(game, "call", seed=seed, **opts)
    return _dominated(_collect(policy, game, opts, opponent, decisions, seed), game)


#: Edges of the bet-size histogram, fractions of the pot after calling.
BET_SIZE_EDGES: tuple[float, ...] = (0.0, 0.3, 0.6, 0.9, 1.2, 2.5, 5.0, math.inf)


def _sizes(d: Mapping[str, NDArray[Any]], game: str) -> dict[str, Any]:
    holdem = family(game) == "holdem"
    width = int(d["width"])
    a, pot, call, stack = d["action"], d["pot"], d["to_call"], d["stack"]
    if holdem:
        from poker_env_agents.baselines.holdem import DEFAULT_RAISE_FRACTIONS

        fr = np.asarray(DEFAULT_RAISE_FRACTIONS)
        k = width - 4
        labels = ["min-raise", *[f"{f:g} pot" for f in fr], "all-in"]
        allin = 3 + k
        is_bet = a >= 2
        idx = a - 3
        sized_count = k
    else:
        from poker_env_agents.baselines.draw import DEFAULT_POT_FRACTIONS

        fr = np.asarray(DEFAULT_POT_FRACTIONS)
        k = width - 35
        labels = [*[f"{f:g} pot" for f in fr], "all-in"]
        allin = 2 + k - 1
        is_bet = (a >= 2) & (a <= allin)
        idx = a - 2
        sized_count = k - 1
    if fr.size != sized_count:
        raise ConfigError("options", width, "the env's default bet sizes (bet sizes read those)")
    base = np.maximum(pot + call, 1e-12)
    room = np.maximum(stack - call, 0.0)
    frac = np.where(
        a == allin,
        room / base,
        np.minimum(fr[np.clip(idx, 0, fr.size - 1)] * (pot + call), room) / base,
    )
    sized = is_bet & ~(holdem & (a == 2))
    sizes = frac[sized]
    bets = int(is_bet.sum())
    by_action = {
        lab: float((a[is_bet] == 2 + j).sum() / max(bets, 1)) for j, lab in enumerate(labels)
    }
    hist = []
    for lo, hi in itertools.pairwise(BET_SIZE_EDGES):
        hist.append(
            {
                "from": lo,
                "to": hi if math.isfinite(hi) else None,
                "share": float(((sizes >= lo) & (sizes < hi)).sum() / max(sizes.size, 1)),
            }
        )
    q = np.quantile(sizes, [0.1, 0.5, 0.9]) if sizes.size else np.full(3, np.nan)
    return {
        "decisions": int(a.size),
        "bets": bets,
        "bet_share": float(bets / max(a.size, 1)),
        "by_action": by_action,
        "histogram": hist,
        "p10": float(q[0]),
        "median": float(q[1]),
        "p90": float(q[2]),
    }


def bet_sizes(
    policy: BatchPolicy,
    game: str,
    options: Mapping[str, Any] | None = None,
    *,
    opponent: BatchPolicy | None = None,
    decisions: int = 20_000,
    seed: int = 0,
) -> dict[str, Any]:
    """The policy's bets and raises as fractions of the pot, against ``opponent``
    (default the game's heuristic).

    A size is the chips the action adds beyond the call over the pot after calling
    (``pot + call``): ``f`` for a pot-fraction action (the env's default fractions,
    ``f x (pot + call)`` chips) unless capped at the stack; the all-in
    ``(stack - call) / (pot + call)``; Hold'em's min-raise is counted
    in ``by_action`` only (its amount, the last raise, is not in the observation).
    Returns ``{"decisions", "bets", "bet_share", "by_action": {label: share},
    "histogram": [{"from", "to", "share"}], "p10", "median", "p90"}``.
    """
    spec = get_game(game)
    opts = spec.options(options)
    if opponent is None:
        opponent = make_baseline(game, "heuristic", seed=seed, **opts)
    return _sizes(_collect(policy, game, opts, opponent, decisions, seed), game)


def play_measures(
    policy: BatchPolicy,
    game: str,
    options: Mapping[str, Any] | None = None,
    *,
    decisions: int = 5_000,
    seed: int = 0,
) -> dict[str, Any]:
    """The measures of a policy's play for its evaluation table: dominated folds (folds
    with nothing to call) per phase and bet sizes, against a never-betting opponent
    (the call station) and against the whole panel (``decisions`` per opponent; the
    panel's figures pooled, with each bot's share of dominated folds beside).

    Returns ``{"never_betting": {"dominated_folds", "bet_sizes"}, "panel":
    {"dominated_folds", "bet_sizes", "dominated_share_by_bot"}}``.
    """
    spec = get_game(game)
    opts = spec.options(options)
    never = make_baseline(game, "call", seed=seed, **opts)
    d = _collect(policy, game, opts, never, decisions, seed)
    parts, by_bot = [], {}
    for j, name in enumerate(panel_names(game)):
        bot = make_panel_bot(game, name, seed=seed + 500 + j, **opts)
        p = _collect(policy, game, opts, bot, decisions, seed)
        parts.append(p)
        by_bot[name] = _dominated(p, game)["share"]
    pooled = _merge(parts)
    return {
        "never_betting": {"dominated_folds": _dominated(d, game), "bet_sizes": _sizes(d, game)},
        "panel": {
            "dominated_folds": _dominated(pooled, game),
            "bet_sizes": _sizes(pooled, game),
            "dominated_share_by_bot": by_bot,
        },
    }


def measures_lines(measures: Mapping[str, Any]) -> list[str]:
    """Printable lines of :func:`play_measures`."""
    out = []
    for who, label in (("never_betting", "a never-betting opponent"), ("panel", "the panel")):
        m = measures[who]
        dom = m["dominated_folds"]
        phases = ", ".join(
            f"{ph} {v['folds']:,}/{v['free']:,} ({v['share']:.1%})"
            for ph, v in dom["phases"].items()
        )
        out.append(
            f"dominated folds (nothing to call) against {label}: {dom['folds']:,} of "
            f"{dom['free']:,} free decisions ({dom['share']:.1%}); {phases}"
        )
        bs = m["bet_sizes"]
        acts = ", ".join(f"{k} {v:.0%}" for k, v in bs["by_action"].items())
        out.append(
            f"bet sizes against {label}: {bs['bets']:,} bets ({bs['bet_share']:.0%} of "
            f"decisions); {acts}; pot fraction p10/median/p90 {bs['p10']:.2f}/"
            f"{bs['median']:.2f}/{bs['p90']:.2f}"
        )
    return out


# ----------------------------------------------------------------------- learning curves
def game_of_policy(manifest: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The registry game and the options of an exported policy's manifest."""
    env = manifest["env"]
    if env["id"] == "poker_env/DrawMatch-v0":
        game = "draw-match"
    else:
        game = {"draw": "draw", "holdem": "holdem", "red_dog": "red-dog"}[manifest["game"]]
    opts = env["options"]
    if game.startswith("draw"):
        return game, {"deck": 52 if opts["deck"] in ("standard", 52) else 32}
    return game, {"num_players": int(opts["num_players"])}


def panel_worst_case(
    policy_file: str | Path,
    *,
    hands: int = 4_000,
    seed: int = 0,
    bots: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The panel's worst case for an exported policy file (argmax play), for learning
    curves: ``{"game", "options", "worst": {kind: row}, "value", "bot", "unit"}``,
    ``value`` the single figure to plot (heads-up: the policy's lowest result; 6-max:
    minus the best bot's result among the policies; draw-match: her lowest share of
    matches). Takes a file, so a training callback calls it on each export; training
    never imports this module (pass the function in from above)."""
    from poker_env_agents.runtime import load_policy

    policy = load_policy(policy_file, deterministic=True)
    game, opts = game_of_policy(policy.manifest)
    if game == "red-dog":
        raise ConfigError("policy_file", str(policy_file), "a draw, draw-match or Hold'em policy")
    report = evaluate_panel(policy, game, opts, hands=hands, seed=seed, bots=bots)
    kind = (
        "match"
        if game == "draw-match"
        else ("heads-up" if "heads-up" in report.worst else "bot among policies")
    )
    w = report.worst[kind]
    value = -w.mean if kind == "bot among policies" else w.mean
    return {
        "game": game,
        "options": opts,
        "worst": {k: dataclasses.asdict(r) for k, r in report.worst.items()},
        "value": value,
        "bot": w.bot,
        "unit": w.unit,
    }


# ----------------------------------------------------------------------- how a bot plays
def style_stats(
    player: BatchPolicy,
    game: str,
    options: Mapping[str, Any] | None = None,
    *,
    opponent: BatchPolicy | None = None,
    decisions: int = 4_000,
    seed: int = 0,
) -> dict[str, float]:
    """How ``player`` bets against ``opponent`` (default: the call station, which
    never bets first), from its betting decisions:

    - ``continue_first``: share of first-round decisions facing a bet (pre-flop or
      pre-draw) where it calls or raises (a VPIP-like figure; Hold'em's blinds are
      a bet to the small blind);
    - ``open``: share of first-round decisions with nothing to call where it bets;
    - ``aggression``: bets and raises over calls (all rounds; ``inf`` without calls);
    - ``fold_facing``: share of decisions facing a bet where it folds;
    - ``bet_later``: share of later-round decisions with nothing to call where it bets.
    """
    spec = get_game(game)
    opts = spec.options(options)
    if opponent is None:
        opponent = make_baseline(game, "call", seed=seed, **opts)
    d = _collect(player, game, opts, opponent, decisions, seed)
    a, ph, call = d["action"], d["phase"], d["to_call"]
    holdem = family(game) == "holdem"
    width = int(d["width"])
    if holdem:
        aggressive = a >= 2
    else:
        k = width - 35
        aggressive = (a >= 2) & (a <= 2 + k - 1)
    passive = a == 1
    facing = call > 0
    first = ph == 0
    calls = int((passive & facing).sum())

    def share(num: NDArray[np.bool_], den: NDArray[np.bool_]) -> float:
        return float((num & den).sum() / max(int(den.sum()), 1))

    return {
        "decisions": float(a.size),
        "continue_first": share(~(a == 0), first & facing),
        "open": share(aggressive, first & ~facing),
        "aggression": float(aggressive.sum() / calls) if calls else math.inf,
        "fold_facing": share(a == 0, facing),
        "bet_later": share(aggressive, ~first & ~facing),
    }
