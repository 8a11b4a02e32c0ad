"use strict";
// The rating page: a rater (id entered or given as ?rater=) rates the judged windows of recorded
// evaluations on the judges' 0-5 scale, one dimension at a time; every rating is stored by the
// server, which answers a bad one with {"error": ...}, shown here as it is. The page resumes at
// the first window this rater has not rated. The judge's verdict is never sent to the page.

const token = pageToken();
let rater = new URLSearchParams(location.search).get("rater") || "";
let info = null; // {windows, dimensions, scale, scale_text, guidance}
let current = null;

function query(extra) {
  const params = new URLSearchParams({ token });
  if (rater) params.set("rater", rater);
  for (const [k, v] of Object.entries(extra || {})) params.set(k, v);
  return params.toString();
}

async function api(path) {
  const response = await fetch(`${path}?${query()}`);
  const data = await response.json().catch(() => ({ error: `${response.status}` }));
  if (!response.ok) throw new Error(data.error || String(response.status));
  return data;
}

function showGlobalError(text) {
  const box = document.getElementById("error-global");
  box.textContent = text || "";
  box.hidden = !text;
}

async function load(openNext) {
  try {
    info = await api("/api/windows");
  } catch (exc) {
    showGlobalError(exc.message);
    return;
  }
  showGlobalError("");
  renderList();
  const done = info.windows.filter((w) => w.rated).length;
  document.getElementById("progress").textContent = rater
    ? `${rater}: ${done} of ${info.windows.length} windows rated`
    : `${info.windows.length} windows: enter your rater id`;
  if (!rater) return;
  if (openNext) {
    const next = info.windows.find((w) => !w.rated);
    if (next) openWindow(next.window);
    else showDone();
  }
}

function renderList() {
  const body = document.getElementById("windows");
  clear(body);
  info.windows.forEach((w, i) => {
    const row = el("tr", undefined, `window${w.rated ? " done" : ""}`);
    row.dataset.window = w.window;
    row.dataset.testid = "window-row";
    row.title = w.window;
    if (current && current.window === w.window) row.classList.add("selected");
    for (const cell of [i + 1, w.task, w.profile || "–", w.decisions, w.rated ? "✓" : ""]) {
      row.appendChild(el("td", cell));
    }
    row.addEventListener("click", () => openWindow(w.window));
    body.appendChild(row);
  });
}

function showDone() {
  const box = document.getElementById("window");
  clear(box);
  const p = el("p", "Every window is rated. Thank you!");
  p.dataset.testid = "all-done";
  box.appendChild(p);
}

async function openWindow(id) {
  if (!rater) {
    showGlobalError("enter your rater id first");
    return;
  }
  let data;
  try {
    data = await api(`/api/windows/${encodeURIComponent(id)}`);
  } catch (exc) {
    showGlobalError(exc.message);
    return;
  }
  showGlobalError("");
  current = data;
  renderList();
  const box = document.getElementById("window");
  clear(box);
  box.dataset.window = data.window;
  box.appendChild(el("h2", `${data.game} · ${data.task} · ${data.seat} (${data.seat_name})`));
  box.appendChild(el("p", `window ${data.window} · seed ${data.seed} · decisions ${data.decisions} · ticks ${data.ticks}`, "meta"));
  box.appendChild(turnsTable(data));
  box.appendChild(ratingForm(data));
}

function turnsTable(data) {
  const table = el("table");
  table.dataset.testid = "turns";
  const head = el("tr");
  for (const h of ["tick", "seat", "message", "action", "reasoning and prompt (rated agent)"]) {
    head.appendChild(el("th", h));
  }
  table.appendChild(head);
  for (const t of data.turns) {
    const row = el("tr", undefined, t.judged ? "judged" : "");
    if (t.judged) row.dataset.testid = "judged-turn";
    row.appendChild(el("td", t.tick));
    row.appendChild(el("td", t.seat));
    row.appendChild(el("td", t.message || ""));
    row.appendChild(el("td", t.valid ? (t.action ?? "(none)") : `INVALID (${t.action ?? "none"})`));
    const more = el("td");
    if (t.judged) {
      if (t.think) more.appendChild(el("div", `think: ${t.think}`, "meta"));
      const seen = el("details");
      seen.appendChild(el("summary", "what the agent saw"));
      seen.appendChild(el("pre", t.observation || "(prompt not recorded)"));
      more.appendChild(seen);
    }
    row.appendChild(more);
    table.appendChild(row);
  }
  return table;
}

function ratingForm(data) {
  const form = el("form");
  form.dataset.testid = "rating-form";
  form.noValidate = true;
  form.appendChild(el("h3", "Your rating"));
  form.appendChild(el("p", info.scale_text, "meta"));
  const previous = data.rating ? data.rating.scores : {};
  for (const d of info.dimensions) {
    const set = el("fieldset", undefined, "dimension");
    set.appendChild(el("legend", d.charAt(0).toUpperCase() + d.slice(1)));
    set.appendChild(el("p", info.guidance[d] || "", "meta"));
    for (const v of info.scale) {
      const input = el("input");
      input.type = "radio";
      input.name = d;
      input.value = String(v);
      input.id = `score-${d}-${v}`;
      input.dataset.testid = `score-${d}-${v}`;
      if (previous[d] === v) input.checked = true;
      const label = el("label", ` ${v}`);
      label.htmlFor = input.id;
      label.prepend(input);
      set.appendChild(label);
    }
    form.appendChild(set);
  }
  const comment = el("textarea", undefined, "comment");
  comment.name = "comment";
  comment.maxLength = 2000;
  comment.placeholder = "comment (optional)";
  comment.dataset.testid = "comment";
  comment.value = data.rating ? data.rating.comment : "";
  form.appendChild(comment);
  const submit = el("button", data.rating ? "Save again (the earlier rating is kept too)" : "Save rating");
  submit.type = "submit";
  submit.dataset.testid = "submit";
  form.appendChild(submit);
  const error = el("p", "", "rate-error");
  error.setAttribute("role", "alert");
  error.dataset.testid = "error";
  const saved = el("p", data.rating ? `rated ${data.rating.time}` : "", "saved");
  saved.setAttribute("role", "status");
  saved.dataset.testid = "saved";
  form.append(error, saved);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    send(form, data.window, error, saved);
  });
  return form;
}

async function send(form, window, error, saved) {
  const scores = {};
  for (const d of info.dimensions) {
    const chosen = form.querySelector(`input[name="${d}"]:checked`);
    if (chosen) scores[d] = Number(chosen.value);
  }
  const body = { rater, window, scores, comment: form.querySelector("textarea").value };
  error.textContent = "";
  let response;
  try {
    response = await fetch(`/api/ratings?${query()}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  } catch (exc) {
    error.textContent = `not saved: ${exc.message}`;
    return;
  }
  const data = await response.json().catch(() => ({ error: `server answered ${response.status}` }));
  if (!response.ok) {
    error.textContent = `not saved: ${data.error}`;
    return;
  }
  saved.textContent = `saved (${data.rated} of ${data.windows} rated)`;
  document.body.dataset.saved = String(data.stored.seq);
  await load(true);
}

function setRater(value) {
  rater = value.trim();
  const params = new URLSearchParams(location.search);
  params.set("rater", rater);
  history.replaceState(null, "", `${location.pathname}?${params}`);
  current = null;
  load(true);
}

document.getElementById("rater").value = rater;
document.getElementById("who").addEventListener("submit", (event) => {
  event.preventDefault();
  setRater(document.getElementById("rater").value);
});
document.getElementById("export").href = `/api/ratings.csv?token=${encodeURIComponent(token)}`;
load(true);
