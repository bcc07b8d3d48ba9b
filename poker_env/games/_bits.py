"""Bit-set helpers for the compiled rules: one CPU instruction each, where the CPU has it.

The game kernels keep sets of seats or cards as bits of an ``int64`` (bit ``q`` =
seat ``q``). Counting them and finding the lowest one are LLVM intrinsics that
compile to ``popcnt`` and ``tzcnt``: no loop, and no branch that depends on
where the bits lie (such branches follow the random game, so the CPU would
mispredict them often).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

__all__ = ["popcount", "trailing_zeros"]


@intrinsic
def _ctpop(typingctx, x):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def _cttz(typingctx, x):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@njit(cache=True, _nrt=False, inline="always")
def popcount(x: int) -> int:  # pragma: no cover - compiled
    """Number of set bits of ``0 <= x < 2**63``."""
    return int(_ctpop(np.int64(x)))


@njit(cache=True, _nrt=False, inline="always")
def trailing_zeros(x: int) -> int:  # pragma: no cover - compiled
    """Number of trailing zero bits of ``x`` (64 for 0): the index of the lowest set bit."""
    return int(_cttz(np.int64(x)))
