"use strict";
// The human seat's page: renders the pushed state and sends decisions over one WebSocket.
// A dropped connection reconnects by itself and the server resends the episode's state.

// The page is .../play/{sid}/{seat}: every other URL is relative to it, so it runs under any
// path prefix (a proxy's).
const [sid, seatPart] = location.pathname.split("/").slice(-2);
const seat = decodeURIComponent(seatPart);
const token = pageToken();
const WAIT_ACTION = "wait(x)";
const TEXT_TEMPLATE = /^(\w+)\(<(\w+)>\)$/;  // an action with a text argument, e.g. run(<step>)
let socket = null;
let state = null;
// The episode's fields that do not change (collabrl.web.session.EPISODE_FIELDS): a connection's
// first state carries them, later states only when they changed; every state renders with them.
const EPISODE_FIELDS = ["game", "seat", "seats", "names", "kinds", "limit", "intro", "board"];
const setup = {};
let chat = []; // every message of the episode: a state sends those new to the connection
let backoff = 250;
let sent = false; // a decision is on its way: ignore further clicks until the next state
let lastFrame = null; // this seat's latest board frame (the room map's explored rooms name buttons)
let keyBuffer = "";
let keyTimer = null;

function $(id) { return document.getElementById(id); }

function connect() {
  const url = new URL(`../../ws/${sid}/${encodeURIComponent(seat)}?token=${encodeURIComponent(token)}`, location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(url.href);
  chat = []; // a new connection sends the whole chat again
  socket.onopen = () => { backoff = 250; $("status").textContent = "connected"; };
  socket.onmessage = (event) => {
    const msg = JSON.parse(event.data);
    if (msg.type === "state") render(withSetup(msg));
    else if (msg.type === "error") showError(msg.message);
  };
  socket.onclose = () => {
    $("status").textContent = "reconnecting…";
    setTimeout(connect, backoff);
    backoff = Math.min(backoff * 2, 4000);
  };
}

// The whole state to render: the setup and the chat kept from earlier states, then this one.
function withSetup(msg) {
  for (const key of EPISODE_FIELDS) if (key in msg) setup[key] = msg[key];
  chat = chat.concat(msg.chat);
  return { ...setup, ...msg, chat };
}

function showError(text) {
  $("error").textContent = text;
  sent = false;
  setEnabled(state && state.your_turn);
}

function decide(action, message) {
  if (!state || !state.your_turn || sent || !socket || socket.readyState !== WebSocket.OPEN) return;
  sent = true;
  setEnabled(false);
  $("error").textContent = "";
  const tick = state.observation ? state.observation.tick : null;  // refused if the observation is gone
  socket.send(JSON.stringify({ type: "decide", action, message: message || "", tick }));
}

function setEnabled(on) {
  for (const button of document.querySelectorAll("#actions button, #send")) button.disabled = !on;
}

function render(msg) {
  state = msg;
  sent = false;
  document.body.dataset.version = String(msg.version);
  $("title").textContent = `${msg.game}: you are ${nameOf(msg.seat)}`;
  $("clock").textContent = `tick ${msg.tick} of ${msg.limit} (${msg.limit - msg.tick} left)`;
  $("turn").textContent = msg.done ? "Episode over"
    : msg.your_turn ? "Your turn"
    : `Waiting for ${msg.waiting_for.length ? msg.waiting_for.map(nameOf).join(", ") : "your teammates"}…`;
  $("turn").className = msg.your_turn ? "mine" : "";
  $("intro").textContent = plainNames(named(msg.intro));
  renderTeam(msg);
  if (canDraw(msg.board)) drawLatest(msg);
  renderObservation(msg.done && msg.final ? msg.final : msg.observation);
  renderActions(msg.observation);
  renderHelp(msg.board);
  renderChat(msg.chat);
  renderResult(msg);
  $("message-form").hidden = msg.done;
  setEnabled(msg.your_turn);
}

// Names: the study's (or the recipe's seat) names everywhere on the page, each seat in the
// colour of its piece on the board; the agent's prompt keeps the game's seat names.
function nameOf(seat) { return (state && state.names && state.names[seat]) || seat; }

function seatClass(seat) {
  const i = state && state.seats ? state.seats.indexOf(seat) : -1;
  return i < 0 ? "" : `seat-${i}`;
}

function named(text) {
  if (!state || !state.names || !text) return text;
  const renamed = Object.entries(state.names).filter(([seat, name]) => seat !== name);
  renamed.sort((a, b) => b[0].length - a[0].length); // "Player 10" before "Player 1"
  for (const [seat, name] of renamed) {
    const escaped = seat.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    text = text.replace(new RegExp(`(^|[^\\w])${escaped}(?![\\w])`, "g"), (_, before) => before + name);
  }
  return text;
}

// Object names without ids: a board's layout may name every entity ("cabinet 2"), so
// "<kitchencabinet> (172)" in the text reads as its name; unknown ids keep the name, in words.
function plainNames(text) {
  const layout = state && state.board && state.board.layout;
  const names = layout && layout.names;
  if (!names || !text) return text;
  const omit = new Set(layout.omit_rules || []); // lines about the prompt's id notation
  text = text.split("\n").filter((line) => !omit.has(line)).join("\n");
  return text.replace(/<([^<>]+)> \((\d+)\)/g, (whole, name, id) => (names[id] ? names[id] : whole));
}

function entityName(id, name) {
  const names = state && state.board && state.board.layout && state.board.layout.names;
  return (names && names[id]) || name.replace(/_/g, " ");
}

function renderTeam(msg) {
  const box = $("team");
  clear(box);
  const labels = pieceLabels(msg.seats, msg.names, msg.seat);
  msg.seats.forEach((seat, i) => {
    const item = el("li", seat === msg.seat ? `${nameOf(seat)} (you)` : nameOf(seat), seatClass(seat));
    if (msg.board) item.dataset.piece = labels[i]; // the key to the board's pieces, drawn before the name
    item.dataset.testid = `team-${i}`;
    box.appendChild(item);
  });
}

// The board's short explanation of the actions ("What the actions do"), where it has one.
function renderHelp(board) {
  const help = board && board.layout && board.layout.help;
  $("help").hidden = !help;
  if (!help || $("help-list").childElementCount) return;
  for (const line of help) $("help-list").appendChild(el("li", line));
}

function renderObservation(obs) {
  const box = $("observation");
  if (!obs) {
    box.classList.add("stale");
    return;
  }
  box.classList.remove("stale");
  clear(box);
  if (!obs.actions) box.appendChild(el("h3", "How the episode ended", "final-title"));
  const lines = obs.text.split("\n");
  for (const block of obs.sections) {
    if (block.chat) continue; // the chat panel shows every message
    const section = el("section", undefined, "obs-block");
    if (block.title) section.appendChild(el("h3", block.title));
    const list = el("ul");
    for (const line of lines.slice(block.start, block.end)) {
      if (!line.trim()) continue;
      // a line that is an action (the history's) reads as its button does, said of the past
      list.appendChild(el("li", plainNames(named(actionLabel(line.replace(/^- /, ""), true)))));
    }
    section.appendChild(list);
    box.appendChild(section);
  }
}

// What a button says: the game's action strings (the agent's prompt keeps them) in words a
// newcomer reads at first sight; the button's data-action keeps the string it sends.
const KITCHEN_LABELS = {
  "pickup(onion)": "Pick up an onion",
  "pickup(dish)": "Pick up a dish",
  "pickup(soup)": "Pick up a soup",
  "put_onion_in_pot()": "Put the onion in the pot",
  "place_obj_on_counter()": "Put what you hold on a counter",
  "fill_dish_with_soup()": "Fill the dish with soup",
  "deliver_soup()": "Deliver the soup",
  "start_cooking()": "Start cooking",
  "wait(x)": "Wait, for this many ticks:",
};
const HOUSEHOLD_VERBS = {
  goexplore: (what, id, past) => (explored(id) && !past ? `Go back to ${the(what)}` : `Go to ${the(what)} and look around`),
  gocheck: (what) => `Look inside ${the(what)}`,
  gograb: (what) => `Pick up ${the(what)}`,
  goput: (what) => `Put what you hold on ${the(what)}`,
};

// "the sofa", but "cabinet 2": a numbered name needs no article
function the(what) { return /\d$/.test(what) ? what : `the ${what}`; }
const HOUSEHOLD_ACTION = /^\[(\w+)\] <([^>]+)> \((\d+)\)$/;

// A room this seat has explored, as its latest room-map frame says (going there again is going
// back, not exploring: a page label only, the action sent is the same).
function explored(id) {
  return Boolean(lastFrame && lastFrame.explored && lastFrame.explored.includes(Number(id)));
}

function actionLabel(action, past = false) {
  if (KITCHEN_LABELS[action]) return KITCHEN_LABELS[action];
  if (action === "[send_message]") return "Send a message"; // a history line of the message action
  const m = action.match(HOUSEHOLD_ACTION);
  if (m && HOUSEHOLD_VERBS[m[1]]) return HOUSEHOLD_VERBS[m[1]](entityName(m[3], m[2]), m[3], past);
  return action;
}

function renderActions(obs) {
  const box = $("actions");
  clear(box);
  if (!obs) return;
  for (const { letter, action } of obs.actions) {
    const button = el("button", undefined, "action");
    button.type = "button";
    button.dataset.key = letter;
    button.dataset.action = action;
    button.appendChild(el("kbd", letter));
    button.appendChild(el("span", actionLabel(action)));
    button.title = action;
    if (action === WAIT_ACTION) {
      const ticks = el("input");
      ticks.type = "number"; ticks.min = "1"; ticks.max = "20"; ticks.value = "1"; ticks.id = "wait-ticks";
      ticks.setAttribute("aria-label", "ticks to wait");
      ticks.addEventListener("click", (e) => e.stopPropagation());
      button.addEventListener("click", () => decide(`wait(${Math.max(1, Math.min(20, Number(ticks.value) || 1))})`));
      box.appendChild(button);
      box.appendChild(ticks);
    } else if (TEXT_TEMPLATE.test(action)) {
      // run(<step>), edit_relation(<text>), ...: the argument is typed into the box beside it
      const [, name, what] = action.match(TEXT_TEMPLATE);
      const input = el("input", undefined, "argument");
      input.type = "text"; input.maxLength = 500; input.placeholder = what;
      input.dataset.testid = `argument-${name}`;
      input.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); button.click(); } });
      button.addEventListener("click", () => {
        const text = input.value.trim();
        if (text) decide(`${name}(${text})`); else input.focus();
      });
      box.appendChild(button);
      box.appendChild(input);
    } else {
      button.addEventListener("click", () => decide(action));
      box.appendChild(button);
    }
  }
}

