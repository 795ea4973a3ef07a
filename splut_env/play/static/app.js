// Splut! in the browser: draws the server's game view in SVG and sends the human's steps.
"use strict";

const CELL = 60, MARGIN = 30, SVGNS = "http://www.w3.org/2000/svg";
const FILES = "abcdefghi";
const COLOURS = { red: "#d63031", blue: "#0984e3", green: "#00a05a", yellow: "#f0be00" };
const DIR_NAMES = { n: "north", e: "east", s: "south", w: "west" };
const AGENT_DELAY_MS = 550;

let options = null;   // /api/options
let view = null;      // the current game view
let selected = null;  // square of the selected piece
let session = 0;      // bumped by every new game, to stop the previous game's agent loop

const $ = (id) => document.getElementById(id);

function squareXY(name) {
  const f = FILES.indexOf(name[0]), r = Number(name.slice(1)) - 1;
  return [MARGIN + f * CELL, MARGIN + (8 - r) * CELL];
}

function el(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

async function api(method, url, body) {
  const init = { method, headers: { "Content-Type": "application/json" } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(url, init);
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const detail = typeof data.detail === "string" ? data.detail : JSON.stringify(data.detail);
    throw new Error(`${res.status}: ${detail || res.statusText}`);
  }
  return data;
}

// --- the board -----------------------------------------------------------------------

function drawBoard() {
  const squares = $("squares"), coords = $("coords");
  for (let r = 0; r < 9; r++) {
    for (let f = 0; f < 9; f++) {
      if (Math.abs(f - 4) + Math.abs(r - 4) > 4) continue;
      const name = FILES[f] + (r + 1);
      const [x, y] = squareXY(name);
      const rect = el("rect", { x, y, width: CELL, height: CELL, "data-square": name,
        class: "square " + ((f + r) % 2 ? "light" : "dark") }, squares);
      rect.addEventListener("click", () => clicked(name));
    }
  }
  for (let i = 0; i < 9; i++) {
    const x = MARGIN + i * CELL + CELL / 2, y = MARGIN + (8 - i) * CELL + CELL / 2;
    el("text", { x, y: 585, class: "coord" }, coords).textContent = FILES[i];
    el("text", { x: 15, y, class: "coord" }, coords).textContent = String(i + 1);
  }
}

function makePiece(p) {
  const g = el("g", { class: "piece", "data-piece": p.id });
  const c = CELL / 2, k = 18;
  if (p.kind === undefined) {  // a rock
    g.classList.add("rock");
    const o = 20, q = 8;
    el("polygon", { class: "body", points: [[-q, -o], [q, -o], [o, -q], [o, q], [q, o], [-q, o],
      [-o, q], [-o, -q]].map(([x, y]) => `${c + x},${c + y}`).join(" ") }, g);
    el("path", { class: "cross", d: `M${c - 8},${c - 8} L${c + 8},${c + 8} M${c - 8},${c + 8} L${c + 8},${c - 8}` }, g);
    el("circle", { class: "ring", cx: c, cy: c, r: 25 }, g);
  } else {
    const fill = COLOURS[view.players.find((pl) => pl.seat === p.seat).colour];
    g.classList.add("seat-" + p.seat);
    if (p.kind === "W") {
      el("polygon", { class: "body", fill, points: `${c},${c - k - 3} ${c + k + 2},${c + k} ${c - k - 2},${c + k}` }, g);
    } else if (p.kind === "T") {
      el("rect", { class: "body", fill, x: c - k, y: c - k, width: 2 * k, height: 2 * k, rx: 3 }, g);
    } else {
      el("circle", { class: "body", fill, cx: c, cy: c, r: k - 3 }, g);
    }
    el("text", { x: c, y: p.kind === "W" ? c + 5 : c }, g).textContent = p.kind;
  }
  g.addEventListener("click", () => clicked(g.getAttribute("data-square")));
  return g;
}

function drawPieces() {
  const layer = $("pieces");
  const wanted = new Map([...view.pieces, ...view.rocks].map((p) => [p.id, p]));
  for (const g of [...layer.children]) {
    if (!wanted.has(g.getAttribute("data-piece")) && !g.classList.contains("gone")) {
      g.classList.add("gone");
      g.removeAttribute("data-square");
      setTimeout(() => g.remove(), 400);
    }
  }
  for (const [id, p] of wanted) {
    let g = layer.querySelector(`[data-piece="${id}"]:not(.gone)`);
    if (!g) { g = makePiece(p); layer.appendChild(g); }
    const [x, y] = squareXY(p.square);
    g.style.transform = `translate(${x}px, ${y}px)`;
    g.setAttribute("data-square", p.square);
    g.classList.toggle("locked", !!p.locked);
    g.classList.toggle("levitating", !!p.levitating);
  }
}

function highlight(choiceRocks = []) {
  const legal = view.legal;
  const sources = new Set(legal.map((s) => s.src));
  const targets = new Set(legal.filter((s) => s.src === selected).map((s) => s.dst));
  const last = view.steps.length ? view.steps[view.steps.length - 1] : null;
  for (const rect of $("squares").children) {
    const sq = rect.getAttribute("data-square");
    rect.classList.toggle("target", targets.has(sq));
    rect.classList.toggle("from", sq === selected);
  }
  for (const g of $("pieces").children) {
    const sq = g.getAttribute("data-square");
    const own = !g.classList.contains("rock");
    g.classList.toggle("movable", own && sources.has(sq));
    g.classList.toggle("selected", own && sq === selected);
    g.classList.toggle("choice", choiceRocks.includes(sq) && g.classList.contains("rock"));
  }
  $("board").setAttribute("data-last-step", last ? last.text : "");
}

// --- status, log, choices ------------------------------------------------------------

function seatName(k) {
  const p = view.players[k];
  return `${p.seat} (${p.colour}, ${p.label})`;
}

function drawStatus() {
  let text;
  if (view.over) text = `Game over: ${view.result}`;
  else if (view.human_to_move) text = `Your move, ${seatName(view.to_move)}: turn ${view.turn}, ${view.steps_left} step(s) left`;
  else text = `${seatName(view.to_move)} is thinking… (turn ${view.turn})`;
  $("status").textContent = text;
  $("status").setAttribute("data-state", view.over ? "over" : view.human_to_move ? "human" : "agent");
  const log = $("log");
  log.innerHTML = "";
  for (const s of view.steps) {
    const li = document.createElement("li");
    li.textContent = `turn ${s.turn} ${view.players[s.player].seat}: ${s.text}`;
    log.appendChild(li);
  }
  log.scrollTop = log.scrollHeight;
  $("download").href = `/api/games/${view.id}/log`;
  $("download").classList.remove("disabled");
  $("undo").disabled = !view.players.some((p) => p.human) || view.steps.length === 0;
}

function describe(s) {
  if (s.option === "pull") return "Move and pull the rock behind";
  if (s.option === "throw") return `Throw the rock ${DIR_NAMES[s.throw]}`;
  if (s.option === "levitate") return `Move and levitate the rock on ${s.rock}`;
  return s.piece === "W" ? "Move without levitating" : "Move only";
}

function showChoices(steps) {
  const box = $("choices");
  box.innerHTML = "";
  const title = document.createElement("div");
  title.textContent = "Choose:";
  box.appendChild(title);
  for (const s of steps) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = `${describe(s)} (${s.text})`;
    b.setAttribute("data-step", s.text);
    b.addEventListener("click", () => { hideChoices(); sendStep(s.text); });
    box.appendChild(b);
  }
  const cancel = document.createElement("button");
  cancel.type = "button";
  cancel.textContent = "Cancel";
  cancel.addEventListener("click", () => { hideChoices(); selected = null; highlight(); });
  box.appendChild(cancel);
  box.classList.remove("hidden");
  highlight(steps.filter((s) => s.rock).map((s) => s.rock));
}

