"""The analysis game's handwritten profile library (our own wording, about data-analysis teamwork).

Same format as :mod:`collabrl.envs.household.profile_source`. Every test task holds one profile
of each player type, so that a per-type figure over the test tasks compares the types on the
same tasks, and ``eval.max_profiles`` (which spreads over the types) still spans them; the test
rows speak of their task's question. Held-out rows describe habits that fit any task, because
their perturbed copies are spread over the training tasks, three per task.
"""

Row = tuple[str, str, str]  # (type code, Big Five code, behaviour)
HeldoutRow = tuple[str, str, str, str]  # (task, type code, Big Five code, behaviour)

ID_PREFIX = "ana"  # profile ids: <prefix>-<task>-<split>-<nn>
# three per training task (48 tasks), of three different types: the held-out sources interleaved
TRAIN_PROFILES: int | None = 144

# fmt: off
TEST: dict[str, tuple[Row, ...]] = {
    "arch-test-01": (
        ("EC", "hhmhl", "Passes on each note about the pollen columns word for word before the lead runs anything, then checks that the peak year in the hypothesis comes from the raw series."),
        ("HL", "mllmm", "Takes several turns looking over the slices table before saying a word, and mentions what they know about the pollen series only after the lead has already started."),
        ("AD", "mhmhh", "Asks twice whether the peak year in the notebook is really the right one and suggests running the peak step again, just in case a column was mixed up."),
        ("PL", "hhhmm", "Opens with a plan: everyone shares their notes, the lead reads the peak off the notebook, and they will check the hypothesis wording before anyone submits."),
        ("IL", "mhllm", "Keeps their notes on the pollen columns to themselves, runs their own peak step in silence and does not comment on the lead's result."),
    ),
    "arch-test-02": (
        ("EC", "mhhhl", "Tells the team at the start how the years in the slices table run, in the exact words of their notes, and confirms when the threshold step gives a year."),
        ("HL", "lmlhu", "Says hello and then waits a long while; their note about the time order of the slices arrives only when the lead asks for it."),
        ("AD", "hmhmh", "Worries aloud that the year where pollen first passes 6.0 might be read from the wrong end of the core and asks the lead to confirm it."),
        ("PL", "mhhml", "Proposes in the first message that notes come first and the threshold step second, and asks each teammate by name what they know about the core."),
        ("IL", "lmlml", "Answers questions with a word or two, never volunteers their note about the slice order, and leaves the lead to find the threshold year alone."),
    ),
    "arch-test-03": (
        ("EC", "uhmhm", "Shares the dating notes on the amber finds promptly and in full, then says clearly that they have nothing more, so the lead can sort the sites."),
        ("HL", "ullhm", "Browses the finds table for several turns and only gets round to sharing one of their two notes after the lead has sorted the sites."),
        ("AD", "lmlhh", "Doubts the earliest site in the notebook, wondering whether a larger year means earlier or later here, and asks the team to look again."),
        ("PL", "hmhhu", "Assigns roles at once (who reads the finds table, who shares the dating notes, who writes the answer) and keeps the team moving toward the earliest site."),
        ("IL", "hmmlu", "Sorts the amber finds on their own without saying how, and ignores a teammate's remark about how the years are counted."),
    ),
    "arch-test-04": (
        ("EC", "hhlhl", "Quotes their note on what counts as the florescence of dagger finds exactly, then leaves the phases table to the lead and watches for the result."),
        ("HL", "hlmmm", "Hesitates for many turns about whether their note on the dagger phases matters, and shares it only after the analysis is under way."),
        ("AD", "uhmhh", "Keeps asking whether the start of the florescence should be the highest phase or the long steady stretch, and wants the step rerun to be sure."),
        ("PL", "mhhhl", "Sets out the steps in the opening message, notes first and the phases table second, and asks the lead for the year as soon as it appears."),
        ("IL", "hhlmm", "Treats the dagger question as their own, reads the phases table alone and does not pass on what they know about the florescence."),
    ),
    "arch-test-05": (
        ("EC", "mhmmm", "Reports which hoards to leave out and how wide the time bins should be, each note in its own message, and then says they are done."),
        ("HL", "mmlml", "Forgets their note about the bin width until late in the game and spends early turns idly looking at the hoards table."),
        ("AD", "mlhmh", "Frets that the hoards were binned the wrong way and asks whether the excluded site was really left out before the count."),
        ("PL", "hhhhm", "Lays out a four-step plan for the hoards at the start (filter, bin, count, pick the top bin) and asks teammates for anything that changes a step."),
        ("IL", "mlmlu", "Bins and counts the hoards in their own way and brushes off a teammate's note about which site to drop."),
    ),
    "arch-test-06": (
        ("EC", "lhhhu", "Shares how the slices are ordered in the first few turns, using the wording of their notes, and thanks the lead when the threshold year comes out."),
        ("HL", "lllhm", "Lingers over the slices table, greets the team late and passes on their note about the dagger series only when reminded."),
        ("AD", "hmlmh", "Worries that the first rise of dagger finds above 1.0 was read from the wrong direction in time and asks for the step to be run again."),
        ("PL", "umhml", "Opens by telling the team who shares which note and who runs the threshold step, then checks that the hypothesis names the right year."),
        ("IL", "llllh", "Does not explain how the years run in the core, and keeps quiet even when the lead's threshold year looks off."),
    ),
    "arch-test-07": (
        ("EC", "hhmml", "Tells the lead the bin width the dating calls for, word for word, and confirms in one short line once the count per bin is in the notebook."),
        ("HL", "umlmh", "Spends the first turns browsing, then sends a greeting and nothing else for a long time; their note on the bins comes late or not at all."),
        ("AD", "mmmhh", "Asks whether the top time bin would change with another bin width and wants the lead to rerun the grouping just to be safe."),
        ("PL", "lhhmm", "Proposes a clear order for the Skarn hoards (notes, then bin, count and pick) and nudges the lead to submit once the hypothesis is filled."),
        ("IL", "uhlml", "Keeps their note on the bin width to themselves and runs their own count without telling anyone."),
    ),
    "arch-test-08": (
        ("EC", "mhlhl", "Shares every note about the copper samples and the periods table right away and confirms the period with the highest mean when it appears."),
        ("HL", "mlmhl", "Says little for many turns and looks at the periods table twice before passing on what they know about the samples."),
        ("AD", "hhlmh", "Keeps asking whether the mean arsenic per period was computed on the right samples and whether the period names match the table."),
        ("PL", "mmhhl", "Plans the join of samples and periods in the first message, asks each teammate for their notes and reminds the lead to write the period in the sentence."),
        ("IL", "mmmll", "Runs the grouping of the copper samples alone and does not comment on the team's steps or answer their questions."),
    ),
    "arch-test-09": (
        ("EC", "uhhmm", "Explains, in the words of their notes, which cereal pollen column to trust, before the lead picks a column for the threshold step."),
        ("HL", "hllmu", "Takes a long time to speak up, and when they do it is about the table's layout rather than the note on the smoothed column."),
        ("AD", "umlhh", "Doubts the year at which cereal pollen first passes 6.0 and asks whether the smoothed or the raw column was used."),
        ("PL", "hhhlm", "Greets everyone with a plan: notes first, then one threshold step on the right column, then the hypothesis, and they will check the sentence."),
        ("IL", "hlllm", "Picks a pollen column without discussion and never mentions their note about how that column was made."),
    ),
    "arch-test-10": (
        ("EC", "hhmhu", "Gives the lead the binning advice from their notes in a single clear message and then steps back, saying they have nothing more."),
        ("HL", "mmllm", "Waits for others to speak, looks through the hoards table several times and shares their note about the bins only after the count is done."),
        ("AD", "lhmmh", "Is uneasy about the bin boundaries and asks whether a hoard on the edge of a bin was counted in the right one."),
        ("PL", "uhhmu", "Takes charge from the first turn, asking the lead to bin the hoards as the notes say and setting a quick pace for the rest."),
        ("IL", "lhmlu", "Works out the busiest time bin on their own and does not share how they binned the hoards."),
    ),
    "arch-test-11": (
        ("EC", "lhmhl", "Passes on how the glass finds are dated in plain words from their notes and points out when the sort gives the latest site."),
        ("HL", "lmmhm", "Greets the team and then drifts through the finds table for several turns before mentioning anything about the dating."),
        ("AD", "mllhh", "Frets that the latest site might really be the earliest one if the years were read the wrong way, and asks for a second look."),
        ("PL", "mhhll", "Opens with who does what for the glass question and keeps asking teammates to speak up if their notes change the sort order."),
        ("IL", "mllmm", "Sorts the glass finds on their own terms and ignores a teammate's note about which way the years run."),
    ),
    "arch-test-12": (
        ("EC", "mhhml", "Shares their note on which rise counts as the start of the hoarding horizon word for word, then waits for the event step."),
        ("HL", "ulmml", "Is slow to join in, and the note about which rise of hoard deposition counts reaches the lead only after several nudges."),
        ("AD", "hmmuh", "Worries that the first short rise above 1.0 is a false start and asks whether the lead picked the right event."),
        ("PL", "hmhmm", "Sets out a plan in the opening message and makes sure the lead hears every note about what counts as the horizon before the event step."),
        ("IL", "uhlll", "Does not say which rise marks the beginning and leaves the lead to guess, answering only when asked directly."),
    ),
    "arch-test-13": (
        ("EC", "hhhhl", "Points out which axe and celt column is the raw series, quoting their note, and confirms the peak year in one line."),
        ("HL", "mllhl", "Says hello and spends a while looking at the columns; their note on the smoothed series comes after the peak step was run."),
        ("AD", "mhhmh", "Asks anxiously whether the peak year of axes and celts came from a smoothed column and would like the step repeated on the raw one."),
        ("PL", "hhhhl", "Lays out the steps for the axe peak at the start and asks each teammate whether their notes change which column to use."),
        ("IL", "mmllh", "Reads the peak off whichever column they like and keeps their note about the series to themselves."),
    ),
    "arch-test-14": (
        ("EC", "hhmhl", "Shares what they know about the site records right away and confirms the correlation value once it appears in the notebook."),
        ("HL", "mllmm", "Looks over the sites table for a long time and mentions their notes only near the end, after the correlation is in."),
        ("AD", "mhmhh", "Doubts that the correlation between amber finds and monuments is as strong as the notebook says and asks for it to be run again."),
        ("PL", "hhhmm", "Plans a one-step analysis in the first message, asks for notes before anyone runs it, and reminds the lead to put the value in the relation."),
        ("IL", "mhllm", "Runs the correlation on their own without comment and does not react to the team's messages."),
    ),
    "arch-test-15": (
        ("EC", "mhhhl", "Tells the team which rise of axes and celts marks the start of the trade, in their notes' own words, and then says they have nothing more."),
        ("HL", "lmlhu", "Waits for a long time before sharing anything, and then shares the less useful of their two notes first."),
        ("AD", "hmhmh", "Keeps asking whether the axe trade begins at the first rise above 1.0 or the later one, and wants the lead to check."),
        ("PL", "mhhml", "Greets the team with a plan for the event step and asks teammates by name whether their notes say which rise to take."),
        ("IL", "lmlml", "Takes the first rise they see as the start of the axe trade and ignores a note suggesting otherwise."),
    ),
    "arch-test-16": (
        ("EC", "uhmhm", "Reports their note on the time bins quickly and exactly, adds nothing unnecessary, and lets the lead do the counting."),
        ("HL", "ullhm", "Gets distracted by the hoards table for several turns; the note about bin width arrives after the lead has already grouped."),
        ("AD", "lmlhh", "Asks whether the bins were made from the right year column and suggests redoing the grouping to be sure."),
        ("PL", "hmhhu", "Takes the lead from the first message, proposing the order of steps and asking for every note before the binning."),
        ("IL", "hmmlu", "Bins the hoards their own way without a word and does not answer when asked about the bin width."),
    ),
    "arch-test-17": (
        ("EC", "hhlhl", "Quotes their note on what marks the florescence of copper and gold, then confirms the start year when the notebook shows it."),
        ("HL", "hlmmm", "Hesitates about whether their note on the florescence is worth mentioning and lets many turns pass before sharing it."),
        ("AD", "uhmhh", "Worries that the highest phase is not the same as the start of the florescence and asks the lead to compare both readings."),
        ("PL", "mhhhl", "Opens with a division of labour for the metal question and pushes the team to agree on what florescence means before running steps."),
        ("IL", "hhlmm", "Decides on their own which phase starts the florescence and does not explain their reasoning to anyone."),
    ),
    "arch-test-18": (
        ("EC", "mhmmm", "Shares which fall below 0.8 counts as the horizon waning, word for word, and thanks the lead for taking it into account."),
        ("HL", "mmlml", "Stays quiet for most of the early game and mentions their note about the later fall only when the lead is already writing the answer."),
        ("AD", "mlhmh", "Asks nervously whether the horizon wanes at the first dip below 0.8 or at a later one, and wants the step checked."),
        ("PL", "hhhhm", "Starts with a plan for reading the waning of the horizon and keeps the team focused on the note that decides which fall counts."),
        ("IL", "mlmlu", "Keeps their view on the first or second fall to themselves and lets the lead pick either."),
    ),
    "arch-test-19": (
        ("EC", "lhhhu", "Tells the team at once how the faience finds are dated and confirms the earliest site once the sort is in the notebook."),
        ("HL", "lllhm", "Looks at the finds table for several turns and only gets round to the dating note after a reminder."),
        ("AD", "hmlmh", "Worries that the earliest faience site might have been read from the bottom of the sort instead of the top, and asks again."),
        ("PL", "umhml", "Assigns who shares which note about the faience finds in the first message and asks the lead to report the earliest site."),
        ("IL", "llllh", "Sorts the faience finds alone, does not mention how the years run, and ignores questions."),
    ),
    "arch-test-20": (
        ("EC", "hhmml", "Passes on their note on which rise starts the monument-building phase exactly and then stays out of the lead's way."),
        ("HL", "umlmh", "Says a slow hello, watches the notebook for a while and shares their notes about the rise only when asked twice."),
        ("AD", "mmmhh", "Asks more than once whether the first rise above 1.0 really starts the phase or is just noise, and wants the step rerun."),
        ("PL", "lhhmm", "Organises the team from the first turn, asks for notes on the rise, and checks that the hypothesis names the site and the year."),
        ("IL", "uhlml", "Reads the start of monument building on their own and does not share the note that says which rise counts."),
    ),
    "arch-test-21": (
        ("EC", "mhlhl", "Quotes their notes on the florescence of axes and celts without changing a word and confirms the start phase when it appears."),
        ("HL", "mlmhl", "Takes their time, browsing the phases table and forgetting for a while to pass on the note about the florescence."),
        ("AD", "hhlmh", "Is anxious that the peak phase was taken for the start of the florescence and asks the lead to check the steady run instead."),
        ("PL", "mmhhl", "Proposes a plan for the axe and celt phases at the start and keeps asking if anyone holds a note that changes the step."),
        ("IL", "mmmll", "Works out the florescence on their own and shrugs off a teammate's note about it."),
    ),
    "arch-test-22": (
        ("EC", "uhhmm", "Tells the lead which bronze samples to leave out and why, in their notes' words, before any mean is computed."),
        ("HL", "hllmu", "Is slow to engage and mentions their note about the samples to drop only after the means per period are in."),
        ("AD", "umlhh", "Keeps asking whether all the samples in the mean tin content belong in it and suggests filtering again to be sure."),
        ("PL", "hhhlm", "Lays out the filter, join and group steps in the opening message and asks each teammate for notes that change the filter."),
        ("IL", "hlllm", "Averages the tin content over every sample on their own and does not pass on which ones should be left out."),
    ),
    "arch-test-23": (
        ("EC", "hhmhu", "Shares how the slices are ordered and which rise of ribwort plantain counts, each in its own message, then says they are done."),
        ("HL", "mmllm", "Greets late, spends turns looking at the columns and shares only one of their notes about the plantain series."),
        ("AD", "lhmmh", "Worries both about the order of the years and about which rise marks grazing pressure, and asks the lead to confirm each."),
        ("PL", "uhhmu", "Opens with a plan for the plantain question and asks teammates to share the notes on time order and on the rise before any step."),
        ("IL", "lhmlu", "Answers in single words, keeps both of their notes about the plantain series to themselves and leaves the lead to it."),
    ),
    "arch-test-24": (
        ("EC", "lhmhl", "Shares their notes on the copper and gold series promptly, confirms the peak year in one line and then waits."),
        ("HL", "lmmhm", "Takes a while to say anything and spends turns looking at the slices table instead of passing on their notes."),
        ("AD", "mllhh", "Asks whether the peak of copper and gold objects is really in the year the notebook shows and wants to see the step again."),
        ("PL", "mhhll", "Greets the team with a short plan for the peak, asks for notes, and hurries the lead toward submitting."),
        ("IL", "mllmm", "Reads the peak year alone and does not respond to greetings or questions from the team."),
    ),
    "arch-test-25": (
        ("EC", "mhhml", "Points out which hoard deposition column is raw, quoting their note, before the lead runs the peak step."),
        ("HL", "ulmml", "Sends a greeting, then idles for several turns; their note on the smoothed column comes after the peak was read."),
        ("AD", "hmmuh", "Worries that the peak year of hoard deposition is shifted by smoothing and asks the lead to run the raw column too."),
        ("PL", "hmhmm", "Sets the order of work in the first message and asks each teammate whether their notes change which column to read."),
        ("IL", "uhlll", "Reads the peak of hoard deposition from a column of their choosing and keeps their notes to themselves."),
    ),
    "arch-test-26": (
        ("EC", "hhhhl", "Tells the lead in their notes' exact words what counts as the florescence of amber finds and confirms the start year."),
        ("HL", "mllhl", "Dithers about whether their note on the florescence matters, and shares it only after the lead has run the step."),
        ("AD", "mhhmh", "Keeps asking whether the start of the amber florescence is the peak or the long steady run, and asks for a recheck."),
        ("PL", "hhhhl", "Proposes a plan and a definition of florescence in the first message and asks for any note that disagrees."),
        ("IL", "mmllh", "Picks the start of the amber florescence on their own and ignores the team's notes about it."),
    ),
    "arch-test-27": (
        ("EC", "hhmhl", "Shares what they know about the dating of the hoards right away and confirms the count in one short message."),
        ("HL", "mllmm", "Looks over the hoards table several times and shares their notes on the dating only when asked."),
        ("AD", "mhmhh", "Doubts the number of hoards older than 1400 BCE and asks whether undated hoards were left out of the count."),
        ("PL", "hhhmm", "Plans the filter and the count at the start and asks teammates for notes on which hoards are dated."),
        ("IL", "mhllm", "Counts the hoards alone, without mentioning what they know about the dating."),
    ),
    "arch-test-28": (
        ("EC", "mhhhl", "Tells the lead which sites to leave out before the correlation, in their notes' words, and then says they have nothing more."),
        ("HL", "lmlhu", "Spends many turns browsing the sites table and forgets to mention which sites should not be in the correlation."),
        ("AD", "hmhmh", "Asks anxiously whether the correlation between amber and monuments still holds once the excluded sites are dropped."),
        ("PL", "mhhml", "Opens with a plan (filter the sites, then the correlation) and asks each teammate whether a note changes the filter."),
        ("IL", "lmlml", "Computes the correlation over all sites on their own and brushes off a note about which to drop."),
    ),
    "arch-test-29": (
        ("EC", "uhmhm", "Shares how the pottery counts should be compared between phases, quoting their note, and confirms the phase when it appears."),
        ("HL", "ullhm", "Takes their time getting started and mentions their note about the pottery counts only late in the game."),
        ("AD", "lmlhh", "Worries that raw counts of decorated pottery mislead when phases differ in length, and asks the lead to check."),
        ("PL", "hmhhu", "Greets the team with a plan for the pottery question and asks for every note before the lead picks a phase."),
        ("IL", "hmmlu", "Picks the phase with the most decorated pottery on their own and does not share what their notes say about counting."),
    ),
    "arch-test-30": (
        ("EC", "hhlhl", "Tells the lead which assemblages to leave out and how the share is computed, each in its own message, before any grouping."),
        ("HL", "hlmmm", "Looks through the assemblages and phases tables for several turns and shares their notes only after a reminder."),
        ("AD", "uhmhh", "Asks whether every assemblage belongs in the pottery share and wants the filter step run again."),
        ("PL", "mhhhl", "Lays out the filter, join and share steps in the first message and keeps the team to that order."),
        ("IL", "hhlmm", "Computes the pottery share over all assemblages on their own and says nothing about the ones to drop."),
    ),
    "arch-test-31": (
        ("EC", "mhmmm", "Passes on which copper samples should not be averaged, in the words of their notes, and then steps back."),
        ("HL", "mmlml", "Says hello late, browses the samples table and mentions the note about unsuitable samples only after the means are in."),
        ("AD", "mlhmh", "Keeps asking whether the mean arsenic content per period includes samples that should have been dropped."),
        ("PL", "hhhhm", "Opens with a plan for the arsenic question and asks teammates by name for notes on the samples before any step."),
        ("IL", "mlmlu", "Averages the arsenic content alone over whatever samples are there and does not share their note about the filter."),
    ),
    "arch-test-32": (
        ("EC", "lhhhu", "Shares how to compare decorated pottery between phases of different lengths, quoting their note, right at the start."),
        ("HL", "lllhm", "Spends early turns looking at the phases table and shares the note about comparing phases only after prompting."),
        ("AD", "hmlmh", "Worries that the phase with the most decorated pottery is an artefact of phase length and asks for a second look."),
        ("PL", "umhml", "Proposes how to answer the pottery question in the first message and asks for notes on the phases before anyone runs a step."),
        ("IL", "llllh", "Decides on the phase alone from the raw counts and ignores a note about how to compare them."),
    ),
    "arch-test-33": (
        ("EC", "hhmml", "Quotes their note on what the florescence of cereal pollen means and confirms the start year when it appears."),
        ("HL", "umlmh", "Is slow to speak up and passes on their note on the florescence only after the lead has read a year."),
        ("AD", "mmmhh", "Asks whether the florescence of cereal pollen begins at the peak or at the start of the steady run, and wants a recheck."),
        ("PL", "lhhmm", "Starts with a plan and a shared definition of florescence and asks teammates to correct it if their notes disagree."),
        ("IL", "uhlml", "Reads the start of the cereal florescence on their own and does not share their note about it."),
    ),
    "arch-test-34": (
        ("EC", "mhlhl", "Tells the lead which grain samples to leave out, in their notes' words, and confirms the period with the highest mean."),
        ("HL", "mlmhl", "Lingers over the samples table and mentions which samples to drop only once the means per period have been computed."),
        ("AD", "hhlmh", "Doubts the period with the highest charred grain density and asks whether the filter was applied before the mean."),
        ("PL", "mmhhl", "Plans the filter, join and mean in the opening message and asks each teammate for anything that changes the filter."),
        ("IL", "mmmll", "Computes the mean grain density alone over all samples and keeps their note about the filter to themselves."),
    ),
    "arch-test-35": (
        ("EC", "uhhmm", "Shares both the sample filter and the meaning of florescence from their notes, one message each, then says they are done."),
        ("HL", "hllmu", "Takes many turns to share anything, and the note about which samples to leave out comes after the filter was run."),
        ("AD", "umlhh", "Worries about both the samples in the mean and the reading of the florescence, and asks the lead to confirm each step."),
        ("PL", "hhhlm", "Opens with a three-step plan for the grain question and makes sure every note is heard before the first step."),
        ("IL", "hlllm", "Runs the grain analysis their own way and ignores the team's notes about the filter and the florescence."),
    ),
    "arch-test-36": (
        ("EC", "hhmhu", "Tells the team which fall of hoard deposition counts as the waning, in the words of their notes, and confirms the year."),
        ("HL", "mmllm", "Says little for a long time and mentions their note about the later fall only when the lead is about to submit."),
        ("AD", "lhmmh", "Asks anxiously whether the horizon wanes at the first fall below 0.8 and wants the event step checked."),
        ("PL", "uhhmu", "Proposes a plan for the waning question at the start and asks for any note on which fall to take before the event step."),
        ("IL", "lhmlu", "Does not mention which fall counts and leaves the lead to choose, replying to questions with a shrug."),
    ),
    "arch-test-37": (
        ("EC", "lhmhl", "Shares how the slices are ordered and which amber column to trust, each note verbatim, before the threshold step."),
        ("HL", "lmmhm", "Greets late, looks through the columns twice and shares only one of their notes about the amber series."),
        ("AD", "mllhh", "Worries about the direction of time and about the smoothed column, and asks the lead to rerun the threshold step."),
        ("PL", "mhhll", "Opens with a plan for the amber threshold and asks each teammate for notes on the time order and the columns."),
        ("IL", "mllmm", "Keeps both notes about the amber series to themselves and runs their own threshold step in silence."),
    ),
    "arch-test-38": (
        ("EC", "mhhml", "Points out which sickle column is raw, quoting their note, and confirms the threshold year in one short line."),
        ("HL", "ulmml", "Idles for several turns looking at the slices table and shares the note on the smoothed column only after the step was run."),
        ("AD", "hmmuh", "Asks whether the year when sickle finds first pass 1.0 came from the smoothed column and wants to check it."),
        ("PL", "hmhmm", "Sets out the steps for the sickle question in the first message and reminds the lead to read the raw column."),
        ("IL", "uhlll", "Picks a sickle column without asking anyone and does not share their note about how it was made."),
    ),
}

