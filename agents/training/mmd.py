"""Magnetic Mirror Descent (Sokota et al., 2023) as a ``MaskablePPO`` subclass.

MMD is PPO with two regularisers:

- the magnet term, of weight ``ent_coef``: by default (``magnet="uniform"``) the
  entropy bonus over the legal actions (sb3-contrib's masked distribution already
  counts the legal actions only), the KL to the uniform "magnet" policy up to a
  constant; with ``magnet="ema"`` the exact KL over the legal actions,
  ``KL(pi(.|s) || rho(.|s))``, to a magnet ``rho`` that moves: a copy of the
  policy network whose weights follow the learner's as an exponential moving
  average (``rho <- rho + magnet_tau * (theta - rho)`` after every update; the
  "moving magnet" of Sokota et al. and EMAgnet), so that the fixed point is not
  the entropy term's quantal response equilibrium but moves toward a Nash
  equilibrium. ``ent_coef_final`` decays the weight linearly over the training
  run (from ``ent_coef`` at the start to ``ent_coef_final`` at the end) instead of
  keeping it constant;
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

import copy
from typing import Any

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from stable_baselines3.common.utils import explained_variance
from torch.nn import functional as F

__all__ = ["MAGNETS", "MMDMaskablePPO", "masked_kl"]

#: The magnets: ``uniform`` (the entropy bonus) or ``ema`` (a moving average of the weights).
MAGNETS = ("uniform", "ema")


def masked_kl(log_p: th.Tensor, log_q: th.Tensor, masks: Any) -> th.Tensor:
    """``KL(p || q)`` per row over the legal actions (``masks`` != 0), from the
    normalised log-probabilities of two masked distributions (illegal entries do
    not count, whatever their values)."""
    legal = th.as_tensor(masks).reshape(log_p.shape) != 0
    terms = th.exp(log_p) * (log_p - log_q)
    return th.where(legal, terms, th.zeros_like(terms)).sum(-1)


class MMDMaskablePPO(MaskablePPO):
    """``MaskablePPO`` whose loss adds the MMD term ``kl_coef * mean(r log r - (r - 1))``.

    Args:
        kl_coef: the weight of the backward-KL term (>= 0; 0 is plain MaskablePPO).
        magnet: ``uniform`` (the magnet term is the entropy bonus) or ``ema`` (the KL
            to a moving average of the policy's weights, :data:`MAGNETS`).
        magnet_tau: with ``magnet="ema"``, the average's step per update, in (0, 1].
        ent_coef_final: the magnet term's weight at the end of training (a linear
            decay from ``ent_coef``); ``None`` keeps ``ent_coef`` constant.
        *args, **kwargs: as ``MaskablePPO``.
    """

    def __init__(
        self,
        *args: Any,
        kl_coef: float = 0.05,
        magnet: str = "uniform",
        magnet_tau: float = 0.05,
        ent_coef_final: float | None = None,
        **kwargs: Any,
    ) -> None:
        if isinstance(kl_coef, bool) or not isinstance(kl_coef, int | float) or kl_coef < 0:
            raise ValueError(f"kl_coef must be a number >= 0, got {kl_coef!r}")
        if magnet not in MAGNETS:
            raise ValueError(f"magnet must be one of {MAGNETS}, got {magnet!r}")
        if (
            isinstance(magnet_tau, bool)
            or not isinstance(magnet_tau, int | float)
            or not 0 < magnet_tau <= 1
        ):
            raise ValueError(f"magnet_tau must be a number in (0, 1], got {magnet_tau!r}")
        if ent_coef_final is not None and (
            isinstance(ent_coef_final, bool)
            or not isinstance(ent_coef_final, int | float)
            or ent_coef_final < 0
        ):
            raise ValueError(
                f"ent_coef_final must be a number >= 0 or None, got {ent_coef_final!r}"
            )
        self.kl_coef = float(kl_coef)
        self.magnet = magnet
        self.magnet_tau = float(magnet_tau)
        self.ent_coef_final = None if ent_coef_final is None else float(ent_coef_final)
        self.magnet_policy: Any = None
        super().__init__(*args, **kwargs)

    def _setup_model(self) -> None:
        super()._setup_model()
        if self.magnet == "ema":
            # The magnet starts as the initial policy and follows it slowly.
            self.magnet_policy = copy.deepcopy(self.policy)
            self.magnet_policy.set_training_mode(False)
            for q in self.magnet_policy.parameters():
                q.requires_grad_(False)

    def _get_torch_save_params(self) -> tuple[list[str], list[str]]:
        names, variables = super()._get_torch_save_params()
        if self.magnet == "ema":
            names = [*names, "magnet_policy"]
        return names, variables

    def current_ent_coef(self) -> float:
        """The magnet term's weight now (``ent_coef``, or on the linear decay to
        ``ent_coef_final`` by the run's progress)."""
        start = float(self.ent_coef)
        if self.ent_coef_final is None:
            return start
        left = float(np.clip(self._current_progress_remaining, 0.0, 1.0))
        return self.ent_coef_final + (start - self.ent_coef_final) * left

    @th.no_grad()
    def update_magnet(self) -> None:
        """One step of the moving magnet toward the current weights."""
        if self.magnet_policy is None:
            return
        for q, p in zip(self.magnet_policy.parameters(), self.policy.parameters(), strict=True):
            q.add_(p.detach() - q, alpha=self.magnet_tau)

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
        magnet_losses: list[float] = []
        ent_coef = self.current_ent_coef()
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
                masks = rollout_data.action_masks
                dist = self.policy.get_distribution(
                    rollout_data.observations,
                    action_masks=masks,  # type: ignore[arg-type]
                )
                values = self.policy.predict_values(rollout_data.observations).flatten()
                log_prob = dist.log_prob(actions)
                entropy = dist.entropy()
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
                if self.magnet_policy is None:
                    magnet_loss = entropy_loss
                else:
                    # The exact KL to the moving magnet over the legal actions.
                    with th.no_grad():
                        magnet: Any = self.magnet_policy.get_distribution(
                            rollout_data.observations, action_masks=masks
                        )
                    mine: Any = dist.distribution
                    magnet_loss = masked_kl(mine.logits, magnet.distribution.logits, masks).mean()
                    magnet_losses.append(magnet_loss.item())
                # The MMD term: backward KL to the rollout's policy (Schulman's estimator).
                kl_loss = (ratio * log_ratio - (ratio - 1)).mean()
                kl_losses.append(kl_loss.item())
                loss = (
                    policy_loss
                    + ent_coef * magnet_loss
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
        self.update_magnet()
        explained_var = explained_variance(
            self.rollout_buffer.values.flatten(), self.rollout_buffer.returns.flatten()
        )
        self.logger.record("train/entropy_loss", np.mean(entropy_losses))
        self.logger.record("train/policy_gradient_loss", np.mean(pg_losses))
        self.logger.record("train/value_loss", np.mean(value_losses))
        self.logger.record("train/mmd_kl", np.mean(kl_losses))
        self.logger.record("train/ent_coef", ent_coef)
        if magnet_losses:
            self.logger.record("train/magnet_kl", np.mean(magnet_losses))
        self.logger.record("train/approx_kl", np.mean(approx_kl_divs))
        self.logger.record("train/clip_fraction", np.mean(clip_fractions))
        self.logger.record("train/loss", loss.item())
        self.logger.record("train/explained_variance", explained_var)
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/clip_range", clip_range)
        if self.clip_range_vf is not None:
            self.logger.record("train/clip_range_vf", clip_range_vf)
