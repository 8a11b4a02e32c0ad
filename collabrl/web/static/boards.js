"use strict";
// Board drawers by kind: a game's board (collabrl.envs.registry.Board) names its kind, and the
// pages draw its frames with the drawer of that kind. A drawer draws one frame into an SVG and
// returns a short caption for the header ("score 20"); a board of an unknown kind is not drawn.
// `view` says who looks: {seat (the page's own, absent in the viewer), names (seat -> name),
// offered (the actions offered now), choose(action) (sends one; absent where nothing is sent)}.

// overcooked-grid: terrain from the layout grid, then pots, counter items and chefs.
// X counter, P pot, O onion dispenser, D dish dispenser, S serving window, space floor.

const SVG_NS = "http://www.w3.org/2000/svg";
const CELL = 56;
const TILE_NAMES = { X: "counter", P: "pot", O: "onions", D: "dishes", S: "serve", " ": "floor" };
const ITEM_SHORT = { onion: "onion", dish: "dish", soup: "soup" };
const FACING = { "0,-1": "north", "0,1": "south", "1,0": "east", "-1,0": "west" };

function svgEl(tag, attrs, text) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = String(text);
  return node;
}

// What each seat's piece says: "you" for the page's own seat, else the first letter of the
// seat's name ("A" for "Agent A"), or the seat number where two pieces would share a letter.
function pieceLabels(seats, names, me) {
  const initial = (seat) => ((names && names[seat]) || seat).trim().charAt(0).toUpperCase();
  return seats.map((seat, i) => {
    if (seat === me) return "you";
    const clash = seats.some((other, j) => j !== i && other !== me && initial(other) === initial(seat));
    return clash ? String(i) : initial(seat);
  });
}

function drawOvercookedGrid(svg, layout, frame, view) {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const rows = layout.grid;
  const width = Math.max(...rows.map((r) => r.length));
  svg.setAttribute("viewBox", `0 0 ${width * CELL} ${rows.length * CELL}`);
  svg.setAttribute("width", width * CELL);
  svg.setAttribute("height", rows.length * CELL);
  rows.forEach((row, y) => {
    [...row].forEach((ch, x) => {
      const kind = TILE_NAMES[ch] || "floor";
      svg.appendChild(svgEl("rect", { x: x * CELL, y: y * CELL, width: CELL, height: CELL, class: `tile ${kind}` }));
      if (kind !== "floor" && kind !== "counter" && kind !== "pot") {
        svg.appendChild(svgEl("text", { x: x * CELL + CELL / 2, y: y * CELL + CELL - 6, class: "tile-label" }, kind));
      }
    });
  });
  for (const pot of frame.pots) {
    const x = pot.x * CELL, y = pot.y * CELL;
    const cooking = pot.cooking >= 0;
    const ready = cooking && pot.cooking >= layout.cook_time;
    const g = svgEl("g", { class: "pot-state", "data-testid": "pot" });
    g.appendChild(svgEl("text", { x: x + CELL / 2, y: y + 20, class: "pot-count" }, `${pot.onions}/3`));
    if (cooking) {
      const share = Math.min(1, pot.cooking / layout.cook_time);
      g.appendChild(svgEl("rect", { x: x + 6, y: y + CELL - 14, width: CELL - 12, height: 8, class: "bar-bg" }));
      g.appendChild(svgEl("rect", { x: x + 6, y: y + CELL - 14, width: (CELL - 12) * share, height: 8, class: ready ? "bar-ready" : "bar" }));
    }
    g.appendChild(svgEl("text", { x: x + CELL / 2, y: y + 36, class: "tile-label" }, ready ? "ready" : cooking ? "cooking" : "pot"));
    svg.appendChild(g);
  }
  for (const item of frame.counters) {
    svg.appendChild(svgEl("circle", { cx: item.x * CELL + CELL / 2, cy: item.y * CELL + CELL / 2, r: 11, class: `item ${item.item}` }));
    svg.appendChild(svgEl("text", { x: item.x * CELL + CELL / 2, y: item.y * CELL + CELL / 2 + 4, class: "item-label" }, ITEM_SHORT[item.item] ? item.item[0] : "?"));
  }
  const labels = pieceLabels(layout.seats || [], view && view.names, view && view.seat);
  frame.chefs.forEach((chef, i) => {
    const cx = chef.x * CELL + CELL / 2, cy = chef.y * CELL + CELL / 2;
    const g = svgEl("g", { class: `chef chef-${i}`, "data-testid": `chef-${i}` });
    g.appendChild(svgEl("circle", { cx, cy, r: 17 }));
    const [dx, dy] = chef.facing;
    g.appendChild(svgEl("line", { x1: cx, y1: cy, x2: cx + dx * 25, y2: cy + dy * 25, class: "facing" }));
    g.appendChild(svgEl("text", { x: cx, y: cy + 5, class: "chef-label" }, labels[i] || String(i)));
    if (chef.held) g.appendChild(svgEl("text", { x: cx, y: cy - 21, class: "held" }, chef.held));
    const seat = layout.seats && layout.seats[i];
    const name = seat ? ((view && view.names && view.names[seat]) || seat) : `chef ${i}`;
    g.appendChild(svgEl("title", {}, `${name}: facing ${FACING[chef.facing.join(",")]}, holding ${chef.held || "nothing"}`));
    svg.appendChild(g);
  });
  return `score ${frame.score}`;
}

