"""What the notebooks measure: how policies play, read from the envs and the games.

The analysis notebooks (``notebooks/``) call these helpers so that no cell holds
library code. Everything here goes through the public API: the games' env specs
(:mod:`poker_env_agents.registry`), the observation layouts documented in ``docs/*.md``, the
Hold'em engine's JSON hand records, a training run's TensorBoard logs and the
tables that ``make bench`` prints.

- :func:`find_or_train_policy`: the shipped policy of a game when the file exists,
  else a small one trained on the spot (the notebooks' budget parameter).
- :func:`collect_decisions`: a policy's observations, masks and actions in a seat of
  the batched env.
- Five-card draw: :func:`draw_betting_counts` (drop / check-call / bet-raise by hand
  category before and after the draw), :func:`draw_discard_choices` (the discard
  played against the best-equity one), :func:`buy_back_decisions` (her buy-backs
  against her money and the items she has lost).
- Red Dog: :func:`record_red_dog_bets` (the bet against the exact win probability p),
  :func:`red_dog_chips` (every seat's chips along one long game).
- Hold'em: :func:`play_holdem_hands` (a table of policies on the engine, one JSON
  hand record per hand) and :func:`holdem_stats` (VPIP, PFR, aggression factor and
  showdown winnings by position, from those records).
- :func:`read_scalars` (a run's TensorBoard curves) and :func:`parse_bench_output`
  (the tables of ``make bench``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from poker_env.episode.draw import O_CARDS, O_PHASE, O_STACK_OWN, O_WARD_OWN
from poker_env.errors import ConfigError, as_int
from poker_env.policy import BatchPolicy, Policy
from poker_env_agents.registry import get_game

__all__ = [
    "BUY_BACK_PHASE",
    "DRAW_ACTION_KINDS",
    "DRAW_ROUNDS",
    "BenchRow",
    "BuyBacks",
    "ChipPath",
    "Decisions",
    "DiscardChoices",
    "HoldemPlayerStats",
    "PolicyFile",
    "RedDogBets",
    "buy_back_decisions",
    "collect_decisions",
    "draw_action_kinds",
    "draw_betting_counts",
    "draw_discard_choices",
    "find_or_train_policy",
    "holdem_stats",
    "parse_bench_output",
    "play_holdem_hands",
    "position_names",
    "read_scalars",
    "readme_evaluator_speed",
    "record_red_dog_bets",
    "red_dog_chips",
]


# ----- a policy for the notebooks ------------------------------------------------------


@dataclass(frozen=True)
class PolicyFile:
    """An exported policy and where it came from.

    Attributes:
        path: the ``.npz`` file (:func:`poker_env_agents.runtime.load_policy` reads it).
        source: ``"given"`` (the path asked for), ``"shipped"`` (``agents/models/``),
            ``"trained"`` (trained by :func:`find_or_train_policy` now) or
            ``"reused"`` (trained earlier into the same folder with the same config).
        description: one line for a notebook's text.
    """

    path: Path
    source: str
    description: str


def find_or_train_policy(
    game: str,
    options: Mapping[str, Any] | None = None,
    *,
    model_path: str | Path | None = None,
    timesteps: int = 100_000,
    seed: int = 0,
    out: str | Path | None = None,
    **train_fields: Any,
) -> PolicyFile:
    """The policy a notebook studies: ``model_path``, else the shipped one, else trained.

    Args:
        game: a name of :data:`poker_env_agents.registry.GAMES`; ``options`` its env options.
        model_path: an exported policy file; a path that does not exist is an error
            (it was asked for by name). None: the game's shipped policy
            (:func:`poker_env_agents.opponent.shipped_model`) when its file exists.
        timesteps: what a policy trained here gets (MaskablePPO steps) when there is
            neither.
        seed: the training's seed.
        out: the folder of the training runs (None: a new temporary folder); each
            configuration trains into its own subfolder, and a finished run of the
            same configuration there is reused.
        train_fields: more :class:`poker_env_agents.training.train.TrainConfig` fields (``num_tables``,
            ``n_steps``, ``net_arch``, ...).

    Raises:
        FileNotFoundError: ``model_path`` names no file.
        poker_env_agents.runtime.PolicyFileError: the given or shipped file does not fit the
            game's env (another env, options or observation layout), naming why.
        ConfigError: a bad game, option or training field.
    """
    from poker_env_agents.opponent import shipped_model
    from poker_env_agents.runtime import describe_env, load_policy

    spec = get_game(game)
    opts = spec.options(options)
    env = spec.make_env(opts)
    if model_path is not None:
        path = Path(model_path)
        if not path.is_file():
            raise FileNotFoundError(f"model_path {str(path)!r}: no such file")
        load_policy(path, env)  # a file made for another env or layout is refused here
        return PolicyFile(path, "given", f"{path} (given)")
    shipped = shipped_model(spec.name, opts)
    if shipped.is_file():
        load_policy(shipped, env)
        return PolicyFile(shipped, "shipped", f"{shipped.name} (shipped in agents/models)")
    from poker_env_agents.training.train import TrainConfig, train

    folder = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="poker_env_nb_"))
    fields: dict[str, Any] = {"checkpoint_every": 0, "eval_every": 0, **train_fields}
    bare = TrainConfig(game=spec.name, options=opts, timesteps=timesteps, seed=seed, **fields)
    # One folder per configuration and env layout: a run is reused only for the same
    # configuration of the same env (train() refuses a folder that holds another run,
    # and a changed observation layout needs a new policy).
    described = json.dumps(dataclasses.asdict(describe_env(env)), sort_keys=True, default=str)
    digest = hashlib.sha256((bare.to_toml() + described).encode()).hexdigest()[:10]
    run = folder / f"{spec.name}-seed{seed}-{digest}"
    config = dataclasses.replace(bare, out=str(run))
    what = f"trained here: {timesteps:,} MaskablePPO steps, seed {seed}"
    if (run / "policy.npz").is_file():
        return PolicyFile(run / "policy.npz", "reused", f"{what} (reused from {run})")
    run = train(
        config,
        progress_bar=False,
        evaluate=False,
        command="poker_env_agents.analysis.stats notebook",
    )
    return PolicyFile(run / "policy.npz", "trained", what)


# ----- decisions in the batched envs ---------------------------------------------------


@dataclass(frozen=True)
class Decisions:
    """A policy's decisions: one row per decision, in the order played.

    Attributes:
        observations: ``(n, obs)`` float32, the env's documented observation.
        masks: ``(n, actions)`` int8, the legal actions.
        actions: ``(n,)`` int64, the action played (always legal).
        game: the game's name; ``options`` its env options.
    """

    observations: NDArray[np.float32]
    masks: NDArray[np.int8]
    actions: NDArray[np.int64]
    game: str
    options: Mapping[str, Any]

    def __len__(self) -> int:
        return int(self.actions.shape[0])


def collect_decisions(
    policy: BatchPolicy,
    game: str,
    options: Mapping[str, Any] | None = None,
    *,
    opponent: BatchPolicy | None = None,
    num_tables: int = 256,
    steps: int = 100,
    seed: int = 0,
    seat: int | None = None,
) -> Decisions:
    """Play ``policy`` in a seat of ``num_tables`` tables for ``steps`` steps and keep
    every decision (``num_tables * steps`` rows).

    Args:
        policy: the policy studied (``act_batch``).
        game: a name of :data:`poker_env_agents.registry.GAMES`; ``options`` its env options.
        opponent: who plays the other seats (None: the batched env's default, random
            legal actions).
        num_tables, steps: tables stepped together, and steps of each.
        seed: table ``i`` is seeded ``seed + i``.
        seat: the policy's seat (None: the env's default; see
            :meth:`poker_env_agents.registry.GameSpec.make_vector`).

    Raises:
        ConfigError: a bad count, game or option.
        ValueError: the policy played an action its mask does not allow.
    """
    for name, v in (("num_tables", num_tables), ("steps", steps)):
        if as_int(v) is None or int(v) < 1:
            raise ConfigError(name, v, "an integer >= 1")
    spec = get_game(game)
    opts = spec.options(options)
    env = spec.make_vector(num_tables, opts, opponent=opponent, seat=seat)
    obs_rows: list[NDArray[np.float32]] = []
    mask_rows: list[NDArray[np.int8]] = []
    act_rows: list[NDArray[np.int64]] = []
    try:
        obs, info = env.reset(seed=seed)
        for _ in range(steps):
            masks = np.asarray(info["action_mask"], np.int8)
            acts = np.asarray(policy.act_batch(obs, masks), np.int64)
            rows = np.arange(acts.size)
            if acts.shape != (masks.shape[0],) or not ((acts >= 0) & (acts < masks.shape[1])).all():
                raise ValueError(f"the policy returned {acts!r} for {masks.shape[0]} tables")
            bad = np.flatnonzero(masks[rows, acts] == 0)
            if bad.size:
                t = int(bad[0])
                raise ValueError(
                    f"the policy played action {int(acts[t])} at table {t}, "
                    f"legal: {np.flatnonzero(masks[t]).tolist()}"
                )
            obs_rows.append(np.array(obs, np.float32))
            mask_rows.append(masks.copy())
            act_rows.append(acts)
            obs, _r, _term, _trunc, info = env.step(acts)
    finally:
        env.close()
    return Decisions(
        np.concatenate(obs_rows),
        np.concatenate(mask_rows),
        np.concatenate(act_rows),
        spec.name,
        opts,
    )


# ----- five-card draw ------------------------------------------------------------------

# The draw observation (poker_env.episode.draw): own cards in slot order, the phase (0
# pre-draw, 1 draw, 2 post-draw, 3 hand over, 4 buy-back, 5 match over), own money, own
# wardrobe (worn, at stake, lost).
_D_CARDS = slice(O_CARDS, O_CARDS + 5)
_D_PHASE = O_PHASE
_D_MONEY = O_STACK_OWN
_D_WORN, _D_LOST = O_WARD_OWN, O_WARD_OWN + 2
#: The two betting rounds of five-card draw, as ``draw_betting_counts`` orders them.
DRAW_ROUNDS = ("before the draw", "after the draw")
_ROUND_PHASES = (0, 2)
BUY_BACK_PHASE = 4
#: What a draw action is, as :func:`draw_action_kinds` numbers them.
DRAW_ACTION_KINDS = ("drop", "check/call", "bet/raise", "discard", "buy back")


def _num_sizes(num_actions: int) -> int:
    # docs/draw.md: Discrete(2 + K + 33), K = len(pot_fractions) + 1.
    k = num_actions - 35
    if k < 1:
        raise ValueError(f"{num_actions} actions is not a five-card draw action space")
    return k


def draw_action_kinds(actions: NDArray[np.integer], num_actions: int) -> NDArray[np.int64]:
    """The kind of each five-card draw action (an index into :data:`DRAW_ACTION_KINDS`):
    0 DROP, 1 the passive action (STAY, DRAW, CALL, SKIP_BUY_BACK), 2 a bet or raise of
    any size (all-in included), 3 a discard, 4 BUY_BACK (docs/draw.md, the action
    table), for an env of ``num_actions`` actions."""
    k = _num_sizes(num_actions)
    a = np.asarray(actions, np.int64)
    if a.size and (a.min() < 0 or a.max() >= num_actions):
        raise ValueError(f"actions outside [0, {num_actions}): {a[(a < 0) | (a >= num_actions)]}")
    kinds = np.select(
        [a == 0, a == 1, a < 2 + k, a < 2 + k + 32],
        [0, 1, 2, 3],
        default=4,
    )
    return kinds.astype(np.int64)


def _deck(decisions: Decisions) -> int:
    return int(decisions.options.get("deck", 52))


def _check_draw(decisions: Decisions) -> None:
    if not decisions.game.startswith("draw"):
        raise ValueError(f"five-card draw decisions needed, got {decisions.game!r}")


def draw_betting_counts(
    decisions: Decisions, *, flush_beats_full_house: bool = False
) -> NDArray[np.int64]:
    """How often each action kind was played with each hand category in each betting
    round: ``counts[r, c, k]`` for round r (:data:`DRAW_ROUNDS`), the category c of the
    five cards held (0 high card .. 8 straight flush, by the evaluator) and the kind k
    (0 drop, 1 check/call, 2 bet/raise).

    ``flush_beats_full_house`` must be the env's (the observation does not say).
    """
    from poker_env.evaluator import evaluate, hand_category

    _check_draw(decisions)
    counts = np.zeros((2, 9, 3), np.int64)
    obs = decisions.observations
    kinds = draw_action_kinds(decisions.actions, decisions.masks.shape[1])
    for r, phase in enumerate(_ROUND_PHASES):
        rows = np.flatnonzero(obs[:, _D_PHASE] == phase)
        if not rows.size:
            continue
        cards = obs[rows, _D_CARDS].astype(np.int64)
        cats = hand_category(evaluate(cards, _deck(decisions), flush_beats_full_house)).astype(
            np.int64
        )
        np.add.at(counts[r], (cats, kinds[rows]), 1)
    return counts


@dataclass(frozen=True)
class DiscardChoices:
    """The draws of a policy against the best-equity draw, one row per draw.

    Attributes:
        hands: ``(n, 5)`` the cards held before the draw, in slot order.
        chosen: ``(n,)`` the discard played (bit j: the card of slot j replaced).
        equities: ``(n, 32)`` the exact equity of every discard choice
            (:func:`poker_env.evaluator.equity_batch.draw_discard_equities`: every draw
            counted, against a random pat hand).
    """

    hands: NDArray[np.int64]
    chosen: NDArray[np.int64]
    equities: NDArray[np.float64]

    @property
    def best(self) -> NDArray[np.int64]:
        """The best discard of each row (the smallest mask among equal bests)."""
        return np.asarray(self.equities.argmax(axis=1), np.int64)

    @property
    def chosen_equity(self) -> NDArray[np.float64]:
        return self.equities[np.arange(self.chosen.size), self.chosen]

    @property
    def best_equity(self) -> NDArray[np.float64]:
        return np.asarray(self.equities.max(axis=1), np.float64)

    @property
    def equity_lost(self) -> NDArray[np.float64]:
        """Best equity less the chosen one's (0 where the choice was a best one)."""
        return self.best_equity - self.chosen_equity

    @property
    def is_best(self) -> NDArray[np.bool_]:
        """The choice was a best one (ties included: equal choices have equal numbers)."""
        return np.asarray(self.equity_lost <= 0.0)

    @property
    def cards_drawn(self) -> NDArray[np.int64]:
        return _popcount5(self.chosen)

    @property
    def best_cards_drawn(self) -> NDArray[np.int64]:
        return _popcount5(self.best)


