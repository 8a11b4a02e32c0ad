"use strict";
// Board drawers by kind: a game's board (collabrl.envs.registry.Board) names its kind, and the
// pages draw its frames with the drawer of that kind. A drawer draws one frame into an SVG and
// returns a short caption for the header ("score 20"); a board of an unknown kind is not drawn.

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

function drawOvercookedGrid(svg, layout, frame) {
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
  frame.chefs.forEach((chef, i) => {
    const cx = chef.x * CELL + CELL / 2, cy = chef.y * CELL + CELL / 2;
    const g = svgEl("g", { class: `chef chef-${i}`, "data-testid": `chef-${i}` });
    g.appendChild(svgEl("circle", { cx, cy, r: 17 }));
    const [dx, dy] = chef.facing;
    g.appendChild(svgEl("line", { x1: cx, y1: cy, x2: cx + dx * 25, y2: cy + dy * 25, class: "facing" }));
    g.appendChild(svgEl("text", { x: cx, y: cy + 5, class: "chef-label" }, String(i)));
    if (chef.held) g.appendChild(svgEl("text", { x: cx, y: cy - 21, class: "held" }, chef.held));
    const name = (layout.seats && layout.seats[i]) || `chef ${i}`;
    g.appendChild(svgEl("title", {}, `${name}: facing ${FACING[chef.facing.join(",")]}, holding ${chef.held || "nothing"}`));
    svg.appendChild(g);
  });
  return `score ${frame.score}`;
}

const BOARDS = { "overcooked-grid": drawOvercookedGrid };

function canDraw(board) {
  return Boolean(board && BOARDS[board.kind]);
}

function drawBoard(svg, board, frame) {
  return BOARDS[board.kind](svg, board.layout, frame);
}