// room-map: the rooms of an apartment on its grid, as one seat knows them (a frame of one seat).
// Hallway cells between rooms are drawn narrow, so a long apartment still fits the page.
const ROOM_W = 220, ROOM_H = 168, HALL = 26;

function gridAxis(values) {
  const ranks = [...new Set(values)].sort((a, b) => a - b);
  return (v) => ranks.indexOf(v) * ROOM_W + (v - ranks.indexOf(v)) * HALL;
}

function drawRoomMap(svg, layout, frame, view) {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const seats = layout.seats;
  const me = frame.seat; // a page is sent its own seat's part of each frame only
  const labels = pieceLabels(seats, view && view.names, view && view.seat);
  const nameOf = (seat) => (view && view.names && view.names[seat]) || seat;
  const px = gridAxis(layout.rooms.map((r) => r.cell[0]));
  const py = gridAxis(layout.rooms.map((r) => r.cell[1]));
  const width = Math.max(...layout.rooms.map((r) => px(r.cell[0]))) + ROOM_W;
  const height = Math.max(...layout.rooms.map((r) => py(r.cell[1]))) + ROOM_H;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  svg.appendChild(svgEl("rect", { x: 0, y: 0, width, height, class: "hallway" }));
  const offered = new Set((view && view.offered) || []);
  for (const room of layout.rooms) {
    const x = px(room.cell[0]) + 4, y = py(room.cell[1]) + 4, w = ROOM_W - 8, h = ROOM_H - 8;
    const here = room.id === frame.room;
    const explored = frame.explored.includes(room.id);
    const steps = frame.steps[room.id];
    const go = !here && offered.has(room.action) && view && view.choose;
    const g = svgEl("g", {
      class: `room${explored ? " explored" : " unexplored"}${here ? " here" : ""}${go ? " go" : ""}`,
      "data-testid": `room-${room.id}`, "data-room": room.name,
    });
    g.appendChild(svgEl("rect", { x, y, width: w, height: h, rx: 8, class: "room-box" }));
    let line = y + 20;
    const text = (content, cls) => { g.appendChild(svgEl("text", { x: x + 8, y: line, class: cls }, content)); line += 15; };
    text(room.name, "room-name");
    text(here ? "you are here" : `${steps} steps away`, "room-steps");
    for (const goal of layout.goal.filter((gl) => gl.room === room.id)) {
      text(`\u2605 goal place: ${goal.place}`, "room-goal");
      text(`   for ${goal.what}`, "room-goal");
    }
    if (!explored) text("not explored yet", "room-note");
    for (const found of (frame.found[room.id] || []).slice(0, 5)) text(found, "room-found");
    const more = (frame.found[room.id] || []).length - 5;
    if (more > 0) text(`and ${more} more`, "room-found");
    // pieces: you where you are, teammates where you last saw them (dashed: last seen)
    const pieces = [];
    if (here) pieces.push({ seat: me, title: `${nameOf(me)} (you)`, seen: false });
    for (const [seat, seen] of Object.entries(frame.seen || {})) {
      if (seen.room === room.id) pieces.push({ seat, title: `${nameOf(seat)}: last seen here at step ${seen.tick}`, seen: true });
    }
    pieces.forEach((piece, k) => {
      const i = seats.indexOf(piece.seat);
      const cx = x + w - 22 - k * 38, cy = y + 22;
      const p = svgEl("g", { class: `piece chef-${i}${piece.seen ? " last-seen" : ""}`, "data-testid": `piece-${i}` });
      p.appendChild(svgEl("circle", { cx, cy, r: 16 }));
      p.appendChild(svgEl("text", { x: cx, y: cy + 4, class: "chef-label" }, labels[i]));
      p.appendChild(svgEl("title", {}, piece.title));
      g.appendChild(p);
    });
    g.appendChild(svgEl("title", {}, go ? `Click: go to the ${room.name} (${steps} steps)` : room.name));
    if (go) g.addEventListener("click", () => view.choose(room.action));
    svg.appendChild(g);
  }
  const progress = frame.progress.map((p) => `${p.object} ${p.placed}/${p.count}`).join(", ");
  const carrying = frame.holding.length ? ` \u00b7 carrying ${frame.holding.join(", ")}` : "";
  return `in place: ${progress}${carrying}`;
}

const BOARDS = { "overcooked-grid": drawOvercookedGrid, "room-map": drawRoomMap };

function canDraw(board) {
  return Boolean(board && BOARDS[board.kind]);
}

function drawBoard(svg, board, frame, view) {
  return BOARDS[board.kind](svg, board.layout, frame, view);
}
