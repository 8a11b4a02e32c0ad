"""The paper's Table 5: Cook-MultiPlayer's non-LLM baselines, per layout and seat.

Score and Std. of Agent 1 and Agent 2 beside the paper's simulated partners, as printed; what
``collabrl report baselines --populations`` sets beside the scores of collabrl's own trained
populations (:mod:`collabrl.envs.kitchen.population`).
"""

from __future__ import annotations

# method -> layout -> (Agent 1 score, its Std., Agent 2 score, its Std.)
TABLE_5: dict[str, dict[str, tuple[float, float, float, float]]] = {
    "SP": {
        "asymmetric_advantages": (134.67, 29.63, 264.00, 58.51),
        "forced_coordination": (16.00, 14.97, 49.33, 28.16),
        "coordination_ring": (44.00, 26.53, 60.00, 49.53),
        "cramped_room": (40.00, 11.47, 101.33, 36.12),
        "counter_circuit": (76.00, 16.65, 42.67, 44.94),
        "Total": (55.20, 19.85, 103.47, 43.45),
    },
    "PBT": {
        "asymmetric_advantages": (161.33, 34.62, 268.00, 37.09),
        "forced_coordination": (40.00, 4.99, 83.64, 43.33),
        "coordination_ring": (109.33, 36.42, 73.33, 68.38),
        "cramped_room": (20.00, 20.48, 53.33, 33.00),
        "counter_circuit": (108.00, 17.59, 117.33, 17.69),
        "Total": (77.87, 22.82, 99.31, 39.90),
    },
    "FCP": {
        "asymmetric_advantages": (146.67, 29.81, 230.00, 63.25),
        "forced_coordination": (20.00, 14.61, 60.00, 25.30),
        "coordination_ring": (104.00, 60.31, 124.00, 36.66),
        "cramped_room": (92.00, 41.83, 135.56, 41.93),
        "counter_circuit": (70.67, 19.14, 86.00, 23.75),
        "Total": (86.67, 33.14, 130.81, 38.18),
    },
    "MEP": {
        "asymmetric_advantages": (168.00, 25.09, 242.67, 41.87),
        "forced_coordination": (22.67, 16.11, 40.00, 24.22),
        "coordination_ring": (130.67, 68.46, 114.67, 63.02),
        "cramped_room": (78.67, 37.57, 126.67, 59.18),
        "counter_circuit": (86.67, 11.93, 105.33, 30.52),
        "Total": (97.33, 31.83, 125.87, 43.76),
    },
    "COLE": {
        "asymmetric_advantages": (248.00, 17.59, 300.00, 69.28),
        "forced_coordination": (18.67, 22.47, 85.33, 45.88),
        "coordination_ring": (115.71, 71.39, 90.00, 70.95),
        "cramped_room": (89.33, 44.94, 148.00, 32.50),
        "counter_circuit": (137.33, 22.94, 101.54, 51.12),
        "Total": (121.89, 35.86, 148.57, 53.94),
    },
}
