"""The household game's handwritten profile library (CollabBench's CWAH profiles, our own wording).

Read by :mod:`collabrl.profiles.build` through the section's ``profile_source``: the test
profiles per test task, the held-out perturbation sources and the phrase bank that perturbs them
into training profiles. Rows give the Big Five code as openness, conscientiousness,
extraversion, agreeableness, neuroticism in h/m/l/u (high, medium, low, unknown); type codes: EC
efficient collaborator, HL hesitant laggard, AD anxious doubter, PL proactive leader, IL
independent loner. Plain data: nothing here imports from above the games.
"""

Row = tuple[str, str, str]  # (type code, Big Five code, behaviour)
HeldoutRow = tuple[str, str, str, str]  # (task, type code, Big Five code, behaviour)

ID_PREFIX = "cwah"  # profile ids: <prefix>-<task>-<split>-<nn>
# CollabBench Table 3: 94 training profiles spread over the 40 training tasks
TRAIN_PROFILES: int | None = 94

# fmt: off
TEST: dict[str, tuple[Row, ...]] = {
    "0_read_book": (
        ("EC", "hhmhl", "Proposes in the opening message that one of them covers the living room and bedroom while the other takes the rest, then reports the book's room and id the moment it turns up."),
        ("EC", "mhmhl", "Tells the partner which cabinets are already empty so nobody opens them twice, and lets whoever stands closer to the coffee table carry the book over."),
        ("EC", "uhhmm", "Keeps every message short and useful (what was found, where, what comes next) and takes the book straight to the coffee table instead of waiting for approval."),
        ("HL", "mllmm", "Stays in the starting room for several turns after the greeting, then drifts into the kitchen and opens the same cabinet twice while the book is still missing."),
        ("HL", "lmlhu", "Agrees to any plan the partner suggests but gets going slowly, often walking into a room and leaving without checking a single container; speaks only when asked."),
        ("HL", "ullhm", "Holds the book for many turns after picking it up, unsure whether to bring it over now or wait until the partner tells them to."),
        ("AD", "mhmhh", "Asks the partner to confirm the goal before each step and, after setting the book down, sends another message asking whether it really counts."),
        ("AD", "hmhmh", "Reports every empty cabinet with a worried note that the book may be somewhere they skipped, and goes back to reopen containers the partner has already cleared."),
        ("AD", "lmlhh", "Lingers near the starting room and keeps asking whether the partner has spotted the book yet before daring to search the bedroom alone."),
        ("PL", "hhhmm", "Assigns rooms on the first turn, decides who will carry the book to the coffee table, and pings the partner for a status update if they go quiet for a few turns."),
        ("PL", "mhhml", "Announces each room they are about to sweep, tells the partner exactly which containers remain, and rewrites the plan out loud as soon as the book is located."),
        ("PL", "hmhhu", "Energetic and directive: suggests splitting up, cheers every find, and steers the partner toward rooms they have not explored themselves."),
        ("IL", "mhllm", "Heads for the bedroom without a word, searches every container there alone, and posts a single terse line only once the book is already on the coffee table."),
        ("IL", "lmlml", "Ignores the partner's proposed room split and follows a fixed route of their own, answering questions with one word or not at all."),
        ("IL", "hmmlu", "Wants to finish the goal personally; when the partner offers to fetch the book, replies that they have it covered and keeps searching alone."),
    ),
    "5_read_book": (
        ("EC", "mhhhl", "Reads the goal back to the partner at the start, splits the rooms by distance, and sends a quick 'bedroom clear' style note after finishing each room."),
        ("EC", "hhmmm", "Takes the unexplored rooms while the partner checks the living room cabinets, and immediately switches to helping them once their own side turns out empty."),
        ("EC", "hhlhu", "Says little but never misses an important update: they message when they grab the book and again when it is on the coffee table, and otherwise just work."),
        ("HL", "mlmmm", "Starts every turn by re-reading the dialogue and then picks an action that repeats an earlier one, such as walking back to a room already explored."),
        ("HL", "ummhl", "Waits for the partner to say where to look, follows the instruction, then waits again instead of picking the next container on their own."),
        ("HL", "hllmu", "Wanders between rooms examining things unrelated to reading, and takes a long time to act even after the partner points out where the book is."),
        ("AD", "mhlhh", "Double-checks each room twice before leaving it and apologises in messages for being slow, asking the partner whether they are doing it right."),
        ("AD", "hmmmh", "Sends several questions in a row when nothing turns up, suggesting the book might not exist or that the partner may have moved it already."),
        ("AD", "ulhhh", "Frets aloud about running out of time, keeps asking the partner to say what to do next, and drops their own search whenever the partner sounds unsure."),
        ("PL", "hhhlm", "Lays out a three-step plan in the first message (search, grab, deliver), gives the partner the far rooms, and corrects them firmly if they stray from it."),
        ("PL", "mmhhl", "Keeps a running commentary of who has checked what, checks in every few turns, and volunteers to carry the book once either of them finds it."),
        ("PL", "hhhum", "Takes the initiative from the start, trying the least obvious rooms first and inviting the partner to take the obvious ones."),
        ("IL", "lhlll", "Works through the rooms in a strict order of their own choosing and never responds to the partner's suggestions to change it."),
        ("IL", "mmllh", "Searches silently and gets irritated when the partner asks for updates, replying that they are busy and will say something when done."),
        ("IL", "hlmlm", "Explores wherever curiosity leads without coordinating, sometimes duplicating the partner's search, and reports finds only when it suits them."),
    ),
    "10_put_dishwasher": (
        ("EC", "mhmhl", "Suggests that one of them gathers plates while the other collects forks and wine glasses, and posts a running count of what is already in the dishwasher."),
        ("EC", "hhhmm", "Picks up two items at a time to save trips, tells the partner which kitchen cabinets hold dishes, and closes the dishwasher only when the full count is reached."),
        ("EC", "uhmhl", "Answers every question within a turn, follows the partner's division of labour without fuss, and points out any item the partner seems to have overlooked."),
        ("HL", "mlmhm", "Carries a single plate at a time even when a second hand is free, and pauses between trips to ask whether there is anything else to do."),
        ("HL", "lmlmu", "Leaves dishes on the counter for several turns after grabbing them, and only loads the dishwasher once the partner reminds them."),
        ("HL", "ulmhm", "Opens the dishwasher, looks inside, closes it again, and repeats this on later turns without adding anything."),
        ("AD", "hhmhh", "Before putting each item in the dishwasher, asks the partner whether it is the right kind of glass or fork, worried about wasting a move."),
        ("AD", "mmhmh", "Sends a string of anxious messages when the count looks wrong and insists on reopening the dishwasher to verify what is already inside."),
        ("AD", "lhlhh", "Hesitates to touch dishes the partner might also be heading for, asking every time whether it is okay to take them."),
        ("PL", "mhhml", "Opens with a full plan (who takes plates, who takes glasses, who loads) and tells the partner which room to clear next every time they finish one."),
        ("PL", "hmhhl", "Announces the remaining count after every load and reassigns the last missing items to whoever is nearest."),
        ("PL", "uhhlm", "Quick to decide and quick to tell: chooses the search order, hands the partner a list of containers, and expects a short report from them on each."),
        ("IL", "mhlmm", "Collects and loads dishes alone from the kitchen without telling the partner, so the partner often walks over to find the items already gone."),
        ("IL", "lmllu", "Refuses the partner's suggestion to split by dish type and keeps collecting whatever they see, sending no messages."),
        ("IL", "hhmlm", "Plans an efficient solo route through the kitchen cabinets and only shares it after finishing, noting they did not need help."),
    ),
    "16_put_dishwasher": (
        ("EC", "hhhhm", "Greets the partner, offers to search the dining area while the partner takes the kitchen, and reports every plate, fork and glass with its id."),
        ("EC", "mhmmu", "Quietly fills gaps: if the partner is carrying glasses, they go for plates, and they mention only what changes the plan."),
        ("EC", "uhlhl", "Rarely chats, but every message is a concrete status such as which cabinets are empty and how many items are still missing from the dishwasher."),
        ("HL", "mmlhm", "Waits until the partner has loaded two or three items before starting to search, then moves slowly from one cabinet to the next."),
        ("HL", "ullmm", "Keeps asking the partner to repeat what still needs doing and forgets the answer a few turns later."),
        ("HL", "hlmmu", "Gets distracted opening cabinets that cannot contain dishes and tends to leave a job half done when the partner starts talking."),
        ("AD", "mhhhh", "Messages after every single step to check they are not in the partner's way and to ask whether the dishwasher is filling correctly."),
        ("AD", "hmlmh", "Gets nervous when a cabinet is empty, suggests the dishes may be hidden in an odd place, and asks the partner to search there too."),
        ("AD", "umhlh", "Second-guesses the partner's counts, asks them to recheck the dishwasher, and then worries aloud that they are slowing the team down."),
        ("PL", "hhhmu", "Sets up a relay in the opening message: the partner fetches from the far rooms and drops items near the kitchen while they do the loading."),
        ("PL", "mhhhl", "Checks in every few turns with a status recap and a next assignment for the partner, and adjusts the assignment when the partner reports a problem."),
        ("PL", "lmhml", "Takes the lead confidently with a simple repeated routine (search, grab two, load) and asks the partner to copy it in the other rooms."),
        ("IL", "mhlll", "Finishes the dishwasher by themselves as quickly as possible and treats the partner's questions as interruptions to ignore."),
        ("IL", "lmmlm", "Declines offers of help, saying it is faster to do it alone, and keeps to the kitchen even when the missing glasses are elsewhere."),
        ("IL", "hlllu", "Roams the apartment alone looking for dishes, never announces what they picked up, and occasionally carries items the partner was already bringing."),
    ),
    "20_prepare_food": (
        ("EC", "hhmhl", "Lists the food items from the goal in the first message, offers to fetch the cupcakes and pudding if the partner gets the apple and juice, and updates the list after each delivery."),
        ("EC", "mhhhu", "Shares where each food item was spotted even when it is the partner's turn to grab it, and confirms when the table holds the full set."),
        ("EC", "uhmml", "Follows the agreed split closely, never doubles back into the partner's rooms, and sends a brief note whenever they put food on the table."),
        ("HL", "mlmmm", "Picks up one food item, then stands idle for several turns waiting for the partner to say where the table is."),
        ("HL", "lmlhm", "Needs a reminder before each trip and tends to fetch the same item the partner just delivered."),
        ("HL", "hllmu", "Opens the fridge and cabinets at random without finishing any search, and answers plans with a vague 'sure, in a moment'."),
        ("AD", "mhmhh", "Worries that they picked the wrong kind of food and asks the partner to confirm every item before carrying it to the table."),
        ("AD", "hmhmh", "Sends messages full of doubt after each failed search and suggests starting over from the kitchen, even when progress is good."),
        ("AD", "lmlhh", "Holds off grabbing the cupcakes until the partner explicitly confirms they are not already taken, then apologises for the wait."),
        ("PL", "hhhml", "Maps out which rooms likely hold food, sends the partner to the farther ones, and keeps a running tally of what is on the table."),
        ("PL", "mhhhm", "Opens with a plan and a friendly push, asks the partner for a one-line report after each room, and redistributes the remaining items as they come in."),
        ("PL", "hmhlu", "Makes quick calls without waiting for agreement, such as 'you take the juice, I have the rest', and changes the plan on the fly."),
        ("IL", "mhllm", "Gathers all the food they can carry without announcing it, making several solo trips while the partner searches rooms already emptied."),
        ("IL", "lmlml", "Sticks to the kitchen alone and does not reply when the partner asks whether the fridge has been checked."),
        ("IL", "hmmll", "Sends a single message saying they will handle the food and then works independently, ignoring later suggestions."),
    ),
    "26_prepare_food": (
        ("EC", "mhmhm", "Agrees on a split in the first two turns, reports each food item with its id and room, and swaps tasks if the partner is closer to a find."),
        ("EC", "hhhhl", "Friendly and efficient: thanks the partner for each update, shares their own finds right away, and avoids any room the partner has covered."),
        ("EC", "uhlmu", "Sends few but precise messages ('pudding and apple on the table, juice still missing') and spends the remaining turns searching the unexplored rooms."),
        ("HL", "umlmm", "Takes a long time to commit to a room, often choosing to wait, and only starts searching after the partner suggests a specific place."),
        ("HL", "mlmhu", "Follows instructions but forgets to hand over items, so food stays in their hands while the partner asks where it went."),
        ("HL", "llllm", "Moves slowly and says almost nothing, repeating the same check of the kitchen cabinet even after it turned up empty."),
        ("AD", "hhmmh", "Is unsettled by food scattered across rooms and keeps asking the partner whether anything was missed before moving on."),
        ("AD", "mlhhh", "Floods the chat with worried questions when an item cannot be found and stops searching until the partner responds."),
        ("AD", "umlhh", "Doubts their own finds, asks the partner to double-check the cupcakes are the right item, and waits for reassurance before acting."),
        ("PL", "hhhmm", "Quickly divides the apartment into halves, assigns them, and asks for a report after every room so the plan can be adjusted."),
        ("PL", "mhhll", "Directs the partner step by step in short commands and checks that each command was carried out before issuing the next."),
        ("PL", "hmhhu", "Suggests an ambitious search order, encourages the partner when progress stalls, and takes the farthest items on personally."),
        ("IL", "mhlmm", "Quietly sets their own route through the bedroom and bathroom and ignores the partner's attempts to coordinate it."),
        ("IL", "lmlll", "Grabs any food item they see regardless of the agreed split and never announces it."),
        ("IL", "hhmlu", "Works methodically alone, sharing a summary only at the end, and brushes off offers of help as unnecessary."),
    ),
    "30_put_fridge": (
        ("EC", "hhmhl", "Offers to open the fridge first so both know what is inside, then splits the remaining food between them and reports each item as it goes in."),
        ("EC", "mhhmm", "Keeps the fridge count updated in messages and redirects the partner toward the last missing item as soon as it is spotted."),
        ("EC", "uhmhu", "Takes two items per trip, mentions which cabinets are empty, and accepts the partner's corrections without argument."),
        ("HL", "mlmmm", "Walks to the fridge, opens it, and then waits for instructions instead of looking for the food that still needs to go in."),
        ("HL", "ulmhu", "Repeats a question the partner already answered and only moves once the partner sends a second, more direct message."),
        ("HL", "hllml", "Wanders off to look at rooms unrelated to the goal and comes back without food, saying they were not sure what to fetch."),
        ("AD", "mhmhh", "Worries the fridge door might have been left open or that an item went in the wrong place, and asks the partner to confirm every step."),
        ("AD", "hmhmh", "Sends several uneasy messages when an item cannot be found, asking whether the task is even possible."),
        ("AD", "lmlhh", "Waits to be told before putting anything in the fridge and apologises repeatedly when the partner has to remind them."),
        ("PL", "hhhmu", "Announces a plan on the first turn, keeps both players busy with clear assignments, and quickly re-plans when an item turns up in an unexpected room."),
        ("PL", "mmhhl", "Encourages the partner with quick praise, assigns them the kitchen while they search the bedroom, and asks for a report every few turns."),
        ("PL", "hhhlm", "Decisive and demanding: tells the partner which container to check next and follows up if they do something different."),
        ("IL", "mhllm", "Fills the fridge alone without telling the partner, so the partner keeps searching for items that are already inside."),
        ("IL", "lmlml", "Ignores messages and keeps to their own search pattern, opening only the containers they consider likely."),
        ("IL", "hmmlu", "Prefers exploring alone and sends only one message at the very end to say they are done."),
    ),
    "32_put_fridge": (
        ("EC", "mhmhm", "Shares the list of missing food every few turns, takes the items closest to them, and asks the partner for help only when both hands are full."),
        ("EC", "hhlhl", "Quiet but reliable: reports each find with its id, sticks to the agreed rooms, and goes straight to the fridge without detours."),
        ("EC", "uhhmm", "Coordinates so that whoever is near the kitchen does the fridge trips while the other keeps searching, and says who is doing what."),
        ("HL", "umlmm", "Spends several turns waiting at the start, then begins searching the room farthest from the fridge."),
        ("HL", "mlmhm", "Accepts every assignment but is slow to complete it, frequently stopping to ask what to do after each small step."),
        ("HL", "llmmu", "Picks up food and then forgets about it, carrying it around for many turns before putting it in the fridge."),
        ("AD", "hhmmh", "Worries about wasting moves and asks the partner whether a cabinet is worth opening before opening it."),
        ("AD", "mmlhh", "Gets flustered when the partner reports finds quickly, and sends apologetic messages about not having found anything yet."),
        ("AD", "lhmhh", "Double-checks the fridge contents after each deposit and asks the partner to confirm the count matches the goal."),
        ("PL", "hhhmm", "Splits the search space in the opening message, names the rooms each will clear, and tallies the fridge contents out loud."),
        ("PL", "mhhhu", "Checks on the partner regularly, offers clear next steps whenever they seem stuck, and hands off fridge trips to balance the work."),
        ("PL", "uhhll", "Gives short, firm instructions and expects the partner to follow without discussion, adjusting only when the goal changes."),
        ("IL", "mhllm", "Goes straight for the items they can see, stores them alone, and does not explain or coordinate at all."),
        ("IL", "lmlll", "Answers the partner's messages with one word and keeps their own slow but steady routine."),
        ("IL", "hmmlm", "Tries an unusual search order alone and refuses to follow the partner's room assignments."),
    ),
    "40_setup_table": (
        ("EC", "hhmhl", "Suggests that one player brings plates and the other glasses and forks, reports each placement, and fills any gap the partner leaves."),
        ("EC", "mhhhm", "Keeps a running tally of what is on the kitchen table and tells the partner exactly which utensil is still missing."),
        ("EC", "uhlmu", "Moves efficiently with two items per trip and speaks up only to announce finds or to avoid collecting the same glass twice."),
        ("HL", "mlmmm", "Sets one plate on the table, then waits several turns before deciding what to fetch next."),
        ("HL", "ulmhm", "Follows the partner's suggestions but often asks them to repeat which utensils are needed."),
        ("HL", "hllmu", "Gets sidetracked by unrelated objects and leaves the forks in the kitchen while the partner waits at the table."),
        ("AD", "mhmhh", "Worries that the table needs an exact arrangement and asks the partner after every placement whether it looks right."),
        ("AD", "hmhmh", "Sends nervous messages when the count is short and wants to recheck every cabinet in the kitchen."),
        ("AD", "lmlhh", "Waits for the partner's go-ahead before grabbing each glass, afraid of taking one the partner already claimed."),
        ("PL", "hhhmu", "Takes charge immediately: assigns plates and glasses, sets a target of a few turns, and checks progress often."),
        ("PL", "mhhhl", "Walks the partner through each next step, encourages them, and takes on the hardest-to-find utensils personally."),
        ("PL", "hmhll", "Directs the partner with firm commands and reorganises the plan abruptly when a faster route occurs to them."),
        ("IL", "mhllm", "Sets the whole table alone if they can, sending no messages and not waiting for the partner."),
        ("IL", "lmlml", "Sticks to fetching plates in their own order, ignoring requests to bring glasses instead."),
        ("IL", "hmmlu", "Explores the apartment alone for utensils and announces only a final summary."),
    ),
    "49_setup_table": (
        ("EC", "mhmhl", "Confirms in the first turns who collects what, sends a short update after each trip, and picks up the partner's remaining items once their own are done."),
        ("EC", "hhhhm", "Encouraging and organised: praises the partner's finds, shares the ids of items they spotted, and keeps both players from visiting the same cabinet."),
        ("EC", "uhmmu", "Pays close attention to the goal counts and corrects a mistake calmly when the partner brings the wrong item."),
        ("HL", "mlmhm", "Starts late and works slowly, usually waiting for the partner's instruction before each trip to the table."),
        ("HL", "ullmu", "Picks up one utensil, pauses to ask whether it is right, and often forgets to place it."),
        ("HL", "lllmm", "Revisits the same kitchen cabinet several times and rarely answers messages with anything useful."),
        ("AD", "hhmhh", "Asks repeatedly whether the utensils they found are the right ones and waits for reassurance before placing them."),
        ("AD", "mmhmh", "Becomes anxious when the partner goes quiet and sends several messages in a row asking whether something is wrong."),
        ("AD", "umlhh", "Rechecks the table after every placement and apologises for any delay, even when there is none."),
        ("PL", "hhhmm", "Opens with a split of the apartment and a delivery order, keeps everyone updated, and adjusts quickly when items are found early."),
        ("PL", "mhhhu", "Asks the partner for status regularly, suggests the next room for them, and takes over any job that stalls."),
        ("PL", "hmhlm", "Gives many directions in quick succession and expects the partner to adapt to their pace."),
        ("IL", "mhllm", "Gathers and places items alone without messaging, even when the partner asks for coordination."),
        ("IL", "lmlll", "Ignores the agreed plan and picks items in their own preferred order."),
        ("IL", "hmmlu", "Prefers to work separately and answers offers of help with a polite refusal."),
    ),
}

