"use strict";
// The admin page: polls the study's live state every second and shows it as text, with buttons
// for the interventions of the admin API (advance or release an active participant, pause or
// resume new joins); the server audits each in the event log, and the page says what happened.

const token = new URLSearchParams(location.search).get("token") || "";

function $(id) { return document.getElementById(id); }

// With several workers (serve --workers) each line's last cell is the worker that serves it;
// the column is shown only then.
function row(cells, testid, worker, extra) {
  const tr = document.createElement("tr");
  if (testid) tr.setAttribute("data-testid", testid);
  for (const cell of cells) {
    const td = document.createElement("td");
    td.textContent = cell === null || cell === undefined ? "" : String(cell);
    tr.appendChild(td);
  }
  if (extra) tr.appendChild(extra);
  const td = document.createElement("td");
  td.className = "worker";
  td.textContent = worker === null || worker === undefined ? "" : String(worker);
  tr.appendChild(td);
  return tr;
}

function online(connected) {
  return connected === null ? "(its worker knows)" : connected ? "yes" : "no";
}

// Advance and release buttons of an active participant's row (an empty cell otherwise).
function interventions(p) {
  const td = document.createElement("td");
  if (p.status !== "active") return td;
  for (const action of ["advance", "release"]) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = action;
    b.setAttribute("data-testid", `${action}-${p.participant}`);
    b.addEventListener("click", () => intervene(`${action}?participant=${encodeURIComponent(p.participant)}`));
    td.appendChild(b);
  }
  return td;
}

// One intervention through the admin API; its answer (where the participant went, or why it was
// refused) is shown above the tables; the next poll shows the change.
async function intervene(what) {
  const response = await fetch(`admin/api/${what}&token=${encodeURIComponent(token)}`, { method: "POST" });
  const text = await response.text();
  if (!response.ok) { $("done").textContent = `refused: ${text.trim()}`; return; }
  const done = JSON.parse(text);
  $("done").textContent = "participant" in done ? `${done.participant} moved to ${done.page}`
    : done.joins_paused ? "new joins paused" : "new joins resumed";
}

function fill(id, rows) {
  const body = $(id);
  while (body.firstChild) body.removeChild(body.firstChild);
  for (const r of rows) body.appendChild(r);
}

function render(state) {
  $("study").textContent = `${state.study}: ${state.title}`;
  $("sha").textContent = `protocol ${state.sha256.slice(0, 12)}`;
  const counts = $("counts");
  while (counts.firstChild) counts.removeChild(counts.firstChild);
  for (const [k, v] of Object.entries({ target: state.target, ...state.counts })) {
    const dt = document.createElement("dt"); dt.textContent = k;
    const dd = document.createElement("dd"); dd.textContent = String(v); dd.setAttribute("data-testid", `count-${k}`);
    counts.appendChild(dt); counts.appendChild(dd);
  }
  const storage = $("storage");
  const fault = state.storage && state.storage.fault;
  storage.hidden = !fault;
  storage.textContent = fault ? `Storage fault: ${fault}. Paused sessions: ${state.storage.paused_groups.join(", ") || "none"}; ` +
    `paused participants: ${state.storage.paused_participants.join(", ") || "none"}.` : "";
  document.body.classList.toggle("workers", state.participants.some((p) => p.worker !== null));
  fill("pool", state.pool.map((p) => row([p.participant, p.waited_s], `pool-${p.participant}`, p.worker)));
  fill("groups", state.groups.map((g) => row([g.group, g.unit, g.task, g.order.join(" > "), g.round, g.paused ? `${g.phase} (paused)` : g.phase, g.tick,
    Object.entries(g.members).map(([seat, pid]) => `${seat}: ${pid || "stand-in"}`).join(", ")], `group-${g.group}`, g.worker)));
  fill("participants", state.participants.map((p) => row([p.participant, p.kind, p.where, p.status, p.group, p.seat,
    online(p.connected), p.code, p.last_change], `participant-${p.participant}`, p.worker, interventions(p))));
  const joins = $("joins");
  joins.hidden = false;
  joins.textContent = state.joins_paused ? "resume new joins" : "pause new joins";
  joins.dataset.paused = state.joins_paused ? "1" : "0";
}

$("joins").addEventListener("click", () => intervene(`joins?paused=${$("joins").dataset.paused === "1" ? 0 : 1}`));


async function poll() {
  try {
    const response = await fetch(`admin/api/state?token=${encodeURIComponent(token)}`);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    render(await response.json());
    $("status").textContent = `updated ${new Date().toLocaleTimeString()}`;
  } catch (err) {
    $("status").textContent = `cannot reach the server (${err.message})`;
  }
  setTimeout(poll, 1000);
}

poll();
