"""PPO for kitchen partners at the motion level: self-play and training against a frozen pool.

Why this shape: the zero-shot-coordination baselines of the paper's Table 5 (SP, FCP, ...) are
PPO agents over Overcooked's six low-level actions. Here they run on collabrl's own engine
(:class:`~collabrl.envs.kitchen.engine.KitchenEngine`, pure Python, many envs stepped in a loop)
and see the human proxy's featurised state (:mod:`collabrl.envs.kitchen.proxy_features`), whose
first-move-towards-each-station features stand in for the convolutional network overcooked-ai's
``human_aware_rl`` learns, so a small perceptron learns within a CPU budget of minutes.

Reference values taken from overcooked-ai / human_aware_rl (the code, not copied): 400-tick
episodes, shaped rewards for putting an onion in a pot (3), picking up a dish while a pot needs
one (3) and picking up a soup (5), annealed linearly to nothing over a shaping horizon, a
discount of 0.99, GAE lambda 0.98 and a clip of 0.05. The learning rate, entropy bonus, batch
sizes and network (two ReLU layers of 64) are collabrl's, for the small budget.

The actor is stored as the same three-layer perceptron a human proxy is
(:class:`~collabrl.envs.kitchen.motion_partner.MotionModel`), so both play through one code path.

Several trainers stepped together make the population methods
(:mod:`collabrl.envs.kitchen.population_training`: MEP's population, PBT); ``settings.priority``
gives MEP's agent its prioritised sampling of partners.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from collabrl.envs.kitchen.engine import ACTIONS, DISH, ONION, KitchenEngine, KitchenState, Soup
from collabrl.envs.kitchen.layouts import load_layout
from collabrl.envs.kitchen.motion_partner import MotionModel
from collabrl.envs.kitchen.proxy_features import Featurizer

HORIZON = 400  # overcooked-ai's PPO episode length (and the kitchen's evaluation horizon)
ONION_IN_POT, DISH_PICKUP, SOUP_PICKUP = 3.0, 3.0, 5.0  # overcooked-ai's shaped rewards


@dataclass(frozen=True)
class PPOSettings:
    """One training run's knobs. The default 200 updates (about 100 CPU seconds for self-play)
    take cramped_room's self-play score from nothing to about 240 points per 400 ticks, where its
    learning curve flattens (it passed 65 at update 60; docs/results.md)."""

    updates: int = 200
    envs: int = 8  # episodes played side by side per update
    horizon: int = HORIZON
    hidden: int = 64
    learning_rate: float = 1e-3
    gamma: float = 0.99
    lam: float = 0.98
    clip: float = 0.05
    epochs: int = 4
    minibatch: int = 1024
    entropy: float = 0.01
    value_coef: float = 0.5
    shaping_fraction: float = 0.5  # share of the updates over which shaping anneals to nothing
    checkpoints: tuple[float, ...] = (0.0, 0.5, 1.0)  # where (as a share of updates) to keep one
    priority: float = 0.0  # against a pool: draw partners by rank ** priority (0: uniformly)


DEFAULT_SETTINGS = PPOSettings()

Bonus = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""An extra reward per tick: (the learner's features per slot, the actions taken) -> reward per
slot."""


@dataclass
class TrainResult:
    """A run's kept actors (by stage name), its per-update mean episode score, and its CPU time."""

    checkpoints: dict[str, MotionModel]
    scores: list[float] = field(default_factory=list)
    cpu_seconds: float = 0.0


def stage_name(share: float) -> str:
    """What a checkpoint at ``share`` of the run is called: init, final or mid<percent>."""
    return {0.0: "init", 1.0: "final"}.get(share, f"mid{round(share * 100)}")


