"""The game registry: every game collabrl can play, found by name.

A game registers one :class:`GameSection` subclass (the pydantic model of a recipe's ``game:``
section) under the entry-point group ``collabrl.games``::

    [project.entry-points."collabrl.games"]
    relay = "relay_game.section:RelaySection"

That class is the one place where the rest of collabrl learns about the game: how to build it
from a recipe, its tasks and splits, how an episode's summary becomes the efficiency reward and
the benchmark's efficiency column, what the benchmark evaluation sets, and, by dotted path so
that games import nothing above them, its rule-based expert, persona player and judge-event
detector. A game installed from another package is found without any edit to collabrl.

The web app (``collabrl serve`` / ``collabrl view``) learns a game's facts here too:
:meth:`GameSection.tick_limit` (the clock a person sees), :meth:`GameSection.task_of` (the task
of a summary), the efficiency column, and optionally a ``board``: the ``"module:attribute"`` of a
a :class:`BoardDrawer`, an object that draws the game for a person (a grid with chefs, pots and items
for the kitchen, a room map for the household). A game with a board may implement
:meth:`GameSection.from_summary`, so that a recorded episode can be replayed tick by tick from its
seed and turns (the viewer draws a board only for such games). A game without a board is
shown as text only; the chat comes from the episode's turns (``Episode.messages``), so a new game
needs nothing more to be played in the browser.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import traceback
from abc import abstractmethod
from collections.abc import Callable
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

from collabrl.envs.base import Game
from collabrl.errors import CollabrlError
from collabrl.sections import Strict

ENTRY_POINT_GROUP = "collabrl.games"
Split = Literal["train", "test"]
UnusableReply = Literal["idle", "released"]
"""What a reply without a usable action does (every game's ``unusable_reply`` option)."""
OverallStd = Literal["pooled", "task_mean"]
"""How a game's Overall Std. is formed from its episodes (:mod:`collabrl.eval.std`)."""
Frame = dict[str, Any]


class BoardDrawer(Protocol):
    """How a game is drawn for a person, tick by tick (named by ``GameSection.board``).

    The pages pick their drawer by ``kind`` (``collabrl/web/static/boards.js`` holds one drawer
    per kind), never by game name, so games drawn alike share a kind. A frame is JSON-ready and
    holds at least ``tick``.

    Besides the frames ``watch`` hands over, the pages take one (``frame``) whenever a person is
    owed a decision and when the episode ends, unless ``watch`` gave one at that tick: a drawer
    whose frames are costly may give only the first frame in ``watch``.

    Optional: ``for_seat(frame, seat) -> Frame``, the part of a frame the page of ``seat`` may
    see (a frame holding what every seat knows is recorded whole, but each page is sent only its
    own seat's part); without it every page gets the whole frame.
    """

    kind: str  # the drawer the pages use, e.g. "overcooked-grid"

    def layout(self, game: Game) -> dict[str, Any]:
        """What does not change during an episode (terrain, seat names, ...)."""
        ...

    def frame(self, game: Game) -> Frame:
        """The game now."""
        ...

    def watch(self, game: Game, sink: Callable[[Frame], None]) -> None:
        """Hand ``sink`` the frame now, then one after every tick ``game`` runs from here on
        (a decision may run several ticks inside one ``step``)."""
        ...


class GameSection(Strict):
    """A recipe's ``game:`` section; each game subclasses it and registers the subclass.

    Every section has ``name`` (the registered name, a ``Literal``), the task it plays (a field
    named ``task``, or another field named by ``task_key`` plus a ``task`` property) and
    ``seats`` (:data:`collabrl.sections.SeatNames`), declared in that order, then its own options,
    each with a docstring line, and fills in the class-level facts below. The options every game
    shares (``unusable_reply``) are declared here.
    """

    name: str
    unusable_reply: UnusableReply = "idle"
    """A reply without a usable action: idle (the seat idles one tick, the step flagged invalid: the paper's single-pass protocol) or released (the released CWAH code's salvage: the listed action sharing the most words with the reply's <action>, else a random listed action, seeded by episode, seat and decision; still flagged invalid)."""
    if TYPE_CHECKING:  # declared by each game's section (see the field order above)
        seats: list[str]

        @property
        def task(self) -> str:
            """The task played: a field named ``task``, or a property over ``task_key``'s."""
            ...

    title: ClassVar[str]  # heading of the game's tables ("CWAH-MultiPlayer (household)")
    description: ClassVar[str]  # one sentence on the rules, for judge prompts
    task_key: ClassVar[str] = "task"  # the field naming the task (the kitchen calls it layout)
    efficiency_metric: ClassVar[str]  # summary() key of the benchmark's efficiency column
    lower_is_better: ClassVar[bool]  # direction of that column (steps: lower; score: higher)
    efficiency_title: ClassVar[str | None] = None  # its heading; None: the metric and an arrow
    # further summary() numbers the benchmark tables show after the efficiency column, as
    # (key, heading) pairs (the analysis game: Performance and Steps); none for the paper's games
    extra_metrics: ClassVar[tuple[tuple[str, str], ...]] = ()
    # "module:attribute" of task -> an object with query (str) and gold (the analysis game's
    # Hypothesis): submissions written as free text are then judged against it when an evaluation
    # sets hypothesis_judge=llm (collabrl.rewards.judges.hypothesis); None: scores stay as played
    hypothesis_gold: ClassVar[str | None] = None
    # game-section values the benchmark evaluation plays with (its protocol, not training's)
    eval_options: ClassVar[dict[str, Any]] = {}
    version: ClassVar[int] = (
        1  # the game's rules version (its module's VERSION); stamped in results
    )
    paper_table: ClassVar[int | None] = None  # CollabBench's per-task table, when there is one
    # the Std. column as the game's tables compute it (collabrl.eval.std): the degrees of freedom
    # of a task's std across partner profiles (0: population, CWAH's Table 6; 1: sample, Cook's
    # Table 7), and whether the Overall Std. pools every (task, profile) mean (CWAH's Table 1) or
    # is the mean of the per-task stds (Cook's Tables 1, 7 and 8)
    task_std_ddof: ClassVar[int] = 0
    overall_std: ClassVar[OverallStd] = "pooled"
    # "module:attribute" of add-ons that live above the games (loaded only when used)
    expert: ClassVar[str | None] = None  # rule-based expert class, built with no arguments
    persona: ClassVar[str | None] = None  # persona player class, built with a profile
    events: ClassVar[str | None] = None  # (prev_state, state, prev_action) -> list of events
    board: ClassVar[str | None] = None  # a BoardDrawer drawing the game for people; None: text only
    # task -> (message text -> collabrl.envs.structures.Speech): claims and requests of a message
    # as the subgoals its trace's work events name (process metrics); None: nothing is read
    speech: ClassVar[str | None] = None
    # collaborator profile types a team may be composed of (the analysis game's D and R: see
    # with_teammates); none: teams by size only
    collaborator_profiles: ClassVar[tuple[str, ...]] = ()
    # "module:attribute" of summary -> dict of trace judgements (the team-structures study's
    # Workflow Coverage, Hypothesis Support, Profile Alignment); None: the game has none
    trace_judge: ClassVar[str | None] = None
    # "module:attribute" of task name -> the task record the LLM trace judge reads (the analysis
    # game's AnalysisTask: query, notes, workflow, gold; collabrl.rewards.judges.trace) when an
    # evaluation sets trace_judge=llm; None: the game's trace judgements stay the rules'
    trace_task: ClassVar[str | None] = None
    # the profile pipeline (collabrl profiles run): section values its episodes play with when
    # the pipeline's settings name no games (None: not among its default games), and the game's
    # Eq. (1) consistency coefficients (penalty, max_penalty, reward); None: the settings must
    # give them (filter.coefficients.<game>)
    profile_games: ClassVar[dict[str, Any] | None] = None
    profile_coefficients: ClassVar[tuple[float, float, float] | None] = None
    # module of the game's handwritten profile library (TEST, HELDOUT, PHRASES, ID_PREFIX,
    # TRAIN_PROFILES: collabrl.profiles.build); None: profiles come from the pipeline or files
    profile_source: ClassVar[str | None] = None
    # "module:attribute" of the game's HumanPartners (recorded human play, human proxies and the
    # human-likeness statistics: collabrl partners, partner.kind=human_proxy); None: the game
    # has no recorded human play
    human_partners: ClassVar[str | None] = None

    def for_task(self, task: str) -> GameSection:
        """This section playing ``task`` instead (validated: ValueError when it cannot)."""
        data = {**self.model_dump(), self.task_key: task}
        return type(self).model_validate(data)

    @abstractmethod
    def make_game(self) -> Game:
        """The game this section describes."""

    def with_team(self, seats: int, structure: str) -> GameSection:
        """This section for a team of ``seats`` seats under collaboration ``structure``
        (:mod:`collabrl.envs.structures`); ValueError when the game cannot field that team."""
        raise ValueError(f"the {self.name} game has no team sizes or collaboration structures")

    def with_teammates(self, teammates: list[str], structure: str) -> GameSection:
        """This section for the agent and collaborators of the profile types ``teammates``
        (the analysis game's D and R) under ``structure``; ValueError when the game cannot
        field that team (a game without collaborator profiles fields none)."""
        raise ValueError(f"the {self.name} game has no collaborator profiles (D, R)")

    @abstractmethod
    def efficiency(self, summary: dict[str, Any]) -> float:
        """The trajectory efficiency reward of an episode with this ``summary``."""

    @classmethod
    @abstractmethod
    def tasks(cls, split: Split) -> tuple[str, ...]:
        """The game's tasks of ``split`` (a task may belong to both)."""

    @classmethod
    def efficiency_heading(cls) -> str:
        """Heading of the efficiency column in the benchmark tables ("Step ↓")."""
        arrow = "↓" if cls.lower_is_better else "↑"
        return cls.efficiency_title or f"{cls.efficiency_metric.capitalize()} {arrow}"

    @classmethod
    def task_summary(cls, task: str) -> str:
        """One line on what ``task`` asks for (``collabrl tasks``); empty when nothing to add."""
        return ""

    @classmethod
    def tick_limit(cls, game: Game) -> int:
        """The tick at which an episode of ``game`` ends at the latest (the pages' clock);
        by default the game's ``max_ticks``."""
        return int(game.max_ticks)  # type: ignore[attr-defined]

    @classmethod
    def task_of(cls, summary: dict[str, Any]) -> str:
        """The task an episode with this ``summary`` played: by default the summary's entry
        named like the section's task field (``task_key``)."""
        return summary[cls.task_key]

    @classmethod
    def from_summary(cls, summary: dict[str, Any]) -> GameSection:
        """The section an episode with this ``summary`` was played with, to replay it on the
        board; a game with a ``board`` implements it (its summary must hold every option)."""
        raise CollabrlError(f"the {cls.model_fields['name'].default} game cannot be replayed")

    @classmethod
    def all_tasks(cls) -> tuple[str, ...]:
        """Every task of the game, train first."""
        return tuple(dict.fromkeys((*cls.tasks("train"), *cls.tasks("test"))))


def known_task(lookup: Callable[[str], object], task: str) -> str:
    """``task`` when ``lookup`` finds it; its ``KeyError`` becomes the ``ValueError`` a section's
    field validator raises, so that pydantic reports the game's own one-line message."""
    try:
        lookup(task)
    except KeyError as exc:
        raise ValueError(str(exc.args[0]) if exc.args else str(exc)) from None
    return task


REQUIRED_FACTS = ("title", "description", "efficiency_metric", "lower_is_better")
"""Class-level facts every game section must give (the evaluation tables and judge prompts read
them); an entry point whose section lacks one is refused at load."""


def _plugin_location(exc: BaseException) -> str:
    """`` (at file:line)`` of the innermost frame in the plug-in's own code, if any: where the
    plug-in broke, not where collabrl imported it."""
    if isinstance(exc, SyntaxError) and exc.filename:
        return f" (at {exc.filename}:{exc.lineno})"
    frames = [
        f
        for f in traceback.extract_tb(exc.__traceback__)
        if not f.filename.startswith("<") and "importlib" not in f.filename
    ]
    return f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""


def _section_of(point: EntryPoint) -> type[GameSection]:
    """The section class an entry point names, checked; raises CollabrlError saying why not."""
    package = f"package {point.dist.name} {point.dist.version}, " if point.dist else ""
    where = f"game {point.name!r} ({package}entry point {point.value})"
    try:
        section = point.load()
    except Exception as exc:
        detail = f"{type(exc).__name__}: {exc}{_plugin_location(exc)}"
        raise CollabrlError(f"{where} failed to load: {detail}") from None
    if not (isinstance(section, type) and issubclass(section, GameSection)):
        raise CollabrlError(f"{where} is not a collabrl GameSection subclass")
    if inspect.isabstract(section):
        missing = ", ".join(sorted(section.__abstractmethods__))
        raise CollabrlError(f"{where} does not define {missing}")
    common = set(GameSection.model_fields) - {"name"}  # options every game has, declared here
    first = [f for f in section.model_fields if f not in common][:3]
    order = ["name", section.task_key, "seats"]
    if first != order:
        raise CollabrlError(
            f"{where} must declare the fields {', '.join(order)} first, in that order "
            f"(declares {', '.join(first)})"
        )
    facts = [name for name in REQUIRED_FACTS if not hasattr(section, name)]
    if facts:
        raise CollabrlError(f"{where} does not set the class facts {', '.join(facts)}")
    return section


@cache
def _installed() -> tuple[dict[str, type[GameSection]], dict[str, str]]:
    """(games that loaded, {name: why} for those that did not), from the entry points, once.

    A broken plug-in must not take the other games down: it is left out with a warning on
    stderr naming it, and only using it fails (:func:`get_game`)."""
    games: dict[str, type[GameSection]] = {}
    broken: dict[str, str] = {}
    for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda p: p.name):
        try:
            section = _section_of(point)
        except CollabrlError as exc:
            broken[point.name] = str(exc)
            print(f"collabrl: warning: {exc}; left out", file=sys.stderr)
            continue
        if point.name in games and games[point.name] is not section:
            raise CollabrlError(f"two installed packages register a game named {point.name!r}")
        games[point.name] = section
    if not games:
        raise CollabrlError(
            "no games are registered: collabrl is not installed (pip install -e . in the repo)"
        )
    return games, broken


