"""Hand evaluator speed: poker_env against the installed peers, one run, one table.

Every library gets the same random hands, converted to its own card format
before the clock starts. poker_env ranks >= 10 M hands per measurement; the
slow peers rank a slice (their rate is per hand all the same).

poker_env has three rows per hand length on one thread, measured in turns on the
same hands: the fast path (``evaluate(int8 array, validate=False, out=buffer)``), the call a
user writes (``evaluate(int64 array)``: numpy's default dtype, cards checked) with
their ratio, and the int64 hands unchecked (what the wider input alone costs).

OMPEval, two ways: ``pokerfast`` (PyPI; OMPEval compiled into its wheel, called
through ctypes: its ``pf_evaluate`` reads a byte buffer of card codes 4 x rank + suit,
which is this project's encoding up to the order of the suits, so the call costs
little beyond the evaluation) as a peer row, and its exact equity AsAh vs KsKh beside
``holdem_equity``; and, when ``OMPEVAL_BENCH`` names a native build of OMPEval's own
benchmark (see docs/evaluator.md: built outside this repository), that benchmark's
"random order evaluation (card arrays)" figure, run three times in turns with our
fast path on the same thread count (one), ours timed just before and just after each run.

Run: ``make bench`` or ``python bench/bench_evaluator.py``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numba

from bench.common import Row, best_time, machine_line, print_table
from poker_env.cards import format_card
from poker_env.evaluator import evaluate, get_tables, holdem_equity

NUM_HANDS = 10_000_000


def random_hands(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """n rows of k distinct random cards (int8), drawn column by column with redraws."""
    hands = np.empty((n, k), dtype=np.int8)
    for j in range(k):
        col = rng.integers(0, 52, n).astype(np.int8)
        while True:
            bad = (hands[:, :j] == col[:, None]).any(axis=1)
            if not bad.any():
                break
            col[bad] = rng.integers(0, 52, int(bad.sum())).astype(np.int8)
        hands[:, j] = col
    return hands


def ours(hands: np.ndarray, threads: int, validate: bool = False) -> float:
    """Hands per second of ``evaluate(hands, validate=validate)`` on ``threads`` threads."""
    evaluate(hands[:1000], validate=validate, num_threads=threads)  # compile / load
    t = best_time(lambda: evaluate(hands, validate=validate, num_threads=threads), repeats=7)
    return len(hands) / t


def fast_and_default(hands: np.ndarray, repeats: int = 15) -> tuple[float, float, float]:
    """Hands per second, one thread: fast path, default call, int64 unchecked, in turns.

    Fast path: ``evaluate(int8 hands, validate=False, out=buffer)``, writing into one
    reused output array (as a hot loop would; a fresh 40 MB array costs its page
    faults on every call). Default call: the same hands as numpy's default int64,
    ``evaluate(hands)`` (cards checked, no ``out``: the memory of the dropped result of the
    previous call is reused, core._fresh_out). Third, the int64 hands
    unchecked: what the dtype alone costs. Timed alternately, best of ``repeats``
    each, so a busy moment of a shared machine hits all alike.
    """
    wide = hands.astype(np.int64)
    buffer = np.empty(len(hands), dtype=np.int32)
    calls = (
        lambda: evaluate(hands, validate=False, num_threads=1, out=buffer),
        lambda: evaluate(wide, num_threads=1),
        lambda: evaluate(wide, validate=False, num_threads=1),
    )
    best = [float("inf")] * len(calls)
    for call in calls:
        call()  # compile / load
    for _ in range(repeats):
        for i, call in enumerate(calls):
            t0 = time.perf_counter()
            call()
            best[i] = min(best[i], time.perf_counter() - t0)
    return len(hands) / best[0], len(hands) / best[1], len(hands) / best[2]


def peer_rate(name: str, hands: np.ndarray) -> float | None:
    """Hands per second of one peer on ``hands``; None if it is not installed."""
    texts = [[format_card(c) for c in h] for h in hands]
    try:
        if name == "eval7":
            import eval7

            prepared = [[eval7.Card(t) for t in h] for h in texts]
            fn = eval7.evaluate
            t0 = time.perf_counter()
            for h in prepared:
                fn(h)
        elif name == "phevaluator":
            from phevaluator import evaluate_cards

            # phevaluator numbers cards rank * 4 + suit, c d h s: the same as ours.
            prepared = [tuple(int(c) for c in h) for h in hands]
            t0 = time.perf_counter()
            for h in prepared:
                evaluate_cards(*h)
        elif name == "treys":
            from treys import Card, Evaluator

            ev = Evaluator()
            prepared = [[Card.new(t) for t in h] for h in texts]
            t0 = time.perf_counter()
            for h in prepared:
                ev.evaluate(h[:2], h[2:])
        elif name == "pokerkit":
            from pokerkit import Card as PKCard
            from pokerkit import StandardHighHand

            prepared = [
                (list(PKCard.parse("".join(h[:2]))), list(PKCard.parse("".join(h[2:]))))
                for h in texts
            ]
            t0 = time.perf_counter()
            for hole, board in prepared:
                StandardHighHand.from_game(hole, board)
        else:
            raise ValueError(name)
    except ImportError:
        return None
    return len(hands) / (time.perf_counter() - t0)


PEER_HANDS = {"eval7": 300_000, "phevaluator": 300_000, "treys": 30_000, "pokerkit": 5_000}


def pokerfast_library() -> object | None:
    """pokerfast's OMPEval library (ctypes) with ``pf_evaluate`` typed, or None."""
    import ctypes

    try:
        from pokerfast import equity
    except ImportError:
        return None
    path = equity.find_library()
    if path is None:
        return None
    lib = ctypes.CDLL(path)
    lib.pf_init.restype = ctypes.c_int
    lib.pf_evaluate.restype = ctypes.c_int
    lib.pf_evaluate.argtypes = [
        ctypes.c_char_p,
        ctypes.c_uint,
        ctypes.c_uint,
        ctypes.POINTER(ctypes.c_uint16),
    ]
    if lib.pf_init() != 0:
        return None
    return lib


