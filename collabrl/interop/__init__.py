"""collabrl's games as standard environments for other trainers: an OpenEnv environment server
(:mod:`collabrl.interop.openenv`), a TRL ``environment_factory`` class (:mod:`collabrl.interop.trl`)
and a verifiers environment (:mod:`collabrl.interop.verifiers`), all over one episode session
(:mod:`collabrl.interop.session`) that plays and scores as collabrl's trainer does."""
