"""From a validated study file to its routing graph, with the checks a schema cannot make.

Pages are nodes; buttons, answers, matches and timeouts are edges. The conditions page expands
into one ``play`` and one ``rate`` (questionnaire) node per round. :func:`compile_study`
refuses, in one line each: a route to a page that does not exist, a branch value that no
answer to its question can take, pages no participant can reach, a path that can never end, a
loop a participant is caught in, a group study whose players could reach the game without the
waiting room, a recruitment target that cannot balance orders and tasks, conditions (and chat
agents) that name checkpoints or profiles that do not exist, what a page lacks
(:mod:`collabrl.study.spec.room_lint`), a recruitment platform without what it needs (a
completion code, a completion link, ids to pay), and a bonus expression that does not parse or
names what does not exist. Every ``collabrl study`` command compiles first.

Paths are simulated for every combination of answers to branching questions (and of consenting
or declining): a participant answers a page once and would answer it the same way again, so a
route that comes back to a page it has passed loops forever for that participant, whatever the
other participants do (:func:`_check_paths`), unless a bounded retry
(:mod:`collabrl.study.spec.retry`) counted a failed attempt on the way: each path carries its
retry counters, so a quiz retried at most k times is followed k times and then leaves. State variables and ``when`` expressions
(:mod:`collabrl.study.spec.logic`) are simulated with the paths: each path carries its state and the
answers expressions read, every answer an expression can tell apart is tried, the rounds'
``set:`` is applied for every result worth trying, and an expression that fails on some path
is refused naming the answers that lead there.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from collabrl.errors import RecipeError
from collabrl.study.spec.agent_lint import check_agent_tools
from collabrl.study.spec.components import Component, check_questions, load_components
from collabrl.study.spec.design import Assigner
from collabrl.study.spec.expressions import ExpressionError, truth
from collabrl.study.spec.factors import cells
from collabrl.study.spec.load import LoadedStudy
from collabrl.study.spec.logic import (
    apply_set,
    check_expression,
    check_logic,
    constants,
    names,
    question_ids,
    read_answers,
    round_results,
    route,
    same,
    simulated_answers,
)
from collabrl.study.spec.media import check_media
from collabrl.study.spec.randomise_lint import check_randomisations
from collabrl.study.spec.retry import retry_target
from collabrl.study.spec.room_lint import GROUP_PAGES, chat_agents, check_page_needs
from collabrl.study.spec.sandbox import check_embeds
from collabrl.study.spec.schema import (
    Condition,
    ConditionsPage,
    ConsentPage,
    EndPage,
    MatchPage,
    Page,
    Question,
    Study,
    SurveyPage,
)
from collabrl.study.spec.state import initial_state
from collabrl.study.spec.tutorial import check_tutorial, practice_node

LOCAL_BACKENDS = ("transformers", "vllm")  # engines that load ``model`` from a folder
MAX_COMBINATIONS = 10_000  # answer combinations simulated per survey page
MAX_PATH_STEPS = 200_000  # routes followed by the path simulation of one study


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
    components: dict[str, Component] = field(default_factory=dict)
    """The study's custom components (their sample answers take part in path simulation)."""

    @property
    def first(self) -> str:
        return self.study.pages[0].id

    @property
    def rounds(self) -> int:
        """Conditions each group plays (within: all; between: one; factors: the conditions
        of the group's between-subject cell)."""
        if self.study.design.factors:
            return len(cells(self.study.design.factors)[0])
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
        """Where a survey's answers lead for a participant with no state yet: the first
        matching branch, else the next page (a running study routes through
        :meth:`collabrl.study.live.variables.StudyLogic.survey_done`, with the participant's state)."""
        values = names(self.study, None, None, {f"{page.id}.{q}": v for q, v in answers.items()})
        return route(self.study, page, answers, values) or self.successor(page.id)

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
        practice = [practice_node(page.id)] if page.tutorial is not None else []
        played = [(phase, k) for k in range(1, rounds + 1) for phase in ("play", "rate")]
        return practice + [f"{page.id}.{phase}{k}" for phase, k in played]
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
    round_over = _round_over(study)
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
                if branch.when is not None:
                    add(page.id, f"when {branch.when}", branch.to, page.id)
                    continue
                if branch.question not in questions:
                    raise RecipeError(
                        f"page {page.id}: branch on unknown question {branch.question!r}"
                    )
                add(page.id, f"{branch.question}={branch.equals}", branch.to, page.id)
            if page.retry is not None:
                retries = page.retry.at_most
                add(page.id, f"failed (retry at most {retries}x)", page.retry.back_to, page.id)
                add(page.id, f"failed {retries + 1}x", page.retry.then, page.id)
            add(page.id, "submit", following, page.id)
        elif isinstance(page, MatchPage):
            add(page.id, "matched", following, page.id)
            if page.on_timeout == "release":
                add(page.id, "timeout", page.release_to, page.id)
            else:
                add(page.id, "timeout: simulated partners", following, page.id)
        elif isinstance(page, ConditionsPage):
            if page.tutorial is not None:
                practice = practice_node(page.id)
                edges.append(Edge(practice, "practice over", f"{page.id}.play1"))
                if timers.idle_s and timers.on_idle == "release":
                    add(practice, "idle", timers.release_to, page.id)
            for k in range(1, rounds + 1):
                play, rate = f"{page.id}.play{k}", f"{page.id}.rate{k}"
                edges.append(Edge(play, round_over, rate))
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


