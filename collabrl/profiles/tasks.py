"""Which tasks each game has and which split they belong to, so profiles cannot leak across
splits."""

from __future__ import annotations

from collabrl.envs.registry import Split


def check_task(game: str, task: str, split: Split) -> None:
    """Raise ValueError unless ``task`` exists in ``game`` and may hold ``split`` profiles.

    A game's split lists say which tasks hold which profiles: household test tasks are unseen in
    training, so they hold only test profiles and the training tasks only train profiles;
    kitchen layouts hold both (as in CollabBench).
    """
    from collabrl.envs.registry import get_game
    from collabrl.errors import CollabrlError

    try:
        section = get_game(game)
    except CollabrlError as exc:
        raise ValueError(str(exc)) from None
    if task not in section.all_tasks():
        raise ValueError(f"unknown {game} task {task!r}")
    if task not in section.tasks(split):
        other = "test" if split == "train" else "train"
        raise ValueError(f"task {task} is a {other} task but split is {split!r}")
