"""User studies as one file: pages, conditions, counterbalancing, questionnaire, matchmaking,
export, report and in-silico pretests (``collabrl study ...``).

Sub-packages by layer, each importing only those below it: ``spec`` (the study file), ``store``
(its database), ``results`` (export, report), ``live`` (the running study), ``pretest`` and
``server``; ``cli`` on top.
"""
