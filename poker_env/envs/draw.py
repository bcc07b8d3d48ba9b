"""Gymnasium envs of five-card draw against the computer (RULES.md §1).

Thin: the rules are :mod:`poker_env.games.draw_kernels`; observation encoding, action
mapping and the driver loop are :mod:`poker_env.episode.draw`.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from poker_env.episode import draw as enc
from poker_env.episode.draw import DrawEnvConfig
from poker_env.errors import ConfigError, EpisodeFinishedError, IllegalActionError, as_int
from poker_env.fastcall import KernelEntry, OwnViews
from poker_env.games import draw_layout as L
from poker_env.games.draw import DrawConfig, RandomBuffer
from poker_env.policy import Policy
from poker_env.render.draw import draw_picture, draw_text

__all__ = ["DrawMatchEnv", "FiveCardDrawEnv"]

_REFILL_AT = L.BUF_SIZE - L.BUF_MARGIN  # RandomBuffer.refill_if_low refills above this
_S_CURSOR, _S_HAND_NO = L.S_CURSOR, L.S_HAND_NO
_ADV_AGENT, _ADV_DONE, _ADV_ILLEGAL = enc.ADV_AGENT, enc.ADV_DONE, enc.ADV_ILLEGAL
_ADV_RECORDED, _ADV_CODE = enc.ADV_RECORDED, enc.ADV_CODE
_read_records, _RC_NUM = enc.read_records, enc.RC_NUM

_OBS_TABLE = """
    | slice   | meaning                                                        | range      |
    |---------|----------------------------------------------------------------|------------|
    | 0:5     | own cards in slot order, card index rank*4+suit                | 0 .. 51    |
    | 5:57    | own cards, one-hot over the 52 card indices                    | 0 .. 1     |
    | 57      | phase: 0 pre-draw, 1 draw, 2 post-draw, 3 hand over, 4 buy-back, 5 match over | 0 .. 5 |
    | 58      | 1 if this seat acts first this hand                            | 0 .. 1     |
    | 59      | pot (chips)                                                    | 0 .. T     |
    | 60      | own money (chips)                                              | 0 .. T     |
    | 61      | opponent's money (chips)                                       | 0 .. T     |
    | 62      | own chips put in this betting round                            | 0 .. T     |
    | 63      | opponent's chips put in this betting round                     | 0 .. T     |
    | 64      | chips to call                                                  | 0 .. T     |
    | 65      | raises so far this round                                       | 0 .. R     |
    | 66      | cards this seat drew (-1 before its draw)                      | -1 .. 5    |
    | 67      | cards the opponent drew (-1 before its draw)                   | -1 .. 5    |
    | 68:71   | own wardrobe: items worn, at stake, lost (0 for the human)     | 0 .. N     |
    | 71:74   | opponent's wardrobe: items worn, at stake, lost                | 0 .. N     |
    | 74      | bank: chips paid out net on stakes (<= 0)                      | -V .. 0    |
    | 75      | 1 if this seat is the computer (the one with a wardrobe)       | 0 .. 1     |
    | 76:124  | this hand's last 16 actions, 3 each: who (-1 none, 0 self, 1 opponent), action (-1 none, 0 BET, 1 STAY, 2 DROP, 3 RAISE, 4 DRAW, 5 CALL, 6 DISCARD, 7 BUY_BACK, 8 SKIP_BUY_BACK), amount (beyond the call; chips of a call; cards drawn) | see text |

    ``T`` = total chips (2 x starting_money + wardrobe size x item_value), ``R`` =
    max_raises, ``N`` = wardrobe size, ``V`` = N x item_value. History entries:
    who in -1 .. 1, action in -1 .. 8, amount in 0 .. T.
"""

_ACTION_TEXT = """
    A ``Discrete(2 + K + 33)`` with ``K = len(pot_fractions) + 1``:

    | action          | meaning                                                                    |
    |-----------------|----------------------------------------------------------------------------|
    | 0               | DROP (fold)                                                                |
    | 1               | the passive action: STAY (first player, pre-draw), DRAW (check after a STAY, or call a bet, pre-draw), CALL (post-draw: show down, calling a bet if any); SKIP_BUY_BACK between hands |
    | 2 .. 2+K-2      | BET or RAISE by ``fraction x (pot + chips to call)``, clipped into [min_bet, most legal] |
    | 2+K-1           | BET or RAISE all-in (the most legal)                                       |
    | 2+K .. 2+K+31   | the draw: discard mask m = action - (2+K); bit i replaces the card in slot i |
    | 2+K+32          | BUY_BACK (DrawMatch-v0, computer seat, between hands)                      |
