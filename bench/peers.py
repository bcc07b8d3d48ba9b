"""Speed of the peer poker engines, measured the same way as our envs.

Each ``*_rate`` function plays whole hands of one peer with uniformly random
legal actions and returns environment steps per second (best repeat of
:func:`bench.common.rate`), or ``None`` with a printed reason when the peer is
not installed. Resets are inside the timed loop: every hand starts from a fresh
state, as a training loop would see it.

What counts as a step: one decision of one player (fold, check/call, bet/raise,
or a draw). Chance events (dealing), blind/ante posting and the showdown are
done by each peer's own machinery and are timed but not counted, so a hand of
three decisions is three steps in every peer.

"Uniformly random legal action" means uniform over the action set the peer
itself offers, which differs between peers (see each function):

- PokerKit has no discrete action set: we pick uniformly among the kinds that
  are legal (fold only when facing a bet, check/call, bet/raise), a bet/raise
  amount uniformly between the legal minimum and maximum, and for a draw each
  card discarded with probability 1/2 (uniform over the 32 subsets).
- RLCard and PettingZoo: uniform over the legal ones of their five abstract
  actions (fold, check/call, raise half pot, raise pot, all-in).
- OpenSpiel universal_poker: uniform over ``state.legal_actions()``; with the
  default ``bettingAbstraction=fcpa`` these are fold, call, pot, all-in; with
  ``fullgame`` every whole-chip bet size is its own action (so random play
  mostly makes large bets). Chance outcomes are sampled uniformly (the deal is
  uniform over the remaining cards).

Table set-up, as close to RULES.md as each peer allows: hold'em blinds 1/2 with
200-chip stacks (RULES.md §3 defaults: E = 2, stack 100 × E), except PettingZoo,
whose ``texas_holdem_no_limit_v6`` fixes RLCard's default 100-chip stacks.
Five-card draw: ante 5, stacks 500, minimum bet 5 (RULES.md §1 defaults).

Run standalone: ``python bench/peers.py``.
"""

from __future__ import annotations