ROUND_OVER = {"game": "episode over", "chat": "chat over", "document": "document done"}
"""What ends a round of each kind, as the graph labels the edge to its questionnaire."""


def _round_over(study: Study) -> str:
    """The label of a round's end: every round kind the conditions play (a within-subject
    round may be any condition's)."""
    kinds = dict.fromkeys(c.round for c in study.conditions)
    return " or ".join(ROUND_OVER[k] for k in kinds) or ROUND_OVER["game"]


def _branch_problem(question: Question, equals: str | float | int) -> str | None:
    """Why no answer to ``question`` can equal ``equals`` (None: some answer can)."""
    if question.is_choice:
        if isinstance(equals, str) and equals in question.options:
            return None
        near = [o for o in question.options if o.casefold() == str(equals).strip().casefold()]
        hint = f": did you mean {near[0]!r}? (answers are compared exactly)" if near else ""
        options = ", ".join(repr(o) for o in question.options)
        return f"{equals!r} is not one of its options ({options}){hint}"
    if question.kind == "text":
        return None if isinstance(equals, str) else f"{equals!r} is a number, the answer is text"
    if isinstance(equals, str):
        return f"{equals!r} is text, the answer is a number: write it without quotes"
    if question.kind == "likert":
        if equals == int(equals) and 1 <= equals <= question.points:
            return None
        return f"{equals!r} is not a point of its scale (1 to {question.points})"
    low = question.min if question.min is not None else -float("inf")
    high = question.max if question.max is not None else float("inf")
    if low <= equals <= high:
        return None
    return f"{equals!r} is outside its range ({question.min} to {question.max})"


def _check_branches(study: Study) -> None:
    """Every branch value is one an answer to its question can take."""
    for page in study.pages:
        if not isinstance(page, SurveyPage):
            continue
        questions = {q.id: q for q in page.questions}
        for k, branch in enumerate(page.branches):
            if branch.question is None or branch.equals is None:
                continue  # a when expression: simulated with every path (_check_paths)
            problem = _branch_problem(questions[branch.question], branch.equals)
            if problem:
                raise RecipeError(
                    f"page {page.id}: branches.{k} never fires: {branch.question} equals {problem}"
                )


OTHER = object()  # any answer no branch names (text, number)