function renderChat(lines) {
  const box = $("chat");
  clear(box);
  for (const line of lines) {
    const item = el("li");
    item.appendChild(el("span", `tick ${line.tick} `, "tick"));
    item.appendChild(el("b", `${nameOf(line.speaker)}: `, seatClass(line.speaker)));
    item.dataset.testid = "chat-line";
    item.appendChild(el("span", plainNames(named(line.text)), "said"));
    box.appendChild(item);
  }
  box.scrollTop = box.scrollHeight;
}

function renderResult(msg) {
  const box = $("result");
  if (!msg.done) { box.hidden = true; return; }
  clear(box);
  box.appendChild(el("p", msg.outcome));
  const again = el("a", "Play another episode");
  again.href = `../../?token=${encodeURIComponent(token)}`;
  box.appendChild(again);
  box.hidden = false;
}

// One state per message: the board shows the message's last frame at once, with the text,
// score and buttons of the same message (no animation that lags behind them). A board drawer
// may send a decision (the room map: click a room to go there).
function drawLatest(msg) {
  const svg = $("drawing");
  svg.removeAttribute("hidden");
  const frame = msg.frames[msg.frames.length - 1] || lastFrame;
  if (!frame) return;
  lastFrame = frame;
  const offered = msg.your_turn && msg.observation ? msg.observation.actions.map((a) => a.action) : [];
  const view = { seat: msg.seat, names: msg.names, offered, choose: (action) => decide(action) };
  $("caption").textContent = drawBoard(svg, msg.board, frame, view);
  document.body.dataset.boardTick = String(frame.tick);
}

$("message-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("message").value.trim();
  if (!text || !state || !state.observation) return;
  decide(state.observation.message_action, text);
  $("message").value = "";
  $("message").blur(); // letters choose actions again

});

$("message").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey) {
    event.preventDefault();
    $("message-form").requestSubmit();
  }
});

document.addEventListener("keydown", (event) => {
  const typing = ["TEXTAREA", "INPUT"].includes(event.target.tagName);
  if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
  if (!/^[a-zA-Z]$/.test(event.key)) return;
  keyBuffer += event.key.toUpperCase();
  clearTimeout(keyTimer);
  const exact = document.querySelector(`#actions button[data-key="${keyBuffer}"]`);
  const longer = [...document.querySelectorAll("#actions button")].some(
    (b) => b.dataset.key.startsWith(keyBuffer) && b.dataset.key !== keyBuffer);
  if (exact && !longer) { keyBuffer = ""; exact.click(); return; }
  if (!exact && !longer) { keyBuffer = ""; return; }
  keyTimer = setTimeout(() => { if (exact) exact.click(); keyBuffer = ""; }, 600);
});

connect();
