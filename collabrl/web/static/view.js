"use strict";
// The trajectory viewer: filterable episode list; per episode its decisions (prompt, reply,
// parse, rewards, advantages, judge), the timeline of every seat, and the board replay of games
// that have a board.

const token = pageToken();
const FILTERS = ["source", "game", "task", "profile", "player_type", "seat", "iteration", "success"];
const PAGE_SIZE = 50; // rows of the list shown at once
let episodes = [];
let page = 0;
const chosen = {};

async function api(path) {
  const response = await fetch(`${path}?token=${encodeURIComponent(token)}`);
  if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
  return response.json();
}

async function loadList() {
  const data = await api("/api/episodes");
  episodes = data.episodes;
  document.getElementById("count").textContent =
    data.error ? data.error : `${episodes.length} episodes`;
  const warnings = document.getElementById("warnings");
  clear(warnings);
  for (const text of data.warnings || []) warnings.appendChild(el("li", text));
  warnings.hidden = !(data.warnings || []).length;
  renderFilters();
  renderList();
}

function renderFilters() {
  const box = document.getElementById("filters");
  clear(box);
  for (const key of FILTERS) {
    const values = [...new Set(episodes.map((e) => String(e[key])))].sort();
    const select = el("select");
    select.id = `filter-${key}`;
    select.dataset.testid = `filter-${key}`;
    select.appendChild(el("option", "(all)"));
    select.lastChild.value = "";
    for (const v of values) {
      const option = el("option", v);
      option.value = v;
      select.appendChild(option);
    }
    select.value = chosen[key] || "";
    select.addEventListener("change", () => { chosen[key] = select.value; page = 0; renderList(); });
    const label = el("label", key.replace("_", " "));
    label.htmlFor = select.id;
    box.appendChild(label);
    box.appendChild(select);
  }
}

// "success: 36 steps", "score 40": the game's own efficiency column, never "efficiency".
function result(e) {
  const metric = e.efficiency_metric || "efficiency";
  if (e.success === null || e.success === undefined) return `${metric} ${fmt(e.efficiency ?? e.score)}`;
  return e.success ? `success: ${fmt(e.efficiency)} ${metric}` : "failed";
}

function renderList() {
  const body = document.getElementById("episodes");
  clear(body);
  const shown = episodes.filter((e) => FILTERS.every((k) => !chosen[k] || String(e[k]) === chosen[k]));
  const pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE));
  page = Math.min(page, pages - 1);
  for (const e of shown.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE)) {
    const row = el("tr", undefined, "episode");
    row.dataset.id = e.id;
    for (const cell of [e.id, e.source, e.task, e.profile || "", e.seat_name || e.seat || "", e.iteration ?? "", result(e)]) {
      row.appendChild(el("td", cell));
    }
    row.addEventListener("click", () => openEpisode(e.id, row));
    body.appendChild(row);
  }
  renderPager(shown.length, pages);
}

function renderPager(count, pages) {
  const box = document.getElementById("pager");
  clear(box);
  const first = count ? page * PAGE_SIZE + 1 : 0;
  box.appendChild(el("span", `${first}–${Math.min(count, (page + 1) * PAGE_SIZE)} of ${count}`, "meta"));
  for (const [label, to, testid] of [["previous", page - 1, "page-previous"], ["next", page + 1, "page-next"]]) {
    const b = el("button", label);
    b.type = "button";
    b.dataset.testid = testid;
    b.disabled = to < 0 || to >= pages;
    b.addEventListener("click", () => { page = to; renderList(); });
    box.appendChild(b);
  }
}

function fmt(value) {
  if (value === null || value === undefined) return "–";
  return typeof value === "number" ? String(Math.round(value * 10000) / 10000) : String(value);
}

async function openEpisode(id, row) {
  for (const r of document.querySelectorAll("tr.episode")) r.classList.remove("selected");
  if (row) row.classList.add("selected");
  const record = await api(`/api/episodes/${id}`);
  const box = document.getElementById("detail");
  clear(box);
  box.appendChild(el("h2", `${record.game} · ${record.task} · ${record.source}`));
  const meta = [`seed ${record.seed}`, `seat ${record.seat_name || record.seat || "all"}`,
    `profile ${record.profile || "–"} (${record.player_type || "–"})`, `${record.efficiency_metric || "efficiency"} ${fmt(record.efficiency)}`];
  if (record.iteration !== undefined) meta.push(`iteration ${record.iteration}`);
  box.appendChild(el("p", meta.join(" · "), "meta"));
  const summary = el("details");
  summary.appendChild(el("summary", "summary"));
  summary.appendChild(el("pre", JSON.stringify(record.summary, null, 1)));
  box.appendChild(summary);
  if (record.board || record.replay_note) box.appendChild(replay(record));
  box.appendChild(timeline(record.turns));
  box.appendChild(decisions(record.turns));
}

