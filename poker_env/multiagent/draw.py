"""PettingZoo AEC env of five-card draw against the computer (RULES.md §1), both seats agents.

Thin: the rules are :mod:`poker_env.games.draw_kernels`; observations, action mapping
and the driver are :mod:`poker_env.episode.draw` (the same code as the Gymnasium
envs, with every seat an agent).

Agents ``"human"`` (seat 0) and ``"computer"`` (seat 1, the one with the wardrobe).
Observations are dicts ``{"observation": Box(124,), "action_mask": int8 (A,)}``;
the observation layout and the actions are those of
:class:`poker_env.envs.draw.FiveCardDrawEnv`; the mask is all zero for the agent
not to act. ``mode="pot"`` (default): one pot per episode, rewards when it is won
(chips / ante); ``mode="match"``: a whole match with the clothing stakes, rewards
per pot plus ``±match_bonus`` at the end, truncated after ``max_hands``; the
computer's buy-back is then her decision (BUY_BACK or the passive action).

``illegal_action="passive"`` (default): a masked-out action of the space plays the
passive action (action 1: STAY / DRAW / CALL, SKIP_BUY_BACK between hands; in the
draw, keep all five cards) and the acting agent's ``infos[agent]["illegal_action"]``
is True (False otherwise, on every step); ``"raise"``: it raises
:class:`~poker_env.errors.IllegalActionError`. A value outside the space (a float, a
string, a bool, an integer outside ``[0, n)``) raises ``IllegalActionError`` in both
modes; nothing changes on a refusal. Stepping before ``reset()``, after every agent
was removed, or a terminated agent with an action other than None raises
:class:`~poker_env.errors.EpisodeFinishedError`.

Every agent's info carries ``"action_mask"`` (as in its observation: a new array
each step, all zero for the agent not to act and once the episode is done), and
``"hands_ended"`` (the hands that ended during the
step) and ``"last_hand"`` (the latest this episode), the hand records of
:class:`poker_env.envs.draw.FiveCardDrawEnv`; ``render_mode="ansi"`` shows a "Last
hand" block (both hands and their names at a showdown, the winner, a tie's pot
carried over).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray
from pettingzoo import AECEnv

from poker_env.episode import draw as enc
from poker_env.episode.draw import DrawEnvConfig
from poker_env.errors import ConfigError, EpisodeFinishedError, IllegalActionError, as_int
from poker_env.fastcall import KernelEntry, OwnViews
from poker_env.games import draw_layout as L
from poker_env.games.draw import DrawConfig, RandomBuffer
from poker_env.multiagent._aec import DirectAEC
from poker_env.render.draw import draw_picture, draw_text

__all__ = ["DrawAECEnv", "env"]

AGENTS = ("human", "computer")  # written out in _infos and step
_REFILL_AT = L.BUF_SIZE - L.BUF_MARGIN  # RandomBuffer.refill_if_low refills above this
# What a step reads, as module names (one lookup each instead of two).
_S_CURSOR, _S_HAND_NO, _S_TO_ACT = L.S_CURSOR, L.S_HAND_NO, L.S_TO_ACT
_ADV_RECORDED, _ADV_CODE, _ADV_ILLEGAL, _ADV_DONE = (
    enc.ADV_RECORDED,
    enc.ADV_CODE,
    enc.ADV_ILLEGAL,
    enc.ADV_DONE,
)


class DrawAECEnv(OwnViews, DirectAEC, AECEnv):  # type: ignore[misc]
    """Both seats of five-card draw as PettingZoo agents (self-play)."""

    metadata = {  # noqa: RUF012
        "render_modes": ["ansi", "rgb_array"],
        "name": "five_card_draw_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        *,
        config: DrawConfig | None = None,
        mode: str = "pot",
        pot_fractions: tuple[float, ...] = enc.DEFAULT_POT_FRACTIONS,
        match_bonus: float = 100.0,
        max_hands: int = 1000,
        render_mode: str | None = None,
        illegal_action: str = "passive",
        **rules: Any,
    ) -> None:
        super().__init__()
        # Every option of the draw faces checked once, as every draw face checks it.
        env_config = DrawEnvConfig(
            config=config,
            rules=rules,
            self_play=True,
            mode=mode,
            pot_fractions=pot_fractions,
            match_bonus=match_bonus,
            max_hands=max_hands,
            illegal_action=illegal_action,
        )
        if render_mode not in (None, "ansi", "rgb_array"):
            raise ConfigError("render_mode", render_mode, "None, 'ansi' or 'rgb_array'")
        self.env_config = env_config
        self.illegal_action = env_config.illegal_action
        self.config = env_config.draw_config
        self.mode = mode
        self.max_hands = max_hands
        self.render_mode = render_mode
        fr = env_config.pot_fractions
        # The batch's records for one table (row 0), passed whole to the compiled
        # step; the names below are views of table 0's rows and the parameters.
        self._params = env_config.params(builtin=False)
        self._state = enc.new_draw_tables(1)
        self._rand: RandomBuffer | None = None
        self._make_views()
        self._cfg, _, self._ep, self._fp, _ = self._params
        self._num_sizes = len(fr) + 1
        n = env_config.num_actions
        self._obs = np.zeros(enc.OBS_SIZE, np.float32)
        self._mask = np.zeros(n, np.int8)
        self._zero_mask = np.zeros(n, np.int8)  # the infos' mask of the agent not to act
        lo, hi = enc.observation_bounds(self.config)
        box = spaces.Dict(
            {
                "observation": spaces.Box(lo, hi, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (n,), dtype=np.int8),
            }
        )
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.observation_spaces = dict.fromkeys(AGENTS, box)
        self.action_spaces = {a: spaces.Discrete(n) for a in AGENTS}
        self._last: enc.HandRecord | None = None  # the newest hand record
        self._num_seen = 0  # records decoded so far this episode
        # The driver encodes the seat to act's observation and mask into _obs / _mask
        # at the end of each step and reset; observe() of that agent copies them while
        # this is True (the state has not moved since).
        self._view_fresh = False
        # The compiled step's and reset's entries (poker_env.fastcall).
        self._step_fn = KernelEntry(enc.single_step)
        self._reset_fn = KernelEntry(enc.single_reset)
        self._encode_fn = KernelEntry(enc.encode_obs)
        self._mask_fn = KernelEntry(enc.env_mask)

    def _make_views(self) -> None:
        # Views of table 0's rows, and the ring's record slots (a hand's end copies
        # one); the random buffer fills the row's. Again in a copy (OwnViews).
        self._s, self._buf, self._rew, _, self._rec, _ = (a[0] for a in self._state)
        self._rec_slots = enc.record_slots(self._rec)
        if self._rand is not None:
            self._rand.buf = self._buf

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if self._rand is None or seed is not None:
            self._rand = RandomBuffer(np.random.default_rng(seed), out=self._buf)
            self._s[L.S_CURSOR] = 0
        # The compiled reset clears the hand records and the rewards owed.
        self._last, self._num_seen = None, 0
        code = self._reset_fn.call(self._state, self._params, self._obs, self._mask)
        self._view_fresh = (code & enc.ADV_CODE) == enc.ADV_AGENT
        self.agents = list(AGENTS)
        self._start_dicts()
        self._rewards_zero = True  # self.rewards holds 0.0 for both agents
        self.agent_selection = AGENTS[int(self._s[L.S_TO_ACT])]
        to_act = self.agent_selection if self._view_fresh else None
        self.infos: dict[str, dict[str, Any]] = self._infos(None, code >= enc.ADV_RECORDED, to_act)

    def _infos(
        self, illegal_agent: str | None, recorded: bool, to_act: str | None
    ) -> dict[str, dict[str, Any]]:
        # New dicts each step. Records are decoded only when the driver wrote or
        # updated one in this call. `to_act`: the agent to act (None once done), whose
        # action_mask is the driver's mask of this state (a copy); the other's is zeros.
        ended: tuple[enc.HandRecord, ...] = ()
        if recorded:
            num = self._rec.item(enc.RC_NUM)
            ended, self._last = enc.read_records(self._rec_slots, self.config, num, self._num_seen)
            self._num_seen = num
        last = self._last
        mask, zeros = self._mask, self._zero_mask
        # Read-only records: the agents' infos may share them. (Two dicts written out:
        # cheaper than a comprehension over AGENTS.)
        return {
            "human": {
                "action_mask": mask.copy() if to_act == "human" else zeros.copy(),
                "illegal_action": illegal_agent == "human",
                "hands_ended": ended,
                "last_hand": last,
            },
            "computer": {
                "action_mask": mask.copy() if to_act == "computer" else zeros.copy(),
                "illegal_action": illegal_agent == "computer",
                "hands_ended": ended,
                "last_hand": last,
            },
        }

    def observe(self, agent: str) -> dict[str, NDArray[Any]]:
        if self._view_fresh and agent == self.agent_selection:
            # The agent to act (never a done one: the view is fresh only while the
            # episode runs): the driver's own encoding of this state, copied.
            return {"observation": self._obs.copy(), "action_mask": self._mask.copy()}
        seat = AGENTS.index(agent)
        obs = np.empty(enc.OBS_SIZE, np.float32)  # encode_obs writes every entry
        self._encode_fn.call(self._s, self._cfg, seat, obs)
        mask = np.zeros(self._mask.size, np.int8)
        done = self.terminations.get(agent, True) or self.truncations.get(agent, True)
        if agent == self.agent_selection and not done:
            self._mask_fn.call(self._s, self._cfg, self._ep, self._fp, mask)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: Any) -> None:
        if self._rand is None or not self.agents:
            raise EpisodeFinishedError("DrawAECEnv")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                # PettingZoo: a done agent is stepped with None only (to remove it).
                raise EpisodeFinishedError(f"DrawAECEnv ({agent} is done; step(None) removes it)")
            self._was_dead_step(action)
            return
        # The mask of the agent to act; checked before anything moves (nothing
        # changes on a refusal).
        mask = self._mask
        kind = type(action)  # the common types first
        a = action if kind is int else int(action) if kind is np.int64 else as_int(action)
        if a is None or not 0 <= a < mask.size:
            a = enc.check_action(action, mask.size, f"{agent} to act", mask)
        illegal = not mask.item(a)
        if illegal:
            if self.illegal_action == "raise":
                raise IllegalActionError(
                    a, np.flatnonzero(mask).tolist(), f"{agent} to act", "masked out"
                )
            a = enc.passive_action(mask, self._num_sizes)
        self._cumulative_rewards[agent] = 0.0
        st = self._s  # (.item: a Python int, compared without a numpy scalar)
        if st.item(_S_CURSOR) > _REFILL_AT:  # RandomBuffer.refill_if_low's rule, inline
            self._rand.refill_if_low(st)
        code = self._step_fn.call(self._state, self._params, a, False, self._obs, mask)
        recorded = code >= _ADV_RECORDED
        code &= _ADV_CODE
        if code == _ADV_ILLEGAL:  # unreachable: the mask was checked above
            raise IllegalActionError(a, np.flatnonzero(mask).tolist(), f"{agent} to act")
        r0, r1 = self._rew.tolist()
        if r0 or r1:
            self.rewards = {"human": r0, "computer": r1}
            self._rewards_zero = False
            self._rew.fill(0.0)
        elif not self._rewards_zero:  # (an all-zero dict is kept from step to step)
            self.rewards = {"human": 0.0, "computer": 0.0}
            self._rewards_zero = True
        to_act: str | None = None
        if code == _ADV_DONE:
            self.terminations = dict.fromkeys(AGENTS, True)
            self._view_fresh = False
        elif st.item(_S_HAND_NO) > self.max_hands:
            self.truncations = dict.fromkeys(AGENTS, True)
            self._view_fresh = False
        else:
            self.agent_selection = to_act = AGENTS[st.item(_S_TO_ACT)]
            self._view_fresh = True
        self.infos = self._infos(agent if illegal else None, recorded, to_act)
        # As _accumulate_rewards (self.rewards holds both agents, in this order).
        cumulative = self._cumulative_rewards
        cumulative["human"] += r0
        cumulative["computer"] += r1

    def render(self) -> str | NDArray[np.uint8] | None:
        if self.render_mode == "rgb_array":
            seat = AGENTS.index(self.agent_selection)
            return draw_picture(self._s, self.config, seat, enc.last_hand(self._rec, self.config))
        if self.render_mode != "ansi":
            return None
        return draw_text(self._s, self.config, AGENTS.index(self.agent_selection), self._rec)

    def close(self) -> None:
        pass


def env(**kwargs: Any) -> DrawAECEnv:
    """PettingZoo-style constructor."""
    return DrawAECEnv(**kwargs)