def shaped_reward(before: tuple[object, ...], state: KitchenState, seat: int) -> float:
    """Overcooked-ai's shaping for what ``seat`` did this tick (``before``: each chef's held item
    before the tick)."""
    was, now = before[seat], state.chefs[seat].held
    if was == now:
        return 0.0
    if was == ONION and now is None:
        chef = state.chefs[seat]
        faced = (chef.pos[0] + chef.facing[0], chef.pos[1] + chef.facing[1])
        return ONION_IN_POT if faced in state.pots else 0.0
    if was is None and now == DISH:
        others_hold_dish = any(c.held == DISH for i, c in enumerate(state.chefs) if i != seat)
        pot_needs_dish = any(s.onions == 3 for s in state.pots.values())
        return DISH_PICKUP if pot_needs_dish and not others_hold_dish else 0.0
    if was == DISH and isinstance(now, Soup):
        return SOUP_PICKUP
    return 0.0


def gae(rewards: np.ndarray, values: np.ndarray, gamma: float, lam: float) -> np.ndarray:
    """Generalised advantage estimates per (tick, slot); ``values`` has one more row (the value
    of the state after the last tick: episodes end at a time limit, so it is bootstrapped)."""
    advantages = np.zeros_like(rewards)
    running = np.zeros(rewards.shape[1], dtype=rewards.dtype)
    for t in reversed(range(len(rewards))):
        delta = rewards[t] + gamma * values[t + 1] - values[t]
        running = delta + gamma * lam * running
        advantages[t] = running
    return advantages


def priorities(scores: np.ndarray, exponent: float) -> np.ndarray:
    """MEP's prioritised sampling: each partner's chance grows with its rank ** ``exponent``,
    where the partner the learner scores least beside ranks highest (rank ``len(scores)``) and
    the best one lowest (1). Ties keep their order; ``exponent`` 0 is uniform."""
    ranks = np.empty(len(scores))
    ranks[np.argsort(-np.asarray(scores), kind="stable")] = np.arange(1, len(scores) + 1)
    weights = ranks**exponent
    return weights / weights.sum()