def _popcount5(masks: NDArray[np.int64]) -> NDArray[np.int64]:
    return np.asarray(sum((masks >> j) & 1 for j in range(5)), np.int64)


def draw_discard_choices(
    decisions: Decisions, *, flush_beats_full_house: bool = False
) -> DiscardChoices:
    """The discards among ``decisions`` (the draw phase) with the exact equity of every
    choice; ``flush_beats_full_house`` must be the env's."""
    from poker_env.evaluator.equity_batch import draw_discard_equities

    _check_draw(decisions)
    obs = decisions.observations
    rows = np.flatnonzero(obs[:, _D_PHASE] == 1)
    hands = obs[rows, _D_CARDS].astype(np.int64)
    first_discard = 2 + _num_sizes(decisions.masks.shape[1])
    chosen = decisions.actions[rows] - first_discard
    if chosen.size and (chosen.min() < 0 or chosen.max() > 31):
        raise ValueError("a decision of the draw phase is not a discard")
    if not rows.size:
        equities = np.zeros((0, 32))
    else:
        equities = draw_discard_equities(
            hands, deck=_deck(decisions), flush_beats_full_house=flush_beats_full_house
        )
    return DiscardChoices(hands, np.asarray(chosen, np.int64), equities)


@dataclass(frozen=True)
class BuyBacks:
    """Her buy-back decisions (DrawMatch-v0, the computer seat), one row per offer.

    Attributes:
        money: her money when offered (chips).
        items_lost: the items she had lost then; ``items_worn`` those still worn.
        bought: whether she bought one back.
    """

    money: NDArray[np.float64]
    items_lost: NDArray[np.int64]
    items_worn: NDArray[np.int64]
    bought: NDArray[np.bool_]