def _representatives(page: SurveyPage, question: Question) -> list[Any]:
    """One answer per route a question's answers can take on ``page``: each value a branch
    names, and one answer that no branch names when there is one (None: unanswered)."""
    named = list(dict.fromkeys(b.equals for b in page.branches if b.question == question.id))
    if question.is_choice:
        rest: list[Any] = [o for o in question.options if o not in named][:1]
    elif question.kind == "likert":
        rest = [p for p in range(1, question.points + 1) if p not in named][:1]
    elif question.kind == "number" and question.min is not None and question.min == question.max:
        rest = [question.min] if question.min not in named else []
    else:
        rest = [OTHER]  # a text or a number range always holds another answer
    if not question.required:
        rest = rest or [None]
    return [*named, *rest]


def _label(question: str, value: Any) -> str:
    if value is OTHER:
        return f"{question}=(another answer)"
    return f"{question} unanswered" if value is None else f"{question}={value}"


@dataclass
class Simulation:
    """What path simulation needs beyond the flow: the answers expressions read and the values
    worth trying (:mod:`collabrl.study.spec.logic`), and a budget of simulated steps."""

    read: set[str]
    numbers: list[float]
    words: list[str]
    samples: dict[str, list[Any]]  # page.question -> a custom component's sample answers
    steps: int = 0


Valuation = dict[str, Any]  # answers read later, the participant's and the group's state


def _start(study: Study) -> Valuation:
    return {
        "answers": {},
        "state": initial_state(study.state, "participant"),
        "group": initial_state(study.state, "group"),
        "failures": {},  # page -> failed attempts at its bounded retry so far
    }


def _logic_values(study: Study, valuation: Valuation, result: dict | None = None) -> dict:
    return names(study, valuation["state"], valuation["group"], valuation["answers"], result)


def _survey_domain(sim: Simulation, page: SurveyPage, question: Question) -> list[Any]:
    if f"{page.id}.{question.id}" not in sim.read:
        return _representatives(page, question)
    named = [b.equals for b in page.branches if b.question == question.id]
    samples = sim.samples.get(f"{page.id}.{question.id}", [None])
    simulated = simulated_answers(question, sim.numbers, sim.words, samples)
    return list({repr(v): v for v in [*named, *simulated]}.values())  # answers may be mappings


def _survey_choices(
    flow: Flow, page: SurveyPage, valuation: Valuation, sim: Simulation
) -> list[tuple[str, str, Valuation]]:
    study = flow.study
    questions = {q.id: q for q in page.questions}
    asked = list(dict.fromkeys(b.question for b in page.branches if b.question is not None))
    asked += [q for q in questions if f"{page.id}.{q}" in sim.read and q not in asked]
    domains = [_survey_domain(sim, page, questions[q]) for q in asked]
    count = math.prod(len(domain) for domain in domains)
    if count > MAX_COMBINATIONS:
        raise RecipeError(
            f"page {page.id}: {count} answer combinations of its branching questions; lint "
            f"simulates at most {MAX_COMBINATIONS} per page: split the branches over pages"
        )
    routes: dict[tuple[str, str], tuple[str, Valuation]] = {}
    for combo in itertools.product(*domains):
        answers = dict(zip(asked, combo, strict=True))
        label = ", ".join(_label(q, v) for q, v in answers.items())
        seen = {**valuation["answers"]}
        seen.update(
            {f"{page.id}.{q}": v for q, v in answers.items() if f"{page.id}.{q}" in sim.read}
        )
        after = {**valuation, "answers": seen}
        values = _logic_values(study, after)
        if page.set:
            mine, _, failed = apply_set(study, page.set, values)
            for var, error in failed.items():
                raise RecipeError(
                    f"page {page.id}: set.{var} fails for a participant who answers "
                    f"{label or 'anything'}: {error}"
                )
            after["state"] = mine
            values = _logic_values(study, after)
        try:
            target = _retried(page, values, after) or route(study, page, answers, values)
            target = target or flow.successor(page.id)
        except ExpressionError as exc:
            raise RecipeError(
                f"page {page.id}: a branch's when fails for a participant who answers "
                f"{label or 'anything'}: {exc}"
            ) from None
        routes.setdefault((target, same({k: same(v) for k, v in after.items()})), (label, after))
    return [
        (f"answers {label}" if label else "", target, after)
        for (target, _), (label, after) in routes.items()
    ]