"""


class _DrawEnvBase(OwnViews, gym.Env[NDArray[np.float32], np.int64]):
    _env_id = "draw"
    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        env_config: DrawEnvConfig,
        opponent: Policy | None,
        render_mode: str | None,
    ) -> None:
        if render_mode not in (None, "ansi", "rgb_array"):
            raise ConfigError("render_mode", render_mode, "None, 'ansi' or 'rgb_array'")
        if opponent is not None and not isinstance(opponent, Policy):
            raise ConfigError(
                "opponent", opponent, "None (uniformly random legal actions) or a Policy"
            )
        self.env_config = env_config
        self.illegal_action = env_config.illegal_action
        self.config = env_config.draw_config
        self.render_mode = render_mode
        self.agent_seat = int(env_config.agent_seat)
        self.opponent = opponent
        fr = env_config.pot_fractions
        self.pot_fractions = fr
        n = env_config.num_actions
        self.action_space = spaces.Discrete(n)
        lo, hi = enc.observation_bounds(self.config)
        self.observation_space = spaces.Box(lo, hi, dtype=np.float32)
        # The batch's records for one table (row 0), passed whole to the compiled
        # step; the names below are views of table 0's rows and the parameters.
        self._params = env_config.params(builtin=opponent is None)
        self._state = enc.new_draw_tables(1)
        self._rand: RandomBuffer | None = None
        self._make_views()
        self._cfg, _, self._ep, self._fp, _ = self._params
        self._num_sizes = len(fr) + 1
        self._obs = np.zeros(enc.OBS_SIZE, np.float32)
        self._mask = np.zeros(n, np.int8)
        self._done = True
        self._last: enc.HandRecord | None = None  # the newest hand record
        self._num_seen = 0  # records decoded so far this episode
        self._recorded = False  # the driver wrote or updated a record in this call
        self._hand_limit: int | None = None  # DrawMatch-v0: truncated after max_hands
        # The compiled step's and reset's entries (poker_env.fastcall).
        self._step_fn = KernelEntry(enc.single_step)
        self._reset_fn = KernelEntry(enc.single_reset)

    def _make_views(self) -> None:
        # Views of table 0's rows, and the ring's record slots (a step that ends a hand
        # copies one); the random buffer fills the row's. Again in a copy (OwnViews).
        self._s, self._buf, self._rew, _, self._rec, _ = (a[0] for a in self._state)
        self._rec_slots = enc.record_slots(self._rec)
        if self._rand is not None:
            self._rand.buf = self._buf

    # ----- gymnasium API -------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[NDArray[np.float32], dict[str, Any]]:
        if seed is not None or self._rand is None:
            super().reset(seed=seed)
            self._rand = RandomBuffer(self.np_random, out=self._buf)
            self._s[L.S_CURSOR] = 0
        # No refill here: the batched env resets a table inside the step that ended
        # it, so the refill rule applies before steps (and opponent moves) only.
        # The compiled reset clears the hand records and the rewards owed.
        self._last, self._num_seen = None, 0
        code = self._reset_fn.call(self._state, self._params, self._obs, self._mask)
        self._recorded = code >= enc.ADV_RECORDED
        code &= enc.ADV_CODE
        if code == enc.ADV_OPP:
            self._play_opponent(code)
        self._done = False
        return self._obs.copy(), self._info(False)

    def step(
        self, action: Any
    ) -> tuple[NDArray[np.float32], SupportsFloat, bool, bool, dict[str, Any]]:
        if self._done or self._rand is None:
            raise EpisodeFinishedError(self._env_id)
        # Checked before anything moves (the random buffer's refill included): a
        # refused action changes nothing. Plain and numpy ints skip the general
        # conversion.
        mask = self._mask
        kind = type(action)
        a = action if kind is int else int(action) if kind is np.int64 else as_int(action)
        if a is None or not 0 <= a < mask.size:
            a = enc.check_action(action, mask.size, self._phase_name(), mask)
        illegal = not mask[a]
        if illegal:
            if self.illegal_action == "raise":
                raise IllegalActionError(
                    a, np.flatnonzero(mask).tolist(), self._phase_name(), "masked out"
                )
            # STYLE.md: by default any action of the space is accepted; a masked-out
            # one plays the documented passive action and info says so.
            a = enc.passive_action(mask, self._num_sizes)
        s = self._s
        if s.item(_S_CURSOR) > _REFILL_AT:  # RandomBuffer.refill_if_low's rule, inline
            self._rand.refill_if_low(s)
        code = self._step_fn.call(self._state, self._params, a, False, self._obs, mask)
        self._recorded = code >= _ADV_RECORDED
        code &= _ADV_CODE
        if code != _ADV_AGENT:
            if code == _ADV_ILLEGAL:  # unreachable: the mask was checked above
                raise IllegalActionError(
                    a, np.flatnonzero(mask).tolist(), self._phase_name(), "masked out"
                )
            code = self._play_opponent(code)
        terminated = code == _ADV_DONE
        limit = self._hand_limit
        truncated = not terminated and limit is not None and s.item(_S_HAND_NO) > limit
        self._done = terminated or truncated
        # Rewards are paid when a pot is won: most steps leave both at zero.
        rewards = self._rew.tolist()
        if rewards[0] or rewards[1]:
            self._rew.fill(0.0)
        return (
            self._obs.copy(),
            rewards[self.agent_seat],
            terminated,
            truncated,
            self._info(illegal),
        )

    def action_masks(self) -> NDArray[np.int8]:
        """The legal actions now, as 0/1 (the form MaskablePPO reads)."""
        return self._mask.copy()

    def render(self) -> str | NDArray[np.uint8] | None:
        if self.render_mode == "rgb_array":
            return draw_picture(self._s, self.config, self.agent_seat, self.last_hand())
        if self.render_mode != "ansi":
            return None
        return draw_text(self._s, self.config, self.agent_seat, self._rec)

    # ----- helpers ---------------------------------------------------------------

    def last_hand(self) -> enc.HandRecord | None:
        """The latest hand that ended in this episode (``info["last_hand"]``), or None."""
        return self._last

    def _info(self, illegal: bool) -> dict[str, Any]:
        ended = self._read_records() if self._recorded else ()
        return {
            "action_mask": self._mask.copy(),
            "illegal_action": illegal,
            "hands_ended": ended,
            "last_hand": self._last,  # read-only: steps may share it
        }

    def _read_records(self) -> tuple[enc.HandRecord, ...]:
        """The records the driver wrote since the last call (it wrote or updated one
        during this call: a hand ended; a buy-back or the match end followed one)."""
        num = self._rec.item(_RC_NUM)
        ended, self._last = _read_records(self._rec_slots, self.config, num, self._num_seen)
        self._num_seen = num
        return ended

    def _phase_name(self) -> str:
        return ("PRE_DRAW", "DRAW", "POST_DRAW", "HAND_END", "BUY_BACK", "MATCH_END")[
            int(self._s[L.S_PHASE])
        ]

    def _play_opponent(self, code: int) -> int:
        # The other seat's policy lives in Python: ask it until the agent must decide.
        if code != enc.ADV_OPP:
            return code
        assert self._rand is not None and self.opponent is not None
        opp = 1 - self.agent_seat
        obs = np.zeros(enc.OBS_SIZE, np.float32)
        mask = np.zeros_like(self._mask)
        while code == enc.ADV_OPP:
            enc.encode_obs(self._s, self._cfg, opp, obs)
            enc.env_mask(self._s, self._cfg, self._ep, self._fp, mask)
            a = int(self.opponent.act(obs, mask))
            self._rand.refill_if_low(self._s)
            # Continues the agent's step: rewards add up; the agent's view is encoded last.
            code = self._step_fn.call(self._state, self._params, a, True, self._obs, self._mask)
            self._recorded |= code >= enc.ADV_RECORDED
            code &= enc.ADV_CODE
            if code == enc.ADV_ILLEGAL:
                raise IllegalActionError(
                    a, np.flatnonzero(mask).tolist(), self._phase_name(), "opponent policy"
                )
        return code


_INFO_TEXT = """
    ``info`` after ``reset`` and every ``step``:

    | key              | meaning                                                                 |
    |------------------|-------------------------------------------------------------------------|
    | ``action_mask``  | int8, 1 exactly for the legal actions now (all zero after the end)       |
    | ``illegal_action`` | True when the step's action was masked out and the passive action was played instead (always False after ``reset``) |
    | ``hands_ended``  | a tuple with one hand record per hand that ended during this call (usually 0 or 1) |
    | ``last_hand``    | the record of the latest hand that ended in this episode, or None        |

    A hand record is a read-only mapping (``episode.draw.HandRecord``, its text
    built on first access; ``dict(r)`` gives a plain dict) with the keys
    ``hand_no``; ``winner`` (seat, or None for a tie: the pot carries over to the
    next hand); ``how`` (``"showdown"``, ``"drop"``); ``pot`` (won, or carried over); ``hands`` and ``hand_names`` (both seats' cards and the
    evaluator's names, seat order, at a showdown only, e.g. ``"Two Pair, Kings and
    Sevens"``); ``ranks``; ``stacks`` (money after the pot was paid);
    ``items_staked``, ``items_lost``, ``items_redeemed`` (her items settled with
    the pot); ``item_bought_back`` and ``buy_back_price`` (what she bought back
    before the next deal); ``match_winner`` (None while the match goes on) and
    ``ante_pot`` (a pot left by ties that the match winner took at the ante that
    ended the match).
"""

_ILLEGAL_TEXT = """``illegal_action`` ``"passive"`` (default) or ``"raise"``. Any
    integer of the action space is accepted by default: a masked-out action plays
    the passive action instead (action 1: STAY, DRAW as a check or a call, CALL; in
    the draw, discard mask 0: keep all five cards; between hands, SKIP_BUY_BACK)
    and ``info["illegal_action"]`` is True. ``"raise"`` (strict, for debugging):
    a masked-out action raises ``IllegalActionError`` and changes nothing. In both
    modes a value that is not an action of the space (a float, a string, a bool,
    an integer outside ``[0, n)``) raises ``IllegalActionError`` naming it, and
    nothing changes."""


class FiveCardDrawEnv(_DrawEnvBase):
    __doc__ = f"""Five-card draw against the computer: one pot per episode (``poker_env/FiveCardDraw-v0``).

    ## Description
    Heads-up five-card draw as in RULES.md §1: an ante from both, five cards each, a
    betting round (BET / STAY / DROP / RAISE / DRAW), the draw (replace 0 to 5
    cards, the count is public), a second betting round (BET / CALL / DROP / RAISE),
    the showdown. The agent plays ``agent_seat``; the other seat is played by
    ``opponent`` (default: uniformly random legal actions, drawn in compiled code
    from the env's seeded Generator). A tied showdown leaves the pot and the next
    hand is played for it, within the same episode.

    ## Action Space
    {_ACTION_TEXT}
    ## Observation Space
    A ``Box(OBS_SIZE = 124,)`` of float32, only what the agent's seat may know:
    {_OBS_TABLE}
    ## Action Mask
    ``info["action_mask"]`` and ``action_masks()``: int8, 1 exactly for the legal
    actions. Bet sizes that map to the same chip amount as an earlier size are
    masked out. After the last step of an episode the mask is all zero.

    ## Info
    {_INFO_TEXT}
    ## Rendering
    ``render_mode="ansi"``: the table as the agent's seat sees it, headed by a
    "Last hand" block once a hand has ended: both hands with their names and who
    won at a showdown, who dropped, a tie's pot carried over, her items lost,
    redeemed or bought back, the match end.

    ## Starting State
    A fresh match (both players at ``starting_money``, her wardrobe worn), a coin
    flip for who acts first, the antes, the deal; the opponent's moves are played
    until the agent's first decision. A pot the opponent wins before the agent ever
    acts (it drops at once) is not an episode: the env deals again.

    ## Rewards
    When the pot is won: the agent's change of worth since the episode started, in
    antes (chips won or lost divided by ``ante``; for the computer seat worth also
    counts worn items at ``item_value``). 0 on every other step.

    ## Episode End
    Terminated when a pot is won (by a drop, a showdown, or, after ties, when a
    player cannot pay the ante). Never truncated. Stepping a finished (or never
    reset) episode raises ``EpisodeFinishedError`` and changes nothing.

    ## Arguments
    ``config`` (a ``DrawConfig``) or the rule keywords themselves (``deck``,
    ``starting_money``, ``ante``, ``min_bet``, ``max_raises``, ``wardrobe``,
    ``item_value``, ``buyback_reserve``, ``flush_beats_full_house``);
    ``agent_seat`` 0 (``"human"``, the human side, default) or 1 (``"computer"``,
    the computer side); ``opponent`` a
    ``Policy`` or None; ``pot_fractions`` (default (0.5, 1.0, 2.0));
    ``render_mode`` None, ``"ansi"`` or ``"rgb_array"`` (the table as a picture, see
    :mod:`poker_env.render.draw`); {_ILLEGAL_TEXT}

    ## Version History
    * v0: initial version; ``illegal_action="passive"`` became the default, the
      hand records in ``info`` and the render were added.
    """

    _env_id = "FiveCardDraw-v0"

    def __init__(
        self,
        *,
        config: DrawConfig | None = None,
        agent_seat: int | str = 0,
        opponent: Policy | None = None,
        pot_fractions: tuple[float, ...] = enc.DEFAULT_POT_FRACTIONS,
        render_mode: str | None = None,
        illegal_action: str = "passive",
        **rules: Any,
    ) -> None:
        # Every option of the draw faces checked once, as every draw face checks it.
        env_config = DrawEnvConfig(
            config=config,
            rules=rules,
            agent_seat=agent_seat,
            mode="pot",
            pot_fractions=pot_fractions,
            illegal_action=illegal_action,
        )
        super().__init__(env_config, opponent, render_mode)


class DrawMatchEnv(_DrawEnvBase):
    __doc__ = f"""A whole match of five-card draw with the clothing stakes (``poker_env/DrawMatch-v0``).

    ## Description
    The match of RULES.md §1, hand after hand until a player cannot pay the ante
    (the human) or must stake with no item left (the computer). ``agent_seat``
    ``"human"`` or ``"computer"``; the other side is ``opponent`` (default uniformly
    random legal actions). Staking is automatic as the rules say. When the agent
    plays the computer, its decisions include the buy-back between hands (action
    ``BUY_BACK`` or the passive action to skip), offered whenever she may buy back
    (a lost item, no pot pending, money >= item_value + buyback_reserve); when the
    computer is the opponent she buys back by the default rule (whenever she may).

    ## Action Space
    {_ACTION_TEXT}
    ## Observation Space
    As ``FiveCardDraw-v0``:
    {_OBS_TABLE}
    ## Action Mask
    ``info["action_mask"]`` and ``action_masks()``: int8, 1 exactly for the legal
    actions; all zero after the last step.

    ## Info
    As ``FiveCardDraw-v0``; the env deals hand after hand within a step, so
    ``info["last_hand"]`` (and the render's "Last hand" block) is how the hand
    that just ended is seen before the next deal. Also ``info["hand_no"]``, the
    current hand's number.
    {_INFO_TEXT}
    ## Starting State
    Both players at ``starting_money``, her wardrobe worn, a coin flip for who acts
    first, the first deal; the opponent's moves are played until the agent decides.

    ## Rewards
    Each time a pot is won: the agent's change of worth since the previous pot, in
    antes (money, plus worn items at ``item_value`` for the computer); a pot won
    before the agent's first decision is paid with its first step. At the end of
    the match ``+match_bonus`` to the winner and ``-match_bonus`` to the loser
    (default 100 antes).

    ## Episode End
    Terminated when the match ends. Truncated after ``max_hands`` hands (default
    1000). Stepping a finished (or never reset) episode raises
    ``EpisodeFinishedError``.

    ## Arguments
    ``config`` or the rule keywords (as FiveCardDraw-v0); ``agent_seat``
    (``"human"``/0 or ``"computer"``/1); ``opponent``; ``pot_fractions``;
    ``match_bonus``; ``max_hands``; ``render_mode``; {_ILLEGAL_TEXT}

    ## Version History
    * v0: initial version; ``illegal_action="passive"`` became the default, the
      hand records in ``info`` and the render were added.
    """

    _env_id = "DrawMatch-v0"

    def __init__(
        self,
        *,
        config: DrawConfig | None = None,
        agent_seat: str | int = "human",
        opponent: Policy | None = None,
        pot_fractions: tuple[float, ...] = enc.DEFAULT_POT_FRACTIONS,
        match_bonus: float = 100.0,
        max_hands: int = 1000,
        render_mode: str | None = None,
        illegal_action: str = "passive",
        **rules: Any,
    ) -> None:
        env_config = DrawEnvConfig(
            config=config,
            rules=rules,
            agent_seat=agent_seat,
            mode="match",
            pot_fractions=pot_fractions,
            match_bonus=match_bonus,
            max_hands=max_hands,
            illegal_action=illegal_action,
        )
        super().__init__(env_config, opponent, render_mode)
        self.max_hands = max_hands

    @property
    def max_hands(self) -> int:
        """Hands after which the match is truncated."""
        assert self._hand_limit is not None
        return self._hand_limit

    @max_hands.setter
    def max_hands(self, value: int) -> None:
        self._hand_limit = value

    def _info(self, illegal: bool) -> dict[str, Any]:
        ended = self._read_records() if self._recorded else ()
        return {
            "action_mask": self._mask.copy(),
            "illegal_action": illegal,
            "hands_ended": ended,
            "last_hand": self._last,  # read-only: steps may share it
            "hand_no": self._s.item(L.S_HAND_NO),
        }
