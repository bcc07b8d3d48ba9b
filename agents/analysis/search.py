"""Values of a Hold'em decision by determinized rollouts (perfect-information Monte
Carlo, PIMC), on :meth:`HoldemGame.clone` with ``resample_for``.

For the seat to act, each world is a copy of the table in which every card that seat
has not seen is dealt again (one world consistent with what it knows); each candidate
action is played in the same worlds (common random numbers: the differences between
actions carry less noise than the values), the rest of the hand is played out by a
rollout policy, and the action's value is the mean change of the seat's chips, with its
standard error. It needs numpy only.

PIMC's known limits hold: the rollout policy decides how the others answer (the
default, everyone checks or calls to the end, never bluffs nor folds), and a world
shows the searcher every card, so the values overrate what information is worth.
It is a baseline for search and a check of the engine, not a strong player.

>>> import numpy as np
>>> from poker_env.games.holdem import HoldemConfig, HoldemGame
>>> game = HoldemGame(HoldemConfig(num_seats=2), rng=3)
>>> _ = game.start_hand()
>>> values = action_values(game, np.random.default_rng(0), worlds=50)
>>> sorted(values)[:2]
['all_in', 'call']
>>> best_action(values)  # doctest: +SKIP
'raise_to 6'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from poker_env.errors import ArgumentError, IllegalActionError
from poker_env.games.holdem import HoldemGame

__all__ = [
    "ActionValue",
    "action_values",
    "best_action",
    "candidate_actions",
    "check_or_call_rollout",
]

#: A rollout policy: makes one move for the seat to act of a copy in the betting phase.
Rollout = Callable[[HoldemGame, np.random.Generator], None]


@dataclass(frozen=True)
class ActionValue:
    """An action's value: the mean change of the seat's chips over ``worlds`` worlds
    (from the decision to the hand's end), and that mean's standard error."""

    mean: float
    stderr: float
    worlds: int


def check_or_call_rollout(game: HoldemGame, rng: np.random.Generator) -> None:
    """The default rollout: check or call (PIMC's passive opponent model)."""
    game.check_or_call()


def _raise_to(to: int) -> Callable[[HoldemGame], object]:
    return lambda g: g.raise_to(to)


def candidate_actions(game: HoldemGame) -> dict[str, Callable[[HoldemGame], object]]:
    """The actions tried: ``fold`` (when facing a bet), ``check`` or ``call``, raises to
    the minimum, half the pot and the pot (where legal and distinct), and ``all_in``."""
    legal = game.legal_actions()
    out: dict[str, Callable[[HoldemGame], object]] = {}
    if legal.can_fold:
        out["fold"] = lambda g: g.fold()
    out["call" if legal.call_amount else "check"] = lambda g: g.check_or_call()
    lo, hi = legal.min_raise_to, legal.max_raise_to
    if lo is not None and hi is not None:
        # A raise "to" X: the seat's round total. Pot-sized: the call, then the pot
        # with the call in it (the usual pot-limit arithmetic).
        bet = game.bets()[legal.seat]
        after_call = game.pot + legal.call_amount
        for target in (
            lo,
            bet + legal.call_amount + after_call // 2,
            bet + legal.call_amount + after_call,
        ):
            to = int(min(max(target, lo), hi))
            if to < legal.all_in_to:
                out.setdefault(f"raise_to {to}", _raise_to(to))
    call_to = game.bets()[legal.seat] + legal.call_amount
    if legal.can_all_in and not legal.all_in_is_call and legal.all_in_to > call_to:
        out["all_in"] = lambda g: g.all_in()  # (not when it is only the call)
    return out


def action_values(
    game: HoldemGame,
    rng: np.random.Generator,
    worlds: int = 200,
    rollout: Rollout | None = None,
) -> dict[str, ActionValue]:
    """Each candidate action's value for the seat to act (:func:`candidate_actions`).

    Args:
        game: a table in the betting phase; it is not changed.
        rng: the seeded Generator the worlds and the rollouts draw from.
        worlds: worlds sampled; every action is played in each.
        rollout: how every seat (the searcher's later decisions included) plays after
            the action; default :func:`check_or_call_rollout`.

    Raises:
        IllegalActionError: no hand is under way.
        ArgumentError: ``worlds`` is not an integer >= 2, or ``rng`` not a Generator.
    """
    if isinstance(worlds, bool) or not isinstance(worlds, int) or worlds < 2:
        raise ArgumentError("worlds", worlds, "an integer >= 2 (a standard error needs two)")
    if not isinstance(rng, np.random.Generator):
        raise ArgumentError("rng", rng, "a numpy.random.Generator")
    if game.phase != "betting":
        raise IllegalActionError("action_values", [], game.phase, "no decision to search")
    seat = game.to_act
    before = game.stacks()[seat]
    play = rollout if rollout is not None else check_or_call_rollout
    actions = candidate_actions(game)
    results = np.zeros((len(actions), worlds))
    for w in range(worlds):
        world = game.clone(resample_for=seat, rng=rng)
        for i, act in enumerate(actions.values()):
            copy = world.clone()  # the same world for every action
            act(copy)
            while copy.phase == "betting":
                play(copy, rng)
            results[i, w] = copy.stacks()[seat] - before
    return {
        name: ActionValue(
            float(results[i].mean()), float(results[i].std(ddof=1) / np.sqrt(worlds)), worlds
        )
        for i, name in enumerate(actions)
    }


def best_action(values: dict[str, ActionValue]) -> str:
    """The action with the highest mean value."""
    return max(values, key=lambda name: values[name].mean)