def _retried(page: SurveyPage, values: dict, after: Valuation) -> str | None:
    """Where a failed attempt at ``page``'s bounded retry leads (None: it passed, or the page
    has none), counting the failure in ``after``; raises ExpressionError."""
    if page.retry is None:
        return None
    failures = after["failures"].get(page.id, 0)
    passed = truth(page.retry.passed, values)
    if not passed and failures < page.retry.at_most:  # a retry spent (never past the bound)
        after["failures"] = {**after["failures"], page.id: failures + 1}
    return retry_target(page.retry, passed, failures)


def _round_choices(
    flow: Flow, page: ConditionsPage, valuation: Valuation, sim: Simulation
) -> list[Valuation]:
    """The states a participant can leave the rounds with (every round's ``set:`` applied to
    every result worth trying)."""
    study = flow.study
    states = {"": valuation}
    for position in range(1, flow.rounds + 1):
        after: dict[str, Valuation] = {}
        for current in states.values():
            for result in round_results(study, sim.numbers):
                values = _logic_values(study, current, {**result, "position": position})
                mine, ours, failed = apply_set(study, page.set, values)
                for var, error in failed.items():
                    raise RecipeError(
                        f"page {page.id}: set.{var} fails after round {position} with result "
                        f"{result}: {error}"
                    )
                nxt = {**current, "state": mine, "group": ours}
                after.setdefault(same({k: same(v) for k, v in nxt.items()}), nxt)
        if len(after) > MAX_COMBINATIONS:
            raise RecipeError(
                f"page {page.id}: its set: leaves more than {MAX_COMBINATIONS} different states "
                "after the rounds; lint cannot simulate them all: keep fewer distinct values"
            )
        states = after
    return list(states.values())


def _choices(
    flow: Flow, page: Page, valuation: Valuation, sim: Simulation
) -> list[tuple[str, str, Valuation]]:
    """(what the participant does, the page it leads to, the state after) for each route out
    of ``page`` that does not end the session, for every cell of the randomisations made on
    arrival there; a timeout or a release always ends it (at an end page)."""
    due = [r for r in flow.study.randomise if (r.at or flow.first) == page.id]
    if not due:
        return _page_choices(flow, page, valuation, sim)
    out = []
    for dealt in itertools.product(*(r.cells for r in due)):
        levels = {k: v for cell in dealt for k, v in cell.items()}
        assigned = {**valuation, "state": {**valuation["state"], **levels}}
        label = "assigned " + ", ".join(f"{k}={v}" for k, v in levels.items())
        for what, target, after in _page_choices(flow, page, assigned, sim):
            out.append((f"{label}; {what}" if what else label, target, after))
    return out


def _page_choices(
    flow: Flow, page: Page, valuation: Valuation, sim: Simulation
) -> list[tuple[str, str, Valuation]]:
    """:func:`_choices` once the participant's cells are dealt."""
    if isinstance(page, EndPage):
        return []
    following = flow.successor(page.id)
    if isinstance(page, ConsentPage):
        return [("agrees", following, valuation), ("declines", page.decline_to, valuation)]
    if isinstance(page, SurveyPage) and (
        page.branches
        or page.set
        or page.retry
        or any(f"{page.id}.{q.id}" in sim.read for q in page.questions)
    ):
        return _survey_choices(flow, page, valuation, sim)
    if isinstance(page, ConditionsPage) and page.set:
        return [("", following, after) for after in _round_choices(flow, page, valuation, sim)]
    return [("", following, valuation)]


