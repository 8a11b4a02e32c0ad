"""``collabrl hub push``: share a checkpoint (model card) or an evaluation or study export
(dataset card) on the Hugging Face Hub::

    collabrl hub push runs/gigpo/checkpoints/iter_000100 --repo me/collabrl-gigpo --eval runs/eval
    collabrl hub push runs/eval --repo me/collabrl-eval --dry-run --out /tmp/staged

The token comes from ``HF_TOKEN`` only and is never printed or written; ``--dry-run`` writes
exactly the files a push would upload (:mod:`collabrl.report.hub`) and contacts nothing.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import click

from collabrl.errors import CollabrlError


@click.group("hub")
def hub() -> None:
    """Share checkpoints, evaluations and study exports on the Hugging Face Hub."""


@hub.command("push")
@click.argument("path", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--repo", required=True, help="The Hub repository, OWNER/NAME.")
@click.option(
    "--eval",
    "evals",
    multiple=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="An evaluation of the checkpoint, summarised in its model card (repeatable).",
)
@click.option("--private", is_flag=True, help="Create the repository private.")
@click.option("--dry-run", is_flag=True, help="Write the files to --out instead of uploading.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None)
def push_command(
    path: Path, repo: str, evals: tuple[Path, ...], private: bool, dry_run: bool, out: Path | None
) -> None:
    """Upload PATH (a checkpoint folder, an evaluation folder or a study export) with its card."""
    from collabrl.report.hub import stage_checkpoint, stage_export

    checkpoint = (path / "trainer_state.json").is_file()
    if evals and not checkpoint:
        raise click.UsageError("--eval describes a checkpoint; PATH is an export")
    if dry_run != (out is not None):
        raise click.UsageError("--dry-run and --out go together")

    def stage(into: Path) -> list[str]:
        return stage_checkpoint(path, evals, into) if checkpoint else stage_export(path, into)

    if out is not None:
        if out.exists() and any(out.iterdir()):
            raise CollabrlError(f"{out} is not empty; --out needs a new or empty folder")
        names = stage(out)
        click.echo(f"dry run: wrote the {len(names)} files a push to {repo} would upload to {out}")
        return
    token = os.environ.get("HF_TOKEN")
    if not token:
        raise CollabrlError("set HF_TOKEN to a Hugging Face write token to push (or --dry-run)")
    with tempfile.TemporaryDirectory() as staging:
        names = stage(Path(staging))
        url = upload(Path(staging), repo, "model" if checkpoint else "dataset", token, private)
    click.echo(f"pushed {len(names)} files to {url}")


def upload(folder: Path, repo: str, repo_type: str, token: str, private: bool) -> str:
    """Create ``repo`` if needed and upload ``folder`` as one commit; the repository's URL. Hub
    and network failures are one error that never shows the token."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled

    api = HfApi(token=token)
    try:
        url = api.create_repo(repo, repo_type=repo_type, private=private, exist_ok=True)
        api.upload_folder(
            folder_path=folder,
            repo_id=repo,
            repo_type=repo_type,
            commit_message="collabrl hub push",
        )
    except OfflineModeIsEnabled:
        raise CollabrlError("HF_HUB_OFFLINE is set: unset it to push, or use --dry-run") from None
    except (HfHubHTTPError, OSError) as err:
        text = str(err).replace(token, "***").splitlines()[0]
        raise CollabrlError(f"push to {repo} failed: {text}") from None
    return str(url)
