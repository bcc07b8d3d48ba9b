"""Magnetic Mirror Descent (Sokota et al., 2023) as a ``MaskablePPO`` subclass.

MMD is PPO with two constant regularisers (no schedule):

- a constant entropy bonus over the legal actions (``ent_coef``; sb3-contrib's
  masked distribution already counts the legal actions only): the KL to the
  uniform "magnet" policy up to a constant;
- a backward-KL term toward the policy that collected the rollout,
  ``kl_coef * mean(r log r - (r - 1))`` with ``r`` the new/old probability of the
  sampled action (the estimator of the public ``nathanlct/IIG-RL-Benchmark``
  ``algorithms/mmd/mmd.py``, without the annealing its issue #1 removed).

The gradient norm is clipped for the policy and the value network apart
(``max_grad_norm`` each): SB3 clips them together, and the squared error of
returns in chips (antes in draw, up to hundreds) then takes the whole norm and
leaves the policy's gradient a sliver (the warm start's fit does the same,
:func:`poker_env_agents.training.sb3.fit_to_teacher`).

With a small clip range and self-play (one network in every seat, the opponent
seats played by its current weights: ``opponents = {self = ...}`` in
:class:`poker_env_agents.training.train.TrainConfig`), the last iterate
approaches a Nash equilibrium in two-player zero-sum games with hidden cards;
``scripts/leduc_exploitability.py`` measures that exactly on Kuhn and Leduc poker.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from stable_baselines3.common.utils import explained_variance
from torch.nn import functional as F

__all__ = ["MMDMaskablePPO"]


class MMDMaskablePPO(MaskablePPO):
    """``MaskablePPO`` whose loss adds the MMD term ``kl_coef * mean(r log r - (r - 1))``.

    Args:
        kl_coef: the weight of the backward-KL term (>= 0; 0 is plain MaskablePPO).
        *args, **kwargs: as ``MaskablePPO``.
    """

    def __init__(self, *args: Any, kl_coef: float = 0.05, **kwargs: Any) -> None:
        if isinstance(kl_coef, bool) or not isinstance(kl_coef, int | float) or kl_coef < 0:
            raise ValueError(f"kl_coef must be a number >= 0, got {kl_coef!r}")
        self.kl_coef = float(kl_coef)
        super().__init__(*args, **kwargs)

    def _param_groups(self) -> list[list[th.nn.Parameter]]:
        """The value network's parameters and the rest (clipped apart)."""
        named = list(self.policy.named_parameters())
        value = [p for name, p in named if "value" in name]
        rest = [p for name, p in named if "value" not in name]
        return [g for g in (value, rest) if g]

    def train(self) -> None:
        """One update over the rollout buffer: sb3-contrib's ``MaskablePPO.train`` with
        the MMD term added to the loss (and logged as ``train/mmd_kl``)."""
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        clip_range = self.clip_range(self._current_progress_remaining)  # type: ignore[operator]
        if self.clip_range_vf is not None:
            clip_range_vf = self.clip_range_vf(self._current_progress_remaining)  # type: ignore[operator]
        entropy_losses: list[float] = []
        pg_losses: list[float] = []
        value_losses: list[float] = []
        kl_losses: list[float] = []
        clip_fractions: list[float] = []
        approx_kl_divs: list[float] = []
        continue_training = True
        loss = th.zeros(())
        for _epoch in range(self.n_epochs):
            approx_kl_divs = []
            for rollout_data in self.rollout_buffer.get(self.batch_size):
                actions = rollout_data.actions
                if isinstance(self.action_space, spaces.Discrete):
                    actions = rollout_data.actions.long().flatten()
                values, log_prob, entropy = self.policy.evaluate_actions(
                    rollout_data.observations, actions, action_masks=rollout_data.action_masks
                )
                values = values.flatten()
                advantages = rollout_data.advantages
                if self.normalize_advantage:
                    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
                log_ratio = log_prob - rollout_data.old_log_prob
                ratio = th.exp(log_ratio)
                policy_loss_1 = advantages * ratio
                policy_loss_2 = advantages * th.clamp(ratio, 1 - clip_range, 1 + clip_range)
                policy_loss = -th.min(policy_loss_1, policy_loss_2).mean()
                pg_losses.append(policy_loss.item())
                clip_fractions.append(th.mean((th.abs(ratio - 1) > clip_range).float()).item())
                if self.clip_range_vf is None:
                    values_pred = values
                else:
                    values_pred = rollout_data.old_values + th.clamp(
                        values - rollout_data.old_values, -clip_range_vf, clip_range_vf
                    )
                value_loss = F.mse_loss(rollout_data.returns, values_pred)
                value_losses.append(value_loss.item())
                entropy_loss = -th.mean(-log_prob) if entropy is None else -th.mean(entropy)
                entropy_losses.append(entropy_loss.item())
                # The MMD term: backward KL to the rollout's policy (Schulman's estimator).
                kl_loss = (ratio * log_ratio - (ratio - 1)).mean()
                kl_losses.append(kl_loss.item())
                loss = (
                    policy_loss
                    + self.ent_coef * entropy_loss
                    + self.vf_coef * value_loss
                    + self.kl_coef * kl_loss
                )
                with th.no_grad():
                    approx_kl_div = th.mean((th.exp(log_ratio) - 1) - log_ratio).cpu().numpy()
                    approx_kl_divs.append(float(approx_kl_div))
                if self.target_kl is not None and approx_kl_div > 1.5 * self.target_kl:
                    continue_training = False
                    break
                self.policy.optimizer.zero_grad()
                loss.backward()  # type: ignore[no-untyped-call]
                for group in self._param_groups():
                    th.nn.utils.clip_grad_norm_(group, self.max_grad_norm)
                self.policy.optimizer.step()
            self._n_updates += 1
            if not continue_training:
                break
        explained_var = explained_variance(
            self.rollout_buffer.values.flatten(), self.rollout_buffer.returns.flatten()
        )
        self.logger.record("train/entropy_loss", np.mean(entropy_losses))
        self.logger.record("train/policy_gradient_loss", np.mean(pg_losses))
        self.logger.record("train/value_loss", np.mean(value_losses))
        self.logger.record("train/mmd_kl", np.mean(kl_losses))
        self.logger.record("train/approx_kl", np.mean(approx_kl_divs))
        self.logger.record("train/clip_fraction", np.mean(clip_fractions))
        self.logger.record("train/loss", loss.item())
        self.logger.record("train/explained_variance", explained_var)
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/clip_range", clip_range)
        if self.clip_range_vf is not None:
            self.logger.record("train/clip_range_vf", clip_range_vf)