def one_torch_thread() -> Callable[[], None]:
    """Run torch on one thread (nets this small: more threads only wait on each other); returns
    the call that restores the previous count."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    return lambda: torch.set_num_threads(threads)


def train(
    layout: str,
    *,
    seed: int = 0,
    settings: PPOSettings = DEFAULT_SETTINGS,
    pool: Sequence[MotionModel] = (),
    progress: Callable[[int, float], None] = lambda update, score: None,
) -> TrainResult:
    """Train one actor on ``layout``: self-play (one shared network in both seats) when ``pool``
    is empty, else against ``pool`` (a member drawn per episode plays the other seat, frozen;
    the learner's seat alternates between episodes): Fictitious Co-Play when the pool holds
    self-play checkpoints of several skill levels, MEP's agent with ``settings.priority``."""
    restore = one_torch_thread()
    started = time.process_time()
    try:
        result = PPOTrainer(layout, seed, settings, list(pool)).run(progress)
    finally:
        restore()
    result.cpu_seconds = time.process_time() - started
    return result


class PPOTrainer:
    """One PPO learner: its networks, optimiser and partner pool, stepped an update at a time."""

    def __init__(self, layout: str, seed: int, s: PPOSettings, pool: list[MotionModel]) -> None:
        import torch

        self.layout, self.s = layout, s
        self.bonus: Bonus | None = None
        self.entropy = s.entropy  # PBT perturbs it per member
        self.pool: list[MotionModel] = []
        # the learner's running mean score beside each pool member (prioritised sampling)
        self.partner_scores, self.partner_seen = np.zeros(0), np.zeros(0, dtype=bool)
        self.scores_held = False  # COLE draws by scores it sets; no running update then
        self.set_pool(pool)
        self.engine = KitchenEngine(load_layout(layout), cook_mode="auto")
        self.featurizer = Featurizer(self.engine.layout)
        self.rng = np.random.default_rng(seed)
        torch.manual_seed(seed)
        size, h, n = self.featurizer.size, s.hidden, len(ACTIONS)

        def mlp(out: int) -> torch.nn.Sequential:
            return torch.nn.Sequential(
                torch.nn.Linear(size, h),
                torch.nn.ReLU(),
                torch.nn.Linear(h, h),
                torch.nn.ReLU(),
                torch.nn.Linear(h, out),
            )

        self.actor, self.critic = mlp(n), mlp(1)
        params = [*self.actor.parameters(), *self.critic.parameters()]
        self.optimiser = torch.optim.Adam(params, lr=s.learning_rate)

    def set_pool(self, pool: list[MotionModel]) -> None:
        """Partners to train beside (empty: self-play); a pool of another size starts the
        running scores per partner (prioritised sampling) anew."""
        if len(pool) != len(self.partner_scores):
            self.partner_scores = np.zeros(len(pool))
            self.partner_seen = np.zeros(len(pool), dtype=bool)
        self.pool = pool

    def snapshot(self, facts: dict[str, object]) -> MotionModel:
        weights = [p.detach().numpy().astype(np.float32).copy() for p in self.actor.parameters()]
        return MotionModel(self.layout, weights, dict(facts))

    def run(self, progress: Callable[[int, float], None]) -> TrainResult:
        result = TrainResult({})
        for update in range(self.s.updates + 1):
            score = self.step(update, result)
            if update < self.s.updates:
                progress(update + 1, score)
        return result

    def step(self, update: int, result: TrainResult) -> float:
        """Update number ``update`` (0-based): keep a checkpoint if one is due, then (before the
        last) play and learn; returns the update's mean episode score (0 after the last)."""
        s = self.s
        keep = {round(share * s.updates): stage_name(share) for share in s.checkpoints}
        if update in keep:
            score = result.scores[-1] if result.scores else 0.0
            result.checkpoints[keep[update]] = self.snapshot(
                {"update": update, "train_score": score}
            )
        if update == s.updates:
            return 0.0
        shaping = max(0.0, 1.0 - update / max(1.0, s.shaping_fraction * s.updates))
        batch, score = self.rollout(shaping)
        self.learn(batch)
        result.scores.append(score)
        return score

    def draw_partners(self, n: int) -> list[int]:
        """Pool indices for ``n`` episodes: uniform until every member has been played beside
        (or with ``priority`` 0), then by :func:`priorities` of the running scores."""
        k = len(self.pool)
        if self.s.priority and self.partner_seen.all():
            p = priorities(self.partner_scores, self.s.priority)
            return [int(i) for i in self.rng.choice(k, size=n, p=p)]
        return [int(self.rng.integers(k)) for _ in range(n)]

    def hold_partner_scores(self, scores: np.ndarray) -> None:
        """Draw partners by ``scores`` (one per pool member) from now on, instead of the
        learner's running scores beside them (COLE's draw by the population's game)."""
        self.partner_scores, self.partner_seen = scores.copy(), np.ones(len(scores), dtype=bool)
        self.scores_held = True

    def note_partner_scores(self, drawn: Sequence[int], scores: Sequence[float]) -> None:
        """Fold this update's episode scores into each partner's running mean (a tenth each),
        unless the scores are held (:meth:`hold_partner_scores`)."""
        if self.scores_held:
            return
        for i, score in zip(drawn, scores, strict=True):
            if self.partner_seen[i]:
                self.partner_scores[i] += 0.1 * (score - self.partner_scores[i])
            else:
                self.partner_scores[i], self.partner_seen[i] = score, True

    def rollout(self, shaping: float) -> tuple[dict[str, np.ndarray], float]:
        """``envs`` episodes side by side; returns the learner's samples and the mean score."""
        import torch

        s, n = self.s, self.s.envs
        states = [self.engine.start_state() for _ in range(n)]
        if self.pool:  # (env, seat) the learner plays; the rest are pool members
            learner = [[e, (e + int(self.rng.integers(2))) % 2] for e in range(n)]
            drawn = self.draw_partners(n)
            partners = [self.pool[i] for i in drawn]
            slots = [(e, seat) for e, seat in learner]
        else:
            slots = [(e, seat) for e in range(n) for seat in (0, 1)]
        m = len(slots)
        obs = np.zeros((s.horizon, m, self.featurizer.size), dtype=np.float32)
        acts = np.zeros((s.horizon, m), dtype=np.int64)
        logp = np.zeros((s.horizon, m), dtype=np.float32)
        values = np.zeros((s.horizon + 1, m), dtype=np.float32)
        rewards = np.zeros((s.horizon, m), dtype=np.float32)
        for t in range(s.horizon):
            x = np.stack([self.featurizer.features(states[e], seat) for e, seat in slots])
            with torch.no_grad():
                xt = torch.from_numpy(x)
                dist = torch.distributions.Categorical(logits=self.actor(xt))
                a = dist.sample()
                obs[t], acts[t] = x, a.numpy()
                logp[t] = dist.log_prob(a).numpy()
                values[t] = self.critic(xt).squeeze(-1).numpy()
            extra = self.bonus(x, acts[t]) if self.bonus else np.zeros(m, dtype=np.float32)
            joint = [["stay", "stay"] for _ in range(n)]
            for k, (e, seat) in enumerate(slots):
                joint[e][seat] = ACTIONS[acts[t, k]]
            if self.pool:
                self.partner_moves(states, slots, partners, joint)
            for e in range(n):
                before = tuple(c.held for c in states[e].chefs)
                points = self.engine.step(states[e], joint[e])
                for k, (env, seat) in enumerate(slots):
                    if env == e:
                        bonus = shaped_reward(before, states[e], seat)
                        rewards[t, k] = points + shaping * bonus + extra[k]
        # episodes end at the horizon (a time limit): bootstrap from the final state's value
        x = np.stack([self.featurizer.features(states[e], seat) for e, seat in slots])
        with torch.no_grad():
            values[s.horizon] = self.critic(torch.from_numpy(x)).squeeze(-1).numpy()
        advantages = gae(rewards, values, s.gamma, s.lam)
        batch: dict[str, np.ndarray] = {
            "obs": obs.reshape(-1, obs.shape[-1]),
            "acts": acts.reshape(-1),
            "logp": logp.reshape(-1),
            "adv": advantages.reshape(-1),
            "ret": (advantages + values[:-1]).reshape(-1),
        }
        if self.pool:
            self.note_partner_scores(drawn, [st.score for st in states])
        return batch, float(np.mean([st.score for st in states]))

    def partner_moves(
        self,
        states: Sequence[KitchenState],
        slots: Sequence[tuple[int, int]],
        partners: Sequence[MotionModel],
        joint: list[list[str]],
    ) -> None:
        """Fill in each pool partner's sampled move beside the learner's slot, in place."""
        for e, seat in slots:
            other = 1 - seat
            x_other = self.featurizer.features(states[e], other)[None, :]
            p = partners[e].probabilities(x_other)[0].astype(np.float64)
            joint[e][other] = ACTIONS[int(self.rng.choice(len(ACTIONS), p=p / p.sum()))]

    def learn(self, batch: dict[str, np.ndarray]) -> None:
        import torch

        s = self.s
        data = {k: torch.from_numpy(v) for k, v in batch.items()}
        adv = data["adv"]
        data["adv"] = (adv - adv.mean()) / (adv.std() + 1e-8)
        size = len(adv)
        for _ in range(s.epochs):
            order = torch.from_numpy(self.rng.permutation(size))
            for idx in order.split(s.minibatch):
                dist = torch.distributions.Categorical(logits=self.actor(data["obs"][idx]))
                ratio = torch.exp(dist.log_prob(data["acts"][idx]) - data["logp"][idx])
                a = data["adv"][idx]
                clipped = torch.clamp(ratio, 1 - s.clip, 1 + s.clip) * a
                policy_loss = -torch.min(ratio * a, clipped).mean()
                value = self.critic(data["obs"][idx]).squeeze(-1)
                value_loss = torch.nn.functional.mse_loss(value, data["ret"][idx])
                loss = (
                    policy_loss + s.value_coef * value_loss - self.entropy * dist.entropy().mean()
                )
                self.optimiser.zero_grad()
                loss.backward()
                self.optimiser.step()