def _component_samples(
    study: Study, components: dict[str, Component], draws: int = 5
) -> dict[str, list[Any]]:
    """A few sample answers of every component question (drawn by its class, seeded), for
    expressions that read them."""
    out = {}
    for page in study.pages:
        if not isinstance(page, SurveyPage):
            continue
        for q in page.questions:
            if q.kind == "component" and q.component in components:
                rng = random.Random(f"{study.seed}:{page.id}.{q.id}")
                drawn = [components[q.component].sample(rng, q.config) for _ in range(draws)]
                unique = {repr(d): d for d in drawn}
                out[f"{page.id}.{q.id}"] = list(unique.values())
    return out


def _check_paths(flow: Flow) -> None:
    """Every participant, whatever they answer (and whatever their rounds' results do to their
    state), reaches an end page without coming back to a page they have passed; every page is
    on some participant's path."""
    study = flow.study
    pages = {p.id: p for p in study.pages}
    numbers, words = constants(study)
    sim = Simulation(
        read_answers(study), numbers, words, _component_samples(study, flow.components)
    )
    start = flow.first
    reached = {start}
    path: list[tuple[str, str, int]] = [(start, "", 0)]  # (page, what led there, retries used)
    on_path = Counter([start])
    stack = [iter(_choices(flow, pages[start], _start(study), sim))]
    while stack:
        step = next(stack[-1], None)
        if step is None:
            stack.pop()
            on_path[path.pop()[0]] -= 1
            continue
        sim.steps += 1
        if sim.steps > MAX_PATH_STEPS:
            raise RecipeError(
                f"pages: more than {MAX_PATH_STEPS} routes to simulate; lint cannot check every "
                "path: give branches and set: fewer distinct values to tell apart"
            )
        doing, target, valuation = step
        used = sum(valuation["failures"].values())
        if on_path[target]:
            _check_bounded(path, target, doing, used)
        reached.add(target)
        if isinstance(pages[target], EndPage):
            continue
        path.append((target, doing, used))
        on_path[target] += 1
        stack.append(iter(_choices(flow, pages[target], valuation, sim)))
    released = {target for target, _ in _release_targets(study)}
    missing = [p.id for p in study.pages if p.id not in reached and p.id not in released]
    if missing:
        raise RecipeError(
            f"pages: no participant reaches {', '.join(missing)}, whatever they answer "
            "(a branch takes every answer past it)"
        )