def buy_back_decisions(decisions: Decisions) -> BuyBacks:
    """The decisions among ``decisions`` where BUY_BACK was offered (the buy-back phase,
    BUY_BACK legal): what she had and what she did."""
    _check_draw(decisions)
    obs = decisions.observations
    buy = decisions.masks.shape[1] - 1
    rows = np.flatnonzero((obs[:, _D_PHASE] == BUY_BACK_PHASE) & (decisions.masks[:, buy] != 0))
    return BuyBacks(
        obs[rows, _D_MONEY].astype(np.float64),
        np.rint(obs[rows, _D_LOST]).astype(np.int64),
        np.rint(obs[rows, _D_WORN]).astype(np.int64),
        decisions.actions[rows] == buy,
    )


# ----- Red Dog -------------------------------------------------------------------------


@dataclass(frozen=True)
class RedDogBets:
    """A policy's Red Dog decisions, one row each (``info["last_bet"]`` of RedDog-v0).

    Attributes:
        p: the exact probability that its hand beat the next card, when it decided.
        amount: chips bet (1 for a forfeit: the chip it cost).
        largest: the largest legal bet then, ``min(pot, own chips)`` (RULES.md §2).
        forfeit: it forfeited instead of betting.
        won: the bet won.
        hands: ``(n, 5)`` the cards it held, ascending (-1 pads a four-card hand).
    """

    p: NDArray[np.float64]
    amount: NDArray[np.int64]
    largest: NDArray[np.int64]
    forfeit: NDArray[np.bool_]
    won: NDArray[np.bool_]
    hands: NDArray[np.int64]

    @property
    def fraction(self) -> NDArray[np.float64]:
        """The bet as a share of the largest legal bet (0 for a forfeit)."""
        return np.where(self.forfeit, 0.0, self.amount / np.maximum(self.largest, 1))

    @property
    def expected_chips(self) -> NDArray[np.float64]:
        """Each decision's exact expectation: ``b(2p - 1)`` for a bet b, -1 for a forfeit."""
        return np.where(self.forfeit, -1.0, self.amount * (2.0 * self.p - 1.0))


