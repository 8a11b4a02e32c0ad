"use strict";
// Chat rooms and shared documents on the study page (loaded before study.js, which calls
// buildRoom on a new page and updateRoom on every push). Everything people and agents wrote is
// set as text. A document keeps the participant's draft while others save: a save names the
// version it was written on, and a stale one comes back refused with the current text.

const roomState = { draft: null, base: null, dirty: false, sent: "" };

function roomNode(tag, text, attrs) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  return node;
}

function roomButton(parent, label, testid, onclick) {
  const b = roomNode("button", label, { type: "button", "data-testid": testid });
  b.addEventListener("click", onclick);
  parent.appendChild(b);
  return b;
}

function buildRoom(msg, form, send) {
  const box = roomNode("div", null, { class: "room", "data-testid": "room", "data-room": msg.room });
  if (msg.kind_of_room === "chat") {
    box.appendChild(roomNode("ol", null, { class: "chat-log", "data-testid": "chat-log", "aria-live": "polite" }));
    box.appendChild(roomNode("p", "", { class: "note", "data-testid": "chat-pending" }));
    const input = roomNode("textarea", null, { id: "chat-input", rows: "2", maxlength: String(msg.max_chars), "data-testid": "chat-input", "aria-label": "your message" });
    input.addEventListener("keydown", (event) => { if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); sendChat(send); } });
    box.appendChild(input);
    roomButton(box, "Send", "chat-send", () => sendChat(send));
    if (msg.workspace) box.appendChild(buildWorkspace(msg.workspace, send));
  } else {
    roomState.dirty = false; roomState.base = null;
    box.appendChild(roomNode("p", "", { class: "note", "data-testid": "doc-version" }));
    box.appendChild(roomNode("h3", "The saved text"));
    box.appendChild(roomNode("pre", "", { class: "doc-current", "data-testid": "doc-current", "aria-label": "the saved text" }));
    box.appendChild(roomNode("h3", "Your draft"));
    const draft = roomNode("textarea", null, { id: "doc-draft", rows: "10", maxlength: String(msg.max_chars), "data-testid": "doc-draft", "aria-label": "your draft" });
    draft.addEventListener("input", () => { roomState.dirty = true; });
    box.appendChild(draft);
    roomButton(box, "Save", "doc-save", () => send({ action: "save", text: draft.value, base: roomState.base }));
    if (msg.agents.length) roomButton(box, `Ask ${msg.agents[0]} for an edit`, "doc-ask", () => send({ action: "propose" }));
    box.appendChild(roomNode("div", null, { class: "proposal", "data-testid": "doc-proposal", hidden: "" }));
  }
  box.appendChild(roomNode("p", "", { class: "note", "data-testid": "turns-left" }));
  roomButton(box, msg.end, "room-end", () => send({ action: "end" }));
  form.appendChild(box);
}

// A shared workspace beside the chat: one input per field, sent on change; a field the
// participant's seat may not edit is shown read-only.
function buildWorkspace(fields, send) {
  const box = roomNode("fieldset", null, { class: "workspace", "data-testid": "workspace" });
  box.appendChild(roomNode("legend", "Shared workspace"));
  for (const f of fields) {
    const label = roomNode("label", f.label, { for: `ws-${f.id}` });
    let input;
    if (f.kind === "choice") {
      input = roomNode("select", null, { id: `ws-${f.id}` });
      input.appendChild(roomNode("option", "", { value: "" }));
      for (const option of f.options) input.appendChild(roomNode("option", option, { value: option }));
    } else input = roomNode("input", null, { id: `ws-${f.id}`, type: f.kind === "number" ? "number" : "text" });
    input.setAttribute("data-testid", `ws-${f.id}`);
    input.dataset.editable = f.editable ? "true" : "false";
    input.addEventListener("change", () => send({ action: "field", field: f.id, value: f.kind === "number" ? Number(input.value) : input.value }));
    const row = roomNode("div", null, { class: "field", "data-field": f.id });
    row.appendChild(label);
    row.appendChild(input);
    box.appendChild(row);
  }
  return box;
}

