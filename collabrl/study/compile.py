"""From a validated study file to its routing graph, with the checks a schema cannot make.

Pages are nodes; buttons, answers, matches and timeouts are edges. The conditions page expands
into one ``play`` and one ``rate`` (questionnaire) node per round. :func:`compile_study`
refuses, in one line each: a route to a page that does not exist, pages no participant can
reach, a path that can never end, a group study whose players could reach the game without the
waiting room, a recruitment target that cannot balance orders and tasks, and conditions that
name checkpoints or profiles that do not exist. Every ``collabrl study`` command compiles first.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from collabrl.errors import RecipeError
from collabrl.study.design import Assigner
from collabrl.study.load import LoadedStudy
from collabrl.study.schema import (
    Condition,
    ConditionsPage,
    ConsentPage,
    EndPage,
    MatchPage,
    Page,
    Study,
    SurveyPage,
)

LOCAL_BACKENDS = ("transformers", "vllm")  # engines that load ``model`` from a folder


@dataclass(frozen=True)
class Edge:
    source: str
    label: str
    target: str


@dataclass
class Flow:
    """The compiled routing: the default successor of each page plus every labelled edge."""

    study: Study
    edges: list[Edge]

    @property
    def first(self) -> str:
        return self.study.pages[0].id

    @property
    def rounds(self) -> int:
        """Conditions each group plays (within: all; between: one)."""
        return len(self.study.conditions) if self.study.design.kind == "within" else 1

    @property
    def conditions_page(self) -> ConditionsPage:
        return next(p for p in self.study.pages if isinstance(p, ConditionsPage))

    def following(self, page_id: str) -> str | None:
        """The page after ``page_id`` when it has no explicit next."""
        pages = self.study.pages
        index = next(i for i, p in enumerate(pages) if p.id == page_id)
        page = pages[index]
        if page.next:
            return page.next
        return pages[index + 1].id if index + 1 < len(pages) else None

    def successor(self, page_id: str) -> str:
        """The page after ``page_id``, a page of a compiled study that is not an end page
        (:func:`compile_study` refuses any other page that has no page after it)."""
        following = self.following(page_id)
        assert following is not None, f"page {page_id} has no page after it"
        return following

    def after_survey(self, page: SurveyPage, answers: dict) -> str:
        """Where a survey's answers lead: the first matching branch, else the next page."""
        for branch in page.branches:
            if answers.get(branch.question) == branch.equals:
                return branch.to
        return self.successor(page.id)

    def render(self) -> str:
        """The graph as text, one node per line with its outgoing edges."""
        lines = [f"graph of {self.study.name}: {len(self.nodes())} nodes, {len(self.edges)} edges"]
        for node in self.nodes():
            out = [f"--{e.label}--> {e.target}" for e in self.edges if e.source == node]
            lines.append(f"  {node}: {'; '.join(out) if out else '(end)'}")
        return "\n".join(lines) + "\n"

    def nodes(self) -> list[str]:
        seen: dict[str, None] = {}
        for page in self.study.pages:
            for node in _page_nodes(page, self.rounds):
                seen[node] = None
        return list(seen)


def _page_nodes(page: Page, rounds: int) -> list[str]:
    if isinstance(page, ConditionsPage):
        return [f"{page.id}.{phase}{k}" for k in range(1, rounds + 1) for phase in ("play", "rate")]
    return [page.id]


def _entry(page: Page, rounds: int) -> str:
    return _page_nodes(page, rounds)[0]


