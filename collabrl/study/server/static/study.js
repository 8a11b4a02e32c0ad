"use strict";
// A participant's study page: renders the page the server pushes over one WebSocket and sends
// back what the participant submits. The game itself runs in the framed play page. Markdown
// written by the study's author arrives as HTML rendered without raw HTML; everything else is
// set as text. A dropped connection reconnects and the server resends the current page.

const token = new URLSearchParams(location.search).get("token") || "";
let socket = null;
let view = null;
let backoff = 250;
let deadline = null; // ms timestamp when the page's timer runs out
let sending = false;
const custom = {}; // question id -> what a custom component's render() returned (value())

function $(id) { return document.getElementById(id); }

function el(tag, text, attrs) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  return node;
}

// A WebSocket URL relative to this page, so the study runs under any path prefix (a proxy's).
function socketUrl(path) {
  const url = new URL(path, location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  return url.href;
}

function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

function connect() {
  socket = new WebSocket(socketUrl(`study/ws?token=${encodeURIComponent(token)}`));
  socket.onopen = () => { backoff = 250; $("status").textContent = "connected"; };
  socket.onmessage = (event) => {
    const msg = JSON.parse(event.data);
    if (msg.type === "page") render(msg);
    else if (msg.type === "error") { showError(msg); roomError(msg); sending = false; }
    // another server process hosts this participant's group now: the same page from there
    else if (msg.type === "moved") { socket.onclose = null; location.replace(`${msg.base}/s${location.search}`); }
  };
  socket.onclose = () => {
    $("status").textContent = "reconnecting…";
    setTimeout(connect, backoff);
    backoff = Math.min(backoff * 2, 4000);
  };
}

// A refused form: each problem beside its question, in words, all at once; a summary below.
function showError(msg) {
  for (const node of document.querySelectorAll(".problem")) node.remove();
  for (const box of document.querySelectorAll("fieldset[aria-invalid]")) box.removeAttribute("aria-invalid");
  const problems = Object.entries(msg.problems || {});
  let first = null;
  for (const [id, text] of problems) {
    const box = document.querySelector(`fieldset[data-field="${CSS.escape(id)}"]`);
    if (!box) continue;
    box.setAttribute("aria-invalid", "true");
    box.appendChild(el("p", text, { class: "problem", "data-testid": `problem-${id}` }));
    first = first || box;
  }
  if (first) {
    $("error").textContent = problems.length === 1 ? "Please fix the marked answer above." : `Please fix the ${problems.length} marked answers above.`;
    first.scrollIntoView({ block: "center" });
  } else $("error").textContent = msg.message;
}

function submit(payload) {
  if (sending || !socket || socket.readyState !== WebSocket.OPEN) return;
  sending = true;
  $("error").textContent = "";
  socket.send(JSON.stringify({ type: "submit", node: view.node, ...payload }));
}

// A recorded-only event (a component's emit, a media event, a data-quality signal of
// quality.js): no page follows it.
function record(payload) {
  if (!socket || socket.readyState !== WebSocket.OPEN || !view) return;
  socket.send(JSON.stringify({ type: "record", node: view.node, ...payload }));
}

function button(label, testid, onclick) {
  const b = el("button", label, { type: "button", "data-testid": testid });
  b.addEventListener("click", onclick);
  $("buttons").appendChild(b);
  return b;
}

function scale(name, points, labels, testid) {
  // A Likert scale: radio buttons 1..points with the end labels.
  const row = el("div", null, { class: "scale", role: "radiogroup" });
  row.appendChild(el("span", labels[0], { class: "end" }));
  for (let n = 1; n <= points; n++) {
    const label = el("label");
    const input = el("input", null, { type: "radio", name, value: String(n), "data-testid": `${testid}-${n}` });
    label.appendChild(input);
    label.appendChild(el("span", String(n)));
    row.appendChild(label);
  }
  row.appendChild(el("span", labels[1], { class: "end" }));
  return row;
}

function chosen(name) {
  const input = document.querySelector(`input[name="${CSS.escape(name)}"]:checked`);
  return input ? input.value : null;
}

function question(q) {
  const box = el("fieldset", null, { "data-testid": `q-${q.id}`, "data-field": q.id });
  box.appendChild(el("legend", q.text));
  if (q.kind === "likert") box.appendChild(scale(`q-${q.id}`, q.points, q.labels, `q-${q.id}`));
  else if (q.kind === "choice") {
    q.options.forEach((option, i) => {
      const label = el("label", null, { class: "option" });
      label.appendChild(el("input", null, { type: "radio", name: `q-${q.id}`, value: option, "data-testid": `q-${q.id}-${i + 1}` }));
      label.appendChild(el("span", option));
      box.appendChild(label);
    });
  } else if (q.kind === "component") {
    // A study's own component (collabrl.study.components): its ES module draws into the box
    // and returns { value() }; the server checks the value with the component's class.
    const holder = el("div", null, { class: "component", "data-testid": `q-${q.id}-component` });
    box.appendChild(holder);
    delete custom[q.id];
    import(new URL(q.script, location.href).href)
      .then((module) => { custom[q.id] = module.render(holder, q); })
      .catch(() => { holder.textContent = "This question could not be loaded; please reload the page."; });
  } else if (q.kind === "number") {
    box.appendChild(el("input", null, { type: "number", id: `q-${q.id}`, "data-testid": `q-${q.id}-input` }));
  } else {
    box.appendChild(el("textarea", null, { id: `q-${q.id}`, maxlength: String(q.max_chars), rows: "3", "data-testid": `q-${q.id}-input` }));
  }
  return box;
}

function answer(q) {
  if (q.kind === "component") { const c = custom[q.id]; return c ? c.value() : null; }
  if (q.kind === "likert") { const v = chosen(`q-${q.id}`); return v === null ? null : Number(v); }
  if (q.kind === "choice") return chosen(`q-${q.id}`);
  const value = $(`q-${q.id}`).value;
  if (value === "") return null;
  return q.kind === "number" ? Number(value) : value;
}

// Images, video and audio of the page (files of the study's media folder), under the text.
function renderMedia(items) {
  for (const item of items || []) {
    const figure = el("figure", null, { "data-testid": "media" });
    let node;
    if (item.kind === "image") node = el("img", null, { src: item.url, alt: item.alt });
    else {
      node = el(item.kind === "video" ? "video" : "audio", null, { src: item.url, controls: "", preload: "metadata", "aria-label": item.alt });
      for (const name of ["play", "pause", "ended", "seeked"]) {
        node.addEventListener(name, () => record({ kind: "media", name, data: { file: item.url, t: Math.round(node.currentTime * 100) / 100 } }));
      }
    }
    figure.appendChild(node);
    if (item.caption) figure.appendChild(el("figcaption", item.caption));
    $("form").appendChild(figure);
  }
}

function renderGame(msg) {
  const frame = $("game");
  const src = `${msg.game.url}?token=${encodeURIComponent(token)}`;
  if (frame.getAttribute("src") !== src) frame.setAttribute("src", src);
  frame.hidden = false;
}

function fullRender(msg) {
  clear($("form")); clear($("buttons"));
  $("error").textContent = "";
  $("title").textContent = msg.title || "";
  $("body").innerHTML = msg.html || ""; // author Markdown, rendered without raw HTML
  $("note").textContent = "";
  const game = $("game");
  if (!(msg.kind === "conditions" && msg.phase === "play" && msg.game)) { game.hidden = true; game.removeAttribute("src"); }
  renderMedia(msg.media);
  if (msg.room) buildRoom(msg, $("form"), submit);
  else if (msg.kind === "embed") buildEmbed(msg, $("form"));
  else if (msg.kind === "text") button(msg.button, "continue", () => submit({}));
  else if (msg.kind === "consent") {
    button(msg.agree, "agree", () => submit({ agree: true }));
    button(msg.decline, "decline", () => submit({ agree: false }));
  } else if (msg.kind === "survey") {
    for (const q of msg.questions) $("form").appendChild(question(q));
    button("Continue", "submit", () => {
      const answers = {};
      for (const q of msg.questions) answers[q.id] = answer(q);
      submit({ answers });
    });
  } else if (msg.kind === "conditions" && msg.phase === "rate") {
    for (const item of msg.items) {
      const box = el("fieldset", null, { "data-testid": `item-${item.id}`, "data-field": item.id });
      box.appendChild(el("legend", item.text));
      box.appendChild(scale(`rate-${item.id}`, item.points, item.labels, `rate-${item.id}`));
      $("form").appendChild(box);
    }
    if (msg.free_text) {
      const box = el("fieldset", null, { "data-field": "free_text" });
      box.appendChild(el("legend", msg.free_text));
      box.appendChild(el("textarea", null, { id: "free-text", maxlength: "2000", rows: "3", "data-testid": "free-text" }));
      $("form").appendChild(box);
    }
    button("Submit", "submit", () => {
      const ratings = {};
      for (const item of msg.items) { const v = chosen(`rate-${item.id}`); ratings[item.id] = v === null ? null : Number(v); }
      const text = $("free-text");
      submit({ ratings, free_text: text ? text.value : "" });
    });
  } else if (msg.kind === "conditions" && msg.phase === "wait") {
    $("note").textContent = msg.message;
  } else if (msg.kind === "end") {
    if (msg.code) {
      const box = el("p", "Your completion code: ", { class: "code" });
      box.appendChild(el("strong", msg.code, { "data-testid": "code" }));
      $("form").appendChild(box);
    }
    if (msg.debrief) { const d = el("div", null, { class: "markdown", "data-testid": "debrief" }); d.innerHTML = msg.debrief; $("form").appendChild(d); }
    if (msg.payment) {
      const pay = msg.payment;
      const text = pay.bonus > 0 ? `You earned a bonus of ${pay.bonus.toFixed(2)} ${pay.currency}, paid through ${msg.platform} with your fee.` : `Thank you: your fee is paid through ${msg.platform}.`;
      $("form").appendChild(el("p", text, { "data-testid": "payment" }));
    }
    if (msg.redirect) {
      const back = el("a", `Return to ${msg.platform} to finish`, { href: msg.redirect, class: "button", "data-testid": "redirect" });
      $("form").appendChild(back);
    }
  }
}

function update(msg) {
  // Parts of the page that change without a new page: progress, disclosure, waiting, game frame.
  $("study").textContent = msg.study;
  $("progress").textContent = msg.practice ? "Practice round" : msg.round ? `Round ${msg.round} of ${msg.rounds}` : "";
  if (msg.kind === "match") $("note").textContent = `${msg.waiting} waiting`;
  if (msg.kind === "conditions" && msg.phase === "play") {
    $("note").textContent = msg.disclosure;
    if (msg.game) renderGame(msg);
  }
  if (msg.room) updateRoom(msg, submit);
  if (msg.embed) postState(msg.embed.state);
  deadline = msg.deadline_s === null || msg.deadline_s === undefined ? null : Date.now() + msg.deadline_s * 1000;
  tick();
}

function render(msg) {
  const fresh = !view || view.node !== msg.node || view.kind !== msg.kind || view.room !== msg.room || view.phase !== msg.phase;
  view = msg;
  sending = false;
  if (embedQueue.length && msg.kind === "embed") submit(embedQueue.shift());
  document.body.dataset.node = msg.node;
  document.body.dataset.kind = msg.kind;
  if (fresh) fullRender(msg);
  update(msg);
}

// One clock: the game shows its own time; the study bar speaks only when a timeout is close.
const WARN_S = 30;

function tick() {
  const left = deadline === null ? null : Math.max(0, Math.round((deadline - Date.now()) / 1000));
  if (left === null || left > WARN_S) { $("timer").textContent = ""; return; }
  const playing = view && view.kind === "conditions" && view.phase === "play";
  if (!playing) $("timer").textContent = `This page closes in ${left} s`;
  else if (view.on_idle === "release") $("timer").textContent = `Your move: without one in ${left} s, the session ends`;
  else $("timer").textContent = `Your move: without one in ${left} s, a stand-in moves for you`;
}

setInterval(tick, 1000);
connect();
