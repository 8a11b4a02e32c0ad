"""The study file: one YAML document that declares a whole user study.

Pages (text, consent, intake survey, matchmaking, the condition rounds, end pages), the game and
which of its seats people and agents take, the conditions (agent variants), the design
(counterbalancing and task assignment), the questionnaire after each condition, timers, the
completion code, disclosure and privacy. Every field has a docstring line
(``collabrl study lint --explain`` prints them like a recipe's); every mistake is a one-line
error at load. Cross-page checks (routing, balance, checkpoints on disk) live in
:mod:`collabrl.study.spec.compile`, which every ``collabrl study`` command runs.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import Field, model_validator

from collabrl.config import GameSpec, PlayerSpec, SamplingSpec
from collabrl.config.roles import EngineSpec, check_profile, require_engine
from collabrl.envs.registry import GameSection
from collabrl.numbers import PositiveInt
from collabrl.sections import Seed, Strict
from collabrl.study.spec.chat_agent import ChatAgent, Text
from collabrl.study.spec.components import ComponentSpec
from collabrl.study.spec.factors import Factor, generated_conditions, parse_factors
from collabrl.study.spec.media import MediaItem
from collabrl.study.spec.questionnaires import template_items
from collabrl.study.spec.randomise import Randomisation, arm_variables
from collabrl.study.spec.retry import Retry
from collabrl.study.spec.state import StateVar
from collabrl.study.spec.workspace import WorkspaceField

Ident = Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")]
"""An id used in routes, events and CSV columns: a letter, then letters, digits, _ or -."""

NO_TASK = "none"  # the one task of a study without a game
MAX_TIMEOUT_S = 7 * 24 * 3600.0  # a week: far above any real wait, but finite
YAML_BOOLEAN = 'unquoted yes/no/on/off/true/false are YAML booleans, not words: quote them ("yes")'


def _repeated(ids: list[Any]) -> list[Any]:
    """The ids that occur more than once in ``ids``, each once, in first-seen order."""
    return [i for i in dict.fromkeys(ids) if ids.count(i) > 1]


class Question(Strict):
    """One intake-survey question."""

    id: Ident
    """Column name of the answer in the export."""
    text: Text
    """The question as shown."""
    kind: Literal["likert", "choice", "text", "number", "component", "attention"] = "likert"
    """likert (1..points), choice (one of options), text (free), number (min..max), component
    (a custom component of the study's ``components``) or attention (an attention check: a
    choice whose right option is ``expect``; shown as a plain choice)."""
    points: int = Field(5, ge=2, le=11)
    """likert: scale points."""
    labels: tuple[str, str] = ("strongly disagree", "strongly agree")
    """likert: words under the lowest and the highest point."""
    options: list[str] = Field(default_factory=list)
    """choice: the options."""
    min: float | None = None
    """number: smallest accepted value."""
    max: float | None = None
    """number: largest accepted value."""
    required: bool = True
    """Whether the page refuses to continue without an answer."""
    max_chars: int = Field(1000, ge=1, le=10_000)
    """text: longest accepted answer."""
    component: Ident | None = None
    """component: the name of the custom component (a key of the study's ``components``)."""
    config: dict[str, Any] = Field(default_factory=dict)
    """component: settings passed to the component's page script and its server-side class."""
    expect: str | None = None
    """attention: the option an attentive participant chooses (never sent to the page)."""

    @model_validator(mode="before")
    @classmethod
    def _no_booleans(cls, data: Any) -> Any:
        options = data.get("options") if isinstance(data, dict) else None
        if isinstance(options, list) and any(isinstance(o, bool) for o in options):
            shown = ", ".join(str(o).lower() if isinstance(o, bool) else str(o) for o in options)
            raise ValueError(
                f"question {data.get('id')}: options [{shown}] hold booleans: {YAML_BOOLEAN}"
            )
        return data

    @model_validator(mode="after")
    def _complete(self) -> Question:
        if self.is_choice and len(self.options) < 2:
            raise ValueError(
                f"question {self.id}: a {self.kind} question needs at least two options"
            )
        if (self.kind == "attention") != (self.expect is not None):
            raise ValueError(f"question {self.id}: kind attention and expect: OPTION go together")
        if self.expect is not None and self.expect not in self.options:
            raise ValueError(
                f"question {self.id}: expect {self.expect!r} is not one of its options"
            )
        if (self.kind == "component") != (self.component is not None):
            raise ValueError(f"question {self.id}: kind component and component: NAME go together")
        repeated = _repeated(self.options)
        if repeated:
            raise ValueError(f"question {self.id}: options repeat: {repeated}")
        return self

    @property
    def is_choice(self) -> bool:
        """Whether the answer is one of ``options`` (a choice, or an attention check)."""
        return self.kind in ("choice", "attention")


class Item(Strict):
    """One questionnaire item: a statement rated on a Likert scale."""

    id: Ident
    """Column name of the rating in the export (q_<id>)."""
    dimension: Ident
    """The dimension it measures (helpfulness, trustfulness, empathy, ...); the report averages
    a participant's items per dimension."""
    text: Text
    """The statement; {partner} is replaced by the agent seat's name."""
    points: int = Field(5, ge=2, le=11)
    """Scale points (5: the paper's 5-point scale)."""
    labels: tuple[str, str] = ("strongly disagree", "strongly agree")
    """Words under the lowest and the highest point."""


class Questionnaire(Strict):
    """What every participant rates after each condition."""

    template: Literal["collabbench"] | None = None
    """collabbench: the paper's five items (helpfulness x2, trustfulness x2, empathy x1), in our
    own wording; added before ``items``."""
    intro: Text = "Please rate the round you just played with {partner}."
    """Shown above the items."""
    items: list[Item] = Field(default_factory=list)
    """Further items (or all of them, without a template)."""
    free_text: Text | None = "Anything else you want to tell us about {partner}? (optional)"
    """An optional free-text question after the items (null: none)."""

    @model_validator(mode="before")
    @classmethod
    def _expand_template(cls, data: Any) -> Any:
        """The template's items are written out, so the resolved study shows every item."""
        if isinstance(data, dict) and data.get("template"):
            own = list(data.get("items") or [])
            return {**data, "template": None, "items": [*template_items(data["template"]), *own]}
        return data

    @model_validator(mode="after")
    def _items(self) -> Questionnaire:
        ids = [item.id for item in self.items]
        if not ids:
            raise ValueError("questionnaire: no items; give items or template: collabbench")
        repeated = _repeated(ids)
        if repeated:
            raise ValueError(
                f"questionnaire: item ids must be unique; repeated: {repeated} (a template's "
                f"items count too: {', '.join(ids)})"
            )
        return self


class Branch(Strict):
    """A survey page's conditional route: answer ``equals`` value -> page ``to``, or an
    expression ``when`` (over state and answers) -> page ``to``."""

    question: Ident | None = None
    """A question of this page (with ``equals``)."""
    equals: str | float | int | None = None
    """The answer that takes this route."""
    when: str | None = None
    """Instead of question/equals: an expression over state, group and answers
    (collabrl.study.spec.expressions), e.g. "state.score >= 2 and answers.intake.age < 30"."""
    to: Ident
    """The page it leads to."""

    @model_validator(mode="after")
    def _one_kind(self) -> Branch:
        equality = self.question is not None and self.equals is not None
        if (self.when is None) == equality:
            return self
        raise ValueError(
            f"branch to {self.to}: give either question and equals, or when (an expression)"
        )

    @model_validator(mode="before")
    @classmethod
    def _not_boolean(cls, data: Any) -> Any:
        value = data.get("equals") if isinstance(data, dict) else None
        if isinstance(value, bool):
            raise ValueError(
                f"branch on {data.get('question')}: equals is the boolean "
                f"{str(value).lower()}: {YAML_BOOLEAN}"
            )
        return data


class _Page(Strict):
    id: Ident
    """Unique page id (routes, events, the graph)."""
    title: str = ""
    """Heading of the page."""
    text: Text = ""
    """Markdown body."""
    next: Ident | None = None
    """The page after this one (default: the next page in the list)."""
    media: list[MediaItem] = Field(default_factory=list)
    """Images and videos shown under the text (files in the media/ folder next to the study
    file; Markdown may also show an image: ![what it shows](media/photo.png))."""


class TextPage(_Page):
    """Instructions or information, with one button."""

    kind: Literal["text"] = "text"
    """text"""
    button: str = "Continue"
    """Label of the button."""


class ConsentPage(_Page):
    """Informed consent: agreeing continues, declining goes to ``decline_to``."""

    kind: Literal["consent"] = "consent"
    """consent"""
    agree: str = "I agree to take part"
    """Label of the agree button."""
    decline: str = "I do not agree"
    """Label of the decline button."""
    decline_to: Ident
    """The (end) page a participant who declines goes to."""


class SurveyPage(_Page):
    """A questionnaire page (e.g. the intake survey); answers are events and export columns."""

    kind: Literal["survey"] = "survey"
    """survey"""
    questions: list[Question] = Field(min_length=1)
    """The questions, in order."""
    branches: list[Branch] = Field(default_factory=list)
    """Conditional routes, checked in order before ``next``."""
    set: dict[Ident, str] = Field(default_factory=dict)
    """State variables set from this page's answers: variable -> expression (over state,
    group and answers, this page's included), evaluated before the branches."""
    retry: Retry | None = None
    """A bounded retry (a comprehension quiz): a failed attempt goes back, at most ``at_most``
    times, then to ``then``; checked after ``set:``, before the branches."""

    @model_validator(mode="after")
    def _unique(self) -> SurveyPage:
        repeated = _repeated([q.id for q in self.questions])
        if repeated:
            raise ValueError(
                f"page {self.id}: question ids must be unique; repeated: {repeated} (one id "
                "makes two questions one answer, and the page could never be sent)"
            )
        taken = [(b.question, b.equals) for b in self.branches if b.when is None]
        for question, equals in _repeated(taken):
            raise ValueError(
                f"page {self.id}: two branches take {question}={equals}; only the first fires"
            )
        return self


class MatchPage(_Page):
    """The waiting room: arriving participants are grouped until the game's human seats fill."""

    kind: Literal["match"] = "match"
    """match"""
    timeout_s: float = Field(300.0, gt=0, le=MAX_TIMEOUT_S)
    """How long the first participant waits for others."""
    on_timeout: Literal["simulate", "release"] = "simulate"
    """simulate: start with simulated players (``simulated``) in the empty human seats;
    release: send the waiting participant to ``release_to``."""
    release_to: Ident | None = None
    """on_timeout=release: the (end) page a released participant goes to."""
    size: int | None = Field(None, ge=1, le=100)
    """Participants per group (default: the game's human seats); a study without a game sets
    it to form chat or document groups."""

    @model_validator(mode="after")
    def _target(self) -> MatchPage:
        if self.on_timeout == "release" and not self.release_to:
            raise ValueError(f"page {self.id}: on_timeout=release needs release_to (a page id)")
        return self


class Tutorial(Strict):
    """A practice round before the real rounds (:mod:`collabrl.study.spec.tutorial`): one episode,
    recorded apart (events ``practice_start`` / ``practice_end``, its trajectory marked
    ``practice: true``), with no questionnaire after it, and left out of the export's rows, the
    report and its statistics, and the bonus."""

    condition: Ident | None = None
    """The condition whose agent (and game options) partners the practice round (null: the game's rule-based expert)."""
    task: str | None = None
    """The practice task (null: the game section's own); best one that no real round plays."""
    name: str = Field("Practice partner", min_length=1, max_length=60)
    """What participants see as the practice partner's name."""
    text: Text = (
        "**Practice round.** Get to know the game with {partner}. This round does not count "
        "and no questions follow it; the real rounds start right after it."
    )
    """Shown above the practice game ({partner} is filled in)."""
    game_options: dict[str, Any] = Field(default_factory=dict)
    """Game-section options of the practice round over the study's (and its condition's), e.g. a shorter time limit ({max_ticks: 40} in a game whose limit is max_ticks); not the task, the seats or the game's name."""


class RoomLimits(Strict):
    """Limits of a chat room or a shared document."""

    max_turns: int | None = Field(10, ge=1, le=10_000)
    """Messages (chat) or saves (document) each participant may make (null: no limit)."""
    max_chars: int = Field(500, ge=1, le=100_000)
    """Longest message (chat) or text (document), in characters."""
    time_s: float | None = Field(None, gt=0, le=MAX_TIMEOUT_S)
    """Seconds the room stays open after its first participant arrives; then everyone in it
    goes on (null: until each ends it)."""
    end: str = "I am done"
    """Label of the button that ends the room for the participant."""


class ConditionsPage(_Page):
    """The rounds: one game episode per condition of the participant's order, each followed by
    the questionnaire."""

    kind: Literal["conditions"] = "conditions"
    """conditions"""
    text: Text = "Round {round} of {rounds}: you play with {partner}."
    """Shown above the game ({round}, {rounds}, {partner} are filled in)."""
    tutorial: Tutorial | None = None
    """A practice round played before the first real round (null: none)."""
    initial: str = Field("", max_length=100_000)
    """Document rounds: the text the shared document starts with."""
    limits: RoomLimits = Field(default_factory=lambda: RoomLimits())
    """Chat rounds: message, length and time limits, and the end button."""
    document_limits: RoomLimits = Field(
        default_factory=lambda: RoomLimits(max_turns=50, max_chars=20_000)
    )
    """Document rounds: save, length and time limits, and the end button."""
    set: dict[Ident, str] = Field(default_factory=dict)
    """State variables set after every round: variable -> expression over state, group,
    answers and result (the round: success, steps, efficiency, decisions, messages,
    condition, position, round: game, chat or document; a chat or document round, set when
    its room closes, has no success, steps or efficiency, counts the participant's turns as
    decisions and messages, and adds turns, room_messages and room_versions)."""


class ChatPage(_Page):
    """A chat room: the participant's group (from a match page with ``size``) or the
    participant alone, with agents; transcripts are events and export rows."""

    kind: Literal["chat"] = "chat"
    """chat"""
    agents: list[ChatAgent] = Field(default_factory=list)
    """The agents in the room (an empty list: people only)."""
    limits: RoomLimits = Field(default_factory=RoomLimits)
    """Turn, length and time limits, and the end button."""
    workspace: list[WorkspaceField] = Field(default_factory=list)
    """A shared structured workspace beside the chat (collabrl.study.spec.workspace): fields
    with per-seat edit permissions (empty: none)."""
    thread: Ident | None = None
    """Chat history carried across pages: a chat page with the same thread as an earlier one
    opens with that chat's messages (null: a fresh chat)."""


class DocumentPage(_Page):
    """A shared document: a text the group edits together, with an agent that proposes edits;
    every saved version is an event with its diff."""

    kind: Literal["document"] = "document"
    """document"""
    initial: str = Field("", max_length=100_000)
    """The text the document starts with."""
    agent: ChatAgent | None = None
    """The agent that proposes edits on request (null: none)."""
    limits: RoomLimits = Field(default_factory=lambda: RoomLimits(max_turns=50, max_chars=20_000))
    """Save, length and time limits, and the end button (max_chars: the whole text)."""


class EmbedPage(_Page):
    """A sandboxed custom component (collabrl.study.spec.sandbox): the study's own HTML page in
    an iframe that cannot reach the study page, talking to it through a small postMessage API
    (read and write state, emit recorded events, say done)."""

    kind: Literal["embed"] = "embed"
    """embed"""
    html: str = Field(pattern=r"\.html$")
    """The component: an HTML file next to the study file (its scripts inline)."""
    reads: list[Ident] = Field(default_factory=list)
    """State variables the component may read."""
    writes: list[Ident] = Field(default_factory=list)
    """State variables the component may write (it may read them too)."""
    height: int = Field(400, ge=50, le=4000)
    """Height of the frame in pixels."""


class EndPage(_Page):
    """A final page; ``outcome`` is the participant's recorded status."""

    kind: Literal["end"] = "end"
    """end"""
    outcome: Literal["completed", "declined", "released", "screened_out"] = "completed"
    """Status recorded for participants who end here (screened_out: not eligible, e.g. by an
    intake answer; they get recruitment.screen_out_code)."""
    show_code: bool = True
    """Show the completion code (completion.code) on this page."""


AnyPage = (
    TextPage
    | ConsentPage
    | SurveyPage
    | MatchPage
    | ConditionsPage
    | ChatPage
    | DocumentPage
    | EmbedPage
    | EndPage
)
Page = Annotated[AnyPage, Field(discriminator="kind")]
"""One page of the study file, its class chosen by ``kind``."""
PAGE_KINDS: dict[str, type[AnyPage]] = {
    cls.model_fields["kind"].default: cls for cls in get_args(AnyPage)
}


class Seats(Strict):
    """Which of the game's seats people take and which the condition's agent takes."""

    humans: list[str] = Field(min_length=1)
    """Seats played by participants (several: they are matched into one session)."""
    agents: list[str] = Field(default_factory=list)
    """Seats played by the condition's agent."""
    names: dict[str, Annotated[str, Field(min_length=1, max_length=60)]] = Field(
        default_factory=dict
    )
    """Names participants see for human seats, e.g. {Alice: You} (default: the seat's name); the agents' prompts keep the game's seat names."""

    @model_validator(mode="after")
    def _names_for_humans(self) -> Seats:
        others = sorted(set(self.names) - set(self.humans))
        if others:
            raise ValueError(f"names: only human seats take names here; not human: {others}")
        return self


class Condition(Strict):
    """One agent variant: who plays the agent seats in this condition."""

    id: Ident
    """Id in the export, the report and the graph (never shown to participants)."""
    name: str = Field(min_length=1, max_length=60)
    """What participants see (keep it neutral, e.g. "Agent A", to keep conditions blind)."""
    agent: PlayerSpec | None = None
    """Game rounds: the agent: llm (a checkpoint through any engine, optionally with a
    profile), persona or expert."""
    round: Literal["game", "chat", "document"] = "game"
    """What a round of this condition is: a game episode, a chat with ``chat_agent`` or a
    shared document written with ``chat_agent`` (the conditions page's limits apply)."""
    chat_agent: ChatAgent | None = None
    """Chat and document rounds: the agent participants talk or write with."""
    hub_model: bool = False
    """The llm's model is a Hugging Face hub id, not a local checkpoint folder (lint then does
    not look for it on disk)."""
    game_options: dict[str, Any] = Field(default_factory=dict)
    """Game-section options this condition plays with, over the study's game section (e.g.
    {structure: scaffolded}: the collaboration structure as a condition); not the task, the
    seats or the game's name, which every condition shares."""
    prompt: Text | None = None
    """An llm agent's persona prompt ({state.x}, {group.x}, {answers.page.question} filled in
    from the group's first participant: an intake answer can shape the agent)."""
    profile_from: Ident | None = None
    """A state variable (a choice of profile ids) naming the agent's profile, per group (a
    persona or llm agent)."""
    levels: dict[str, str] = Field(default_factory=dict)
    """Factor -> level of a condition generated from design.factors (the export's factor.*
    columns; written by collabrl)."""

    @property
    def player(self) -> PlayerSpec:
        """The agent of a game round (the schema requires it there)."""
        assert self.agent is not None, f"condition {self.id} plays no game round"
        return self.agent

    @model_validator(mode="after")
    def _agent_fits_the_round(self) -> Condition:
        if self.round != "game" and self.chat_agent is None:
            raise ValueError(f"condition {self.id}: a {self.round} round needs chat_agent")
        if self.round == "game" and self.agent is None:
            raise ValueError(
                f"condition {self.id}: a game round needs agent (or set round: chat/document)"
            )
        if self.chat_agent is not None and "name" not in self.chat_agent.model_fields_set:
            # the agent speaks under the condition's neutral name unless given its own
            self.chat_agent = self.chat_agent.model_copy(update={"name": self.name})
        if self.agent is not None and self.agent.kind == "human":
            raise ValueError(f"condition {self.id}: an agent cannot be kind human")
        return self


class Design(Strict):
    """Who plays which conditions, in which order, on which task."""

    kind: Literal["within", "between"] = "within"
    """within: every participant plays every condition; between: one condition each."""
    counterbalance: Literal["latin_square", "williams"] = "latin_square"
    """within: condition orders from a cyclic Latin square (each condition once per position)
    or a Williams design (also balances which condition follows which)."""
    participants: PositiveInt = Field(15, le=100_000)
    """The recruitment target; lint refuses a target that cannot balance orders and tasks."""
    shuffle: bool = False
    """Randomly permute the assignments within each balanced block (seeded by ``seed``);
    between-subject studies usually set it."""
    factors: list[Factor] = Field(default_factory=list)
    """A multi-factor design (collabrl.study.spec.factors): conditions are generated from every
    combination of levels (the study then lists no conditions), each factor within or between
    subjects; kind follows (within if any factor is)."""


class Simulated(Strict):
    """A simulated participant or stand-in: a persona-scripted player or an LLM player drawn
    from the profile library for the session's task, or the rule-based expert."""

    kind: Literal["persona", "llm", "expert"] = "persona"
    """persona (scripted, no LLM), llm (role-plays the profile) or expert."""
    split: Literal["train", "test"] = "test"
    """The profile split drawn from."""
    profiles: list[str] = Field(default_factory=list)
    """Explicit profile ids (instead of every profile of the task and split)."""
    engine: EngineSpec | None = None
    """llm: the engine."""
    sampling: SamplingSpec = Field(default_factory=SamplingSpec)
    """llm: sampling."""
    vary_wording: bool = True
    """persona: never the same chat line twice in an episode (same draws and actions as false, the earlier wording); as a recipe seat's ``vary_wording``."""

    @model_validator(mode="after")
    def _complete(self) -> Simulated:
        require_engine(self.kind, self.engine, "simulated participant")
        for profile in self.profiles:
            check_profile(profile)
        return self


class Answers(Strict):
    """How simulated participants answer the questionnaire."""

    kind: Literal["persona", "llm"] = "persona"
    """persona: a rule-based answer model from the profile's Big Five and what happened in the
    round; llm: an LLM asked in character (engine)."""
    engine: EngineSpec | None = None
    """llm: the engine."""
    sampling: SamplingSpec = Field(default_factory=lambda: SamplingSpec(temperature=0.0))
    """llm: sampling (greedy by default)."""

    @model_validator(mode="after")
    def _complete(self) -> Answers:
        require_engine(self.kind, self.engine, "answer model")
        return self


class Pretest(Strict):
    """In-silico pretests: the same study with simulated participants in the human seats."""

    participants: Simulated = Field(default_factory=Simulated)
    """Who the simulated participants are."""
    answers: Answers = Field(default_factory=Answers)
    """How they answer the questionnaire."""


class Timers(Strict):
    """What happens when a participant goes quiet."""

    idle_s: float | None = Field(120.0, gt=0, le=MAX_TIMEOUT_S)
    """Seconds a participant may take for one game decision (null: no limit)."""
    on_idle: Literal["substitute", "release"] = "substitute"
    """substitute: the simulated stand-in makes that one decision; release: the participant is
    sent to ``release_to`` and the stand-in plays their seat from then on."""
    page_s: float | None = Field(None, gt=0, le=MAX_TIMEOUT_S)
    """Seconds a participant may stay on any other page before being released (null: no limit)."""
    release_to: Ident | None = None
    """The (end) page released participants go to."""

    @model_validator(mode="after")
    def _target(self) -> Timers:
        releases = (self.idle_s and self.on_idle == "release") or self.page_s
        if releases and not self.release_to:
            raise ValueError("timers: releasing idle participants needs release_to (a page id)")
        return self


class Completion(Strict):
    """The code participants get at the end (e.g. for a recruitment platform)."""

    code: str | None = Field(None, max_length=64)
    """One code for everyone (null with unique=false: no code)."""
    unique: bool = False
    """Give every participant their own random code instead (recorded in the export)."""


class Disclosure(Strict):
    """What participants are told about their AI partners."""

    ai_partners: bool = True
    """During play, say that the partner is an AI agent (false: only its neutral name)."""
    debrief: Text | None = None
    """Markdown shown on every end page (e.g. what the conditions were)."""


class Privacy(Strict):
    """Personal data: nothing beyond what is declared here and in the surveys is stored (no IP
    address, no user agent, no name)."""

    url_fields: list[Ident] = Field(default_factory=list)
    """Further query parameters of the join link recorded with the participant, as given (the
    recruitment platform's ids are captured by ``recruitment`` and kept as ``platform_ids``)."""
    platform_ids: Literal["hash", "keep", "drop"] = "hash"
    """The platform's participant and session ids: hash (research files hold a keyed hash; the
    raw ids stay in the database for bonuses), keep (raw everywhere) or drop (only the hash of
    the participant id, to recognise returns; no per-participant payment)."""


class Recruitment(Strict):
    """Where participants come from: the platform's ids in the link, returns, the way back."""

    platform: str = "link"
    """prolific, mturk, cloudresearch (its MTurk toolkit), sona or link (a plain link)."""
    require_ids: bool = True
    """Refuse a link without the platform's participant id (a participant who opened the study
    outside the platform)."""
    returning: Literal["resume", "refuse", "new"] = "resume"
    """A participant id that joined before: resume their session, refuse (they took part), or
    start a new session (recorded as a return)."""
    completion_url: str | None = None
    """Where finished participants go, over the platform's own ({code}: their code,
    {participant}: their platform id; SONA needs it: the credit-granting link of the study)."""
    screen_out_code: str | None = Field(None, max_length=64)
    """The code of participants who end on a screened_out page (Prolific: the screen-out code)."""

    @model_validator(mode="after")
    def _known(self) -> Recruitment:
        from collabrl.study.spec.recruitment import PLATFORMS

        if self.platform not in PLATFORMS:
            raise ValueError(
                f"platform: unknown platform {self.platform!r} (known: {', '.join(PLATFORMS)})"
            )
        url = self.completion_url
        if url is not None and not url.startswith(("https://", "http://")):
            raise ValueError(f"completion_url: {url!r} is not an http(s) link")
        return self


class Payment(Strict):
    """What participants are paid: a base fee on completion and a computed bonus."""

    currency: str = Field("GBP", pattern=r"^[A-Z]{3}$")
    """ISO 4217 code of the amounts."""
    base: float = Field(0.0, ge=0)
    """Fee of every completed participant (the platform pays it; exported with the bonus)."""
    bonus: str | None = None
    """An expression over rounds, succeeded, round[i], answers["page.question"] (see
    collabrl.study.spec.payment); null: no bonus."""
    max_bonus: float = Field(5.0, gt=0)
    """The largest bonus the expression may give (its result is clipped to 0..max_bonus)."""
    reason: str = Field("Bonus for your teamwork in the study", max_length=200)
    """The reason the bonus file gives (MTurk shows it to the worker)."""

    @model_validator(mode="before")
    @classmethod
    def _number_as_expression(cls, data: Any) -> Any:
        """A fixed bonus may be written as a number (``bonus: 0.5``)."""
        bonus = data.get("bonus") if isinstance(data, dict) else None
        if isinstance(bonus, int | float) and not isinstance(bonus, bool):
            return {**data, "bonus": str(bonus)}
        return data


class Study(Strict):
    """A user study, declared in one file."""

    @model_validator(mode="before")
    @classmethod
    def _conditions_from_factors(cls, data: Any) -> Any:
        """A multi-factor design's conditions and kind, written out from its factors."""
        design = data.get("design") if isinstance(data, dict) else None
        if not isinstance(design, dict) or not design.get("factors"):
            return data
        raw = design["factors"]
        given = data.get("conditions")
        if given and all(isinstance(c, dict) and c.get("levels") for c in given):
            return data  # written out already (a resolved study read again)
        if given:
            raise ValueError("design.factors generates the conditions: remove conditions")
        factors = parse_factors(raw)
        kind = "within" if any(f.within for f in factors) else "between"
        if design.get("kind", kind) != kind:
            raise ValueError(
                f"design.kind: with factors the kind follows from them ({kind}); remove it"
            )
        conditions = generated_conditions(factors)
        return {**data, "design": {**design, "kind": kind}, "conditions": conditions}

    @model_validator(mode="before")
    @classmethod
    def _arm_variables(cls, data: Any) -> Any:
        """Each randomised factor, declared as a state variable (collabrl.study.spec.randomise)."""
        return arm_variables(data)

    name: Ident
    """Name of the study (files, database, manifest)."""
    title: str = "A study on working with AI teammates"
    """Heading of every page."""
    seed: Seed = 0
    """Seed of assignments, episodes and simulated participants."""
    game: GameSpec | None = None
    """The game: a recipe's game section (null: a study without a game)."""
    seats: Seats | None = None
    """Which seats are human and which are the agent's (with a game)."""
    tasks: list[str] = Field(default_factory=list)
    """Tasks (or kitchen layouts) balanced across sessions (empty: the game section's)."""
    conditions: list[Condition] = Field(default_factory=list)
    """The agent variants (empty: no conditions page)."""
    design: Design = Field(default_factory=Design)
    """Counterbalancing and task assignment."""
    pages: list[Page] = Field(min_length=2)
    """The pages, in default order (the first is where participants arrive)."""
    questionnaire: Questionnaire | None = None
    """Rated after each condition (a study with conditions needs it)."""
    state: dict[Ident, StateVar] = Field(default_factory=dict)
    """State variables (collabrl.study.spec.state): set by answers and rounds, read by branches
    (when:), texts ({state.x}) and agents (prompt, profile_from)."""
    randomise: list[Randomisation] = Field(default_factory=list)
    """Randomised designs without rounds (collabrl.study.spec.randomise): factorial cells
    dealt simply or in balanced blocks, per stratum; each factor a state variable."""
    components: dict[Ident, ComponentSpec] = Field(default_factory=dict)
    """Custom page components (collabrl.study.spec.components): name -> its page script and its
    server-side class."""
    simulated: Simulated = Field(default_factory=lambda: Simulated(kind="expert"))
    """Who plays a human seat nobody plays: a match that timed out, an idle participant."""
    timers: Timers = Field(default_factory=Timers)
    """Idle and page timeouts."""
    completion: Completion = Field(default_factory=Completion)
    """Completion code."""
    disclosure: Disclosure = Field(default_factory=Disclosure)
    """Disclosure of AI partners."""
    privacy: Privacy = Field(default_factory=Privacy)
    """Personal fields."""
    recruitment: Recruitment = Field(default_factory=Recruitment)
    """Recruitment platform."""
    payment: Payment | None = None
    """Base fee and bonus (null: paid outside collabrl)."""
    pretest: Pretest = Field(default_factory=Pretest)
    """In-silico pretests."""
    output_dir: str = "runs/study"
    """Folder of the database and the exports."""

    @model_validator(mode="after")
    def _seats_cover_the_game(self) -> Study:
        if self.game is None or self.seats is None:
            if self.game is not None or self.seats is not None:
                raise ValueError("game and seats: give both (a game's seats) or neither")
            return self
        declared = [*self.seats.humans, *self.seats.agents]
        if sorted(declared) != sorted(self.game.seats) or len(set(declared)) != len(declared):
            raise ValueError(
                f"seats: humans + agents must name each game seat once "
                f"(game.seats: {list(self.game.seats)}; got {declared})"
            )
        if not self.seats.agents:
            raise ValueError("seats.agents: name at least one seat for the condition's agent")
        return self

    @model_validator(mode="after")
    def _tasks_fit(self) -> Study:
        if self.game is None:
            return self
        for task in self.task_list:
            try:
                self.game.for_task(task)
            except ValueError as exc:
                errors = getattr(exc, "errors", None)
                message = errors()[0]["msg"] if errors else str(exc)
                raise ValueError(f"tasks: {message.removeprefix('Value error, ')}") from None
        return self

    @model_validator(mode="after")
    def _condition_options_fit(self) -> Study:
        """Each condition's game options make a valid game for every task (one line each)."""
        if self.game is None:
            return self
        fixed = {"name", "seats", type(self.game).task_key}
        for c in self.conditions:
            shared = sorted(fixed & set(c.game_options))
            if shared:
                raise ValueError(
                    f"condition {c.id}: game_options may not change {', '.join(shared)} "
                    "(every condition plays the same game, seats and tasks)"
                )
            for task in self.task_list:
                try:
                    self.section(c.id, task)
                except ValueError as exc:
                    errors = getattr(exc, "errors", None)
                    message = errors()[0]["msg"] if errors else str(exc)
                    where = ".".join(map(str, errors()[0]["loc"])) if errors else ""
                    raise ValueError(
                        f"condition {c.id}: game_options{'.' + where if where else ''}: "
                        f"{message.removeprefix('Value error, ')}"
                    ) from None
        return self

    def section(self, cid: str, task: str) -> GameSection:
        """The game section condition ``cid`` plays ``task`` with (its ``game_options`` over
        the study's game section)."""
        assert self.game is not None  # only game rounds have a section
        base = self.game.for_task(task)
        options = self.condition(cid).game_options
        if not options:
            return base
        return type(base).model_validate({**base.model_dump(), **options})

    @model_validator(mode="after")
    def _unique_ids(self) -> Study:
        for what, ids in (
            ("conditions", [c.id for c in self.conditions]),
            ("pages", [p.id for p in self.pages]),
            ("tasks", list(self.tasks)),
            ("privacy.url_fields", list(self.privacy.url_fields)),
            ("randomise", [r.id for r in self.randomise]),
            ("randomised factors", [f for r in self.randomise for f in r.factors]),
        ):
            repeated = _repeated(ids)
            if repeated:
                raise ValueError(f"{what}: ids must be unique; repeated: {repeated}")
        return self

    @property
    def task_list(self) -> list[str]:
        """The balanced tasks (the game section's own task when none are listed)."""
        if self.game is None:
            return list(self.tasks) or [NO_TASK]
        key = type(self.game).task_key
        return list(self.tasks) or [getattr(self.game, key)]

    def condition(self, cid: str) -> Condition:
        return next(c for c in self.conditions if c.id == cid)

    def agent_names(self, cid: str) -> dict[str, str]:
        """The names participants see for the agent seats in condition ``cid``: the condition's
        neutral name (with the seat's when the agent plays several)."""
        name = self.condition(cid).name
        seats = self.seats.agents if self.seats is not None else []
        return {seat: name if len(seats) == 1 else f"{name} ({seat})" for seat in seats}

    def page(self, pid: str) -> Page:
        return next(p for p in self.pages if p.id == pid)

    @property
    def played_game(self) -> GameSection:
        """The game of a study that has one (only game rounds and their stand-ins ask)."""
        assert self.game is not None, "a game round in a study without a game"
        return self.game

    @property
    def game_seats(self) -> Seats:
        """The seats of a study with a game (only game rounds and their stand-ins ask)."""
        assert self.seats is not None, "a game round in a study without a game"
        return self.seats

    @property
    def match_pages(self) -> list[str]:
        """Ids of the match pages: where participants wait to be grouped (the pool)."""
        return [p.id for p in self.pages if isinstance(p, MatchPage)]

    @property
    def human_seats(self) -> list[str]:
        """The seats a group's participants take: the game's human seats, or (without a game)
        ``p1``, ``p2``, ... up to the match page's ``size`` (one without a match page)."""
        if self.seats is not None:
            return list(self.seats.humans)
        sizes = [p.size or 1 for p in self.pages if isinstance(p, MatchPage)]
        return [f"p{k + 1}" for k in range(max(sizes, default=1))]
