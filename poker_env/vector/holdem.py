"""Batched Hold'em: N tables stepped by one compiled call (RULES.md §3 rules, shared kernels)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from numba import njit
from numpy.typing import NDArray

from poker_env.episode import holdem as E
from poker_env.errors import ConfigError, EpisodeFinishedError, IllegalActionError
from poker_env.fastcall import KernelEntry
from poker_env.games import holdem_kernels as K
from poker_env.games.holdem import get_holdem_tables
from poker_env.policy import BatchPolicy
from poker_env.vector._threads import TableThreads, fetch_add
from poker_env.vector.batch import FreshArrays, StepOutputs, step_chunks, step_rows

__all__ = ["HoldemVectorEnv"]

PASSIVE_ACTION = 1  # check/call: legal whenever the agent is to act


#: The step's outputs and the three walk arrays (:func:`_take_walk_row`'s).
WalkOutputs = tuple[StepOutputs, NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]]


@njit(_nrt=False, nogil=True, inline="always")
def _take_walk_row(
    s: np.ndarray, i: int, walks: np.ndarray, chips: np.ndarray, first_chips: np.ndarray
) -> None:  # pragma: no cover - compiled
    # Row s's walks since the last read (count, net chips, the first one's chips) into
    # entry i, in big blinds where chips; then cleared.
    base = float(s[K.BASE])
    walks[i] = s[E.WALKS]
    chips[i] = s[E.WALK_CHIPS] / base
    first_chips[i] = s[E.FIRST_WALK_CHIPS] / base
    s[E.WALKS] = 0
    s[E.WALK_CHIPS] = 0
    s[E.FIRST_WALK_CHIPS] = 0


@njit(_nrt=False, nogil=True, inline="always")
def _step_row_walks(
    i: int, a: int, st: E.HoldemTables, pr: E.HoldemParams, io: WalkOutputs
) -> None:  # pragma: no cover - compiled
    # E.step_row, then the row's walks taken while the row is in the cache (a pass of
    # its own over every row after the step cost 3% of the step).
    E.step_row(i, a, st, pr, io[0])
    _take_walk_row(st.rows[i], i, io[1], io[2], io[3])


@njit(cache=True, _nrt=False)
def _step_all(
    st: E.HoldemTables, pr: E.HoldemParams, actions: NDArray[np.int64], io: WalkOutputs
) -> None:  # pragma: no cover - compiled
    # Every table's agent action, random opponents (the batch loop: poker_env.vector.batch),
    # and its walks.
    step_rows(_step_row_walks, st, pr, actions, io)


@njit(cache=True, nogil=True, _nrt=False)
def _step_threads(
    st: E.HoldemTables,
    pr: E.HoldemParams,
    actions: NDArray[np.int64],
    io: WalkOutputs,
    counter: NDArray[np.int64],
) -> None:  # pragma: no cover - compiled
    step_chunks(_step_row_walks, st, pr, actions, io, counter)


_FEATURE_CHUNK = 8  # tables per grab of the threaded evaluator features (~100 µs)


@njit(cache=True, nogil=True)
def _features_chunks(  # type: ignore[no-untyped-def]
    states, rngs, samples, tables, obs, counter
):
    # E.batch_features for one of several threads: the same per-table kernel.
    n = states.shape[0]
    while True:
        start = fetch_add(counter, _FEATURE_CHUNK)
        if start >= n:
            break
        for i in range(start, min(start + _FEATURE_CHUNK, n)):
            E.features(states[i], rngs, i, states[i][E.AGENT], samples, tables, obs[i])


@njit(cache=True, _nrt=False)
def _check_actions(
    actions: np.ndarray, masks: np.ndarray, passive: bool, played: np.ndarray, illegal: np.ndarray
) -> int:
    """One pass over the tables' actions before the step (nothing is stepped here).

    Writes ``illegal[i]`` (table ``i``'s action is masked out) and ``played[i]``
    (its action, check/call where masked out). Returns -1 when the step may go on;
    ``i`` when table ``i``'s action is not in the action space at all; ``n + i``
    when, not ``passive``, table ``i``'s action is the first masked out.
    """
    n = actions.shape[0]
    width = masks.shape[1]
    first = -1
    for i in range(n):
        a = actions[i]
        if a < 0 or a >= width:
            return i
        bad = masks[i, a] != 1
        illegal[i] = bad
        played[i] = PASSIVE_ACTION if bad else a
        first = i if bad and first < 0 else first
    if first >= 0 and not passive:
        return int(n + first)
    return -1


@njit(cache=True, _nrt=False)
def _take_walks(
    states: np.ndarray, walks: np.ndarray, chips: np.ndarray, first_chips: np.ndarray
) -> None:
    """Each row's walks since the last read (count, net chips, the first one's chips),
    in big blinds where chips, then cleared: one pass over the rows."""
    for i in range(states.shape[0]):
        _take_walk_row(states[i], i, walks, chips, first_chips)


class HoldemVectorEnv(VectorEnv):
    """``num_envs`` Hold'em tables, the agent in one seat of each, policy-played opponents.

    Observations, actions, masks and rewards are those of
    :class:`poker_env.envs.holdem.HoldemEnv` (see its docstring), stacked. Autoreset
    is gymnasium's ``SAME_STEP``: when a table's episode ends, the returned obs
    is already the next episode's first; the final obs is in
    ``info["final_obs"]`` (rows where ``info["_final_obs"]``). ``info["action_mask"]``
    and ``action_masks()`` give the (num_envs, actions) ``int8`` masks.

    Table ``i`` reset with seed ``s + i`` plays exactly as a single
    ``HoldemEnv`` reset with that seed and given the same actions.

    Args:
        num_envs: number of tables.
        num_players: seats per table, 2..10.
        opponent: None (uniformly random legal actions, inside the compiled step) or a
            :class:`~poker_env.policy.BatchPolicy` that acts for every waiting
            opponent seat of all tables at once (its observations and masks are
            those of the seat to act).
        evaluator_features, equity_samples: as ``HoldemEnv`` (the hand category and a
            Monte Carlo equity; compiled, the same numbers as the single env's).
        num_threads: threads that step the tables and compute the evaluator features
            (1 = the calling thread only; random opponents only). Independent of numba's thread settings: see
            :mod:`poker_env.vector._threads`. Results never depend on it.
        illegal_action: ``"passive"`` (default) or ``"raise"``, as ``HoldemEnv``: a
            masked-out action plays check/call where ``info["illegal_action"]`` (a
            bool array of the tables) is True; ``"raise"`` refuses the whole step
            with :class:`~poker_env.errors.IllegalActionError` naming the first such
            table, nothing stepped. Actions that are not integers in ``[0, n)``
            (a float array, an out-of-range entry, a wrong length) are refused in
            both modes, nothing stepped.
        Other arguments: as :class:`~poker_env.envs.holdem.HoldemEnv` (the same
            values are accepted).

    ``step`` before the first ``reset`` raises
    :class:`~poker_env.errors.EpisodeFinishedError` (tables reset themselves after).
    The info has ``action_mask`` and ``illegal_action`` at every step and reset,
    ``final_obs`` / ``_final_obs`` at steps where a table finished, and the
    **walks** at every step and reset: an episode decided before the agent's first
    decision (everyone folds to the agent's big blind) is dealt again and is not in
    the rewards; ``info["walks"]`` counts, per table, those dealt since the last
    reset or step (before the episode now starting), ``info["walk_reward"]`` is the
    agent's net in them (big blinds) and ``info["first_walk_reward"]`` that of the
    first one (what the episode seeded at a reset would have paid). An evaluation
    that counts every hand adds them. The hands'
    results (``HoldemEnv``'s ``info["last_hand"]``) are not collected here: that
    would stop the compiled step at every hand.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int,
        num_players: int = 2,
        *,
        seat: int | None = None,
        opponent: BatchPolicy | None = None,
        hands_per_episode: int = 1,
        raise_fractions: Sequence[float] = E.DEFAULT_FRACTIONS,
        escape_prob: float = 0.0,
        rules: Literal["seed", "standard"] = "seed",
        base: int = 2,
        starting_stack: int | None = None,
        max_bet: int | None = None,
        penalty_to: Literal["burn", "pot"] = "burn",
        evaluator_features: bool = False,
        equity_samples: int = 200,
        num_threads: int = 1,
        illegal_action: Literal["passive", "raise"] = "passive",
    ) -> None:
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ConfigError("num_envs", num_envs, "an int >= 1")
        if not isinstance(num_threads, int) or num_threads < 1:
            raise ConfigError("num_threads", num_threads, "an int >= 1")
        # The options HoldemEnv takes, checked as it checks them.
        env_config = E.HoldemEnvConfig(
            num_players=num_players,
            seat=seat,
            hands_per_episode=hands_per_episode,
            raise_fractions=raise_fractions,
            escape_prob=escape_prob,
            rules=rules,
            base=base,
            starting_stack=starting_stack,
            max_bet=max_bet,
            penalty_to=penalty_to,
            evaluator_features=evaluator_features,
            equity_samples=equity_samples,
            illegal_action=illegal_action,
        )
        self.env_config = env_config
        self.config = env_config.table
        self.illegal_action = illegal_action
        self.evaluator_features = bool(evaluator_features)
        self.equity_samples = equity_samples
        fr = env_config.fractions
        if opponent is not None and not isinstance(opponent, BatchPolicy):
            raise ConfigError(
                "opponent", opponent, "None or a BatchPolicy (act_batch(observations, masks))"
            )
        self.opponent = opponent
        self.num_envs = num_envs
        self.num_players = num_players
        self.num_threads = num_threads
        self.fractions = fr
        self.escape_prob = float(escape_prob)
        # Same spaces as HoldemEnv (imported from the shared encoding, not from envs/).
        size = E.obs_size(num_players, self.evaluator_features)
        low = np.zeros(size, dtype=np.float32)
        high = np.ones(size, dtype=np.float32)
        n = num_players
        high[108:110] = n
        high[110 : 110 + 2 * n] = n
        high[110 + 4 * n : 110 + 8 * n] = n
        self.single_observation_space = spaces.Box(low, high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(E.num_actions(fr.size))
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._tables = get_holdem_tables()
        # As HoldemEnv's, except that the driver never stops at a decided hand.
        self._params = env_config.params(
            external=opponent is not None, stop_at_hand_end=False, tables=self._tables
        )
        self.params = self._params.ints
        row = self.config.new_state()
        # int32 rows where every chip count fits (the rules kernels take either width):
        # half the memory a step touches, which matters with thousands of tables (about
        # 6% on the 6-max step at N = 4096). Chip counts stay below num_players ×
        # starting_stack, and a cap below max_bet; larger tables keep the single env's
        # 64-bit rows, so the batch accepts what HoldemEnv accepts.
        cap = self.config.max_bet or 0
        narrow = self.config.stack * num_players < 2**31 and cap < 2**31
        self._states = np.tile(row.astype(np.int32 if narrow else np.int64), (num_envs, 1))
        self._rngs = np.zeros(num_envs, dtype=np.uint64)
        self._obs = np.zeros((num_envs, size), dtype=np.float32)
        self._final_obs = np.zeros((num_envs, size), dtype=np.float32)
        # Each reset and step hands out a buffer nobody else holds (see step).
        self._obs_buffers = FreshArrays(self._obs.shape, np.float32)
        self._final_buffers = FreshArrays(self._final_obs.shape, np.float32)
        self._masks = np.zeros((num_envs, fr.size + 4), dtype=np.int8)
        self._rewards = np.zeros(num_envs, dtype=np.float64)
        self._dones = np.zeros(num_envs, dtype=np.bool_)
        self._truncs = np.zeros(num_envs, dtype=np.bool_)  # Hold'em never truncates
        self._seeded = False
        self._codes = np.zeros(num_envs, dtype=np.int64)
        self._played = np.zeros(num_envs, dtype=np.int64)  # the actions the step plays
        self._resetting = np.zeros(num_envs, dtype=np.bool_)
        # Random opponents only: num_threads > 1 steps the tables on that many threads.
        self._threads = TableThreads(num_threads if opponent is None else 1)
        # The per-step compiled calls without numba's typing of their arguments (the
        # env's own arrays and records, whose types never change).
        self._check_entry = KernelEntry(_check_actions)
        self._step_entry = KernelEntry(_step_all)
        self._walks_entry = KernelEntry(_take_walks)
        self._tables_state = E.HoldemTables(self._states, self._rngs)

    def _play_opponents(self) -> None:
        assert self.opponent is not None
        width = self._masks.shape[1]
        while True:
            idx = np.flatnonzero(self._codes == E.OPPONENT_TURN)
            if idx.size == 0:
                return
            obs = np.zeros((idx.size, self._obs.shape[1]), dtype=np.float32)
            masks = np.zeros((idx.size, width), dtype=np.int8)
            E.observe_to_act(
                self._states, idx, self.fractions, float(self.params[E.P_STACK]), obs, masks
            )
            if self.evaluator_features:
                E.features_to_act(
                    self._states, self._rngs, idx, self.equity_samples, self._tables, obs
                )
            acts = np.asarray(self.opponent.act_batch(obs, masks), dtype=np.int64).reshape(idx.size)
            bad = E.batch_opponent_step(
                self._tables_state, self._params, idx, acts, self._outputs(), self._codes,
                self._resetting,
            )  # fmt: skip
            if bad >= 0:
                raise IllegalActionError(
                    int(acts[bad]),
                    np.flatnonzero(masks[bad]).tolist(),
                    f"table {idx[bad]}",
                    "from the opponent policy",
                )

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[NDArray[np.float32], dict[str, Any]]:
        if seed is None and self._seeded:
            pass  # every table continues its own stream
        else:
            if seed is None:
                seeds = [int(x) for x in np.random.SeedSequence().generate_state(self.num_envs)]
            elif isinstance(seed, int):
                seeds = [seed + i for i in range(self.num_envs)]
            else:
                seeds = [int(x) for x in seed]
                if len(seeds) != self.num_envs:
                    raise ConfigError("seed", seed, f"None, an int or {self.num_envs} ints")
            for i, sd in enumerate(seeds):
                # As HoldemEnv.reset(seed=sd): gymnasium's np_random(sd) is default_rng(sd).
                self._rngs[i] = np.uint64(
                    np.random.default_rng(sd).integers(0, 2**63, dtype=np.int64)
                )
            self._seeded = True
        # A buffer nobody else holds, returned as is: the arrays handed out earlier
        # stay the caller's (and no copy of the whole batch per step).
        self._obs = self._obs_buffers.take()
        if self.opponent is None:
            E.batch_reset(self._tables_state, self._params, self._obs, self._masks)
        else:
            E.batch_reset_external(self._tables_state, self._params, self._codes, self._resetting)
            self._play_opponents()
            E.batch_observe(
                self._states, self.fractions, float(self.params[E.P_STACK]), self._obs, self._masks
            )
        self._add_features()
        return self._obs, {
            "action_mask": self._masks.copy(),
            "illegal_action": np.zeros(self.num_envs, dtype=np.bool_),
            **self._walks(),
        }

    def _new_walks(self) -> dict[str, NDArray[Any]]:
        """The info's three walk arrays, unwritten."""
        n = self.num_envs
        return {
            "walks": np.empty(n, dtype=np.int64),
            "walk_reward": np.empty(n, dtype=np.float64),
            "first_walk_reward": np.empty(n, dtype=np.float64),
        }

    def _walks(self) -> dict[str, NDArray[Any]]:
        """The walks since the last reset or step (read from the rows, then cleared)."""
        out = self._new_walks()
        self._walks_entry.call(
            self._states, out["walks"], out["walk_reward"], out["first_walk_reward"]
        )
        return out

    def _add_features(self) -> None:
        if not self.evaluator_features:
            return
        if self._threads.num_threads > 1:
            # A Monte Carlo equity costs far more than a step: shared among the threads.
            self._threads.run(
                _features_chunks,
                self._states,
                self._rngs,
                self.equity_samples,
                self._tables,
                self._obs,
            )
        else:
            E.batch_features(self._states, self._rngs, self.equity_samples, self._tables, self._obs)

    def step(
        self, actions: NDArray[np.integer] | Sequence[int]
    ) -> tuple[
        NDArray[np.float32],
        NDArray[np.float64],
        NDArray[np.bool_],
        NDArray[np.bool_],
        dict[str, Any],
    ]:
        if not self._seeded:
            raise EpisodeFinishedError("HoldemVectorEnv")
        acts = self._actions_in_space(actions)
        # One compiled pass: the masks checked, masked-out actions replaced (passive).
        illegal = np.empty(self.num_envs, dtype=np.bool_)  # handed out in info
        passive = self.illegal_action == "passive"
        i = self._check_entry.call(acts, self._masks, passive, self._played, illegal)
        if i >= 0:
            if i < self.num_envs:
                raise IllegalActionError(
                    int(acts[i]),
                    f"an integer in [0, {self._masks.shape[1]})",
                    f"table {i}",
                    "not in the action space; nothing stepped",
                )
            i -= self.num_envs
            raise IllegalActionError(
                int(acts[i]),
                np.flatnonzero(self._masks[i]).tolist(),
                f"table {i}",
                "masked action; nothing stepped",
            )
        acts = self._played
        self._obs = self._obs_buffers.take()  # every row is written below (see reset)
        if self.opponent is not None:
            self._final_obs = self._final_buffers.take()
            self._final_obs.fill(0.0)
            E.batch_step_external(
                self._tables_state, self._params, acts, self._outputs(), self._codes,
                self._resetting,
            )  # fmt: skip
            self._play_opponents()
            E.batch_observe(
                self._states, self.fractions, float(self.params[E.P_STACK]), self._obs, self._masks
            )
            walks = self._walks()
        else:
            # Handed out as info["final_obs"] below: a buffer nobody else holds, every
            # row written by the step (the final obs where a table finished, zeros elsewhere).
            self._final_obs = self._final_buffers.take()
            walks = self._step_random_opponents(acts)
        self._add_features()
        info: dict[str, Any] = {
            "action_mask": self._masks.copy(),
            "illegal_action": illegal,
            **walks,
        }
        if self._dones.any():
            info["final_obs"] = self._final_obs
            info["_final_obs"] = self._dones.copy()
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        return self._obs, self._rewards.copy(), self._dones.copy(), truncated, info

    def _actions_in_space(self, actions: NDArray[np.integer] | Sequence[int]) -> NDArray[np.int64]:
        """``actions`` as ``num_envs`` int64 values, or IllegalActionError naming what is wrong."""
        arr = np.asarray(actions)
        allowed = f"an integer in [0, {self._masks.shape[1]}) for each of {self.num_envs} tables"
        if arr.size != self.num_envs:
            raise IllegalActionError(
                actions, allowed, "vector step", f"{arr.size} actions; nothing stepped"
            )
        flat = arr.reshape(self.num_envs)
        if arr.dtype.kind not in "iu":
            # Floats, strings, bools, objects: not actions of the space (as the single
            # env's). Named: the first value that is not a whole number, else the first.
            values = flat.tolist()
            bad = next(
                (i for i, x in enumerate(values) if not (type(x) is float and x.is_integer())),
                0,
            )
            raise IllegalActionError(
                values[bad],
                allowed,
                f"table {bad}",
                f"actions of dtype {arr.dtype}; nothing stepped",
            )
        if arr.dtype == np.uint64 and int(flat.max()) > np.iinfo(np.int64).max:
            bad = int(np.argmax(flat))
            raise IllegalActionError(
                int(flat[bad]), allowed, f"table {bad}", "not in the action space; nothing stepped"
            )
        # C-contiguous whatever was passed: the compiled check's entry takes only that.
        return np.ascontiguousarray(flat, dtype=np.int64)

    def _outputs(self) -> StepOutputs:
        # The step's output arrays as the shared record (this step's buffers).
        return StepOutputs(
            self._rewards, self._dones, self._truncs, self._obs, self._masks, self._final_obs
        )

    def _step_random_opponents(self, acts: NDArray[np.int64]) -> dict[str, NDArray[Any]]:
        # The step and each row's walks (_step_row_walks); returns the walks' info.
        walks = self._new_walks()
        io = (self._outputs(), walks["walks"], walks["walk_reward"], walks["first_walk_reward"])
        if self.num_threads == 1:
            self._step_entry.call(self._tables_state, self._params, acts, io)
        else:
            self._threads.run(_step_threads, self._tables_state, self._params, acts, io)
        return walks

    def close(self, **kwargs: Any) -> None:
        self._threads.close()
        super().close(**kwargs)

    def action_masks(self) -> NDArray[np.int8]:
        """The (num_envs, actions) legal-action masks."""
        return self._masks.copy()
