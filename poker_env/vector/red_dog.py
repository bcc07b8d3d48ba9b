"""Batched Red Dog: ``RedDogVectorEnv``, N tables stepped by one compiled call.

Each table runs exactly what :class:`poker_env.envs.red_dog.RedDogEnv` runs (the
same kernels of :mod:`poker_env.episode.red_dog`), so N tables reset with seeds
``s .. s+N-1`` play the same episodes as N single envs reset with those seeds and
then reset without a seed after each episode.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from numba import njit
from numpy.typing import NDArray

from poker_env.episode.red_dog import (
    DEFAULT_BET_FRACTIONS,
    RedDogEnvConfig,
    RedDogParams,
    action_to_bet,
    agent_done,
    collect_reward,
    encode_observation,
    env_reset_table,
    env_step_table,
    obs_size,
)
from poker_env.errors import ConfigError, EpisodeFinishedError, IllegalActionError, as_int
from poker_env.games.red_dog import (
    I_AGENT,
    I_PHASE,
    I_TO_ACT,
    KIND_FORFEIT,
    OK,
    PHASE_BET,
    RedDogState,
    apply_action,
    new_state,
    rand_u64,
)
from poker_env.policy import BatchPolicy
from poker_env.vector._threads import TableThreads
from poker_env.vector.batch import StepOutputs, step_chunks, step_rows

__all__ = ["RedDogVectorEnv"]


@njit(cache=True, _nrt=False, inline="always")
def _row_step(
    t: int, action: int, st: RedDogState, pr: RedDogParams, out: StepOutputs
) -> None:  # pragma: no cover - compiled
    # Table t's step (the batch loop: poker_env.vector.batch). No action log: an
    # empty view of the events rows.
    no_log = st.events[0:0]
    obs = out.obs
    status, reward, done, _, _ = env_step_table(st, t, action, pr, obs[t], no_log)
    if status != OK:
        # Nothing changed (the env checks actions first, so this does not happen):
        # the observation of the unchanged table again.
        encode_observation(st, t, st.ints[t, I_AGENT], obs[t])
    out.rewards[t] = reward
    out.terms[t] = done
    if done:
        # Same-step autoreset: the final observation is kept, the next episode starts now.
        for k in range(obs.shape[1]):
            out.final_obs[t, k] = obs[t, k]
        env_reset_table(st, t, rand_u64(st.rng, t), pr, obs[t], no_log)


@njit(cache=True, _nrt=False)
def _step_all(
    st: RedDogState, pr: RedDogParams, actions: NDArray[np.int64], out: StepOutputs
) -> None:  # pragma: no cover - compiled
    step_rows(_row_step, st, pr, actions, out)


@njit(cache=True, nogil=True, _nrt=False)
def _step_threads(
    st: RedDogState,
    pr: RedDogParams,
    actions: NDArray[np.int64],
    out: StepOutputs,
    counter: NDArray[np.int64],
) -> None:  # pragma: no cover - compiled
    step_chunks(_row_step, st, pr, actions, out, counter)


@njit(cache=True, _nrt=False)
def _reset_tables(
    st: RedDogState,
    pr: RedDogParams,
    idx: NDArray[np.int64],
    keys: NDArray[np.uint64],
    use_stream: bool,
    obs: NDArray[np.float32],
) -> None:  # pragma: no cover - compiled
    no_log = st.events[0:0]
    for i in range(idx.shape[0]):
        t = idx[i]
        key = rand_u64(st.rng, t) if use_stream else keys[i]
        env_reset_table(st, t, key, pr, obs[t], no_log)


@njit(cache=True, _nrt=False)
def _apply_batch(
    st: RedDogState,
    idx: NDArray[np.int64],
    actions: NDArray[np.int64],
    fractions: NDArray[np.float64],
) -> int:  # pragma: no cover - compiled
    """Apply ``actions[i]`` for the seat to act at table ``idx[i]``; -1 or the first bad row."""
    for i in range(idx.shape[0]):
        t = idx[i]
        kind, amount = action_to_bet(st, t, actions[i], fractions)
        if kind < 0 or apply_action(st, t, kind, amount) != 0:
            return i
    return -1


@njit(cache=True, _nrt=False)
def _encode_batch(
    st: RedDogState, idx: NDArray[np.int64], seats: NDArray[np.int64], out: NDArray[np.float32]
) -> None:  # pragma: no cover - compiled
    for i in range(idx.shape[0]):
        encode_observation(st, idx[i], seats[i], out[i])


@njit(cache=True, _nrt=False)
def _finish_batch(
    st: RedDogState,
    idx: NDArray[np.int64],
    collect: bool,
    obs: NDArray[np.float32],
    rewards: NDArray[np.float64],
    dones: NDArray[np.bool_],
) -> None:  # pragma: no cover - compiled
    for i in range(idx.shape[0]):
        t = idx[i]
        if collect:
            rewards[t] = collect_reward(st, t)
        dones[t] = agent_done(st, t)
        encode_observation(st, t, st.ints[t, I_AGENT], obs[t])


class RedDogVectorEnv(VectorEnv[NDArray[np.float32], NDArray[np.int64], NDArray[Any]]):
    """``num_envs`` tables of ``poker_env/RedDog-v0`` stepped together.

    Observation, action, reward and episode end are those of
    :class:`poker_env.envs.red_dog.RedDogEnv`, one row per table. Autoreset is
    same-step (``AutoresetMode.SAME_STEP``): when a table's episode ends, the
    returned row is already the next episode's first observation and the final
    one is in ``info["final_obs"]`` (rows where ``info["_final_obs"]`` is True).
    ``info["action_mask"]`` holds each table's mask (all ones: every action maps
    to a legal bet on the agent's turn; a shared read-only array).
    Rows of ``info["final_obs"]`` where ``info["_final_obs"]`` is False are undefined.

    Illegal actions as in ``RedDogEnv``: with ``illegal_action="passive"``
    (default) a masked-out action plays FORFEIT (replaced in numpy before the
    compiled step) and ``info["illegal_action"]`` (bool, one per table, in every
    reset and step info) is True on its row; with "raise" the step raises
    :class:`~poker_env.errors.IllegalActionError` and no table changes. Every
    action of the space is legal on the agent's turn in Red Dog, so neither
    happens here. In both modes actions that are not integers of the space
    (floats, strings, bools, values outside [0, n), a wrong count) raise
    ``IllegalActionError`` naming the first bad value and its table, and no table
    changes. ``step()`` before ``reset()`` raises
    :class:`~poker_env.errors.EpisodeFinishedError`.

    Args:
        num_envs: number of tables.
        num_players, starting_chips, ante, hand_size, rounds, agent_seat,
            opponent_random_share, bet_fractions, illegal_action: as in ``RedDogEnv``.
        opponents: None for the compiled default opponent, or a
            :class:`~poker_env.policy.BatchPolicy` acting for every other seat
            (called once per round of opponent decisions, on all waiting tables).
        num_threads: None (default) steps the tables in a plain compiled loop on
            the calling thread; an integer runs the same loop on that many threads,
            sharing the tables out dynamically (:mod:`poker_env.vector._threads`;
            independent of numba's thread settings). Results never depend on it.
    """

    metadata: ClassVar[dict[str, Any]] = {  # type: ignore[misc]
        "render_modes": [],
        "autoreset_mode": AutoresetMode.SAME_STEP,
    }

    def __init__(
        self,
        num_envs: int,
        *,
        num_players: int = 4,
        starting_chips: int = 50,
        ante: int = 1,
        hand_size: int = 5,
        rounds: int | None = None,
        agent_seat: int | None = None,
        opponents: BatchPolicy | None = None,
        opponent_random_share: float = 0.2,
        bet_fractions: Sequence[float] = DEFAULT_BET_FRACTIONS,
        illegal_action: str = "passive",
        num_threads: int | None = None,
    ) -> None:
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ConfigError("num_envs", num_envs, "an integer >= 1")
        if num_threads is not None and (not isinstance(num_threads, int) or num_threads < 1):
            raise ConfigError("num_threads", num_threads, "None or an integer >= 1")
        if opponents is not None and not isinstance(opponents, BatchPolicy):
            raise ConfigError("opponents", opponents, "None or a BatchPolicy (act_batch)")
        # The options RedDogEnv takes, checked as it checks them.
        env_config = RedDogEnvConfig(
            num_players=num_players,
            starting_chips=starting_chips,
            ante=ante,
            hand_size=hand_size,
            rounds=rounds,
            agent_seat=agent_seat,
            opponent_random_share=opponent_random_share,
            bet_fractions=bet_fractions,
            illegal_action=illegal_action,
        )
        self.env_config = env_config
        self.illegal_action = env_config.illegal_action
        self.config = env_config.rules
        fr = env_config.fractions
        self.fractions = fr
        self.num_envs = num_envs
        self.num_threads = num_threads
        self._threads = (
            TableThreads(num_threads) if num_threads is not None and opponents is None else None
        )
        self.opponents = opponents
        self.agent_seat_option = -1 if agent_seat is None else int(agent_seat)
        self.random_share = float(opponent_random_share)
        self.params = env_config.params(builtin=opponents is None)
        p = num_players
        low = np.zeros(obs_size(p), np.float32)
        high = np.ones(obs_size(p), np.float32)
        high[158 + p] = p - 1
        high[159 + p] = p - 1
        high[161 + p] = self.config.num_rounds
        self.single_observation_space = spaces.Box(low, high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(1 + fr.size)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.state = new_state(num_envs)
        self._obs = np.zeros((num_envs, obs_size(p)), np.float32)
        self._final_obs = np.zeros_like(self._obs)
        self._rewards = np.zeros(num_envs, np.float64)
        self._dones = np.zeros(num_envs, np.bool_)
        self._mask = np.ones((num_envs, 1 + fr.size), np.int8)
        self._mask.flags.writeable = False  # shared by every info dict: it never changes
        # Offsets of each table's row in the flat mask, for the legality gather.
        self._mask_rows = np.arange(num_envs, dtype=np.int64) * (1 + fr.size)
        self._all_legal = bool(self._mask.all())
        self._started = False

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[NDArray[np.float32], dict[str, Any]]:
        """Start every table; table ``i`` with seed ``seed + i`` (or ``seed[i]``)."""
        if seed is None:
            seeds: list[int | None] = [None] * self.num_envs
        elif isinstance(seed, int):
            seeds = [seed + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ConfigError("seed", seed, f"None, an int, or {self.num_envs} ints")
        # The same key a single env draws from gymnasium's np_random(seed).
        keys = np.array(
            [seeding.np_random(s)[0].integers(0, 2**63, dtype=np.int64) for s in seeds], np.uint64
        )
        idx = np.arange(self.num_envs, dtype=np.int64)
        # A fresh buffer: the last step returned the current one to the caller.
        self._obs = np.zeros_like(self._obs)
        self._reset_idx(idx, keys, False)
        self._started = True
        return self._obs.copy(), {
            "action_mask": self._mask,
            "illegal_action": np.zeros(self.num_envs, np.bool_),
        }

    def _reset_idx(
        self, idx: NDArray[np.int64], keys: NDArray[np.uint64], use_stream: bool
    ) -> None:
        st = self.state
        todo = idx
        while todo.size:
            _reset_tables(st, self.params, todo, keys, use_stream, self._obs)
            if self.params.builtin:
                return
            self._play_opponents()
            _finish_batch(st, todo, False, self._obs, self._rewards, self._dones)
            # A game over before the agent's first decision: the next game of the stream.
            todo = todo[self._dones[todo]]
            keys = keys[: todo.size]
            use_stream = True
        self._dones[:] = False

    def _play_opponents(self) -> None:
        assert self.opponents is not None
        st = self.state
        while True:
            waiting = np.flatnonzero(
                (st.ints[:, I_PHASE] == PHASE_BET) & (st.ints[:, I_TO_ACT] != st.ints[:, I_AGENT])
            ).astype(np.int64)
            if waiting.size == 0:
                return
            seats = st.ints[waiting, I_TO_ACT].astype(np.int64)
            obs = np.zeros((waiting.size, self._obs.shape[1]), np.float32)
            _encode_batch(st, waiting, seats, obs)
            acts = np.asarray(
                self.opponents.act_batch(obs, self._mask[: waiting.size].copy()), np.int64
            )
            bad = _apply_batch(st, waiting, acts, self.fractions)
            if bad >= 0:
                raise IllegalActionError(
                    int(acts[bad]), f"0..{self._mask.shape[1] - 1}", "bet", "opponent policy"
                )

    def step(
        self, actions: NDArray[np.int64] | Sequence[int]
    ) -> tuple[
        NDArray[np.float32],
        NDArray[np.float64],
        NDArray[np.bool_],
        NDArray[np.bool_],
        dict[str, Any],
    ]:
        """Step every table with its agent's action (same-step autoreset).

        Raises:
            EpisodeFinishedError: before the first ``reset()``.
            IllegalActionError: an action that is not an integer of the action space
                (or, with ``illegal_action="raise"``, a masked-out one); no table
                changes.
        """
        if not self._started:
            raise EpisodeFinishedError("RedDogVectorEnv")
        acts, illegal = self._check_actions(actions)
        st = self.state
        if self.opponents is None:
            return self._step_builtin(acts, illegal)
        self._dones[:] = False
        idx = np.arange(self.num_envs, dtype=np.int64)
        bad_row = _apply_batch(st, idx, acts, self.fractions)
        assert bad_row < 0  # indices were checked above; every index is a legal bet
        self._play_opponents()
        _finish_batch(st, idx, True, self._obs, self._rewards, self._dones)
        done_idx = np.flatnonzero(self._dones).astype(np.int64)
        if done_idx.size:
            self._final_obs[done_idx] = self._obs[done_idx]
            dones = self._dones.copy()
            self._reset_idx(done_idx, np.zeros(done_idx.size, np.uint64), True)
            self._dones[:] = dones
        terminated = self._dones.copy()
        info: dict[str, Any] = {"action_mask": self._mask, "illegal_action": illegal}
        if terminated.any():
            # Only the rows of finished tables are filled (the others are undefined).
            final = np.empty_like(self._final_obs)
            final[terminated] = self._final_obs[terminated]
            info["final_obs"] = final
            info["_final_obs"] = terminated
        return (
            self._obs.copy(),
            self._rewards.copy(),
            terminated,
            np.zeros(self.num_envs, np.bool_),
            info,
        )

    def _check_actions(
        self, actions: NDArray[np.int64] | Sequence[int]
    ) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
        """The actions as int64 (masked-out ones replaced in passive mode) and the
        replaced rows; raises for anything that is not an action of the space."""
        n_actions = self._mask.shape[1]
        space = f"an integer in [0, {n_actions})"
        # A list goes element by element (numpy would turn [0, 1, True] into
        # integers); an integer array is checked in bulk.
        raw = actions if isinstance(actions, np.ndarray) else np.array(actions, dtype=object)
        if raw.dtype.kind not in "iu":
            # Floats (1.7), strings and bools are not actions of Discrete(n): casting
            # would turn 1.7 into 1 and True into 1 without a word. (An object array
            # of integers is accepted.)
            flat = raw.reshape(-1).tolist()
            vals = [as_int(v) for v in flat]
            if None in vals:
                bad = vals.index(None)
                kind = "" if raw.dtype == object else f"; actions of dtype {raw.dtype}"
                raise IllegalActionError(
                    flat[bad], space, "bet",
                    f"table {bad}: not an action of the space Discrete({n_actions}){kind}",
                )  # fmt: skip
            big = [t for t, v in enumerate(vals) if v is not None and not 0 <= v < n_actions]
            if big:
                raise IllegalActionError(
                    flat[big[0]], space, "bet",
                    f"table {big[0]}: not an action of the space Discrete({n_actions})",
                )  # fmt: skip
            raw = np.array(vals, np.int64)
        if raw.size != self.num_envs:
            raise IllegalActionError(
                actions, f"{self.num_envs} actions, each {space}", "bet", "wrong number of actions"
            )
        raw = raw.reshape(-1)
        acts = np.ascontiguousarray(raw, dtype=np.int64)
        if acts.min() < 0 or acts.max() >= n_actions:  # two reductions, no temporaries
            t = int(np.flatnonzero((acts < 0) | (acts >= n_actions))[0])
            raise IllegalActionError(
                raw[t].item(), space, "bet",
                f"table {t}: not an action of the space Discrete({n_actions})",
            )  # fmt: skip
        if self._all_legal:
            # Red Dog: every action of the space is legal on the agent's turn, and the
            # masks never change (a read-only array of ones), so nothing to replace.
            return acts, np.zeros(self.num_envs, np.bool_)
        # Legality of each table's action, one gather over the flat masks (no
        # per-table Python loop).
        legal = self._mask.reshape(-1)[self._mask_rows + acts].astype(np.bool_)
        illegal = ~legal
        if illegal.any():
            if self.illegal_action == "raise":
                t = int(np.flatnonzero(illegal)[0])
                raise IllegalActionError(
                    int(acts[t]), np.flatnonzero(self._mask[t]).tolist(), "bet",
                    f"table {t}: masked out",
                )  # fmt: skip
            # The passive action, FORFEIT (RULES.md §2), on the masked-out rows.
            acts = np.where(legal, acts, KIND_FORFEIT)
        return acts, illegal

    def _step_builtin(
        self, acts: NDArray[np.int64], illegal: NDArray[np.bool_]
    ) -> tuple[
        NDArray[np.float32],
        NDArray[np.float64],
        NDArray[np.bool_],
        NDArray[np.bool_],
        dict[str, Any],
    ]:
        # The kernel writes every row of fresh output arrays, which are returned as they
        # are: no copies, and one large allocation fewer (freeing and re-faulting the
        # pages of large temporaries cost about a quarter of a step).
        n = self.num_envs
        out = StepOutputs(
            rewards=np.empty(n, np.float64),
            terms=np.empty(n, np.bool_),
            truncs=np.zeros(n, np.bool_),  # Red Dog never truncates
            obs=np.empty_like(self._obs),
            masks=self._mask,
            final_obs=np.empty_like(self._obs),
        )
        if self._threads is None:
            _step_all(self.state, self.params, acts, out)
        else:
            self._threads.run(_step_threads, self.state, self.params, acts, out)
        self._obs = out.obs
        info: dict[str, Any] = {"action_mask": self._mask, "illegal_action": illegal}
        if out.terms.any():
            # Only the rows of finished tables are filled (the others are undefined).
            info["final_obs"] = out.final_obs
            info["_final_obs"] = out.terms
        return out.obs, out.rewards, out.terms, out.truncs, info

    def close(self, **kwargs: Any) -> None:
        if self._threads is not None:
            self._threads.close()
        super().close(**kwargs)

    def action_masks(self) -> NDArray[np.int8]:
        """Each table's legal actions (int8, shape (num_envs, n))."""
        return self._mask.copy()
