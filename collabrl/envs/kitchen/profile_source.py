"""The kitchen game's handwritten profile library (CollabBench's Cook profiles, our own wording).

Same format as :mod:`collabrl.envs.household.profile_source`. Test rows are written for the
layout they play on; held-out rows describe layout-independent habits because their perturbed
copies are spread over every layout.
"""

Row = tuple[str, str, str]  # (type code, Big Five code, behaviour)
HeldoutRow = tuple[str, str, str, str]  # (task, type code, Big Five code, behaviour)

ID_PREFIX = "cook"  # profile ids: <prefix>-<task>-<split>-<nn>
# None: one perturbed copy of every held-out source on each training layout (15 per layout)
TRAIN_PROFILES: int | None = None

# fmt: off
TEST: dict[str, tuple[Row, ...]] = {
    "cramped_room": (
        ("EC", "mhmhl", "Calls out 'I take onions, you take dishes' on the first tick, steps aside when the partner needs the pot, and says when the soup is about to finish."),
        ("EC", "hhhhm", "Keeps the single pot busy by announcing each onion they drop in and lets the partner know the moment a dish is needed, so neither of them blocks the narrow aisle."),
        ("EC", "uhlmu", "Rarely messages but reads the partner well: if the partner holds an onion they fetch a dish instead, and they never pile onto the same dispenser."),
        ("HL", "mlmmm", "Often chooses wait(5) or longer while the pot needs onions, then picks up an onion just after the partner has already filled it."),
        ("HL", "ullhm", "Stands near the dish rack holding nothing for many ticks and only moves after the partner tells them exactly what to grab."),
        ("HL", "lmlmu", "Picks up a dish long before any soup is ready and holds it, leaving the onion work to the partner."),
        ("AD", "mhmhh", "Asks before every put_onion_in_pot() whether the pot still needs onions, afraid of bumping into the partner or wasting a trip."),
        ("AD", "hmhmh", "Sends worried messages whenever the two chefs get in each other's way and backs off with long waits to avoid another collision."),
        ("AD", "lhlhh", "Hesitates to fill a dish in case the soup is not done, and asks the partner to confirm the cooking countdown first."),
        ("PL", "hhhmm", "Sets the roles in the first message, tells the partner when to step back from the pot, and times the next batch so a dish is ready when cooking ends."),
        ("PL", "mhhhl", "Coaches the partner through each cycle with short, cheerful directions and swaps roles if the partner seems stuck."),
        ("PL", "hmhlu", "Makes quick calls like 'onions now, I'll serve' and re-plans loudly every time the partner does something unexpected."),
        ("IL", "mhllm", "Runs the whole onion-pot-dish-serve cycle alone in silence, often squeezing past the partner rather than asking them to move."),
        ("IL", "lmlml", "Ignores requests to split onions and dishes and keeps doing whatever step they already had in mind."),
        ("IL", "hmmlu", "Tries to keep the pot for themselves and replies 'I've got it' to any offer of help."),
    ),
    "asymmetric_advantages": (
        ("EC", "hhmmm", "Works their own half of the kitchen, keeps the shared pots in view, and tells the partner whenever a pot is full so the one nearer the serving window plates it."),
        ("EC", "mhhhu", "Notices that their side has the easier onion access and offers to keep both pots stocked while the partner handles dishes and delivery."),
        ("EC", "lhlhl", "Quietly mirrors the partner: if the partner is filling one pot they take the other, and they report only when a soup is ready."),
        ("HL", "hllmm", "Waits on their side for a long time at the start and only begins bringing onions after the partner asks twice."),
        ("HL", "mmlhu", "Agrees to deliver soups but often waits instead of picking up a dish when a pot finishes."),
        ("HL", "ulllm", "Fills a pot halfway and then stops, unsure whether the partner will finish it, until a message tells them to continue."),
        ("AD", "uhmhh", "Worries about the two pots cooking out of step and keeps asking the partner which one to serve first."),
        ("AD", "mlhmh", "Sends anxious notes whenever a soup is close to done, afraid nobody will get a dish in time."),
        ("AD", "hmlmh", "Double-checks with the partner before every delivery, fearing they might carry an empty dish to the window."),
        ("PL", "mhhmm", "Assigns a pot to each chef in the opening message and sets a rhythm of onion rounds, checking on the partner's pot every few skills."),
        ("PL", "hhhhu", "Takes charge of timing, tells the partner when to pick up a dish, and encourages them after every delivered soup."),
        ("PL", "uhhll", "Directs the partner's side as well as their own, and overrides the partner's choices if they think a faster cycle is possible."),
        ("IL", "hhlmm", "Treats their half as a separate kitchen, cooking and delivering on their own without a single message."),
        ("IL", "mlmlu", "Uses only the pot nearest to them and ignores suggestions to help with the other one."),
        ("IL", "llllh", "Works independently but well, tolerating the partner's presence rather than coordinating with them."),
    ),
    "coordination_ring": (
        ("EC", "uhmhm", "Agrees with the partner on a direction around the ring so they never meet head-on, and announces every full pot."),
        ("EC", "hhhml", "Suggests that one chef loops with onions while the other handles dishes, and reports whenever they pass the shared corner."),
        ("EC", "mhlhm", "Keeps moving in a steady loop, yields when the partner comes the other way, and sends a brief note only when the plan must change."),
        ("HL", "lmlmm", "Gets stuck facing the partner in the ring and waits instead of backing off, losing many ticks."),
        ("HL", "hlmhu", "Follows the partner around the ring but often forgets what they were fetching and asks again."),
        ("HL", "mllml", "Spends long stretches waiting near the dish dispenser while the pots sit half full."),
        ("AD", "hhmhh", "Panics when the partner blocks the path and sends urgent messages asking them to move, then waits long after the way is clear."),
        ("AD", "umhlh", "Keeps asking whether the pots are filling in the right order and doubts their own delivery timing."),
        ("AD", "mllhh", "Hesitates at every turn of the ring, checking with the partner before passing in case they collide."),
        ("PL", "hhhhm", "Sets a one-way rule for the ring in the first message and assigns onion and dish duties, checking that the partner follows it."),
        ("PL", "uhhml", "Guides the partner through the route with short directions and praises them when a soup is delivered."),
        ("PL", "mmhlu", "Keeps changing the route plan aloud and expects the partner to adapt to each new idea immediately."),
        ("IL", "lhlmm", "Circles the ring on their own route, ignoring the partner even when they meet in the corridor."),
        ("IL", "hmllu", "Keeps to one pot and one path and does not answer messages about swapping."),
        ("IL", "mlmlh", "Tries shortcuts on their own and tells the partner only after a soup has been served."),
    ),
    "forced_coordination": (
        ("EC", "mhhhl", "From the side with the pots, asks the partner for onions three at a time, tells them when a dish is needed, and thanks them after each handoff."),
        ("EC", "uhmhu", "Keeps the counter between the two halves organised, placing onions and dishes in separate spots so the partner can always find the right item."),
        ("EC", "hhlmm", "Rarely talks but times handoffs well, putting a dish on the counter just before a soup finishes."),
        ("HL", "hlmmh", "Takes many ticks to pass each onion across the counter and often waits when the partner is ready to receive."),
        ("HL", "mlllm", "Needs the partner to tell them exactly what to place on the counter and stalls if no message comes."),
        ("HL", "ummhu", "Places items on the counter slowly and sometimes forgets to pass a dish when the soup is ready."),
        ("AD", "mmmhh", "Worries the counter will fill up and asks the partner before placing anything, sometimes freezing with an item in hand."),
        ("AD", "hhlmh", "Sends anxious messages whenever a handoff is late and doubts whether the partner has seen the onions."),
        ("AD", "ulhuh", "Double-checks every handoff with a question and waits for confirmation before fetching the next item."),
        ("PL", "hhhml", "Designs the handoff routine in the first message, telling the partner which item to pass when, and calls each step."),
        ("PL", "mmhhm", "Keeps the partner informed about the pot and asks for dishes at the right moment, encouraging them after each delivery."),
        ("PL", "uhhlu", "Gives firm orders about what to place on the counter and complains if the partner passes the wrong item."),
        ("IL", "mhlll", "Passes items across the counter without saying anything and expects the partner to figure out the timing."),
        ("IL", "hmmlm", "Keeps placing onions on the counter at their own pace regardless of whether the pot needs them."),
        ("IL", "lumlm", "Ignores the partner's requests for dishes and does their half of the work in their own order."),
    ),
    "counter_circuit": (
        ("EC", "hhmml", "Proposes passing onions over the centre counter instead of walking the loop, and posts a quick note each time a pot gets its third onion."),
        ("EC", "mhhhm", "Splits the loop so one chef feeds both pots and the other plates, and offers to swap roles if either side falls behind."),
        ("EC", "uhlhu", "Says little but watches both pots and fetches a dish just as the partner's soup is ready."),
        ("HL", "mlmhm", "Walks half the loop, changes their mind, and walks back, often ending a long trip holding nothing useful."),
        ("HL", "hllml", "Waits by the onion dispensers for instructions, moving only after the partner says which pot to fill."),
        ("HL", "lmlmu", "Delivers soups late because they pick up the dish only after being reminded."),
        ("AD", "hmmhh", "Worries that the pots are too far apart to manage and keeps asking which one to tend next."),
        ("AD", "mhlmh", "Sends nervous updates whenever the partner takes the long way round, asking if they are lost."),
        ("AD", "ulhhh", "Double-checks with the partner before placing onions on the centre counter in case they are not picked up."),
        ("PL", "mhhmu", "Plans a relay across the centre counter on the first turn and keeps both chefs on a tight schedule."),
        ("PL", "hmhhl", "Tells the partner where to wait with a dish, tracks the cooking time aloud, and encourages them during the long walks."),
        ("PL", "lhhlm", "Decides the routine alone, issues commands as they go, and changes roles abruptly when the score stalls."),
        ("IL", "hhllu", "Runs long solo loops for onions and soups, rarely crossing paths or words with the partner."),
        ("IL", "mmmll", "Uses only the pot near their start and ignores suggestions to use the centre counter."),
        ("IL", "ullmm", "Experiments with their own routes and declines the partner's plan to coordinate."),
    ),
}