def pokerfast_evaluate(lib: object, hands: np.ndarray) -> np.ndarray:
    """OMPEval's ranks (uint16) of ``hands`` (n, k), our card codes, through pokerfast."""
    import ctypes

    buf = np.ascontiguousarray(hands, dtype=np.uint8).tobytes()
    out = np.empty(len(hands), dtype=np.uint16)
    ptr = out.ctypes.data_as(ctypes.POINTER(ctypes.c_uint16))
    if lib.pf_evaluate(buf, len(hands), hands.shape[1], ptr) != 0:  # type: ignore[attr-defined]
        raise RuntimeError("pf_evaluate refused the hands")
    return out


def pokerfast_rate(lib: object, hands: np.ndarray, repeats: int = 5) -> float:
    """Hands per second of one ``pf_evaluate`` call over ``hands`` (buffer made beforehand)."""
    import ctypes

    buf = np.ascontiguousarray(hands, dtype=np.uint8).tobytes()
    out = np.empty(len(hands), dtype=np.uint16)
    ptr = out.ctypes.data_as(ctypes.POINTER(ctypes.c_uint16))
    fn = lib.pf_evaluate  # type: ignore[attr-defined]
    t = best_time(lambda: fn(buf, len(hands), hands.shape[1], ptr), repeats=repeats)
    return len(hands) / t


_OMP_RANDOM = re.compile(
    r"Random order evaluation \(card arrays\):\s*\n\s*(\d+) evals\s+([\d.]+)M/s"
)


def native_ompeval(binary: str) -> float:
    """Evaluations per second of OMPEval's own benchmark, "random order (card arrays)"."""
    text = subprocess.run([binary], capture_output=True, text=True, timeout=600, check=True).stdout
    m = _OMP_RANDOM.search(text)
    if m is None:
        raise RuntimeError(
            f"no 'Random order evaluation (card arrays)' figure in {binary}'s output"
        )
    return float(m.group(2)) * 1e6