HELDOUT: tuple[HeldoutRow, ...] = (
    ("arch-test-01", "EC", "hhmhl", "Shares every note word for word in the first few turns, says plainly when they have nothing more, and checks the hypothesis against the query before it is submitted."),
    ("arch-test-08", "EC", "mhlhu", "Speaks little, but each message carries a note or a result, and they take up a teammate's correction at once."),
    ("arch-test-15", "EC", "uhhmm", "Reads the query back to the team at the start and keeps track of which notes have already been shared."),
    ("arch-test-22", "HL", "mlmmu", "Often lets turns pass without doing anything useful and shares notes only when someone asks for them."),
    ("arch-test-29", "HL", "ullhm", "Browses the tables again and again instead of passing on what they know, and needs a nudge for every step."),
    ("arch-test-36", "HL", "hlmmm", "Starts telling a note, drifts off to look at a table, and finishes the thought many turns later."),
    ("arch-test-03", "AD", "mhmhh", "Questions each new result in the notebook and asks the team whether the right column was used."),
    ("arch-test-10", "AD", "umlmh", "Reruns steps whose results look surprising and asks for reassurance before the hypothesis is submitted."),
    ("arch-test-17", "AD", "hlhuh", "Sends a worried message whenever a number changes and asks whether they should start the analysis over."),
    ("arch-test-24", "PL", "hhhmm", "Opens with a plan for who shares notes and who runs the notebook, and asks for status when the team goes quiet."),
    ("arch-test-31", "PL", "mmhhu", "Takes the initiative, tells teammates what to share next, and celebrates each result that lands in the notebook."),
    ("arch-test-38", "PL", "uhhlm", "Gives firm step-by-step directions for the analysis and expects teammates to follow them without discussion."),
    ("arch-test-05", "IL", "mhllm", "Works through the notebook alone without announcing anything and rarely answers messages."),
    ("arch-test-12", "IL", "lmmlu", "Declines teammates' suggestions and keeps to their own reading of the tables even when a note says otherwise."),
    ("arch-test-19", "IL", "hulml", "Follows their own line of analysis and mentions what they know only at the very end, if at all."),
)
# fmt: on