HELDOUT: tuple[HeldoutRow, ...] = (
    ("cramped_room", "EC", "hhmhl", "Agrees on an onion-and-dish split at the start and announces each full pot so the partner can have a dish ready in time."),
    ("asymmetric_advantages", "EC", "mhlhu", "Says little but always fills the gap the partner leaves, fetching a dish if the partner is on onions and the other way round."),
    ("coordination_ring", "EC", "uhhmm", "Tells the partner the cooking countdown and adjusts their own next skill to avoid doubling up on the same job."),
    ("forced_coordination", "HL", "mlmmu", "Frequently picks wait() while the pot still needs onions and only gets going when the partner asks."),
    ("counter_circuit", "HL", "ullhm", "Holds onto items for a long time before using them and takes the partner's cue for each next step."),
    ("cramped_room", "HL", "hlmmm", "Starts a task, drops it halfway, and asks the partner what they should do next."),
    ("asymmetric_advantages", "AD", "mhmhh", "Checks with the partner before putting an onion in the pot and frets whenever a soup is close to done."),
    ("coordination_ring", "AD", "umlmh", "Doubts whether the soup is really cooked and asks the partner to confirm before filling a dish."),
    ("forced_coordination", "AD", "hlhuh", "Sends a worried message whenever something goes wrong and asks whether they should start the pot over."),
    ("counter_circuit", "PL", "hhhmm", "Sets the roles in the first message and keeps asking the partner for quick status updates to adjust the plan."),
    ("cramped_room", "PL", "mmhhu", "Takes the initiative, tells the partner what to fetch next, and celebrates each delivered soup."),
    ("asymmetric_advantages", "PL", "uhhlm", "Gives firm step-by-step orders and expects the partner to follow them without discussion."),
    ("coordination_ring", "IL", "mhllm", "Cooks and serves on their own without announcing anything and rarely answers messages."),
    ("forced_coordination", "IL", "lmmlu", "Declines the partner's offers and keeps to their own routine even when a handoff would be faster."),
    ("counter_circuit", "IL", "hulml", "Follows their own route through the kitchen without coordinating and mentions progress only at the end."),
)
# fmt: on