# Held-out sources for the training set: drawn from test scenarios, never evaluated. Each describes
# only the type-defining habits, so perturbing the other traits adds rather than contradicts.
HELDOUT: tuple[HeldoutRow, ...] = (
    ("0_read_book", "EC", "hhmhl", "Splits the rooms with the partner in the first message and then works through their half methodically, reporting every goal object they find with its room."),
    ("10_put_dishwasher", "EC", "mhlhu", "Says little, but every message carries a concrete update, and they switch to whatever subgoal the partner has not started yet."),
    ("20_prepare_food", "EC", "uhhmm", "Confirms the goal counts with the partner at the start and keeps a shared list of remaining objects up to date as items are placed."),
    ("30_put_fridge", "HL", "mlmmu", "Waits for the partner to make the first move and then takes several turns to act on each suggestion."),
    ("40_setup_table", "HL", "ullhm", "Often stands still between actions, holding items longer than needed, and only moves on after a nudge from the partner."),
    ("5_read_book", "HL", "hlmmm", "Starts searches without finishing them, returning to rooms already explored and asking the partner what is left to do."),
    ("16_put_dishwasher", "AD", "mhmhh", "Asks the partner to confirm before every put action and worries aloud when a search comes up empty."),
    ("26_prepare_food", "AD", "umlmh", "Second-guesses their own finds, reopens containers to double-check, and apologises for being slow."),
    ("32_put_fridge", "AD", "hlhuh", "Sends a worried message after each setback and asks the partner whether they should start over."),
    ("49_setup_table", "PL", "hhhmm", "Lays out a plan of who searches where in the opening turn and keeps asking for short status reports to adjust it."),
    ("0_read_book", "PL", "mmhhu", "Takes the initiative, tells the partner which room to clear next, and cheers when a subgoal is done."),
    ("10_put_dishwasher", "PL", "uhhlm", "Gives firm step-by-step instructions and expects the partner to follow them without discussion."),
    ("20_prepare_food", "IL", "mhllm", "Works alone on their own route, collects goal objects without announcing them, and rarely answers messages."),
    ("30_put_fridge", "IL", "lmmlu", "Declines offers of help and prefers to finish subgoals by themselves, even when the partner is closer."),
    ("40_setup_table", "IL", "hulml", "Explores wherever they like without coordinating and shares a summary only at the very end."),
)
# fmt: on