def _red_dog_env(num_players: int, **kwargs: Any) -> Any:
    return get_game("red-dog").make_env({"num_players": num_players}, **kwargs)


def record_red_dog_bets(
    policy: Policy,
    *,
    num_players: int = 4,
    decisions: int = 10_000,
    seed: int = 0,
    opponents: Policy | None = None,
) -> RedDogBets:
    """Play ``policy`` in ``RedDog-v0`` (a random seat per game; the env's default
    opponents unless ``opponents`` is given) for ``decisions`` decisions, games after
    games, and keep what each decision was worth."""
    n = as_int(decisions)
    if n is None or n < 1:
        raise ConfigError("decisions", decisions, "an integer >= 1")
    kw: dict[str, Any] = {} if opponents is None else {"opponents": opponents}
    env = _red_dog_env(num_players, **kw)
    total = num_players * env.config.starting_chips  # docs/red_dog.md: chips are / T
    p: list[float] = []
    amount: list[int] = []
    largest: list[int] = []
    forfeit: list[bool] = []
    won: list[bool] = []
    hands: list[NDArray[np.int64]] = []
    obs, info = env.reset(seed=seed)
    while len(p) < n:
        # docs/red_dog.md observation: own hand one-hot at 0:52, pot / T at 156, own
        # chips / T at 157.
        largest.append(round(min(float(obs[156]), float(obs[157])) * total))
        held = np.flatnonzero(obs[:52] > 0.5)
        hands.append(np.concatenate([held, np.full(5 - held.size, -1)]))
        obs, _r, term, trunc, info = env.step(int(policy.act(obs, info["action_mask"])))
        bet = info["last_bet"]
        p.append(bet["p"])
        amount.append(bet["amount"])
        forfeit.append(bet["kind"] == "forfeit")
        won.append(bool(bet["won"]))
        if term or trunc:
            obs, info = env.reset()
    return RedDogBets(
        np.asarray(p, np.float64),
        np.asarray(amount, np.int64),
        np.asarray(largest, np.int64),
        np.asarray(forfeit, np.bool_),
        np.asarray(won, np.bool_),
        np.asarray(hands, np.int64).reshape(-1, 5),
    )