# (trait, new level) -> habits a player at that level shows, as verb phrases after "they"
# fmt: off
PHRASES: dict[tuple[str, str], tuple[str, ...]] = {
    ("openness", "high"): (
        "look at every table and its column descriptions before the first step",
        "suggest trying another operation when a result looks surprising",
    ),
    ("openness", "medium"): (
        "glance at a table when a teammate mentions it, then get back to the notebook",
        "try a teammate's alternative step once before returning to their own",
    ),
    ("openness", "low"): (
        "stick to the first step that comes to mind and rarely look at the tables",
        "repeat the same kind of operation for every question",
    ),
    ("conscientiousness", "high"): (
        "check that every hypothesis field is filled before anyone submits",
        "keep track of which notes the team has already heard",
    ),
    ("conscientiousness", "medium"): (
        "mostly keep to the plan but sometimes forget a note until it is late",
        "now and then write the relation before the result is in the notebook",
    ),
    ("conscientiousness", "low"): (
        "lose track of which steps have already been run",
        "sometimes try an action the notebook does not offer",
    ),
    ("extraversion", "high"): (
        "comment on almost every new cell in the notebook",
        "greet everyone warmly and keep the chat going between steps",
    ),
    ("extraversion", "medium"): (
        "speak up when a note matters or a result comes in, and otherwise work",
        "reply quickly to questions but rarely start a conversation",
    ),
    ("extraversion", "low"): (
        "go many turns without a message and answer in a word or two",
        "share a note only when someone asks for it",
    ),
    ("agreeableness", "high"): (
        "take up a teammate's note at once and thank them for it",
        "change a step as soon as a teammate points out a problem",
    ),
    ("agreeableness", "medium"): (
        "accept most suggestions after a short question about them",
        "push back on a note when they think their own reading is better",
    ),
    ("agreeableness", "low"): (
        "ignore notes that do not fit the analysis they had in mind",
        "brush off a teammate's correction without trying it",
    ),
    ("neuroticism", "high"): (
        "ask for reassurance whenever a number in the notebook looks unexpected",
        "worry aloud that the hypothesis will score badly",
    ),
    ("neuroticism", "medium"): (
        "grow a little tense as the clock runs down and ask for a quick check",
        "hesitate for a moment after a failed step before trying again",
    ),
    ("neuroticism", "low"): (
        "stay calm when a step fails and simply fix it",
        "keep an even tone even when the team disagrees about a result",
    ),
}
# fmt: on