def _edges(study: Study, rounds: int) -> list[Edge]:
    """Every edge, with page targets mapped to their entry nodes (checked to exist first)."""
    pages = {p.id: p for p in study.pages}
    edges: list[Edge] = []

    def add(source: str, label: str, target: str | None, where: str) -> None:
        if target is None:
            raise RecipeError(
                f"page {where} is the last page but not an end page: give it next: PAGE"
            )
        if target not in pages:
            raise RecipeError(f"page {where}: {label} leads to unknown page {target!r}")
        edges.append(Edge(source, label, _entry(pages[target], rounds)))

    timers = study.timers
    flow = Flow(study, [])
    for page in study.pages:
        following = flow.following(page.id)
        if isinstance(page, EndPage):
            continue
        if isinstance(page, ConsentPage):
            add(page.id, "agree", following, page.id)
            add(page.id, "decline", page.decline_to, page.id)
        elif isinstance(page, SurveyPage):
            questions = {q.id for q in page.questions}
            for branch in page.branches:
                if branch.question not in questions:
                    raise RecipeError(
                        f"page {page.id}: branch on unknown question {branch.question!r}"
                    )
                add(page.id, f"{branch.question}={branch.equals}", branch.to, page.id)
            add(page.id, "submit", following, page.id)
        elif isinstance(page, MatchPage):
            add(page.id, "matched", following, page.id)
            if page.on_timeout == "release":
                add(page.id, "timeout", page.release_to, page.id)
            else:
                add(page.id, "timeout: simulated partners", following, page.id)
        elif isinstance(page, ConditionsPage):
            for k in range(1, rounds + 1):
                play, rate = f"{page.id}.play{k}", f"{page.id}.rate{k}"
                edges.append(Edge(play, "episode over", rate))
                if timers.idle_s and timers.on_idle == "release":
                    add(play, "idle", timers.release_to, page.id)
                if timers.page_s:
                    add(rate, "page timeout", timers.release_to, page.id)
                if k < rounds:
                    edges.append(Edge(rate, "submit", f"{page.id}.play{k + 1}"))
                else:
                    add(rate, "submit", following, page.id)
        else:
            add(page.id, "continue", following, page.id)
        if timers.page_s and not isinstance(page, ConditionsPage | MatchPage):
            add(page.id, "page timeout", timers.release_to, page.id)
    return edges


def _reachable(start: str, edges: list[Edge], skip: frozenset[str] = frozenset()) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        node = todo.pop()
        for edge in edges:
            if edge.source == node and edge.target not in seen and edge.target not in skip:
                seen.add(edge.target)
                todo.append(edge.target)
    return seen


def _check_graph(flow: Flow) -> None:
    study, edges = flow.study, flow.edges
    conditions = [p for p in study.pages if isinstance(p, ConditionsPage)]
    if len(conditions) != 1:
        raise RecipeError(
            f"pages: give exactly one page of kind conditions (got {len(conditions)})"
        )
    if isinstance(study.pages[0], EndPage):
        raise RecipeError(f"pages: the first page ({study.pages[0].id}) is an end page")
    pages = {p.id: p for p in study.pages}
    for target, where in _release_targets(study):
        if target not in pages:
            raise RecipeError(f"{where}: unknown page {target!r}")
        if not isinstance(pages[target], EndPage):
            raise RecipeError(
                f"{where}: {target!r} must be an end page (released participants stop)"
            )
    nodes = flow.nodes()
    reached = _reachable(nodes[0], edges)
    unreachable = [n for n in nodes if n not in reached]
    if unreachable:
        raise RecipeError(f"pages: unreachable from {nodes[0]}: {', '.join(unreachable)}")
    ends = {p.id for p in study.pages if isinstance(p, EndPage)}
    reversed_edges = [Edge(e.target, e.label, e.source) for e in edges]
    finishing = set().union(*(_reachable(end, reversed_edges) for end in ends)) if ends else set()
    stuck = [n for n in nodes if n not in finishing]
    if stuck:
        raise RecipeError(f"pages: no end page can be reached from {', '.join(stuck)}")
    play = f"{conditions[0].id}.play1"
    if len(study.seats.humans) > 1:
        rooms = frozenset(p.id for p in study.pages if isinstance(p, MatchPage))
        if play in _reachable(nodes[0], edges, rooms):
            raise RecipeError(
                f"pages: {len(study.seats.humans)} human seats, but participants can reach "
                f"{conditions[0].id} without a match page: add a page of kind match before it"
            )