@dataclass(frozen=True)
class ChipPath:
    """Every seat's chips along one Red Dog game, at each of the agent's decisions and
    at the end (``chips[i, s]``: seat s, in chips), with the pot."""

    chips: NDArray[np.int64]
    pot: NDArray[np.int64]
    agent_seat: int


def red_dog_chips(
    policy: Policy,
    *,
    num_players: int = 4,
    rounds: int = 100,
    seed: int = 0,
    agent_seat: int = 0,
    opponents: Policy | None = None,
) -> ChipPath:
    """Play one ``RedDog-v0`` game of ``rounds`` deals with ``policy`` in ``agent_seat``
    and read every seat's chips from the observations (it ends early when the agent
    leaves, broke, or one player holds everything)."""
    kw: dict[str, Any] = {"rounds": rounds, "agent_seat": agent_seat}
    if opponents is not None:
        kw["opponents"] = opponents
    env = _red_dog_env(num_players, **kw)
    total = num_players * env.config.starting_chips
    # docs/red_dog.md observation: [158:158+P] each seat's chips / T from the own seat
    # on, in turn order; the pot / T at 156.
    order = [(agent_seat + k) % num_players for k in range(num_players)]
    rows, pots = [], []

    def read(o: NDArray[np.float32]) -> None:
        row = np.zeros(num_players, np.int64)
        row[order] = np.rint(o[158 : 158 + num_players] * total).astype(np.int64)
        rows.append(row)
        pots.append(round(float(o[156]) * total))

    obs, info = env.reset(seed=seed)
    read(obs)
    while True:
        obs, _r, term, trunc, info = env.step(int(policy.act(obs, info["action_mask"])))
        read(obs)
        if term or trunc:
            break
    return ChipPath(np.asarray(rows), np.asarray(pots, np.int64), agent_seat)


# ----- Hold'em -------------------------------------------------------------------------