def native_rows(hands: np.ndarray, binary: str, runs: int = 3) -> list[Row]:
    """Native OMPEval's benchmark and our 7-card fast path and default call, ``runs``
    times in turns, one thread each: ours just before and just after each OMPEval run
    (the after of one run is the before of the next), and the ratio to their mean, so
    that a change of the shared machine's speed during a run moves both sides alike."""
    rows = []
    before = fast_and_default(hands, repeats=5)
    for i in range(runs):
        omp = native_ompeval(binary)
        after = fast_and_default(hands, repeats=5)
        fast = (before[0] + after[0]) / 2
        default = (before[1] + after[1]) / 2
        rows.append(
            Row(
                f"native OMPEval benchmark (random order, card arrays), run {i + 1}",
                omp,
                "evals/s",
                f"ours before / after: fast path {before[0] / 1e6:.1f} / {after[0] / 1e6:.1f} "
                f"M/s, mean {fast / omp:.2f}x (target >= 1.0x); default call "
                f"{default / fast:.2f}x the fast path (target >= 0.8x)",
            )
        )
        before = after
    return rows


def _pokerfast_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("pokerfast")
    except metadata.PackageNotFoundError:
        return "?"


def main() -> None:
    rng = np.random.default_rng(2026)
    threads_all = numba.config.NUMBA_NUM_THREADS
    rows: list[Row] = []
    for k in (7, 5):
        hands = random_hands(rng, NUM_HANDS, k)
        target = (
            "target >= 150 M/s, OMPEval 298 M/s" if k == 7 else "target >= 250 M/s, OMPEval 437 M/s"
        )
        fast, default, wide = fast_and_default(hands)
        rows.append(Row(f"poker_env {k}-card, 1 thread", fast, "evals/s", target))
        rows.append(
            Row(
                f"poker_env {k}-card evaluate(int64, validate=True) default call, 1 thread",
                default,
                "evals/s",
                f"default / fast path = {default / fast:.2f}x (target >= 0.8x)",
            )
        )
        rows.append(
            Row(
                f"poker_env {k}-card evaluate(int64, validate=False), 1 thread",
                wide,
                "evals/s",
                f"the int64 input alone: fast path / this = {fast / wide:.2f}x",
            )
        )
        if threads_all > 1:
            rows.append(
                Row(
                    f"poker_env {k}-card, {threads_all} threads",
                    ours(hands, threads_all),
                    "evals/s",
                    "",
                )
            )
        lib = pokerfast_library()
        rows.append(
            Row(
                f"pokerfast {_pokerfast_version()} (OMPEval via ctypes) {k}-card",
                float("nan") if lib is None else pokerfast_rate(lib, hands),
                "evals/s",
                "peer" + ("" if lib is not None else ", not installed"),
            )
        )
        if k == 7 and os.environ.get("OMPEVAL_BENCH"):
            rows += native_rows(hands, os.environ["OMPEVAL_BENCH"])
        for peer, n in PEER_HANDS.items():
            r = peer_rate(peer, hands[:n])
            rows.append(
                Row(
                    f"{peer} {k}-card",
                    float("nan") if r is None else r,
                    "evals/s",
                    "peer" + ("" if r else ", not installed"),
                )
            )
    get_tables()
    holdem_equity(["As Ah", "Ks Kh"])
    t = best_time(lambda: holdem_equity(["As Ah", "Ks Kh"]), repeats=15)
    rows.append(
        Row(
            "poker_env exact AsAh vs KsKh (1,712,304 boards)",
            t * 1e3,
            "ms",
            "target <= 10 ms, OMPEval 1.4 ms",
        )
    )
    try:
        from pokerfast import equity as pf_equity

        pf_equity.equity(["AsAh", "KsKh"])
        t = best_time(lambda: pf_equity.equity(["AsAh", "KsKh"]), repeats=5)
        shares = pf_equity.equity(["AsAh", "KsKh"])
        rows.append(
            Row(
                "pokerfast exact AsAh vs KsKh (OMPEval's enumeration)",
                t * 1e3,
                "ms",
                f"peer; equity {shares[0]:.6f} / {shares[1]:.6f}",
            )
        )
    except ImportError:
        rows.append(Row("pokerfast exact AsAh vs KsKh", float("nan"), "ms", "not installed"))
    load = os.getloadavg()
    print_table(
        f"Hand evaluator ({machine_line()}; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f})",
        rows,
    )


if __name__ == "__main__":
    main()
