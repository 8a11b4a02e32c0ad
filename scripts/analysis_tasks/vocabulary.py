"""The invented world the tasks are drawn from: regions, sites, materials, measures with their
scales, sampled quantities, and the note texts about time order that several families share.
"""

from __future__ import annotations

from dataclasses import dataclass

REGIONS = [
    "the Vell valley", "the Orran lowlands", "the Skarn coast", "the upper Mirren basin",
    "the Tavel plateau", "the Lune moraine", "the Brack fens", "the Hollin downs",
]  # fmt: skip


SITES = [
    "Aldmere", "Brennock", "Corvale", "Duneth", "Esklan", "Farrow", "Galdry", "Hessel",
    "Irwen", "Kelmor", "Lathe", "Morvain", "Nesbit", "Orlow", "Pelter", "Quarne",
]  # fmt: skip


MATERIALS = ["amber", "copper", "jet", "gold", "faience", "glass"]


@dataclass(frozen=True)
class Scale:
    """The value bands of one kind of series: z-values of artefact counts, or pollen shares."""

    decimals: int
    low: tuple[float, float]  # quiet values
    mid: tuple[float, float]  # ordinary values, still below every level
    levels: tuple[float, ...]  # thresholds a query may name
    high: tuple[float, float]  # above every level
    spike: tuple[float, float]  # one outstanding value
    tolerance: float  # what "holds steady" means for a plateau
    margin: float  # no value lies closer than this to a level, so > and >= agree


SCALES = {
    "z": Scale(2, (-1.2, -0.6), (0.0, 0.4), (0.8, 1.0), (1.3, 1.9), (2.5, 3.1), 0.3, 0.1),
    "pct": Scale(1, (1.0, 1.8), (3.4, 4.2), (5.0, 6.0), (7.5, 10.0), (13.0, 16.0), 1.0, 0.3),
}


@dataclass(frozen=True)
class Measure:
    """A time series a query can ask about."""

    column: str
    label: str  # what it counts, as a noun phrase
    description: str
    scale: str
    event: str  # what a rise of it stands for
    source: str  # where the numbers come from


MEASURES = [
    Measure("dagger_z", "dagger finds", "Daggers per time slice, as a z-value over the sequence",
            "z", "the spread of daggers", "dated graves and hoards with daggers"),
    Measure("sickle_z", "sickle finds", "Sickles per time slice, as a z-value over the sequence",
            "z", "sickle harvesting", "sickles from settlements and hoards"),
    Measure("amber_z", "amber finds", "Amber beads per time slice, as a z-value over the sequence",
            "z", "the amber exchange", "amber beads from graves"),
    Measure("axe_z", "axes and celts", "Axes and celts per time slice, as a z-value",
            "z", "the axe trade", "stone and bronze axes from all contexts"),
    Measure("depot_z", "hoard deposition", "Hoards deposited per time slice, as a z-value",
            "z", "the hoarding horizon", "hoards holding at least one datable object"),
    Measure("monument_z", "monument building", "New monuments per time slice, as a z-value",
            "z", "the monument-building phase", "radiocarbon-dated monuments"),
    Measure("copper_z", "copper and gold objects", "Copper and gold objects per slice, z-value",
            "z", "the first metal horizon", "copper and gold objects from graves and hoards"),
    Measure("cereal_pct", "cereal pollen", "Cereal-type pollen as a share of land pollen (%)",
            "pct", "arable farming", "the cereal-type grains of the lake core"),
    Measure("plantago_pct", "ribwort plantain pollen", "Ribwort plantain pollen share (%)",
            "pct", "grazing pressure", "the ribwort plantain grains of the lake core"),
    Measure("nap_pct", "non-tree pollen", "Non-arboreal pollen share (%), a measure of open land",
            "pct", "woodland clearance", "all non-tree pollen of the lake core"),
]  # fmt: skip


@dataclass(frozen=True)
class Sampled:
    """A measurement taken on single samples (filter and grouping tasks)."""

    column: str
    label: str
    description: str
    typical: tuple[float, float]  # ordinary sample values
    decimals: int
    flaw: str  # why one site's samples cannot be used


SAMPLED = [
    Sampled("tin_pct", "tin content of bronzes", "Tin in the metal, % by weight (XRF)",
            (6.0, 11.0), 1, "were measured against a contaminated reference standard that "
            "inflates tin readings"),
    Sampled("arsenic_pct", "arsenic content of copper objects", "Arsenic, % by weight (XRF)",
            (0.5, 3.0), 2, "were measured against a contaminated reference standard that "
            "inflates arsenic readings"),
    Sampled("lead_ppm", "lead in copper objects", "Lead in the metal, parts per million (XRF)",
            (200.0, 900.0), 0, "were read on an instrument whose own shielding adds lead"),
    Sampled("floor_m2", "house floor area", "Floor area of the house plan, square metres",
            (40.0, 120.0), 0, "were planned from aerial photographs that merge overlapping "
            "houses into one"),
]  # fmt: skip


GRAIN = Sampled("grain_per_l", "charred grain density", "Charred cereal grains per litre of soil",
                (2.0, 14.0), 1, "")  # fmt: skip


BCE_NOTE = (
    "All dates in these tables are years BCE: a larger number is earlier, so time runs from the "
    "largest year down to the smallest, and the first or earliest of anything has the largest year."
)


SLICE_KEY = "Start of the time slice, years BCE (a larger number is earlier)"


BARE_YEAR = "Start of the time slice, in years as the dating report gives them"


LISTED = "The slices are listed in time order, one row each, from the earliest down."