def registered_games() -> dict[str, type[GameSection]]:
    """Every installed game that loads, by name (the ``collabrl.games`` entry points)."""
    return _installed()[0]


def game_names() -> list[str]:
    """Names of the installed games, sorted."""
    return sorted(registered_games())


def get_game(name: str) -> type[GameSection]:
    """The section class of game ``name``; a one-line error names the installed games."""
    games, broken = _installed()
    if name in broken:
        raise CollabrlError(broken[name])
    if name not in games:
        raise CollabrlError(f"unknown game {name!r}; installed games: {', '.join(sorted(games))}")
    return games[name]


class HumanPartners(Protocol):
    """A game's recorded human play, its human proxies and how play is measured against people
    (named by ``GameSection.human_partners``; the kitchen's is
    :mod:`collabrl.envs.kitchen.human_partners`). Trials and plays are the game's own objects;
    the caller only passes them back."""

    statistics: tuple[str, ...]  # the names measure() returns, in table order
    # the paper's non-LLM baselines: method -> task -> (Agent 1, Std., Agent 2, Std.)
    paper_baselines: dict[str, dict[str, tuple[float, float, float, float]]]

    def tasks(self) -> tuple[str, ...]: ...

    def trials(self, split: Split, data: Any = None) -> list[Any]: ...

    def records(self, split: Split, data: Any = None) -> list[dict[str, Any]]: ...

    def build(self, out: Any = None, **options: Any) -> list[dict[str, Any]]: ...

    def player(self, folder: Any = None, draws: int | None = None) -> Any: ...

    def population_player(
        self, members: Any = (), folder: Any = None, draws: int | None = None
    ) -> Any: ...

    def members(self, task: str, folder: Any = None) -> list[str]: ...

    def train_population(self, method: str, task: str, **options: Any) -> dict[str, Any]: ...

    def section(self, task: str, *, proxy_seats: Any = ()) -> GameSection: ...

    def for_proxies(self, section: Any, seats: Any) -> GameSection: ...

    def recorder(self, game: Any) -> Any: ...

    def trial_task(self, trial: Any) -> str: ...

    def measure_trial(self, trial: Any) -> dict[str, float]: ...

    def measure(self, play: Any) -> dict[str, float]: ...


def human_partners_of(section: GameSection | type[GameSection]) -> HumanPartners:
    """The game's :class:`HumanPartners`; a one-line error for a game without recorded play."""
    kind = section if isinstance(section, type) else type(section)
    name = kind.model_fields["name"].default
    return load_addon(section.human_partners, "recorded human play (no human proxies)", name)


def load_addon(path: str | None, what: str, game: str) -> Any:
    """The object a section names by ``"module:attribute"`` (its expert, persona, ...)."""
    if not path:
        raise CollabrlError(f"the {game} game has no {what}")
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)