# (trait, new level) -> habits a player at that level shows, as verb phrases after "they"
# fmt: off
PHRASES: dict[tuple[str, str], tuple[str, ...]] = {
    ("openness", "high"): (
        "experiment with new routines, such as staging onions on a counter near the pot",
        "propose swapping roles halfway through just to see if it goes faster",
    ),
    ("openness", "medium"): (
        "try a partner's suggested routine for a round before settling back into their own",
        "change their routine only when the current one is clearly failing",
    ),
    ("openness", "low"): (
        "repeat exactly the same onion-pot-dish cycle every round",
        "stick to one dispenser and one pot even when another would be closer",
    ),
    ("conscientiousness", "high"): (
        "keep an eye on the cooking countdown and never carry a dish too early",
        "clear up stray items from the counters before starting the next soup",
    ),
    ("conscientiousness", "medium"): (
        "mostly follow the cycle but sometimes fetch a dish before the soup is anywhere near ready",
        "lose track of how many onions are in the pot now and then",
    ),
    ("conscientiousness", "low"): (
        "leave onions lying on counters and forget which pot they were filling",
        "sometimes grab a dish when no soup is cooking and have to put it down again",
    ),
    ("extraversion", "high"): (
        "send a message almost every other skill, commenting on the pot and the score",
        "cheer out loud for every delivered soup",
    ),
    ("extraversion", "medium"): (
        "message when a pot fills or a soup is served and otherwise keep cooking",
        "reply to the partner quickly but rarely open a conversation themselves",
    ),
    ("extraversion", "low"): (
        "go long stretches without a message and answer in a word or two",
        "speak only when the kitchen is completely stuck",
    ),
    ("agreeableness", "high"): (
        "switch jobs at once when the partner asks and thank them after each handoff",
        "step aside so the partner can reach the pot first",
    ),
    ("agreeableness", "medium"): (
        "follow most requests but push back when they think their own order is quicker",
        "accept the partner's plan after asking a short question about it",
    ),
    ("agreeableness", "low"): (
        "ignore requests that get in the way of what they were already doing",
        "take the onion or dish the partner was reaching for",
    ),
    ("neuroticism", "high"): (
        "get flustered when the pot sits half full and ask the partner what went wrong",
        "worry aloud about an empty dish reaching the serving window",
    ),
    ("neuroticism", "medium"): (
        "grow a bit tense near the end of an episode and ask for a quick check on the pots",
        "hesitate for a moment after a mistake before getting back into the cycle",
    ),
    ("neuroticism", "low"): (
        "stay unbothered by collisions or a burnt-out plan and simply carry on",
        "keep a calm, easy tone even when the score falls behind",
    ),
}
# fmt: on