def _release_targets(study: Study) -> list[tuple[str, str]]:
    """(page, where it is named) of every page released participants are sent to."""
    targets = [
        (p.release_to, f"page {p.id}: release_to")
        for p in study.pages
        if isinstance(p, MatchPage) and p.release_to
    ]
    if study.timers.release_to:
        targets.append((study.timers.release_to, "timers.release_to"))
    return targets


def _check_balance(study: Study, flow: Flow) -> None:
    design, humans = study.design, len(study.seats.humans)
    if design.kind == "between" and len(study.conditions) < 2:
        raise RecipeError("design.kind=between needs at least two conditions")
    assigner = Assigner(design, [c.id for c in study.conditions], study.task_list, study.seed)
    unit = assigner.block * humans
    if design.participants % unit:
        low = design.participants // unit * unit
        suggestion = f"{low} or {low + unit}" if low else str(unit)
        raise RecipeError(
            f"design.participants={design.participants} is unbalanced: "
            f"{len(assigner.orders)} order(s) x {len(assigner.tasks)} task(s) balance in blocks "
            f"of {assigner.block} session(s) of {humans} participant(s); use a multiple of "
            f"{unit} (e.g. {suggestion})"
        )


def check_condition(study: Study, index: int, condition: Condition) -> None:
    """A condition's agent must exist: a local checkpoint on disk, a profile of this game."""
    agent = condition.agent
    where = f"conditions.{index} ({condition.id})"
    engine = agent.engine if agent.kind == "llm" else None  # an llm agent always has one
    if engine is not None and engine.backend in LOCAL_BACKENDS and not condition.hub_model:
        path = Path(engine.model).expanduser()
        if not path.is_dir():
            raise RecipeError(
                f"{where}: checkpoint {engine.model!r} does not exist; override "
                f"conditions.{index}.agent.engine.model=PATH (or set hub_model: true for a hub id)"
            )
    if agent.profile:
        from collabrl.profiles import get_profile

        profile = get_profile(agent.profile)
        if agent.kind == "persona" and profile.game != study.game.name:
            raise RecipeError(
                f"{where}: profile {profile.id!r} is a {profile.game} profile, not {study.game.name}"
            )


def _check_simulated(study: Study) -> None:
    """Simulated participants and stand-ins need profiles for every task of the study."""
    from collabrl.profiles import get_profile, load_profiles

    for what, spec in (
        ("simulated", study.simulated),
        ("pretest.participants", study.pretest.participants),
    ):
        if spec.kind == "expert":
            continue
        if spec.profiles:
            wrong = [p for p in spec.profiles if get_profile(p).game != study.game.name]
            if wrong:
                raise RecipeError(
                    f"{what}.profiles: {wrong[0]!r} is not a {study.game.name} profile"
                )
            continue
        for task in study.task_list:
            load_profiles(game=study.game.name, split=spec.split, task=task)


@dataclass
class CompiledStudy:
    """A study that passed every check, with its flow and assigner."""

    loaded: LoadedStudy
    flow: Flow
    assigner: Assigner

    @property
    def study(self) -> Study:
        return self.loaded.study


def compile_study(loaded: LoadedStudy) -> CompiledStudy:
    """Compile and check a loaded study; raises RecipeError (one line) on the first problem."""
    study = loaded.study
    flow = Flow(study, [])
    flow.edges = _edges(study, flow.rounds)
    _check_graph(flow)
    _check_balance(study, flow)
    for index, condition in enumerate(study.conditions):
        check_condition(study, index, condition)
    _check_simulated(study)
    assigner = Assigner(study.design, [c.id for c in study.conditions], study.task_list, study.seed)
    return CompiledStudy(loaded, flow, assigner)
