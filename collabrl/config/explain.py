"""``collabrl lint --explain``: the resolved recipe as YAML with each key's one-line doc.

The docs are the docstring lines under each field of the section classes (pydantic keeps them as
field descriptions), so the printed explanation and the code cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import to_jsonable_python


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


def fields(model: type[BaseModel], prefix: str = "") -> Iterator[tuple[str, FieldInfo]]:
    """Every key of ``model`` and of the sections it nests (a list of sections by its own key),
    depth first, with its field: the one walk that the doc check and the settings reference share.
    """
    for name, field in model.model_fields.items():
        key = f"{prefix}{name}"
        yield key, field
        annotation = field.annotation
        nested: dict[type[BaseModel], None] = {}  # each section class once, in order
        for candidate in (annotation, *getattr(annotation, "__args__", ())):
            inner = getattr(candidate, "__args__", ())
            for sub in (candidate, *inner):
                if isinstance(sub, type) and issubclass(sub, BaseModel):
                    nested[sub] = None
        for section in nested:
            yield from fields(section, f"{key}.")


def undocumented(model: type[BaseModel], prefix: str = "") -> list[str]:
    """Keys of ``model`` (and of the sections it nests) that have no doc line."""
    return sorted({key for key, field in fields(model, prefix) if not field.description})


def default_text(field: FieldInfo) -> str:
    """A field's default as one YAML value; empty for a required key or a nested section."""
    if field.is_required():
        return ""
    default = field.get_default(call_default_factory=True)
    if isinstance(default, BaseModel):
        return ""
    return _scalar(to_jsonable_python(default))


def reference_rows(model: type[BaseModel], prefix: str = "") -> list[tuple[str, str, str]]:
    """(key, default, doc) for every key of ``model``, as the settings reference prints them."""
    rows: dict[str, tuple[str, str, str]] = {}  # a key two sections of a union share: once
    for key, field in fields(model, prefix):
        rows.setdefault(
            key, (key, default_text(field), " ".join((field.description or "").split()))
        )
    return list(rows.values())