function updateWorkspace(fields, locked) {
  for (const f of fields) {
    const input = document.getElementById(`ws-${f.id}`);
    if (!input) continue;
    input.disabled = locked || !f.editable;
    if (document.activeElement !== input) input.value = f.value === null || f.value === undefined ? "" : String(f.value);
  }
}

function sendChat(send) {
  const input = document.getElementById("chat-input");
  if (!input.value.trim()) return;
  roomState.sent = input.value;
  send({ action: "say", text: input.value });
  input.value = "";
}

function updateRoom(msg, send) {
  const box = document.querySelector('[data-testid="room"]');
  if (!box) return;
  const left = msg.turns_left;
  box.querySelector('[data-testid="turns-left"]').textContent = msg.ended ? "You have ended this part; waiting for the others…" : left === null ? "" : `${left} ${msg.kind_of_room === "chat" ? "message" : "save"}${left === 1 ? "" : "s"} left`;
  for (const b of box.querySelectorAll("button, textarea")) b.disabled = msg.ended || msg.closed;
  if (msg.workspace) updateWorkspace(msg.workspace, msg.ended || msg.closed);
  if (msg.kind_of_room === "chat") {
    const log = box.querySelector('[data-testid="chat-log"]');
    while (log.children.length > msg.messages.length) log.removeChild(log.lastChild);
    msg.messages.slice(log.children.length).forEach((m) => {
      const item = roomNode("li", null, { "data-testid": "chat-message", "data-by": m.by, class: m.mine ? "mine" : m.by });
      item.appendChild(roomNode("strong", `${m.who}: `));
      item.appendChild(roomNode("span", m.text));
      log.appendChild(item);
    });
    log.scrollTop = log.scrollHeight;
    box.querySelector('[data-testid="chat-pending"]').textContent = msg.pending ? `${msg.agents.join(", ")} is writing…` : "";
    if (left !== null && left <= 0) { document.getElementById("chat-input").disabled = true; box.querySelector('[data-testid="chat-send"]').disabled = true; }
    return;
  }
  const doc = msg.document;
  const draft = document.getElementById("doc-draft");
  box.querySelector('[data-testid="doc-current"]').textContent = doc.text;
  if (draft.value === doc.text) roomState.dirty = false;
  if (!roomState.dirty) { draft.value = doc.text; roomState.base = doc.version; }
  box.querySelector('[data-testid="doc-version"]').textContent = roomState.dirty && doc.version !== roomState.base
    ? `Version ${doc.version} (by ${doc.by}) was saved while you edited: your draft is kept below.`
    : `Version ${doc.version}${doc.version ? ` (by ${doc.by})` : ""}`;
  const proposal = box.querySelector('[data-testid="doc-proposal"]');
  while (proposal.firstChild) proposal.removeChild(proposal.firstChild);
  proposal.hidden = !doc.proposal;
  if (doc.proposal) {
    const p = doc.proposal;
    if (p.text === null) proposal.appendChild(roomNode("p", `${p.agent}: ${p.apology}`, { "data-testid": "doc-apology" }));
    else {
      proposal.appendChild(roomNode("p", `${p.agent} proposes:`));
      proposal.appendChild(roomNode("pre", p.text, { "data-testid": "doc-proposal-text" }));
      roomButton(proposal, "Accept", "doc-accept", () => send({ action: "accept", proposal: p.id }));
    }
    roomButton(proposal, "Dismiss", "doc-dismiss", () => send({ action: "dismiss", proposal: p.id }));
  }
  const ask = box.querySelector('[data-testid="doc-ask"]');
  if (ask) ask.disabled = msg.ended || msg.closed || Boolean(doc.proposal) || msg.pending > 0;
}

// A refused room request: a stale save shows the current text and keeps the draft (its next
// save is based on the version now shown); a refused message goes back into the input.
function roomError(msg) {
  if (msg.current) {
    const box = document.querySelector('[data-testid="doc-current"]');
    if (box) box.textContent = msg.current.text;
    roomState.base = msg.current.version;
    const version = document.querySelector('[data-testid="doc-version"]');
    if (version) version.textContent = `Version ${msg.current.version} is the current text: your draft is kept below.`;
  }
  const input = document.getElementById("chat-input");
  if (input && !input.value && roomState.sent) input.value = roomState.sent;
  roomState.sent = "";
}
