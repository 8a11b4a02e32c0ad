"""The analysis game's task generator (``scripts/make_analysis_tasks.py`` runs it), one job a module.

Every task is synthetic archaeology (invented regions, sites and numbers, shaped like
DiscoveryBench's archaeology data: time slices in years BCE, z-values of artefact classes,
pollen shares, per-sample measurements). Each family is built around its traps, and the data are
drawn until the reference workflow, run in the analysis language, gives the answer the family
designed while every trap's naive step, and every combination of them, gives another relation.
Trap-free tasks (family "plain") are there for comparison: their notes speed an analyst up but
cannot change the answer.

Modules, from the bottom: ``vocabulary`` (regions, sites, measures, their scales and note texts),
``draft`` (a task before its name), ``pieces`` (tables, notes, steps, traps, small statistics),
``series`` (the shapes of a time series), ``site_tables`` (site and hoard tables, bins),
``shared`` (pieces several families share); one module per family or two alike
(``rises_and_peaks``, ``bce``, ``smoothing``, ``filters``, ``bins``, ``combos``, ``plain``);
``plan`` (how many tasks of each family and variant); ``checking`` (run the workflow and the
traps in the analysis language, redraw until the design holds, build the whole set).
"""
