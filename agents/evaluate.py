"""Head-to-head evaluation: a mean per hand with a 95% interval, from duplicate deals.

How a match is played (:func:`head_to_head`):

- ``num_tables`` tables of the game's batched env, table ``i`` seeded
  ``seed + i``; policy A in one seat, policy B in every other seat, both acting
  for all tables at once (``act_batch``).
- **Duplicate deals**: the same tables with the same seeds are played once per
  seat of the table with A moved to that seat (heads-up: each deal twice with the
  seats swapped; 6-max: six times, seats rotated). The deals depend on the
  table's seed only (the envs draw a fixed amount of randomness per hand, and
  policies draw from their own Generators), so the luck of the cards cancels
  between the passes.
- Each table plays ``episodes_per_table`` episodes per pass; the unit of the
  statistics is the table (its passes together), so the interval is an honest
  one over independent units: mean ± 1.96 · sd / √tables.
- The figure is A's mean reward per hand: per episode in draw (a pot) and
  Hold'em (a hand; reported as big blinds per 100 hands), per decision in Red Dog
  (a bet against the turned card), in the env's reward unit (antes, bb). In
  draw-match an episode is a whole match: its "hands" are matches (antes/match).
- Stopping rule: rounds of fresh tables until the interval is narrower than
  ``target_width`` or ``hands`` are spent.

Hold'em note: ``Holdem-v0`` deals again a hand that ends before the agent's first
decision (a walk: everyone folds to A's big blind) and reports it in the info
(``walks``, ``first_walk_reward``). Every table's episode is a seeded reset
("waves"), and a walk counts as that seeded deal's hand with its result, the redeal
unplayed: every deal counts once per seat whoever acts first, so on the same deals
X vs Y is exactly -(Y vs X) for policies that play the same in every batch.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from poker_env.errors import ConfigError
from poker_env.policy import BatchPolicy
from poker_env_agents.registry import GameSpec, get_game

__all__ = [
    "DecisionValue",
    "DiscardAgreement",
    "MatchResult",
    "MatchWins",
    "RedDogBetValue",
    "auto_tables",
    "buy_back_table",
    "draw_discard_agreement",
    "draw_match_wins",
    "evaluate_against_baselines",
    "head_to_head",
    "red_dog_decision_value",
    "results_table",
    "round_robin",
]

Z95 = 1.959963984540054


@dataclass(frozen=True)
class MatchResult:
    """A's result against B: mean per hand, its 95% interval, how many hands.

    ``mean``, ``ci_low``, ``ci_high`` are in ``unit`` per hand (bb/100 for Hold'em);
    ``hands`` counts A's hands over every pass; ``tables`` the independent units.
    """

    policy: str
    opponent: str
    game: str
    mean: float
    ci_low: float
    ci_high: float
    hands: int
    tables: int
    unit: str

    @property
    def half_width(self) -> float:
        return (self.ci_high - self.ci_low) / 2

    @property
    def counted(self) -> str:
        """What ``hands`` counts, in the unit's own word (bb/100 counts hands)."""
        per = self.unit.rpartition("/")[2]
        return {"100": "hands", "match": "matches"}.get(per, per + "s")

    def __str__(self) -> str:
        return (
            f"{self.policy} vs {self.opponent}: {self.mean:+.3f} ± {self.half_width:.3f} "
            f"{self.unit} ({self.hands:,} {self.counted})"
        )


def _per_decision(spec: GameSpec) -> bool:
    return spec.name == "red-dog"


def _episode_word(spec: GameSpec) -> str:
    # What one episode is: a DrawMatch-v0 episode is a whole match (its "hands" are matches).
    return "match" if spec.name == "draw-match" else "hand"


def _waves(spec: GameSpec) -> bool:
    # Holdem-v0 deals again a hand decided before the agent acts, and which hands those
    # are depends on the agent's seat: its tables' random streams drift apart between
    # the passes after the first such hand. So Hold'em restarts every table with a
    # seeded reset for each episode ("waves"); draw and Red Dog draw the same amount
    # of randomness per hand whatever is played, so one reset serves a whole pass.
    return spec.name == "holdem"


def _play_pass(
    spec: GameSpec,
    options: Mapping[str, Any],
    a: BatchPolicy,
    b: BatchPolicy,
    seat: int,
    num_tables: int,
    episodes: int,
    seed: int,
    max_steps: int,
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """A in ``seat`` of every table, B elsewhere: per table, A's summed reward over its
    first ``episodes`` episodes and the hands they count. Table ``i`` is seeded
    ``seed + i`` (in waves: ``seed + w * num_tables + i`` for the ``w``-th episode)."""
    env = spec.make_vector(num_tables, options, opponent=b, seat=seat)
    per_decision = _per_decision(spec)
    total = np.zeros(num_tables)
    hands = np.zeros(num_tables, np.int64)
    waves = _waves(spec)
    try:
        for w in range(episodes if waves else 1):
            obs, info = env.reset(seed=seed + w * num_tables)
            masks = info["action_mask"]
            left = np.full(num_tables, 1 if waves else episodes, np.int64)
            if waves:
                # A walk (the seeded deal decided before A acts, dealt again by the env)
                # is that deal's result: counted, and the table's redeal is not played.
                walked = np.asarray(info["walks"]) > 0
                total += np.where(walked, info["first_walk_reward"], 0.0)
                hands += walked
                left[walked] = 0
                if not (left > 0).any():
                    continue
            for _ in range(max_steps):
                active = left > 0
                acts = np.asarray(a.act_batch(obs, masks), np.int64)
                obs, rew, term, trunc, info = env.step(acts)
                masks = info["action_mask"]
                ended = (term | trunc) & active
                total += np.where(active, rew, 0.0)
                hands += active if per_decision else ended
                left -= ended
                if not (left > 0).any():
                    break
            else:
                raise RuntimeError(f"{spec.name}: episodes did not end within {max_steps} steps")
        return total, hands
    finally:
        env.close()


def head_to_head(
    a: BatchPolicy,
    b: BatchPolicy,
    *,
    game: str,
    options: Mapping[str, Any] | None = None,
    hands: int = 100_000,
    seed: int = 0,
    num_tables: int | None = None,
    episodes_per_table: int = 16,
    duplicate: bool = True,
    target_width: float | None = None,
    names: tuple[str, str] = ("A", "B"),
    progress: Callable[[int, int], None] | None = None,
) -> MatchResult:
    """Play ``a`` against ``b`` and return A's mean per hand with a 95% interval.

    Args:
        a, b: the policies (``BatchPolicy``: exported policies, baselines, ...).
        game: a name of :data:`poker_env_agents.registry.GAMES`; ``options`` its env options.
        hands: the budget of A's hands (all passes together); play stops at the end of
            the round that spends it.
        seed: table ``i`` of round ``r`` is seeded ``seed + r * num_tables + i``.
        num_tables, episodes_per_table: the size of a round (per pass); ``num_tables``
            None: :func:`auto_tables` (1,024, fewer for a budget under one round, so
            that ``--hands 1000`` plays about 1,000 hands, not a round of 32,768).
        duplicate: play every deal from every seat (False: A in seat 0 only).
        target_width: stop once the interval's full width is below this (in the
            reported unit); None: play the whole budget.
        names: how A and B are named in the result.
        progress: called after each round with (units played, ``hands``).
    """
    spec = get_game(game)
    opts = spec.options(options)
    seats = list(range(spec.num_seats(opts))) if duplicate else [0]
    if num_tables is None and isinstance(hands, int) and not isinstance(hands, bool) and hands > 0:
        num_tables = auto_tables(hands, len(seats), episodes_per_table)
    for name, v in (
        ("hands", hands),
        ("num_tables", num_tables),
        ("episodes_per_table", episodes_per_table),
    ):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ConfigError(name, v, "an integer >= 1")
    assert num_tables is not None
    scale = 100.0 if spec.unit == "bb" else 1.0
    unit = (
        "bb/100"
        if spec.unit == "bb"
        else f"{spec.unit}/{'decision' if _per_decision(spec) else _episode_word(spec)}"
    )
    max_steps = 100_000
    sums: list[NDArray[np.float64]] = []
    counts: list[NDArray[np.int64]] = []
    played = 0
    r = 0
    while True:
        s = seed + r * num_tables * episodes_per_table
        tot = np.zeros(num_tables)
        cnt = np.zeros(num_tables, np.int64)
        for seat in seats:
            t, h = _play_pass(spec, opts, a, b, seat, num_tables, episodes_per_table, s, max_steps)
            tot += t
            cnt += h
        sums.append(tot)
        counts.append(cnt)
        played += int(cnt.sum())
        r += 1
        if progress is not None:
            progress(played, hands)
        mean, half = _ratio_interval(np.concatenate(sums), np.concatenate(counts))
        if played >= hands or (target_width is not None and 2 * half * scale < target_width):
            break
    n_tables = num_tables * r
    return MatchResult(
        policy=names[0],
        opponent=names[1],
        game=game + "".join(f" {k}={v}" for k, v in opts.items() if v != spec.defaults[k]),
        mean=mean * scale,
        ci_low=(mean - half) * scale,
        ci_high=(mean + half) * scale,
        hands=played,
        tables=n_tables,
        unit=unit,
    )


def _ratio_interval(totals: NDArray[np.float64], counts: NDArray[np.int64]) -> tuple[float, float]:
    """Mean per hand (sum / count over tables) and its 95% half-width (delta method
    for a ratio of per-table sums; tables are the independent units)."""
    n = totals.size
    c = counts.astype(np.float64)
    mean = float(totals.sum() / c.sum())
    if n < 2:
        return mean, math.inf
    resid = totals - mean * c
    se = math.sqrt(float(resid.var(ddof=1)) * n) / float(c.sum())
    return mean, Z95 * se


def evaluate_against_baselines(
    policy: BatchPolicy,
    game: str,
    options: Mapping[str, Any] | None = None,
    *,
    hands: int = 20_000,
    seed: int = 0,
    name: str = "policy",
    kinds: Sequence[str] = ("random", "call", "heuristic"),
) -> list[MatchResult]:
    """``policy`` against each of the game's baselines (duplicate deals)."""
    from poker_env_agents.registry import make_baseline

    spec = get_game(game)
    opts = spec.options(options)
    out = []
    for k, kind in enumerate(kinds):
        b = make_baseline(game, kind, seed=seed + 1000 + k, **opts)
        tables = auto_tables(hands, spec.num_seats(opts))
        out.append(
            head_to_head(
                policy,
                b,
                game=game,
                options=opts,
                hands=hands,
                seed=seed,
                num_tables=tables,
                names=(name, kind),
            )
        )
    return out


def auto_tables(hands: int, passes: int, episodes_per_table: int = 16) -> int:
    """Tables a round for a budget of ``hands`` over ``passes`` seatings: 1,024, or
    as few as spend the budget in one round (at least 16, for the interval's spread
    over tables). A round plays ``tables x episodes_per_table x passes`` episodes."""
    per_table = max(1, episodes_per_table * passes)
    return max(16, min(1024, -(-hands // per_table)))


def round_robin(
    policies: Mapping[str, BatchPolicy],
    *,
    game: str,
    options: Mapping[str, Any] | None = None,
    hands: int = 20_000,
    seed: int = 0,
    num_tables: int | None = None,
) -> list[MatchResult]:
    """Every pair of ``policies`` (each pair once, the first named as A)."""
    names = list(policies)
    out = []
    for i, x in enumerate(names):
        for y in names[i + 1 :]:
            out.append(
                head_to_head(
                    policies[x],
                    policies[y],
                    game=game,
                    options=options,
                    hands=hands,
                    seed=seed,
                    num_tables=num_tables,
                    names=(x, y),
                )
            )
    return out


def results_table(results: Sequence[MatchResult], title: str = "") -> str:
    """A markdown table of results (what scripts print and docs copy)."""
    lines = [f"### {title}", ""] if title else []
    lines.append("| policy | opponent | game | mean | 95% interval | played |")
    lines.append("|---|---|---|---:|---|---:|")
    for r in results:
        lines.append(
            f"| {r.policy} | {r.opponent} | {r.game} | {r.mean:+.3f} {r.unit} | "
            f"[{r.ci_low:+.3f}, {r.ci_high:+.3f}] | {r.hands:,} {r.counted} |"
        )
    return "\n".join(lines)


@dataclass(frozen=True)
class DecisionValue:
    """Red Dog: exact expected chips per decision of a policy and of the reference
    policy on the same decisions (RULES.md §2: a bet b is worth b(2p - 1))."""

    policy: float
    reference: float
    decisions: int
    agreement: float
    diff_half_width: float = float("nan")

    @property
    def ratio(self) -> float:
        return self.policy / self.reference

    def __str__(self) -> str:
        return (
            f"Red Dog decision value over {self.decisions:,} decisions: policy "
            f"{self.policy:+.4f} chips/decision, reference {self.reference:+.4f} on the same "
            f"decisions, ratio {self.ratio:.2%}; policy - reference "
            f"{self.policy - self.reference:+.4f} ± {self.diff_half_width:.4f} (95%); "
            f"same action as the reference {self.agreement:.1%}"
        )


def _bet_value(
    actions: NDArray[np.int64],
    fractions: NDArray[np.float64],
    largest: NDArray[np.float64],
    p: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Exact expected chips of Red Dog actions: -1 for a forfeit (action 0), else the
    bet of ``fractions[a - 1]`` of the largest bet (at least 1 chip; as the engine's
    ``fraction_bet``) times ``2p - 1``."""
    f = fractions[np.maximum(actions - 1, 0)]
    bet = np.clip(np.floor(f * largest + 1e-9), 1, np.maximum(largest, 1))
    return np.where(actions == 0, -1.0, bet * (2 * p - 1))


class RedDogBetValue:
    """Red Dog's training reward ``reward="bet-value"``: each decision's exact expected
    chips, ``b(2p - 1)`` for a bet of ``b`` (``-1`` for a forfeit), from the exact win
    probability p of the observation it was taken on (RULES.md §2), in chips (= antes
    at the default ante of 1).

    The env's reward (the chips since the last decision) also counts the ante that
    follows when a bet empties the pot and everyone antes again; that chip goes into
    the next pot, which the bettor may win back, so counting it as lost makes the
    1-chip ... whole-pot choice lean small. This reward is the bet alone, and its
    expectation instead of the turned card's luck (the same mean, less noise).

    Args:
        num_players: the table's seats (the observation's layout).
        starting_chips: the env's starting chips (chips are observed / total).
    """

    def __init__(self, num_players: int = 4, starting_chips: int = 50) -> None:
        from poker_env.episode.red_dog import DEFAULT_BET_FRACTIONS

        self.num_players = int(num_players)
        self.total = self.num_players * int(starting_chips)
        self.fractions = np.asarray(DEFAULT_BET_FRACTIONS, np.float64)

    def __call__(self, observations: NDArray[Any], actions: NDArray[Any]) -> NDArray[np.float64]:
        # RedDogEnv's observation: pot and own chips / total chips at 156 and 157 (the
        # largest bet is the smaller of the two), the exact p at 160 + num_players.
        obs = np.asarray(observations, np.float64)
        p = obs[:, 160 + self.num_players]
        largest = np.rint(np.minimum(obs[:, 156], obs[:, 157]) * self.total)
        return _bet_value(np.asarray(actions, np.int64), self.fractions, largest, p)


def red_dog_decision_value(
    policy: BatchPolicy,
    *,
    num_players: int = 4,
    decisions: int = 100_000,
    seed: int = 0,
    num_tables: int = 1024,
) -> DecisionValue:
    """Play ``policy`` in a seat of Red Dog tables (the reference policy in the others)
    and compute, at each of its decisions, the exact expectation of the bet it made
    and of the bet the reference would make: ``b(2p - 1)`` from the exact win
    probability p of the observation (``-1`` for a forfeit). Only the positions are
    sampled, not the turned cards."""
    from poker_env_agents.baselines.red_dog import ReferencePolicy

    spec = get_game("red-dog")
    env = spec.make_vector(num_tables, {"num_players": num_players}, opponent=ReferencePolicy())
    reference = ReferencePolicy()
    # RedDogConfig's default starting_chips: 50.
    value = RedDogBetValue(num_players, starting_chips=50)
    got = want = diff_sq = 0.0
    same = n = 0
    obs, info = env.reset(seed=seed)
    try:
        while n < decisions:
            acts = np.asarray(policy.act_batch(obs, info["action_mask"]), np.int64)
            ref = reference.act_batch(obs, info["action_mask"])
            mine = value(obs, acts)
            theirs = value(obs, ref)
            got += float(mine.sum())
            want += float(theirs.sum())
            diff_sq += float(((mine - theirs) ** 2).sum())
            same += int((acts == ref).sum())
            n += acts.size
            obs, _r, _t, _tr, info = env.step(acts)
    finally:
        env.close()
    mean_diff = (got - want) / n
    sd = float(np.sqrt(max(diff_sq / n - mean_diff**2, 0.0) * n / max(n - 1, 1)))
    return DecisionValue(got / n, want / n, n, same / n, Z95 * sd / np.sqrt(n))


@dataclass(frozen=True)
class DiscardAgreement:
    """Five-card draw: how a policy's discards compare with the best-equity discard.

    Attributes:
        decisions: draw decisions looked at.
        best: share whose discard has the best equity (one of the best, on a tie).
        mean_equity_loss: mean equity (share of the pot against a random pat hand)
            given up against the best discard, over all decisions.
        more_cards: share of the other decisions that replace more cards than the
            best discard; ``fewer_cards`` fewer; the rest as many, other cards.
        fewer_cards: see ``more_cards``.
    """

    decisions: int
    best: float
    mean_equity_loss: float
    more_cards: float
    fewer_cards: float

    def __str__(self) -> str:
        other = 1.0 - self.best
        return (
            f"discards over {self.decisions:,} draws: the best-equity discard {self.best:.1%}; "
            f"mean equity given up {self.mean_equity_loss:.4f}; of the other "
            f"{other:.1%}: {self.more_cards:.1%} replace more cards, "
            f"{self.fewer_cards:.1%} fewer, the rest as many but other cards"
        )


def draw_discard_agreement(
    policy: BatchPolicy,
    opponent: BatchPolicy,
    *,
    game: str = "draw",
    options: Mapping[str, Any] | None = None,
    decisions: int = 100_000,
    seed: int = 0,
    num_tables: int = 1024,
) -> DiscardAgreement:
    """Play ``policy`` against ``opponent`` at five-card draw tables and compare each of
    its discards with the best of the 32 by exact draw equity
    (:func:`~poker_env.evaluator.equity_batch.draw_discard_equities`, the heuristic's
    choice)."""
    from poker_env.evaluator.equity_batch import draw_discard_equities

    spec = get_game(game)
    opts = spec.options(options)
    if not spec.name.startswith("draw"):
        raise ConfigError("game", game, "'draw' or 'draw-match'")
    env = spec.make_vector(num_tables, opts, opponent=opponent)
    deck: Literal["standard", "short"] = "standard" if int(opts["deck"]) == 52 else "short"
    width = int(env.single_action_space.n)  # type: ignore[attr-defined]
    first = width - 33  # DROP, passive, sizes, all-in: then the 32 discard masks
    bits = np.array([bin(m).count("1") for m in range(32)])
    n = best = more = fewer = 0
    loss = 0.0
    obs, info = env.reset(seed=seed)
    try:
        while n < decisions:
            acts = np.asarray(policy.act_batch(obs, info["action_mask"]), np.int64)
            rows = np.flatnonzero(obs[:, 57] == 1)  # phase 1: this seat's draw
            if rows.size:
                eq = draw_discard_equities(obs[rows, 0:5].astype(np.int64), deck=deck)
                mask = acts[rows] - first
                got = eq[np.arange(rows.size), mask]
                top = eq.max(axis=1)
                is_best = got >= top
                ideal = bits[eq.argmax(axis=1)]
                best += int(is_best.sum())
                loss += float((top - got).sum())
                more += int((~is_best & (bits[mask] > ideal)).sum())
                fewer += int((~is_best & (bits[mask] < ideal)).sum())
                n += rows.size
            obs, _r, _t, _tr, info = env.step(acts)
    finally:
        env.close()
    other = max(n - best, 1)
    return DiscardAgreement(n, best / n, loss / n, more / other, fewer / other)


@dataclass(frozen=True)
class MatchWins:
    """The draw match (RULES.md §1), her seat against the human seat: whole matches.

    Attributes:
        matches: matches finished or cut off.
        won: matches the computer seat won (the human could not ante).
        lost: matches she lost (nothing left to stake).
        unfinished: matches cut off at ``max_hands`` hands.
        mean_hands: hands per match.
    """

    computer: str
    human: str
    matches: int
    won: int
    lost: int
    unfinished: int
    mean_hands: float

    @property
    def share(self) -> float:
        """Share of the decided matches she won."""
        return self.won / max(self.won + self.lost, 1)

    @property
    def half_width(self) -> float:
        """Half the 95% interval of :attr:`share` (normal approximation)."""
        n = max(self.won + self.lost, 1)
        return Z95 * math.sqrt(self.share * (1 - self.share) / n)

    def __str__(self) -> str:
        return (
            f"{self.computer} (her seat) vs {self.human} (human seat): she won "
            f"{self.share:.1%} ± {self.half_width:.1%} of {self.won + self.lost:,} decided "
            f"matches ({self.won:,} won, {self.lost:,} lost, {self.unfinished:,} cut off at "
            f"the hand limit; {self.mean_hands:.1f} hands a match)"
        )


def draw_match_wins(
    computer: BatchPolicy,
    human: BatchPolicy,
    *,
    options: Mapping[str, Any] | None = None,
    matches: int = 2_000,
    seed: int = 0,
    num_tables: int = 256,
    max_hands: int = 1000,
    names: tuple[str, str] = ("computer", "human"),
) -> MatchWins:
    """Play whole draw matches, ``computer`` in her seat and ``human`` in the other,
    and count who wins (the match bonus is set so large that the last reward's sign
    names the winner; the play does not see it)."""
    from poker_env.vector.draw import DrawVectorEnv

    opts = get_game("draw-match").options(options)
    bonus = 1e9
    env = DrawVectorEnv(
        num_tables,
        agent_seat=1,
        opponent=human,
        mode="match",
        match_bonus=bonus,
        max_hands=max_hands,
        copy=False,
        **opts,
    )
    won = lost = unfinished = done_count = 0
    hands = 0
    obs, info = env.reset(seed=seed)
    try:
        while done_count < matches:
            acts = np.asarray(computer.act_batch(obs, info["action_mask"]), np.int64)
            hand_no = np.asarray(info.get("hand_no", np.zeros(num_tables)))  # before autoreset
            obs, rew, term, trunc, info = env.step(acts)
            ended = np.flatnonzero(term | trunc)
            if ended.size:
                r = np.asarray(rew)[ended]
                won += int((r > bonus / 2).sum())
                lost += int((r < -bonus / 2).sum())
                unfinished += int(np.asarray(trunc)[ended].sum())
                hands += int(hand_no[ended].sum())
                done_count += ended.size
    finally:
        env.close()
    return MatchWins(names[0], names[1], done_count, won, lost, unfinished, hands / done_count)


def buy_back_table(
    computer: BatchPolicy,
    human: BatchPolicy,
    *,
    options: Mapping[str, Any] | None = None,
    offers: int = 5_000,
    seed: int = 0,
    num_tables: int = 256,
    money_edges: Sequence[float] = (150, 300, 600),
) -> list[dict[str, Any]]:
    """Her buy-back decisions (RULES.md §1) in whole draw matches against ``human``:
    at each offer, her money and the items she has lost, and whether she bought back.

    Returns one row per (items lost, money band) seen: ``lost``, ``money`` (the band,
    e.g. ``"150-300"``), ``offers``, ``bought`` (share of the offers she took) and
    ``mean_money``. Stops after ``offers`` offers (or 2,000 steps of every table).
    """
    from poker_env.vector.draw import DrawVectorEnv

    opts = get_game("draw-match").options(options)
    env = DrawVectorEnv(num_tables, agent_seat=1, opponent=human, mode="match", copy=False, **opts)
    buy = int(env.single_action_space.n) - 1  # type: ignore[attr-defined]
    seen: list[tuple[float, float, bool]] = []
    obs, info = env.reset(seed=seed)
    try:
        for _ in range(2000):
            acts = np.asarray(computer.act_batch(obs, info["action_mask"]), np.int64)
            offered = np.flatnonzero(np.asarray(info["action_mask"])[:, buy] != 0)
            for i in offered.tolist():
                seen.append((float(obs[i, 60]), float(obs[i, 70]), bool(acts[i] == buy)))
            if len(seen) >= offers:
                break
            obs, _r, _t, _tr, info = env.step(acts)
    finally:
        env.close()
    edges = [0.0, *money_edges, float("inf")]
    rows = []
    for lost in sorted({int(s[1]) for s in seen}):
        for lo, hi in itertools.pairwise(edges):
            band = [s for s in seen if int(s[1]) == lost and lo <= s[0] < hi]
            if band:
                rows.append(
                    {
                        "lost": lost,
                        "money": f"{lo:g}-{hi:g}" if hi != float("inf") else f">={lo:g}",
                        "offers": len(band),
                        "bought": sum(s[2] for s in band) / len(band),
                        "mean_money": sum(s[0] for s in band) / len(band),
                    }
                )
    return rows
