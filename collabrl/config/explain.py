"""``collabrl lint --explain``: the resolved recipe as YAML with each key's one-line doc.

The docs are the docstring lines under each field of the section classes (pydantic keeps them as
field descriptions), so the printed explanation and the code cannot drift apart.
"""

from __future__ import annotations

from typing import Any

import yaml
from pydantic import BaseModel


def _scalar(value: Any) -> str:
    """One YAML value on one line (flow style for lists and mappings)."""
    return (
        yaml.safe_dump(value, default_flow_style=True, width=10**6)
        .strip()
        .removesuffix("...")
        .strip()
    )


def _doc(model: BaseModel, name: str) -> str:
    description = type(model).model_fields[name].description
    return f"  # {' '.join(description.split())}" if description else ""


def explain(model: BaseModel, indent: int = 0) -> list[str]:
    """Lines of ``key: value  # doc`` for every field of ``model``, sections nested."""
    pad = " " * indent
    data = model.model_dump(mode="json")
    lines = []
    for name in type(model).model_fields:
        value = getattr(model, name)
        if isinstance(value, BaseModel):
            lines += [f"{pad}{name}:{_doc(model, name)}", *explain(value, indent + 2)]
        elif isinstance(value, list) and value and all(isinstance(v, BaseModel) for v in value):
            lines.append(f"{pad}{name}:{_doc(model, name)}")
            for item in value:
                first, *rest = explain(item, indent + 4)
                lines += [f"{pad}  - {first.lstrip()}", *rest]
        else:
            lines.append(f"{pad}{name}: {_scalar(data[name])}{_doc(model, name)}")
    return lines


def explain_recipe(recipe: BaseModel) -> str:
    """The recipe, resolved, one key per line with its doc (loads back as the same YAML)."""
    return "\n".join(explain(recipe)) + "\n"


def undocumented(model: type[BaseModel], prefix: str = "") -> list[str]:
    """Keys of ``model`` (and of the sections it nests) that have no doc line."""
    missing = []
    for name, field in model.model_fields.items():
        key = f"{prefix}{name}"
        if not field.description:
            missing.append(key)
        annotation = field.annotation
        for candidate in (annotation, *getattr(annotation, "__args__", ())):
            inner = getattr(candidate, "__args__", ())
            for sub in (candidate, *inner):
                if isinstance(sub, type) and issubclass(sub, BaseModel):
                    missing += undocumented(sub, f"{key}.")
    return sorted(set(missing))