def position_names(num_players: int) -> list[str]:
    """Position names by seats after the button: ``[BTN, SB, BB, UTG, ..., CO]``.

    Heads-up the button posts the small blind (RULES.md §3): ``["BTN/SB", "BB"]``.
    The seats between the big blind and the button are UTG (the first to act before
    the flop), then UTG+1, ..., and the last up to three before the button LJ, HJ,
    CO (6-max: UTG, HJ, CO; 9 seats: UTG, UTG+1, UTG+2, LJ, HJ, CO).
    """
    n = as_int(num_players)
    if n is None or not 2 <= n <= 10:
        raise ConfigError("num_players", num_players, "an integer from 2 to 10")
    if n == 2:
        return ["BTN/SB", "BB"]
    middle = n - 3
    num_late = min(3, max(middle - 1, 0))
    late = ["LJ", "HJ", "CO"][3 - num_late :]
    early = ["UTG" if k == 0 else f"UTG+{k}" for k in range(middle - num_late)]
    return ["BTN", "SB", "BB", *early, *late]


def play_holdem_hands(
    players: Sequence[BatchPolicy],
    *,
    hands: int,
    seed: int = 0,
    raise_fractions: Sequence[float] | None = None,
    base: int = 2,
    starting_stack: int | None = None,
    rules: Literal["seed", "standard"] = "seed",
) -> list[dict[str, Any]]:
    """Play ``hands`` hands of Hold'em on the engine, ``players[s]`` in seat s, and
    return each hand's JSON record (:meth:`poker_env.games.holdem.HoldemGame.hand_record`:
    deck, button, every action, the stacks before and after).

    Each hand starts with full stacks and the button on seat ``h % len(players)``, so
    every player plays every position equally often. A player sees what a
    ``Holdem-v0`` agent in its seat would see (the env's observation and mask, with
    ``raise_fractions``) and its action index is played as the env plays it.

    Raises:
        ConfigError: a bad count or table option.
        ValueError: a player chose an action its mask does not allow.
    """
    from poker_env.episode import holdem as E
    from poker_env.games.holdem import HoldemConfig, HoldemGame

    n = len(players)
    if not 2 <= n <= 10:
        raise ConfigError("players", n, "2 to 10 policies")
    count = as_int(hands)
    if count is None or count < 1:
        raise ConfigError("hands", hands, "an integer >= 1")
    fractions = np.asarray(
        E.DEFAULT_FRACTIONS if raise_fractions is None else raise_fractions, np.float64
    )
    config = HoldemConfig(num_seats=n, base=base, starting_stack=starting_stack, rules=rules)
    rng = np.random.default_rng(seed)
    obs = np.zeros((1, E.obs_size(n)), np.float32)
    mask = np.zeros((1, E.num_actions(fractions.size)), np.int8)
    amounts = np.zeros(mask.shape[1], np.int64)
    all_in = mask.shape[1] - 1
    records = []
    for h in range(count):
        game = HoldemGame(config, rng=rng)
        game.start_hand(button=h % n)
        while game.phase == "betting":
            seat = game.to_act
            E.encode(game.state, seat, float(config.stack), obs[0])
            E.action_mask(game.state, fractions, mask[0], amounts)
            a = int(np.asarray(players[seat].act_batch(obs, mask))[0])
            if not 0 <= a < mask.shape[1] or not mask[0, a]:
                raise ValueError(
                    f"player {seat} chose action {a}, legal: {np.flatnonzero(mask[0]).tolist()}"
                )
            # The env's action indices (docs/holdem.md): 0 fold, 1 check/call, the
            # raises to amounts[a], the last all-in.
            if a == 0:
                game.fold()
            elif a == 1:
                game.check_or_call()
            elif a == all_in:
                game.all_in()
            else:
                game.raise_to(int(amounts[a]))
        records.append(game.hand_record())
    return records


@dataclass(frozen=True)
class HoldemPlayerStats:
    """One player's statistics in one position (or ``"all"``), over ``hands`` hands.

    Attributes:
        player: the player's name; ``position``: a name of :func:`position_names`.
        hands: hands dealt to it there.
        vpip: share of hands in which it put chips in voluntarily before the flop (a
            call or a raise; the blinds alone do not count).
        pfr: share of hands in which it raised before the flop.
        aggression: aggression factor after the flop, (bets + raises) / calls (inf
            when it bet but never called, nan when it did neither).
        went_to_showdown: share of hands it played to a showdown.
        won_at_showdown: share of those showdowns in which it won chips.
        showdown_bb_per_100: big blinds won at showdowns per 100 hands.
        net_bb_per_100: big blinds won in all per 100 hands.
    """

    player: str
    position: str
    hands: int
    vpip: float
    pfr: float
    aggression: float
    went_to_showdown: float
    won_at_showdown: float
    showdown_bb_per_100: float
    net_bb_per_100: float


@dataclass
class _Tally:
    hands: int = 0
    vpip: int = 0
    pfr: int = 0
    aggressive: int = 0
    calls: int = 0
    showdowns: int = 0
    showdowns_won: int = 0
    showdown_chips: int = 0
    net_chips: int = 0