import random
import sys
import time
import warnings
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench.common` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import Row, machine_line, print_table, rate

# About 2 s of timing per figure (the brief's budget), in chunks of ~0.2 s so
# that `rate` can keep the best chunk on a shared, noisy machine.
SECONDS = 2.0
CHUNK_SECONDS = 0.2
SEED = 0

# RULES.md §3 defaults: base E = 2 (blinds 1/2), stacks 100 × E.
HOLDEM_SMALL_BLIND = 1
HOLDEM_BIG_BLIND = 2
HOLDEM_STACK = 200
# RULES.md §1 defaults.
DRAW_ANTE = 5
DRAW_STACK = 500
DRAW_MIN_BET = 5
# RULES.md §1: at most 3 raises per round; PokerKit counts the opening bet too.
DRAW_MAX_BETS_AND_RAISES = 1 + 3


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


def _missing(peer: str, error: Exception) -> None:
    print(f"[peers] {peer} not measured: {type(error).__name__}: {error}", flush=True)


def _hands_for(play_hand: Callable[[], int], seconds: float = CHUNK_SECONDS) -> Callable[[], int]:
    """Wrap ``play_hand`` (plays one hand, returns its steps) into a timed chunk for `rate`."""

    def chunk() -> int:
        steps = 0
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            steps += play_hand()
        return steps

    return chunk


# --------------------------------------------------------------------------- PokerKit


def _pokerkit_automations() -> tuple[Any, ...]:
    from pokerkit import Automation

    # Everything but the players' decisions is automatic, so each manual
    # call is one step.
    return (
        Automation.ANTE_POSTING,
        Automation.BET_COLLECTION,
        Automation.BLIND_OR_STRADDLE_POSTING,
        Automation.CARD_BURNING,
        Automation.HOLE_DEALING,
        Automation.BOARD_DEALING,
        Automation.RUNOUT_COUNT_SELECTION,
        Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
        Automation.HAND_KILLING,
        Automation.CHIPS_PUSHING,
        Automation.CHIPS_PULLING,
    )


def _pokerkit_play(state: Any, rng: random.Random) -> int:
    """Play one PokerKit hand to the end with random legal decisions; return the steps."""
    steps = 0
    while state.status:
        if state.can_stand_pat_or_discard():
            hole = state.hole_cards[state.stand_patter_or_discarder_index]
            state.stand_pat_or_discard([card for card in hole if rng.random() < 0.5])
        else:
            kinds = [1]  # check/call is always legal when a player is to act
            # PokerKit allows a fold when checking is free (with a warning);
            # no env offers that, so fold only when facing a bet.
            if state.checking_or_calling_amount and state.can_fold():
                kinds.append(0)
            if state.can_complete_bet_or_raise_to():
                kinds.append(2)
            kind = rng.choice(kinds)
            if kind == 0:
                state.fold()
            elif kind == 1:
                state.check_or_call()
            else:
                state.complete_bet_or_raise_to(
                    rng.randint(
                        state.min_completion_betting_or_raising_to_amount,
                        state.max_completion_betting_or_raising_to_amount,
                    )
                )
        steps += 1
    return steps


def _pokerkit_rate(new_state: Callable[[], Any], seconds: float) -> float:
    # PokerKit shuffles with the global `random` module; seed it so runs repeat.
    random.seed(SEED)
    rng = random.Random(SEED)
    return rate(_hands_for(lambda: _pokerkit_play(new_state(), rng)), min_seconds=seconds)


def pokerkit_draw_rate(seconds: float = SECONDS) -> float | None:
    """PokerKit playing heads-up five-card draw (high), our RULES.md §1 game.

    PokerKit ships no high-hand five-card draw, but its ``State`` takes a game
    definition, so this builds one from PokerKit's own parts: 52-card deck,
    ``StandardHighHand``, a dealt street and a draw street (as its
    ``SingleDraw`` games do), no-limit betting, ante 5, no blinds, minimum bet 5,
    at most a bet and 3 raises per round, stacks 500.
    """
    try:
        from pokerkit import (
            BettingStructure,
            Deck,
            Mode,
            Opening,
            StandardHighHand,
            State,
            Street,
        )
    except ImportError as error:
        _missing("pokerkit", error)
        return None
    automations = _pokerkit_automations()
    streets = (
        Street(
            False, (False,) * 5, 0, False, Opening.POSITION, DRAW_MIN_BET, DRAW_MAX_BETS_AND_RAISES
        ),
        Street(True, (), 0, True, Opening.POSITION, DRAW_MIN_BET, DRAW_MAX_BETS_AND_RAISES),
    )

    def new_state() -> Any:
        return State(
            automations,
            Deck.STANDARD,
            (StandardHighHand,),
            streets,
            BettingStructure.NO_LIMIT,
            True,  # ante trimming
            DRAW_ANTE,
            0,  # no blinds
            0,  # no bring-in
            DRAW_STACK,
            2,
            mode=Mode.CASH_GAME,
        )

    return _pokerkit_rate(new_state, seconds)


def pokerkit_lowball_draw_rate(seconds: float = SECONDS) -> float | None:
    """PokerKit's built-in ``NoLimitDeuceToSevenLowballSingleDraw``, heads-up.

    The closest five-card single-draw game PokerKit ships (lowball ranking
    instead of high), with the same ante 5, minimum bet 5, stacks 500.
    """
    try:
        from pokerkit import Mode, NoLimitDeuceToSevenLowballSingleDraw
    except ImportError as error:
        _missing("pokerkit", error)
        return None
    automations = _pokerkit_automations()

    def new_state() -> Any:
        return NoLimitDeuceToSevenLowballSingleDraw.create_state(
            automations, True, DRAW_ANTE, 0, DRAW_MIN_BET, DRAW_STACK, 2, mode=Mode.CASH_GAME
        )

    return _pokerkit_rate(new_state, seconds)


def pokerkit_holdem_rate(num_players: int, seconds: float = SECONDS) -> float | None:
    """PokerKit ``NoLimitTexasHoldem``: blinds 1/2, stacks 200."""
    try:
        from pokerkit import Mode, NoLimitTexasHoldem
    except ImportError as error:
        _missing("pokerkit", error)
        return None
    automations = _pokerkit_automations()
    blinds = (HOLDEM_SMALL_BLIND, HOLDEM_BIG_BLIND)

    def new_state() -> Any:
        return NoLimitTexasHoldem.create_state(
            automations,
            True,
            0,
            blinds,
            HOLDEM_BIG_BLIND,
            HOLDEM_STACK,
            num_players,
            mode=Mode.CASH_GAME,
        )

    return _pokerkit_rate(new_state, seconds)


# --------------------------------------------------------------------------- RLCard


def rlcard_holdem_rate(num_players: int, seconds: float = SECONDS) -> float | None:
    """RLCard ``'no-limit-holdem'`` with random agents: blinds 1/2, stacks 200.

    Drives ``env.reset()`` / ``env.step()`` (which build each step's state
    dict, as RLCard's own ``env.run`` does). The action is a uniform pick among
    ``state["legal_actions"]``, exactly what ``rlcard.agents.RandomAgent.step``
    does, but from a seeded generator instead of numpy's global one.
    """
    try:
        import rlcard
    except ImportError as error:
        _missing("rlcard", error)
        return None
    # RLCard's no-limit hold'em has small blind 1, big blind 2 built in.
    config = {"game_num_players": num_players, "chips_for_each": HOLDEM_STACK, "seed": SEED}
    env = rlcard.make("no-limit-holdem", config=config)
    rng = random.Random(SEED)

    def play_hand() -> int:
        state, _ = env.reset()
        steps = 0
        while not env.is_over():
            state, _ = env.step(rng.choice(list(state["legal_actions"])))
            steps += 1
        return steps

    return rate(_hands_for(play_hand), min_seconds=seconds)


# --------------------------------------------------------------------------- OpenSpiel


def openspiel_game_string(num_players: int, betting_abstraction: str = "fcpa") -> str:
    """The universal_poker game string for no-limit hold'em, blinds 1/2, stacks 200.

    ACPC conventions (players 1-based): heads-up, player 2 is the dealer and
    posts the small blind, acts first pre-flop and last after (standard rules);
    at 6-max player 1 posts the small blind, player 2 the big blind, player 3
    opens pre-flop and player 1 (first still in) after the flop.
    """
    if num_players == 2:
        blinds = f"{HOLDEM_BIG_BLIND} {HOLDEM_SMALL_BLIND}"
        first_player = "2 1 1 1"
    else:
        blinds = " ".join(
            [str(HOLDEM_SMALL_BLIND), str(HOLDEM_BIG_BLIND)] + ["0"] * (num_players - 2)
        )
        first_player = "3 1 1 1"
    stacks = " ".join([str(HOLDEM_STACK)] * num_players)
    return (
        "universal_poker("
        f"betting=nolimit,bettingAbstraction={betting_abstraction},numPlayers={num_players},"
        f"numRounds=4,blind={blinds},firstPlayer={first_player},numSuits=4,numRanks=13,"
        f"numHoleCards=2,numBoardCards=0 3 1 1,stack={stacks})"
    )


def openspiel_holdem_rate(
    num_players: int, betting_abstraction: str = "fcpa", seconds: float = SECONDS
) -> float | None:
    """OpenSpiel (pyspiel) ``universal_poker`` no-limit hold'em, random legal actions."""
    try:
        import pyspiel
    except ImportError as error:
        _missing("open_spiel", error)
        return None
    game = pyspiel.load_game(openspiel_game_string(num_players, betting_abstraction))
    rng = random.Random(SEED)

    def play_hand() -> int:
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            # Chance outcomes of a deal are uniform over the remaining cards,
            # so a uniform pick among them samples the deal exactly.
            is_decision = not state.is_chance_node()
            state.apply_action(rng.choice(state.legal_actions()))
            steps += is_decision
        return steps

    return rate(_hands_for(play_hand), min_seconds=seconds)


# --------------------------------------------------------------------------- PettingZoo


def pettingzoo_holdem_rate(num_players: int, seconds: float = SECONDS) -> float | None:
    """PettingZoo classic ``texas_holdem_no_limit_v6`` (AEC, over RLCard).

    Stacks are RLCard's default 100 (the env does not expose them), blinds 1/2.
    Only live decisions count as steps; the ``step(None)`` calls that retire
    finished agents are timed but not counted.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from pettingzoo.classic import texas_holdem_no_limit_v6
    except ImportError as error:
        _missing("pettingzoo texas_holdem_no_limit_v6", error)
        return None
    with warnings.catch_warnings():
        # Gymnasium warns that the env's float64 Box bounds are cast to float32; not ours to fix.
        warnings.simplefilter("ignore")
        env = texas_holdem_no_limit_v6.env(num_players=num_players)
    rng = random.Random(SEED)
    # Seed once: `reset(seed=...)` rebuilds the RLCard env, which no training
    # loop does every hand.
    env.reset(seed=SEED)

    def play_hand() -> int:
        env.reset()
        steps = 0
        for _agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            mask = observation["action_mask"]
            env.step(rng.choice([a for a in range(len(mask)) if mask[a]]))
            steps += 1
        return steps

    return rate(_hands_for(play_hand), min_seconds=seconds)


# --------------------------------------------------------------------------- tables


def _row(name: str, value: float | None) -> Row:
    if value is None:
        return Row(name, float("nan"), "steps/s", "peer, not installed")
    return Row(name, value, "steps/s", "peer")


def draw_peers(seconds: float = SECONDS) -> list[Row]:
    """Peer rows for five-card draw, heads-up (only PokerKit offers a draw game)."""
    pk = _version("pokerkit")
    return [
        _row(
            f"PokerKit {pk} five-card draw (high, custom State), 2 players",
            pokerkit_draw_rate(seconds),
        ),
        _row(
            f"PokerKit {pk} NoLimitDeuceToSevenLowballSingleDraw, 2 players",
            pokerkit_lowball_draw_rate(seconds),
        ),
    ]


def holdem_peers(num_players: int, seconds: float = SECONDS) -> list[Row]:
    """Peer rows for no-limit hold'em with ``num_players`` seats."""
    players = f"{num_players} players"
    pk, rl, osp, pz = (_version(d) for d in ("pokerkit", "rlcard", "open_spiel", "pettingzoo"))
    return [
        _row(
            f"PokerKit {pk} NoLimitTexasHoldem, {players}",
            pokerkit_holdem_rate(num_players, seconds),
        ),
        _row(f"RLCard {rl} no-limit-holdem, {players}", rlcard_holdem_rate(num_players, seconds)),
        _row(
            f"OpenSpiel {osp} universal_poker nolimit fcpa, {players}",
            openspiel_holdem_rate(num_players, "fcpa", seconds),
        ),
        _row(
            f"OpenSpiel {osp} universal_poker nolimit fullgame, {players}",
            openspiel_holdem_rate(num_players, "fullgame", seconds),
        ),
        _row(
            f"PettingZoo {pz} texas_holdem_no_limit_v6, {players}",
            pettingzoo_holdem_rate(num_players, seconds),
        ),
    ]


def main() -> None:
    """Print the peer tables: five-card draw heads-up, hold'em heads-up and 6-max."""
    print(f"Peers, random legal actions, resets included ({machine_line()})")
    print_table("Peers: five-card draw, heads-up", draw_peers())
    rows = holdem_peers(2) + holdem_peers(6)
    print_table("Peers: no-limit Texas hold'em, heads-up and 6-max", rows)


if __name__ == "__main__":
    main()
