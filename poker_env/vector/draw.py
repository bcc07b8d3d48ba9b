"""``DrawVectorEnv``: N tables of five-card draw stepped by one compiled call.

Each table plays FiveCardDraw-v0 episodes (one pot each, ``mode="pot"``) or
DrawMatch-v0 episodes (a whole match, ``mode="match"``) through the same driver
kernels as the single envs (:mod:`poker_env.episode.draw`, rules in
:mod:`poker_env.games.draw_kernels`). Table ``i`` draws every random number from its
own Generator, seeded ``seed + i``, with the single env's refill rule, so N tables
with seeds ``s .. s+N-1`` play exactly the episodes of N single envs with those seeds.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space
from numba import njit
from numpy.typing import NDArray

from poker_env.episode import draw as enc
from poker_env.episode.draw import (
    ADV_DONE,
    ADV_OPP,
    EP_AGENT,
    DrawEnvConfig,
    DrawParams,
    DrawTables,
    encode_obs,
    encode_view,
    opp_step_row,
    reset_row,
    step_row,
)
from poker_env.episode.outputs import StepOutputs
from poker_env.errors import ConfigError, EpisodeFinishedError, IllegalActionError, as_int
from poker_env.games import draw_layout as L
from poker_env.games.draw import DrawConfig
from poker_env.policy import BatchPolicy
from poker_env.vector._threads import TableThreads
from poker_env.vector.batch import FreshArrays, prefetch, step_chunks, step_rows

__all__ = ["DrawVectorEnv"]


@njit(cache=True, _nrt=False, inline="always")
def _finish(i: int, code: int, st: DrawTables, pr: DrawParams, out: StepOutputs) -> None:
    S, W = st.rows, st.owed
    if code == ADV_OPP:
        # A Python policy moves next; the rewards of this step wait in W until the
        # table reaches the agent (or the episode's end).
        st.needs_opponent[i] = True
        return
    agent = pr.ep[EP_AGENT]
    if not (out.terms[i] or out.truncs[i]):
        # W holds what this step earned. A table restarted earlier in this step keeps
        # W instead: the pots of its new episode decided before the agent's first
        # decision (DrawMatch-v0) are paid with that episode's first step, as in the
        # single env.
        out.rewards[i] += W[i, agent]
        W[i, 0] = 0.0
        W[i, 1] = 0.0
        done = code == ADV_DONE
        if done:
            out.terms[i] = True
        elif pr.max_hands > 0 and S[i, L.S_HAND_NO] > pr.max_hands:
            # DrawMatchEnv._truncate: checked when the agent must decide, after the
            # other seat's moves (pot mode, max_hands 0, never truncates).
            out.truncs[i] = True
            done = True
        if done:
            # Same-step autoreset: keep the final view, start the next episode now.
            encode_obs(S[i], pr.cfg, agent, out.final_obs[i])
            R, LG, REC, masks = st.randoms, st.legal, st.records, out.masks
            code = reset_row(
                S[i], pr.cfg, pr.tables, R[i], pr.ep, pr.fp, W[i], LG[i], masks[i], REC[i]
            )
            if code == ADV_OPP:
                st.needs_opponent[i] = True
                return
    st.needs_opponent[i] = False
    encode_view(S[i], pr.cfg, pr.ep, pr.fp, agent, st.legal[i], out.obs[i], out.masks[i])


@njit(cache=True, _nrt=False, inline="always")
def _row_step(
    i: int, a: int, is_opp: bool, st: DrawTables, pr: DrawParams, out: StepOutputs
) -> None:
    # One table's step. Compiled without reference counting: the row views below
    # would otherwise cost two atomic operations each. W is zeroed where it is paid
    # (_finish), not here: it may hold rewards due with this step.
    S, R, W, LG, REC, masks = st.rows, st.randoms, st.owed, st.legal, st.records, out.masks
    cfg, tables, ep, fp = pr.cfg, pr.tables, pr.ep, pr.fp
    if is_opp:
        code = opp_step_row(S[i], cfg, tables, R[i], ep, fp, a, W[i], LG[i], masks[i], REC[i])
    else:
        code = step_row(S[i], cfg, tables, R[i], ep, fp, a, W[i], LG[i], masks[i], REC[i])
    _finish(i, code, st, pr, out)


@njit(cache=True, _nrt=False)
def _vec_reset(st: DrawTables, pr: DrawParams, out: StepOutputs) -> None:
    S, R, W, LG, REC, masks = st.rows, st.randoms, st.owed, st.legal, st.records, out.masks
    cfg, tables, ep, fp = pr.cfg, pr.tables, pr.ep, pr.fp
    agent = ep[EP_AGENT]
    for i in range(S.shape[0]):
        code = reset_row(S[i], cfg, tables, R[i], ep, fp, W[i], LG[i], masks[i], REC[i])
        st.needs_opponent[i] = code == ADV_OPP
        if code != ADV_OPP:
            encode_view(S[i], cfg, ep, fp, agent, LG[i], out.obs[i], masks[i])


@njit(cache=True, _nrt=False)
def _opp_step(
    st: DrawTables,
    pr: DrawParams,
    rows: NDArray[np.int64],
    actions: NDArray[np.int64],
    out: StepOutputs,
) -> None:
    # The Python opponent's actions at the tables waiting for it.
    for j in range(rows.shape[0]):
        _row_step(rows[j], actions[j], True, st, pr, out)


_PREFETCH_AHEAD = 2  # tables ahead (a table's step is about 1 µs at N = 4096)


@njit(cache=True, _nrt=False, inline="always")
def _agent_row_step(
    i: int, a: int, st: DrawTables, pr: DrawParams, out: StepOutputs
) -> None:  # pragma: no cover - compiled
    # The table two rows on will next read its uniforms at its cursor: a line of its
    # own 16 KB buffer, which no hardware prefetcher foresees (a cache miss a table,
    # about a tenth of the step at N = 4096). A hint: no value changes.
    k = i + _PREFETCH_AHEAD
    if k < st.rows.shape[0]:
        c = st.rows[k, L.S_CURSOR]
        if c < st.randoms.shape[1]:
            prefetch(st.randoms, k, c)
    _row_step(i, a, False, st, pr, out)


@njit(cache=True, _nrt=False)
def _step_all(
    st: DrawTables, pr: DrawParams, actions: NDArray[np.int64], out: StepOutputs
) -> None:  # pragma: no cover - compiled
    # The agents' actions at every table (the batch loop: poker_env.vector.batch).
    step_rows(_agent_row_step, st, pr, actions, out)


@njit(cache=True, nogil=True, _nrt=False)
def _step_threads(
    st: DrawTables,
    pr: DrawParams,
    actions: NDArray[np.int64],
    out: StepOutputs,
    counter: NDArray[np.int64],
) -> None:  # pragma: no cover - compiled
    step_chunks(_agent_row_step, st, pr, actions, out, counter)


@njit(cache=True, _nrt=False)
def _vec_encode(
    S: NDArray[np.int64],
    cfg: NDArray[np.int64],
    ep: NDArray[np.int64],
    fp: NDArray[np.float64],
    LG: NDArray[np.int64],
    rows: NDArray[np.int64],
    seat: int,
    obs: NDArray[np.float32],
    masks: NDArray[np.int8],
) -> None:
    for j in range(rows.shape[0]):
        i = rows[j]
        encode_view(S[i], cfg, ep, fp, seat, LG[i], obs[j], masks[j])


@njit(cache=True, _nrt=False)
def _resolve_actions(
    masks: NDArray[np.int8],
    actions: NDArray[np.int64],
    passive: bool,
    keep_all: int,
    out: NDArray[np.int64],
    illegal: NDArray[np.bool_],
) -> int:
    # Before the step: the first table whose action is outside [0, n) (or, strict,
    # masked out), or -1 once `out` holds the actions to play, masked-out ones
    # replaced by the passive action (`illegal` marks them). Checks come first, so
    # a refused batch writes nothing. One pass over the actions: no Python loop.
    n_act = masks.shape[1]
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0 or a >= n_act or (not passive and masks[i, a] == 0):
            return i
    for i in range(actions.shape[0]):
        a = actions[i]
        bad = masks[i, a] == 0
        illegal[i] = bad
        if bad:
            # episode.draw.passive_action: action 1, or in the draw keep all cards.
            a = 1 if masks[i, 1] else keep_all
        out[i] = a
    return -1


class DrawVectorEnv(gym.vector.VectorEnv[NDArray[np.float32], NDArray[np.int64], NDArray[Any]]):
    """N tables of ``FiveCardDraw-v0`` (or ``DrawMatch-v0``), stepped by one compiled call.

    Spaces, rewards and episode ends are those of
    :class:`poker_env.envs.draw.FiveCardDrawEnv` (``mode="pot"``, default) or
    :class:`poker_env.envs.draw.DrawMatchEnv` (``mode="match"``: a whole match per
    episode, rewards per pot plus ``±match_bonus`` at the end, the computer's buy-back
    decided by the agent when it plays her seat), batched. Autoreset is
    ``AutoresetMode.SAME_STEP``: when a table's episode ends (terminated, or in match
    mode truncated after ``max_hands`` hands), the returned observation is already
    the next episode's first; the final observation is in ``info["final_obs"]`` (an
    (N, 124) array, meaningful where ``info["_final_obs"]`` is True).
    ``info["action_mask"]`` (N, A) int8 and ``action_masks()`` give the legal
    actions. In match mode ``info["hand_no"]`` (N,) is each table's current hand
    number (after an autoreset, the new match's). Pot mode never truncates.

    Args:
        num_envs: number of tables N.
        config: the rules (or the rule keywords in ``rules``).
        agent_seat: the agent's seat at every table: 0 (``"human"``, default) or 1
            (``"computer"``, the seat with the wardrobe).
        opponent: None (uniformly random legal actions, in compiled code, from each
            table's own Generator) or a :class:`~poker_env.policy.BatchPolicy`.
        pot_fractions: the bet sizes (plus all-in).
        mode: ``"pot"`` (FiveCardDraw-v0 episodes, default) or ``"match"``
            (DrawMatch-v0 episodes).
        match_bonus: match mode: antes added to the winner's and taken from the
            loser's reward at the end of a match (DrawMatchEnv's, default 100).
        max_hands: match mode: a match still running after this many hands is
            truncated when the agent must next decide (DrawMatchEnv's, default 1000).
        num_threads: threads for the agent step (1 = the calling thread only), sharing
            the tables out dynamically (:mod:`poker_env.vector._threads`; independent
            of numba's thread settings). Results never depend on it.
        copy: hand out arrays that the env never writes again: the observation and
            final observations in buffers nobody else holds (not copies; a dropped
            one is reused), the info arrays as copies. False: views of the env's own
            buffers, which the next step overwrites.
        illegal_action: ``"passive"`` (default): a masked-out action plays the
            passive action (action 1: STAY / DRAW / CALL / SKIP_BUY_BACK; in the draw,
            keep all five cards) and ``info["illegal_action"]`` (an (N,) bool array)
            marks those tables; ``"raise"``: a masked-out action raises
            ``IllegalActionError`` and no table moves. In both modes actions that are
            not integers in ``[0, n)`` (a float array, out of range, the wrong count)
            raise ``IllegalActionError`` and no table moves. ``step()`` before
            ``reset()`` raises ``EpisodeFinishedError``.

    Attributes:
        env_id: the Gymnasium id whose episodes the tables play
            (``"poker_env/FiveCardDraw-v0"`` or ``"poker_env/DrawMatch-v0"``).

    The hand that ended last at table ``i`` (this or an earlier episode; the record of
    the single env's ``info["last_hand"]``) is :meth:`last_hand`, decoded on request
    only, so it costs the step nothing.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int,
        *,
        config: DrawConfig | None = None,
        agent_seat: int | str = 0,
        opponent: BatchPolicy | None = None,
        pot_fractions: tuple[float, ...] = enc.DEFAULT_POT_FRACTIONS,
        mode: str = "pot",
        match_bonus: float = 100.0,
        max_hands: int = 1000,
        num_threads: int = 1,
        copy: bool = True,
        illegal_action: str = "passive",
        **rules: Any,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ConfigError("num_envs", num_envs, "an integer >= 1")
        # Every option of the draw faces checked once, as every draw face checks it.
        env_config = DrawEnvConfig(
            config=config,
            rules=rules,
            agent_seat=agent_seat,
            mode=mode,
            pot_fractions=pot_fractions,
            match_bonus=match_bonus,
            max_hands=max_hands,
            illegal_action=illegal_action,
        )
        if opponent is not None and not isinstance(opponent, BatchPolicy):
            raise ConfigError("opponent", opponent, "None or a BatchPolicy (act_batch)")
        if isinstance(num_threads, bool) or not isinstance(num_threads, int) or num_threads < 1:
            raise ConfigError("num_threads", num_threads, "an integer >= 1")
        self.env_config = env_config
        self.config = env_config.draw_config
        self.illegal_action = env_config.illegal_action
        self.num_envs = num_envs
        seat = int(env_config.agent_seat)
        self.agent_seat = seat
        self.mode = mode
        is_match = env_config.is_match
        self.env_id = "poker_env/DrawMatch-v0" if is_match else "poker_env/FiveCardDraw-v0"
        self.match_bonus = env_config.match_bonus
        self.max_hands = max_hands
        self.opponent = opponent
        self.num_threads = num_threads
        self._threads = TableThreads(num_threads)
        self.copy = copy
        fr = env_config.pot_fractions
        self.pot_fractions = fr
        # The compiled step's parameter record, built once (the options are frozen).
        self._params = env_config.params(builtin=opponent is None)
        self._cfg, self._ep, self._fp = self._params.cfg, self._params.ep, self._params.fp
        n_act = env_config.num_actions
        lo, hi = enc.observation_bounds(self.config)
        self.single_observation_space = spaces.Box(lo, hi, dtype=np.float32)
        self.single_action_space = spaces.Discrete(n_act)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        N = num_envs
        self._S = np.zeros((N, L.NUM_COLS), np.int64)
        self._R = np.zeros((N, L.BUF_SIZE), np.float64)
        self._obs = np.zeros((N, enc.OBS_SIZE), np.float32)
        self._final = np.zeros((N, enc.OBS_SIZE), np.float32)
        self._masks = np.zeros((N, n_act), np.int8)
        self._rewards = np.zeros(N, np.float64)
        self._terms = np.zeros(N, np.bool_)
        self._truncs = np.zeros(N, np.bool_)
        self._need = np.zeros(N, np.bool_)
        # Per-table rewards (both seats) not yet paid: a step's, or a new match's pots
        # decided before the agent's first decision (paid with its first step).
        self._W = np.zeros((N, 2), np.float64)
        self._LG = np.zeros((N, L.LG_SIZE), np.int64)  # per-table legal-row scratch
        self._REC = np.zeros((N, enc.RECORDS_SIZE), np.int64)  # per-table hand records
        # The compiled step's records: views of the arrays above, passed whole.
        self._state = DrawTables(self._S, self._R, self._W, self._LG, self._REC, self._need)
        self._outs = StepOutputs(
            self._rewards, self._terms, self._truncs, self._obs, self._masks, self._final
        )
        # With copy: the observation and final-observation arrays of each reset and
        # step, handed out as they are (a buffer nobody else holds; no copy, no new
        # memory paged in when the caller dropped an earlier one). The final
        # observations are written only where a table finished: elsewhere a taken
        # buffer holds zeros or an earlier step's final observations.
        self._obs_buffers = FreshArrays(self._obs.shape, np.float32)
        self._final_buffers = FreshArrays(self._final.shape, np.float32, zeroed=True)
        self._act = np.zeros(N, np.int64)  # the actions played (passive replacements)
        self._illegal = np.zeros(N, np.bool_)
        self._keep_all = 2 + len(fr) + 1  # the draw's discard mask 0
        self._gens: list[np.random.Generator] = []

    # ----- gymnasium API -------------------------------------------------------
    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[NDArray[np.float32], dict[str, Any]]:
        N = self.num_envs
        if seed is None:
            if not self._gens:
                seeds = np.random.SeedSequence().generate_state(N).tolist()
                self._gens = [np.random.default_rng(s) for s in seeds]
                self._reseed_buffers()
        else:
            seeds = list(range(seed, seed + N)) if isinstance(seed, int) else list(seed)
            if len(seeds) != N:
                raise ConfigError("seed", seed, f"an int or a list of {N} ints")
            self._gens = [np.random.default_rng(s) for s in seeds]
            self._reseed_buffers()
        self._refill()
        self._REC[:] = 0
        self._take_outputs()
        _vec_reset(self._state, self._params, self._outs)
        self._rewards[:] = 0.0
        self._illegal[:] = False
        # Every table starts an episode: flagged as restarted while the opponents
        # move, so the pots they decide before the agent's first decision stay due
        # (paid with the first step, as in the single env).
        self._terms[:] = True
        self._truncs[:] = False
        self._play_opponents()
        self._terms[:] = False
        info = {
            "action_mask": self._out(self._masks),
            "illegal_action": self._illegal.copy(),
        }
        if self.mode == "match":
            info["hand_no"] = self._S[:, L.S_HAND_NO].copy()
        return self._obs, info

    def step(
        self, actions: Any
    ) -> tuple[
        NDArray[np.float32],
        NDArray[np.float64],
        NDArray[np.bool_],
        NDArray[np.bool_],
        dict[str, Any],
    ]:
        if not self._gens:
            raise EpisodeFinishedError("DrawVectorEnv")
        n_act = self._masks.shape[1]
        raw = np.asarray(actions)
        if raw.dtype.kind not in "iu" or raw.size != self.num_envs:
            raise IllegalActionError(
                actions,
                f"an array of {self.num_envs} integers in [0, {n_act})",
                "DrawVectorEnv",
                "not actions of the space; nothing was applied",
            )
        # uint64 beyond int64 wraps negative here and is refused as out of range.
        req = raw.reshape(self.num_envs).astype(np.int64, copy=False)
        a = self._act
        passive = self.illegal_action == "passive"
        i = int(_resolve_actions(self._masks, req, passive, self._keep_all, a, self._illegal))
        if i >= 0:
            out_of_space = not 0 <= int(req[i]) < n_act
            raise IllegalActionError(
                raw.reshape(self.num_envs)[i].item(),
                f"an integer in [0, {n_act})"
                if out_of_space
                else np.flatnonzero(self._masks[i]).tolist(),
                f"table {i}",
                ("not an action of the space" if out_of_space else "masked out")
                + "; nothing was applied",
            )
        self._refill()
        self._rewards[:] = 0.0
        self._terms[:] = False
        self._truncs[:] = False
        self._take_outputs()
        if self.num_threads > 1:
            self._threads.run(_step_threads, self._state, self._params, a, self._outs)
        else:
            _step_all(self._state, self._params, a, self._outs)
        self._play_opponents()
        info = {
            "action_mask": self._out(self._masks),
            "final_obs": self._final,
            "_final_obs": self._terms | self._truncs,
            "illegal_action": self._illegal.copy(),
        }
        if self.mode == "match":
            info["hand_no"] = self._S[:, L.S_HAND_NO].copy()
        return (
            self._obs,
            self._rewards.copy(),
            self._terms.copy(),
            self._truncs.copy(),
            info,
        )

    def close(self, **kwargs: Any) -> None:
        self._threads.close()
        super().close(**kwargs)

    def action_masks(self) -> NDArray[np.int8]:
        """(N, A) int8: the legal actions of every table now."""
        return self._masks.copy()

    def last_hand(self, i: int) -> enc.HandRecord | None:
        """The hand that ended last at table ``i`` since :meth:`reset`, or None.

        The record (a read-only mapping) of the single env's ``info["last_hand"]``
        (winner, how, pot, both hands and their names at a showdown, items settled,
        a buy-back, the match end). With same-step
        autoreset it is the finished episode's last hand until the next one ends.
        """
        j = as_int(i)
        if j is None or not 0 <= j < self.num_envs:
            raise ConfigError("i", i, f"a table index in [0, {self.num_envs})")
        return enc.last_hand(self._REC[j], self.config)

    # ----- helpers ---------------------------------------------------------------
    def _out(self, x: NDArray[Any]) -> NDArray[Any]:
        return x.copy() if self.copy else x

    def _take_outputs(self) -> None:
        # With copy: this call's observation and final-observation buffers, taken
        # fresh (see __init__), in the compiled step's outputs. Without: the env's
        # own two buffers, which each call overwrites.
        if not self.copy:
            return
        self._obs = self._obs_buffers.take()
        self._final = self._final_buffers.take()
        self._outs = StepOutputs(
            self._rewards, self._terms, self._truncs, self._obs, self._masks, self._final
        )

    def _reseed_buffers(self) -> None:
        for i, g in enumerate(self._gens):
            self._R[i] = g.random(L.BUF_SIZE)
        self._S[:, L.S_CURSOR] = 0

    def _refill(self, rows: NDArray[np.int64] | None = None) -> None:
        # The single env's rule, table by table: refill when fewer than BUF_MARGIN remain.
        cur = self._S[:, L.S_CURSOR] if rows is None else self._S[rows, L.S_CURSOR]
        low = np.flatnonzero(cur > L.BUF_SIZE - L.BUF_MARGIN)
        for j in low:
            i = int(j) if rows is None else int(rows[j])
            self._gens[i].random(out=self._R[i])  # the same uniforms as random(BUF_SIZE)
            self._S[i, L.S_CURSOR] = 0

    def _play_opponents(self) -> None:
        # A Python BatchPolicy plays the other seat wherever a table waits for it.
        if self.opponent is None:
            return
        opp = 1 - self.agent_seat
        while self._need.any():
            rows = np.flatnonzero(self._need).astype(np.int64)
            obs = np.zeros((rows.size, enc.OBS_SIZE), np.float32)
            masks = np.zeros((rows.size, self._masks.shape[1]), np.int8)
            _vec_encode(self._S, self._cfg, self._ep, self._fp, self._LG, rows, opp, obs, masks)
            acts = np.asarray(self.opponent.act_batch(obs, masks), dtype=np.int64)
            if not (masks[np.arange(rows.size), acts] == 1).all():
                raise IllegalActionError(
                    acts.tolist(),
                    "see the masks",
                    "opponent",
                    "the BatchPolicy chose a masked action",
                )
            self._refill(rows)
            _opp_step(self._state, self._params, rows, acts, self._outs)