def _record(r: Mapping[str, Any] | str) -> Mapping[str, Any]:
    if isinstance(r, str):
        loaded: Mapping[str, Any] = json.loads(r)
        return loaded
    return r


def holdem_stats(
    records: Sequence[Mapping[str, Any] | str],
    names: Sequence[str] | None = None,
) -> list[HoldemPlayerStats]:
    """VPIP, PFR, aggression factor and showdown winnings of every seat's player, by
    position and over all positions, from Hold'em JSON hand records
    (:meth:`~poker_env.games.holdem.HoldemGame.hand_record` or ``to_json`` text; a PHH
    history reads in with ``from_phh(text).hand_record()``).

    Args:
        records: the hands; each seat's player must be the same in every record.
        names: the players' names by seat (None: ``seat 0``, ``seat 1``, ...).

    Returns:
        One entry per player and position played, then per player over all positions
        (``position == "all"``), players in seat order.
    """
    recs = [_record(r) for r in records]
    if not recs:
        return []
    n = int(recs[0]["config"]["num_seats"])
    labels = list(names) if names is not None else [f"seat {s}" for s in range(n)]
    if len(labels) != n:
        raise ValueError(f"{len(labels)} names for a table of {n} seats")
    tallies: dict[tuple[int, str], _Tally] = {}
    for rec in recs:
        if int(rec["config"]["num_seats"]) != n:
            raise ValueError("records of tables of different sizes")
        base = int(rec["config"]["base"])
        seated = [s for s in range(n) if rec["seated"][s]]
        pos_names = position_names(len(seated))
        button = int(rec["button"])
        # Seats in the hand, clockwise from the button (RULES.md §3).
        order = sorted(seated, key=lambda s: (s - button) % n)
        position = {s: pos_names[i] for i, s in enumerate(order)}
        hand = {s: _Tally(hands=1) for s in seated}
        voluntary: set[int] = set()
        raised: set[int] = set()
        out: set[int] = set()  # folded or left
        street = ""
        current = 0
        for act in rec["actions"]:
            if act["street"] != street:
                street = act["street"]
                # Pre-flop the big blind is the bet to match; later streets start at 0.
                current = base if street == "preflop" else 0
            seat, kind, to = int(act["seat"]), act["action"], int(act["to"])
            is_raise = kind == "raise_to" or (kind == "all_in" and to > current)
            is_call = kind == "call" or (kind == "all_in" and to <= current)
            if kind in ("raise_to", "all_in"):
                current = max(current, to)
            if kind in ("fold", "leave"):
                out.add(seat)
            if street == "preflop":
                if is_raise or is_call:
                    voluntary.add(seat)
                if is_raise:
                    raised.add(seat)
            else:
                hand[seat].aggressive += int(is_raise)
                hand[seat].calls += int(is_call)
        live = [s for s in seated if s not in out]
        showdown = len(live) >= 2
        for s in seated:
            t = hand[s]
            net = int(rec["final_stacks"][s]) - int(rec["start_stacks"][s])
            t.vpip = int(s in voluntary)
            t.pfr = int(s in raised)
            t.net_chips = net
            if showdown and s in live:
                t.showdowns = 1
                t.showdowns_won = int(net > 0)
                t.showdown_chips = net
            for key in ((s, position[s]), (s, "all")):
                acc = tallies.setdefault(key, _Tally())
                for f in dataclasses.fields(_Tally):
                    setattr(acc, f.name, getattr(acc, f.name) + getattr(t, f.name))
    bb = int(recs[0]["config"]["base"])
    order_pos = {p: i for i, p in enumerate(position_names(n))}
    keys = sorted(tallies, key=lambda k: (k[0], k[1] == "all", order_pos.get(k[1], 99)))
    result = []
    for s, pos in keys:
        t = tallies[(s, pos)]
        h = max(t.hands, 1)
        if t.calls:
            af = t.aggressive / t.calls
        else:
            af = math.inf if t.aggressive else math.nan
        result.append(
            HoldemPlayerStats(
                player=labels[s],
                position=pos,
                hands=t.hands,
                vpip=t.vpip / h,
                pfr=t.pfr / h,
                aggression=af,
                went_to_showdown=t.showdowns / h,
                won_at_showdown=t.showdowns_won / t.showdowns if t.showdowns else math.nan,
                showdown_bb_per_100=100.0 * t.showdown_chips / bb / h,
                net_bb_per_100=100.0 * t.net_chips / bb / h,
            )
        )
    return result


# ----- training curves and benchmark tables --------------------------------------------