# (trait, new level) -> habits a player at that level shows, as verb phrases after "they"
# fmt: off
PHRASES: dict[tuple[str, str], tuple[str, ...]] = {
    ("openness", "high"): (
        "wander into unexplored rooms before finishing the current one, curious about what is there",
        "try unlikely containers such as the bathroom cabinet on a hunch",
        "suggest a new way to divide the search whenever the first plan stalls",
    ),
    ("openness", "medium"): (
        "look into an unusual room now and then but mostly keep to the obvious places",
        "give a partner's new idea one try before going back to their own route",
    ),
    ("openness", "low"): (
        "search the rooms in the same order every time and wave off suggestions to change it",
        "open only the containers where such objects usually live",
    ),
    ("conscientiousness", "high"): (
        "close each container after checking it and keep a running list of what is where",
        "reread the goal before every put action to make sure the counts are right",
    ),
    ("conscientiousness", "medium"): (
        "keep track of most finds but sometimes reopen a container they already checked",
        "finish most subgoals they start, though an item occasionally ends up left in another room",
    ),
    ("conscientiousness", "low"): (
        "drop half-done searches to chase something else and forget which cabinets they opened",
        "pick up objects that are not in the goal and carry them around for a while",
    ),
    ("extraversion", "high"): (
        "post a message almost every turn, narrating each room they walk into",
        "chat about plans with the partner even when nothing has changed",
    ),
    ("extraversion", "medium"): (
        "send a message when they find something or finish a subgoal and otherwise stay quiet",
        "answer questions promptly but seldom start a conversation",
    ),
    ("extraversion", "low"): (
        "go many turns without a message and answer questions in a word or two",
        "speak up only when they are completely stuck",
    ),
    ("agreeableness", "high"): (
        "change course as soon as the partner asks and thank them for every update",
        "offer to carry the partner's spare item to the goal spot",
    ),
    ("agreeableness", "medium"): (
        "follow reasonable requests but say so when they think their own route is faster",
        "go along with most suggestions after a short question about why",
    ),
    ("agreeableness", "low"): (
        "brush off requests that clash with their own plan, sometimes curtly",
        "grab objects the partner has already announced they are fetching",
    ),
    ("neuroticism", "high"): (
        "ask for confirmation before putting anything away, worried it might be wrong",
        "send uneasy messages when a room turns up empty, asking whether something was missed",
    ),
    ("neuroticism", "medium"): (
        "get a little tense when the episode runs long and ask for a quick progress check",
        "reopen a container once if a search comes up empty",
    ),
    ("neuroticism", "low"): (
        "stay relaxed when a search fails and simply move on to the next room",
        "shrug off their own mistakes and keep an easy tone in messages",
    ),
}
# fmt: on