function hideChoices() { $("choices").classList.add("hidden"); $("choices").innerHTML = ""; }

// --- playing ---------------------------------------------------------------------------

function clicked(square) {
  if (!view || !view.human_to_move || !square) return;
  const legal = view.legal;
  if (selected) {
    const steps = legal.filter((s) => s.src === selected && s.dst === square);
    if (steps.length === 1) { hideChoices(); sendStep(steps[0].text); return; }
    if (steps.length > 1) { showChoices(steps); return; }
  }
  hideChoices();
  selected = legal.some((s) => s.src === square) && square !== selected ? square : null;
  highlight();
}

function show(next) {
  const before = view;
  view = next;
  selected = null;
  $("message").textContent = "";
  drawPieces();
  highlight();
  drawStatus();
  if (before && before.id === next.id) {
    const died = next.players.some((p, k) => before.players[k].alive && !p.alive);
    if (died) { $("splut").classList.remove("hidden"); setTimeout(() => $("splut").classList.add("hidden"), 1200); }
  }
  if (!next.over && !next.human_to_move) {
    const mine = session;
    setTimeout(() => agentStep(mine), AGENT_DELAY_MS);
  }
}

async function sendStep(text) {
  try { show(await api("POST", `/api/games/${view.id}/step`, { step: text, ply: view.ply })); }
  catch (err) { $("message").textContent = err.message; }
}

async function agentStep(mine) {
  if (mine !== session || !view || view.over || view.human_to_move) return;
  try {
    const next = await api("POST", `/api/games/${view.id}/agent-step`, { ply: view.ply });
    if (mine === session) show(next);
  } catch (err) {
    if (mine === session) $("message").textContent = err.message;
  }
}

async function undo() {
  try { hideChoices(); show(await api("POST", `/api/games/${view.id}/undo`, { ply: view.ply })); }
  catch (err) { $("message").textContent = err.message; }
}

async function newGame(event) {
  if (event) event.preventDefault();
  const players = [...document.querySelectorAll("#seat-choices select")].map((s) => s.value);
  const seed = $("seed").value === "" ? null : Number($("seed").value);
  session += 1;
  hideChoices();
  try {
    const next = await api("POST", "/api/games", { players, seed });
    $("pieces").innerHTML = "";
    view = null;
    show(next);
  } catch (err) { $("message").textContent = err.message; }
}

function seatChoices() {
  const n = $("num-players").value, box = $("seat-choices");
  const previous = [...box.querySelectorAll("select")].map((s) => s.value);
  box.innerHTML = "";
  options.seats[n].forEach((seat, k) => {
    const label = document.createElement("label");
    const name = document.createElement("span");
    name.className = "seat-label";
    name.style.color = COLOURS[seat.colour];
    name.textContent = `${seat.seat} `;
    const select = document.createElement("select");
    select.id = `player-${k}`;
    for (const p of options.players) {
      const o = document.createElement("option");
      o.value = o.textContent = p;
      select.appendChild(o);
    }
    select.value = previous[k] || (k === 0 ? "human" : "search:easy");
    label.append(name, select);
    box.appendChild(label);
  });
}

async function start() {
  drawBoard();
  options = await api("GET", "/api/options");
  seatChoices();
  $("num-players").addEventListener("change", seatChoices);
  $("setup").addEventListener("submit", newGame);
  $("undo").addEventListener("click", undo);
  await newGame();
}

start();
