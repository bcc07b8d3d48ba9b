"""RandomPolicy: uniform legal actions from a seeded Generator, batch and single."""

from __future__ import annotations

import numpy as np
import pytest

from poker_env.policy import RandomPolicy


def _inverse_cdf_reference(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    # The draws as first written (numpy): one uniform per row, inverse CDF over the
    # row's legal actions. The compiled act_batch must give the same actions.
    weights = (np.asarray(masks) != 0).astype(np.float64)
    cdf = np.cumsum(weights, axis=1)
    u = rng.random(weights.shape[0]) * cdf[:, -1]
    return (cdf <= u[:, None]).sum(axis=1)


@pytest.mark.parametrize("dtype", [np.int8, np.bool_, np.float32])
def test_act_batch_same_draws_as_the_inverse_cdf_reference(dtype: type) -> None:
    rng = np.random.default_rng(5)
    masks = rng.random((3000, 9)) < 0.4
    masks[np.arange(3000), rng.integers(0, 9, 3000)] = True  # a legal action per row
    got = RandomPolicy(11).act_batch(None, masks.astype(dtype))
    want = _inverse_cdf_reference(np.random.default_rng(11), masks)
    assert np.array_equal(got, want)
    assert masks[np.arange(3000), got].all()


def test_act_batch_is_uniform_over_legal_actions() -> None:
    masks = np.zeros((60_000, 6), dtype=np.int8)
    masks[:, [0, 2, 5]] = 1
    counts = np.bincount(RandomPolicy(0).act_batch(None, masks), minlength=6)
    assert counts[[1, 3, 4]].sum() == 0
    # Each of the three legal actions: 20,000 expected, s.d. ~115.
    assert np.all(np.abs(counts[[0, 2, 5]] - 20_000) < 600)


def test_act_batch_bad_masks_raise() -> None:
    with pytest.raises(ValueError, match="row 1 has no legal action"):
        RandomPolicy(0).act_batch(None, np.array([[1, 0], [0, 0]], dtype=np.int8))
    with pytest.raises(ValueError, match="2-D"):
        RandomPolicy(0).act_batch(None, np.ones(3, dtype=np.int8))