function replay(record) {
  const wrap = el("section", undefined, "replay");
  wrap.appendChild(el("h3", "Replay"));
  if (!canDraw(record.board) || !record.frames) {
    wrap.appendChild(el("p", record.replay_note || `no drawer for boards of kind ${record.board.kind}`));
    return wrap;
  }
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.dataset.testid = "replay";
  const slider = el("input");
  slider.type = "range"; slider.min = "0"; slider.max = String(record.frames.length - 1); slider.value = "0";
  slider.dataset.testid = "replay-slider";
  const label = el("span", "", "meta");
  const show = () => {
    const frame = record.frames[Number(slider.value)];
    const caption = drawBoard(svg, record.board, frame);
    label.textContent = ` tick ${frame.tick}${caption ? ` · ${caption}` : ""}`;
  };
  slider.addEventListener("input", show);
  const play = el("button", "▶ play");
  play.type = "button";
  let timer = null;
  play.addEventListener("click", () => {
    if (timer) { clearInterval(timer); timer = null; return; }
    timer = setInterval(() => {
      if (Number(slider.value) >= record.frames.length - 1) { clearInterval(timer); timer = null; return; }
      slider.value = String(Number(slider.value) + 1); show();
    }, 80);
  });
  wrap.append(svg, el("br"), play, slider, label);
  show();
  return wrap;
}

function timeline(turns) {
  const wrap = el("section");
  wrap.appendChild(el("h3", "Timeline"));
  const seats = [...new Set(turns.map((t) => t.seat))];
  const table = el("table", undefined, "timeline");
  table.dataset.testid = "timeline";
  const head = el("tr");
  head.appendChild(el("th", "tick"));
  for (const s of seats) head.appendChild(el("th", s));
  table.appendChild(head);
  const ticks = [...new Set(turns.map((t) => t.tick))].sort((a, b) => a - b);
  for (const tick of ticks) {
    const row = el("tr");
    row.appendChild(el("td", tick));
    for (const s of seats) {
      const cell = el("td");
      for (const t of turns.filter((x) => x.tick === tick && x.seat === s)) {
        cell.appendChild(el("div", t.action ?? "INVALID"));
        if (t.message) cell.appendChild(el("div", `“${t.message}”`, "meta"));
        if (!t.valid) cell.className = "invalid";
      }
      row.appendChild(cell);
    }
    table.appendChild(row);
  }
  wrap.appendChild(table);
  return wrap;
}

function decisions(turns) {
  const wrap = el("section");
  wrap.appendChild(el("h3", "Decisions"));
  const table = el("table");
  table.dataset.testid = "decisions";
  const head = el("tr");
  for (const h of ["tick", "seat", "think / message / action", "valid", "rewards", "advantage (episode / step)", "judge", "time"]) head.appendChild(el("th", h));
  table.appendChild(head);
  turns.forEach((t, i) => {
    const row = el("tr", undefined, t.valid ? "" : "invalid");
    row.dataset.testid = `decision-${i}`;
    row.appendChild(el("td", t.tick));
    row.appendChild(el("td", `${t.seat}${t.player ? ` (${t.player})` : ""}`));
    const reply = el("td");
    if (t.think) reply.appendChild(el("div", `think: ${t.think}`, "meta"));
    if (t.message) reply.appendChild(el("div", `message: ${t.message}`));
    reply.appendChild(el("div", `action: ${t.action ?? "(none)"}`));
    const more = el("details");
    more.appendChild(el("summary", "prompt and reply"));
    more.appendChild(el("pre", t.observation || "(prompt not recorded)"));
    more.appendChild(el("pre", t.response || ""));
    reply.appendChild(more);
    row.appendChild(reply);
    row.appendChild(el("td", t.valid ? "valid" : `invalid: ${(t.errors || []).join("; ")}`));
    const rewards = el("td");
    for (const [k, v] of Object.entries(t.rewards || {})) {
      const part = el("div", `${k}: ${fmt(v)}`);
      part.dataset.testid = `reward-${k}`;
      part.dataset.value = v === null ? "" : String(v);
      rewards.appendChild(part);
    }
    row.appendChild(rewards);
    row.appendChild(el("td", t.advantage === undefined ? "–"
      : `${fmt(t.advantage)} (${fmt(t.episode_advantage)} / ${fmt(t.step_advantage)})`));
    const judge = el("td", t.judge_level === undefined ? "–" : fmt(t.judge_level));
    if (t.judge_rationale) judge.appendChild(el("div", t.judge_rationale, "meta"));
    row.appendChild(judge);
    row.appendChild(el("td", t.decision_s === undefined || t.decision_s === null ? "" : `${t.decision_s} s`));
    table.appendChild(row);
  });
  wrap.appendChild(table);
  return wrap;
}

document.getElementById("reload").addEventListener("click", loadList);
loadList();