def read_scalars(run_dir: str | Path) -> dict[str, tuple[NDArray[np.int64], NDArray[np.float64]]]:
    """Every scalar curve of a training run's TensorBoard logs: tag -> (steps, values).

    ``run_dir`` is a run folder (its ``tb/`` is read) or a folder of event files. The
    logs of a resumed run (``tb/ppo_1``, ``tb/ppo_2``, ...) are joined in step order;
    where two logs hold the same step, the later log's value is kept.

    Raises:
        FileNotFoundError: no TensorBoard event file under the folder.
    """
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    root = Path(run_dir)
    if (root / "tb").is_dir():
        root = root / "tb"
    folders = sorted({p.parent for p in root.rglob("events.out.tfevents.*")})
    if not folders:
        raise FileNotFoundError(f"no TensorBoard event files under {str(root)!r}")
    points: dict[str, dict[int, float]] = {}
    for folder in folders:
        acc = EventAccumulator(str(folder), size_guidance={"scalars": 0})
        acc.Reload()
        for tag in acc.Tags()["scalars"]:
            curve = points.setdefault(tag, {})
            for event in acc.Scalars(tag):
                curve[int(event.step)] = float(event.value)
    out = {}
    for tag, curve in sorted(points.items()):
        steps = np.array(sorted(curve), np.int64)
        out[tag] = (steps, np.array([curve[int(s)] for s in steps], np.float64))
    return out


@dataclass(frozen=True)
class BenchRow:
    """One row of a ``make bench`` table: the suite's title, what, value, unit, note."""

    suite: str
    name: str
    value: float
    unit: str
    note: str


_SUFFIX = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9}
_VALUE = re.compile(
    r"^(?P<num>[-+]?[0-9][0-9,]*(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)\s*(?P<s>[kMG]?)$"
)


def _bench_value(text: str) -> float:
    t = text.strip()
    if t in ("n/a", ""):
        return math.nan
    m = _VALUE.match(t)
    if m is None:
        raise ValueError(f"not a benchmark value: {text!r}")
    return float(m.group("num").replace(",", "")) * _SUFFIX[m.group("s")]


def parse_bench_output(text: str) -> list[BenchRow]:
    """The rows of the tables that ``make bench`` (``bench/run.py``) prints.

    Each table starts with a ``### title`` line; its rows are ``| what | value | unit |
    note`` with values such as ``162.00 M``, ``73.5 k``, ``4.7e+03`` or ``n/a`` (NaN).
    Other lines (the header, rules, blank lines, tracebacks) are skipped.

    Raises:
        ValueError: a table row whose value cell cannot be read (naming the line).
    """
    rows = []
    suite = ""
    for number, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if s.startswith("### "):
            suite = s[4:].strip()
            continue
        if not s.startswith("|"):
            continue
        cells = [c.strip() for c in s[1:].split("|")]
        if len(cells) < 3 or cells[0] in ("what", "") or set(cells[0]) <= {"-"}:
            continue
        try:
            value = _bench_value(cells[1])
        except ValueError as exc:
            raise ValueError(f"line {number}: {exc}") from None
        note = " | ".join(c for c in cells[3:] if c)
        rows.append(BenchRow(suite, cells[0], value, cells[2], note))
    return rows


def readme_evaluator_speed(text: str) -> list[BenchRow]:
    """The evaluator's speed figures of README.md's "Speed" table, as the rows of
    :func:`parse_bench_output` would name them (``poker_env 7-card, 1 thread``,
    ``eval7 7-card``, ...); the suite names the README and the run's date.

    Reads the rows ``| k-card evaluations/s, 1 / 2 threads | A / B | peer V, ... |``.

    Raises:
        ValueError: the README has no such rows.
    """
    date = re.search(r"## Speed.*?\((\d{4}-\d\d-\d\d \d\d:\d\d)\)", text, re.S)
    suite = "README.md, Speed" + (f" (make bench, {date.group(1)})" if date else "")
    rows = []
    for line in text.splitlines():
        m = re.match(
            r"\|\s*(\d)-card evaluations/s, 1 / (\d+) threads\s*\|([^|]*)\|([^|]*)\|", line
        )
        if m is None:
            continue
        k, threads = m.group(1), m.group(2)
        ours = [v.strip() for v in m.group(3).split("/")]
        for count, v in zip(("1 thread", f"{threads} threads"), ours, strict=True):
            rows.append(
                BenchRow(suite, f"poker_env {k}-card, {count}", _bench_value(v), "evals/s", "")
            )
        for peer in m.group(4).split(","):
            name, _, v = peer.strip().partition(" ")
            if name:
                rows.append(BenchRow(suite, f"{name} {k}-card", _bench_value(v), "evals/s", "peer"))
    if not rows:
        raise ValueError("no 'k-card evaluations/s' rows in the README's Speed table")
    return rows
