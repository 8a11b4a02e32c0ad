"use strict";
// Data-quality signals of a study page, for spotting a participant who hands the task to an
// AI: a paste into a text field (how many characters, never the text), the page losing focus
// (another window or tab) and coming back, and per text field how long and how many keys the
// typing took. Each is a recorded-only event (study.js's record()); the server stores it as a
// quality_event and the export lists it in page_events.csv.

const typing = new Map(); // field -> { first, last, keys }: keystrokes since its last report
let leftAt = null; // ms timestamp when the page lost focus (null: it has focus)

function textTarget(node) {
  if (!(node instanceof Element)) return null;
  if (node.matches("textarea, input[type=text], input[type=number], input:not([type]), [contenteditable]")) return node;
  return null;
}

// The question id of a survey field, else the element's test id or id.
function fieldName(node) {
  const box = node.closest("[data-field]");
  return (box && box.dataset.field) || node.dataset.testid || node.id || node.tagName.toLowerCase();
}

document.addEventListener("paste", (event) => {
  const node = textTarget(event.target);
  if (!node) return;
  const text = event.clipboardData ? event.clipboardData.getData("text") : "";
  record({ kind: "quality", name: "paste", data: { field: fieldName(node), chars: text.length } });
}, true);

document.addEventListener("keydown", (event) => {
  const node = textTarget(event.target);
  if (!node) return;
  const field = fieldName(node);
  const now = Date.now();
  const seen = typing.get(field) || { first: now, last: now, keys: 0 };
  seen.last = now;
  seen.keys += 1;
  typing.set(field, seen);
}, true);

// A field's typing is reported when the field loses focus (and before the page is sent).
function reportTyping(field) {
  const seen = typing.get(field);
  if (!seen) return;
  typing.delete(field);
  record({ kind: "quality", name: "typing", data: { field, keys: seen.keys, ms: seen.last - seen.first } });
}

document.addEventListener("focusout", (event) => {
  const node = textTarget(event.target);
  if (node) reportTyping(fieldName(node));
}, true);

function lostFocus(how) {
  if (leftAt !== null) return;
  leftAt = Date.now();
  for (const field of [...typing.keys()]) reportTyping(field);
  record({ kind: "quality", name: "focus_lost", data: { how } });
}

function regainedFocus() {
  if (leftAt === null) return;
  const away = Date.now() - leftAt;
  leftAt = null;
  record({ kind: "quality", name: "focus_back", data: { away_ms: away } });
}

window.addEventListener("blur", () => lostFocus("blur"));
window.addEventListener("focus", regainedFocus);
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "hidden") lostFocus("hidden");
  else regainedFocus();
});