def _check_bounded(path: list[tuple[str, str, int]], target: str, doing: str, used: int) -> None:
    """A route back to ``target`` (on ``path``) is a bounded retry when a retry counter advanced
    since the participant was last there; else the same answers take it again, forever."""
    last = max(i for i, (page, _, _) in enumerate(path) if page == target)
    if used > path[last][2]:
        return
    walked = [*path, (target, doing, used)]
    who = [
        f"{did} on {walked[i - 1][0]}" for i, (_, did, _) in enumerate(walked) if i > last and did
    ]
    raise RecipeError(
        f"pages: a participant who {'; '.join(who) or 'goes on'} loops forever: "
        f"{' -> '.join(page for page, _, _ in walked)} (the same answers take the same route "
        "again; a quiz retried a bounded number of times declares retry: on its page)"
    )


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
    if len(conditions) > 1:
        raise RecipeError(
            f"pages: give at most one page of kind conditions (got {len(conditions)})"
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
    humans = len(study.human_seats)
    if humans > 1:
        rooms = frozenset(study.match_pages)
        for page in (p for p in study.pages if isinstance(p, GROUP_PAGES)):
            entry = _entry(page, flow.rounds)
            if entry in _reachable(nodes[0], edges, rooms):
                who = f"{humans} human seats" if study.seats else f"groups of {humans}"
                raise RecipeError(
                    f"pages: {who}, but participants can reach {page.id} without a match "
                    "page: add a page of kind match before it"
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
    design, humans = study.design, len(study.human_seats)
    if design.kind == "between" and 0 < len(study.conditions) < 2:
        raise RecipeError("design.kind=between needs at least two conditions")
    assigner = Assigner(design, [c.id for c in study.conditions], study.task_list, study.seed)
    unit = assigner.block * humans
    if design.participants % unit:
        low = design.participants // unit * unit
        suggestion = f"{low} or {low + unit}" if low else str(unit)
        if design.factors:
            between = [f"{f.name} ({len(f.levels)})" for f in design.factors if not f.within]
            within = len(assigner.orders) // len(cells(design.factors))
            raise RecipeError(
                f"design.participants={design.participants} is an unbalanced multi-factor "
                f"design: {len(cells(design.factors))} between-subject cell(s) "
                f"({' x '.join(between) or 'none'}) x {within} order(s) of the within-subject "
                f"conditions x {len(assigner.tasks)} task(s) balance in blocks of "
                f"{assigner.block} session(s) of {humans} participant(s); use a multiple of "
                f"{unit} (e.g. {suggestion})"
            )
        raise RecipeError(
            f"design.participants={design.participants} is unbalanced: "
            f"{len(assigner.orders)} order(s) x {len(assigner.tasks)} task(s) balance in blocks "
            f"of {assigner.block} session(s) of {humans} participant(s); use a multiple of "
            f"{unit} (e.g. {suggestion})"
        )


def check_condition(study: Study, index: int, condition: Condition) -> None:
    """A condition's agent must exist: a local checkpoint on disk, a profile of this game."""
    agent = condition.agent
    if agent is None:  # a chat or document round: its chat agent was checked by the schema
        return
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
        assert study.game is not None  # check_page_needs: game rounds need a game
        if agent.kind == "persona" and profile.game != study.game.name:
            raise RecipeError(
                f"{where}: profile {profile.id!r} is a {profile.game} profile, not {study.game.name}"
            )


def check_chat_agents(study: Study) -> None:
    """An LLM chat agent's local checkpoint must be on disk, as a game condition's must."""
    for where, agent in chat_agents(study):
        engine = agent.engine
        if engine is None or engine.backend not in LOCAL_BACKENDS or agent.hub_model:
            continue
        if not Path(engine.model).expanduser().is_dir():
            raise RecipeError(
                f"{where} ({agent.name}): checkpoint {engine.model!r} does not exist; override "
                f"{where}.engine.model=PATH (or set hub_model: true for a hub id)"
            )


def _answer_samples(study: Study) -> list[dict[str, Any]]:
    """Two sample participants who answered every survey question: lowest and highest answers."""
    low: dict[str, Any] = {}
    high: dict[str, Any] = {}
    for page in study.pages:
        if not isinstance(page, SurveyPage):
            continue
        for q in page.questions:
            key = f"{page.id}.{q.id}"
            if q.kind == "likert":
                low[key], high[key] = 1, q.points
            elif q.is_choice:
                low[key], high[key] = q.options[0], q.options[-1]
            elif q.kind == "number":
                low[key] = q.min if q.min is not None else 0.0
                high[key] = q.max if q.max is not None else low[key] + 1
            elif q.kind == "component":
                low[key] = high[key] = None  # its own class simulates it (pretests)
            else:
                low[key], high[key] = "", "an answer"
    return [low, high]


def _check_recruitment(study: Study) -> None:
    """The platform gets what it needs: Prolific one completion code (and a screen-out code
    where participants can be screened out), SONA its credit link with the participant id, a
    bonus ids to pay; a platform's id parameters are not also plain url_fields."""
    from collabrl.study.spec.payment import check_bonus
    from collabrl.study.spec.recruitment import PLATFORMS

    r, completion, kept = study.recruitment, study.completion, study.privacy.platform_ids
    platform = PLATFORMS[r.platform]
    template = r.completion_url or platform.completion_url
    both = sorted(set(platform.ids.values()) & set(study.privacy.url_fields))
    if both:
        raise RecipeError(
            f"privacy.url_fields: {', '.join(both)} is {platform.label}'s id, captured by "
            "recruitment.platform and kept as privacy.platform_ids says: remove it here"
        )
    if template and "{code}" in template and (completion.unique or not completion.code):
        raise RecipeError(
            f"completion: {platform.label} takes one completion code per study in its link: set "
            "completion.code to the code the platform gave you (and unique: false)"
        )
    if template and "{participant}" in template and not platform.ids:
        raise RecipeError(
            f"recruitment.completion_url: {{participant}} needs a platform id, and "
            f"{platform.label} carries none: set recruitment.platform"
        )
    if template and "{participant}" in template and kept == "drop":
        raise RecipeError(
            "recruitment.completion_url needs the participant id, but privacy.platform_ids is "
            "drop: use hash (the raw id then stays in the database only)"
        )
    if r.platform == "sona" and (not r.completion_url or "{participant}" not in r.completion_url):
        raise RecipeError(
            "recruitment.completion_url: SONA grants credit through the study's own link: give "
            "it with {participant} where the survey code goes (...&survey_code={participant})"
        )
    screening = [
        p.id for p in study.pages if isinstance(p, EndPage) and p.outcome == "screened_out"
    ]
    if screening and template and not r.screen_out_code:
        raise RecipeError(
            f"page {screening[0]}: screened-out participants need recruitment.screen_out_code "
            f"(the code {platform.label} gives for screen-outs)"
        )
    pay = study.payment
    if pay is None or not pay.bonus:
        return
    if platform.ids and kept == "drop":
        raise RecipeError(
            "payment.bonus: a bonus is paid to a platform id, but privacy.platform_ids is drop: "
            "use hash (the raw ids then stay in the database and the bonus file only)"
        )
    check_expression(study, pay.bonus, "payment.bonus", "bonus")
    initial = names(study, None, None, {})
    state = {"state": initial["state"], "group": initial["group"]}
    check_bonus(pay.bonus, pay.max_bonus, _answer_samples(study), state)


def _check_simulated(study: Study) -> None:
    """Simulated participants and stand-ins need profiles for every task of the study."""
    from collabrl.profiles import get_profile, load_profiles

    if study.game is None:
        return
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
    components: dict[str, Component] = field(default_factory=dict)
    """The study's custom page components, loaded (collabrl.study.spec.components)."""

    @property
    def study(self) -> Study:
        return self.loaded.study

    @property
    def question_ids(self) -> list[str]:
        return question_ids(self.study)


def compile_study(loaded: LoadedStudy) -> CompiledStudy:
    """Compile and check a loaded study; raises RecipeError (one line) on the first problem."""
    study = loaded.study
    check_page_needs(study)
    flow = Flow(study, [])
    flow.edges = _edges(study, flow.rounds)
    _check_branches(study)
    _check_graph(flow)
    try:
        check_logic(study)
    except ExpressionError as exc:
        raise RecipeError(str(exc)) from None
    folder = study_folder(loaded)
    components = load_components(study.components, folder)
    check_questions(
        components,
        [
            (f"page {p.id} question {q.id}", q)
            for p in study.pages
            if isinstance(p, SurveyPage)
            for q in p.questions
            if q.kind == "component"
        ],
    )
    check_media(folder, [(f"page {p.id}", item) for p in study.pages for item in p.media])
    flow.components = components
    _check_paths(flow)
    _check_balance(study, flow)
    for index, condition in enumerate(study.conditions):
        check_condition(study, index, condition)
    check_chat_agents(study)
    _check_simulated(study)
    _check_recruitment(study)
    check_tutorial(study)
    check_randomisations(study)
    check_agent_tools(study)
    check_embeds(study, folder)
    assigner = Assigner(study.design, [c.id for c in study.conditions], study.task_list, study.seed)
    return CompiledStudy(loaded, flow, assigner, components)


def study_folder(loaded: LoadedStudy) -> Path | None:
    """The folder of the study file (its components and media live there); None for a shipped
    study."""
    where = Path(loaded.sources[0].where)
    return where.parent if where.is_file() else None
