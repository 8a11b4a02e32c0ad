"""Sandboxed custom components: a study's own HTML page, run in an iframe that cannot break
the study page.

An ``embed`` page shows the file ``html`` (next to the study file) in an iframe with
``sandbox="allow-scripts"``: an opaque origin, so its scripts cannot read the study page, its
cookies or its token, nor navigate it. It is served with its own content security policy
(inline scripts and styles, nothing fetched from anywhere). It talks to the study page only
through ``postMessage``, by the small API that collabrl adds to the top of the page::

    collabrl.state()              // the readable state variables ({name: value})
    collabrl.onState(fn)          // fn(state) now and after each change
    collabrl.set(name, value)     // write a variable of the page's ``writes``
    collabrl.emit(name, data)     // record an event (component_event; data: JSON, < 2000 chars)
    collabrl.done()               // the participant goes on to the next page

Every ``set`` is a ``state`` event (refused when the variable is not in ``writes`` or the value
does not fit its type), every ``emit`` a ``component_event`` and every ``done`` the page's
submission: the export holds them all (``page_events.csv``, ``events.jsonl``).
"""

from __future__ import annotations

from pathlib import Path

from collabrl.errors import RecipeError
from collabrl.study.spec.components import inside
from collabrl.study.spec.schema import EmbedPage, Study

API = """<script>
"use strict";
(() => {
  let current = {};
  const listeners = [];
  const post = (message) => parent.postMessage({ collabrl: 1, ...message }, "*");
  addEventListener("message", (event) => {
    if (event.source !== parent || !event.data || event.data.collabrl !== 1) return;
    if (event.data.op === "state") {
      current = event.data.state || {};
      for (const fn of listeners) fn(current);
    }
  });
  window.collabrl = Object.freeze({
    state: () => current,
    onState: (fn) => { listeners.push(fn); fn(current); },
    set: (name, value) => post({ op: "set", name, value }),
    emit: (name, data) => post({ op: "emit", name, data: data === undefined ? null : data }),
    done: () => post({ op: "done" }),
  });
  post({ op: "ready" });
})();
</script>
"""
"""The API collabrl puts at the top of a sandboxed component's page."""

EMBED_POLICY = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'; "
    "sandbox allow-scripts"
)
"""The content security policy a component's page is served with (it is sandboxed even when
opened on its own)."""

MAX_EVENT_CHARS = 2000
"""The longest JSON an emitted event (or a written value) may carry."""


def embed_html(page: EmbedPage, folder: Path | None) -> str:
    """The component page of ``page`` with the API at its top; raises RecipeError."""
    if folder is None:
        raise RecipeError(f"page {page.id}: a component needs a study file in a folder")
    text = inside(folder, page.html, f"page {page.id} html").read_text(encoding="utf-8")
    return API + text


def check_embeds(study: Study, folder: Path | None) -> None:
    """Each embed page's file exists next to the study and its reads and writes are
    participant state variables; raises RecipeError (one line)."""
    for page in study.pages:
        if not isinstance(page, EmbedPage):
            continue
        embed_html(page, folder)
        for name in [*page.reads, *page.writes]:
            var = study.state.get(name)
            if var is None or var.scope != "participant":
                raise RecipeError(
                    f"page {page.id}: {name!r} (reads/writes) is no participant state variable"
                )
