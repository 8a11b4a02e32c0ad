"""User studies as one file: pages, conditions, counterbalancing, questionnaire, matchmaking,
export, report and in-silico pretests (``collabrl study ...``)."""
