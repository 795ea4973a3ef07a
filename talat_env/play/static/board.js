// Talat's boards for the play page (see /static/app.js): the three 5×5 boards as a triangle
// (gw on top, wb bottom left, bg bottom right), each edge marked with the colour that starts
// there. A tower is a prism in its colour: the outline shows its shape (triangle, square,
// hexagon), its size and depth its height (S, M, L). Frozen boards turn blue. In the set-up a
// tower is chosen in the tray and placed on a highlighted square; in play a tower is clicked,
// then a green square (step) or a red one (capture).
"use strict";

(() => {
  const CELL = 50, SIZE = 5 * CELL, W = 640, H = 700;
  const ORIGIN = { gw: [(W - SIZE) / 2, 64], wb: [38, 404], bg: [W - 38 - SIZE, 404] };
  const FILES = "abcde";
  const COLOUR_NAMES = { w: "white", b: "black", g: "grey" };
  const HEIGHT_NAMES = { S: "small", M: "medium", L: "large" };
  const SHAPE_NAMES = { 3: "triangle", 4: "square", 6: "hexagon" };
  const RADIUS = { S: 0.19, M: 0.255, L: 0.32 };  // of a cell
  const DEPTH = { S: 3, M: 6.5, L: 10 };           // pixels of the tower's side, in a cell
  const TRAY = [["L3", "L4", "L6"], ["M3", "M4", "M6"], ["S3", "S4", "S6"]];
  const TRAY_CELL = 54, TRAY_X = 8, TRAY_Y = 64;
  const MOVE_RE = /^(wb|bg|gw):(?:([SML][346])@([a-e][1-5])|([a-e][1-5])[-x]([a-e][1-5]))$/;

  let shell = null;
  let svg = null;
  let view = null;
  const layer = {};
  let selected = null;    // {board, square}: the chosen tower (play) or square (set-up)
  let chosenType = null;  // set-up: the tower type chosen in the tray
  let hinted = null;      // the hinted move (an entry of view.legal)

  const el = (...args) => shell.el(...args);

  function cellXY(board, square) {
    const [ox, oy] = ORIGIN[board];
    const f = FILES.indexOf(square[0]), r = Number(square[1]) - 1;
    return [ox + f * CELL, oy + (4 - r) * CELL];
  }

  // --- towers --------------------------------------------------------------------------

  function outline(type, radius) {
    const corners = Number(type[1]);
    const r = radius * (corners === 3 ? 1.15 : corners === 4 ? 0.95 : 1);
    const start = corners === 3 ? -Math.PI / 2 : corners === 4 ? -Math.PI / 4 : 0;
    return Array.from({ length: corners }, (_, k) => {
      const a = start + (2 * Math.PI * k) / corners;
      return [r * Math.cos(a), r * Math.sin(a)];
    });
  }

  function hull(points) {
    const pts = [...points].sort((p, q) => p[0] - q[0] || p[1] - q[1]);
    const cross = (o, a, b) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
    const half = (list) => {
      const out = [];
      for (const p of list) {
        while (out.length >= 2 && cross(out[out.length - 2], out[out.length - 1], p) <= 0) out.pop();
        out.push(p);
      }
      out.pop();
      return out;
    };
    return [...half(pts), ...half([...pts].reverse())];
  }

  const pointsText = (pts, dx, dy) => pts.map(([x, y]) => `${(x + dx).toFixed(1)},${(y + dy).toFixed(1)}`).join(" ");

  // A tower drawn around (cx, cy) in a cell of `size` pixels.
  function prism(parent, colour, type, cx, cy, size) {
    const top = outline(type, RADIUS[type[0]] * size);
    const depth = DEPTH[type[0]] * size / CELL;
    const body = el("g", { class: `prism colour-${colour}` }, parent);
    const lifted = top.map(([x, y]) => [x, y - depth / 2]);
    const sunk = top.map(([x, y]) => [x, y + depth / 2]);
    el("polygon", { class: "side", points: pointsText(hull([...lifted, ...sunk]), cx, cy) }, body);
    el("polygon", { class: "top", points: pointsText(lifted, cx, cy) }, body);
    return body;
  }

  function makeTower(t) {
    const g = el("g", { class: `tower colour-${t.colour}`, "data-tower": t.id });
    el("rect", { class: "hit", x: 0, y: 0, width: CELL, height: CELL }, g);
    prism(g, t.colour, t.type, CELL / 2, CELL / 2 + 5, CELL);
    el("text", { class: "type", x: 3.5, y: 10.5 }, g).textContent = t.type;
    const title = el("title", {}, g);
    title.textContent = `${COLOUR_NAMES[t.colour]} ${t.type}: ${HEIGHT_NAMES[t.type[0]]} ${SHAPE_NAMES[t.type[1]]}`;
    g.addEventListener("click", () => clickSquare(g.getAttribute("data-board"), g.getAttribute("data-square")));
    return g;
  }

  function drawTowers(fresh) {
    if (fresh) layer.towers.innerHTML = "";
    const wanted = new Map(view.towers.map((t) => [t.id, t]));
    for (const g of [...layer.towers.children]) {
      if (!wanted.has(g.getAttribute("data-tower")) && !g.classList.contains("gone")) {
        g.classList.add("gone");
        g.removeAttribute("data-square");
        g.removeAttribute("data-board");
        setTimeout(() => g.remove(), 400);
      }
    }
    for (const [id, t] of wanted) {
      let g = layer.towers.querySelector(`[data-tower="${id}"]:not(.gone)`);
      if (!g) { g = makeTower(t); layer.towers.appendChild(g); }
      const [x, y] = cellXY(t.board, t.square);
      g.style.transform = `translate(${x}px, ${y}px)`;
      g.setAttribute("data-board", t.board);
      g.setAttribute("data-square", t.square);
    }
  }

  // --- the boards ----------------------------------------------------------------------

  function edgeLabel(parent, colour, x, y, arrow) {
    const g = el("g", { class: `edge colour-${colour}`, "data-colour": colour }, parent);
    el("rect", { class: "chip", x, y: y - 8, width: 11, height: 11, rx: 2 }, g);
    el("text", { x: x + 16, y: y + 1 }, g).textContent = `${COLOUR_NAMES[colour]} starts here ${arrow}`;
  }

  function drawBoards() {
    for (const b of view.boards) {
      const [ox, oy] = ORIGIN[b.name];
      const g = el("g", { class: "board", "data-board": b.name }, layer.boards);
      for (let r = 0; r < 5; r++) {
        for (let f = 0; f < 5; f++) {
          const square = FILES[f] + (r + 1);
          const rect = el("rect", { x: ox + f * CELL, y: oy + (4 - r) * CELL, width: CELL, height: CELL,
            class: "square " + ((f + r) % 2 ? "light" : "dark"), "data-square": `${b.name}:${square}` }, g);
          rect.addEventListener("click", () => clickSquare(b.name, square));
        }
        el("text", { class: "coord", x: ox - 11, y: oy + (4 - r) * CELL + CELL / 2 }, g).textContent = String(r + 1);
        el("text", { class: "coord", x: ox + r * CELL + CELL / 2, y: oy + SIZE + 11 }, g).textContent = FILES[r];
      }
      el("rect", { class: `band colour-${b.down}`, x: ox, y: oy - 5, width: SIZE, height: 5 }, g);
      el("rect", { class: `band colour-${b.up}`, x: ox, y: oy + SIZE, width: SIZE, height: 5 }, g);
      el("rect", { class: "frame", x: ox, y: oy, width: SIZE, height: SIZE }, g);
      edgeLabel(g, b.down, ox, oy - 13, "↓");
      edgeLabel(g, b.up, ox, oy + SIZE + 27, "↑");
      const title = el("text", { class: "board-name", x: ox + SIZE, y: oy - 12 }, g);
      title.textContent = b.name;
      const frozen = el("text", { class: "frozen-mark", x: ox + SIZE - 34, y: oy - 12 }, g);
      frozen.textContent = "❄ frozen";
    }
  }

  function drawLegend() {
    const g = el("g", { class: "legend" }, layer.decor);
    const x = W - 168;
    const lines = ["Who beats whom", "one height taller: L › M › S", "same height: 6 › 4 › 3",
      "and S3 beats L6"];
    lines.forEach((line, k) => {
      el("text", { x, y: TRAY_Y + 4 + k * 17, class: k ? "" : "legend-title" }, g).textContent = line;
    });
    ["S3", "M4", "L6"].forEach((type, k) => {
      prism(g, "w", type, x + 18 + k * 46, TRAY_Y + 98, 44);
      el("text", { x: x + 18 + k * 46, y: TRAY_Y + 132, class: "legend-type" }, g).textContent = type;
    });
  }

  function drawTray() {
    const tray = layer.tray;
    tray.innerHTML = "";
    const colour = view.placing;
    tray.classList.toggle("hidden", !colour);
    if (!colour) return;
    const left = new Set(view.unplaced[colour]);
    const zihin = view.zihin && colour === "g" ? " (Zihin)" : "";
    el("text", { class: "tray-title", x: TRAY_X, y: TRAY_Y - 8 }, tray).textContent =
      `${COLOUR_NAMES[colour]}${zihin} to place`;
    TRAY.forEach((row, r) => row.forEach((type, c) => {
      const x = TRAY_X + c * TRAY_CELL, y = TRAY_Y + r * TRAY_CELL;
      const slot = el("g", { class: "slot", "data-type": type }, tray);
      el("rect", { class: "slot-bg", x: x + 2, y: y + 2, width: TRAY_CELL - 4, height: TRAY_CELL - 4, rx: 6 }, slot);
      if (left.has(type)) {
        prism(slot, colour, type, x + TRAY_CELL / 2, y + TRAY_CELL / 2 - 5, 42);
        el("text", { class: "slot-type", x: x + TRAY_CELL / 2, y: y + TRAY_CELL - 5 }, slot).textContent = type;
      } else {
        slot.classList.add("placed");
      }
      const title = el("title", {}, slot);
      title.textContent = `${type}: ${HEIGHT_NAMES[type[0]]} ${SHAPE_NAMES[type[1]]}`;
      slot.addEventListener("click", () => clickType(type));
    }));
  }

  function drawPanel() {
    const panel = document.getElementById("panel");
    panel.innerHTML = "";
    const table = document.createElement("table");
    table.className = "scores";
    table.innerHTML = "<thead><tr><th>player</th><th>score</th><th>captured</th></tr></thead>";
    const body = document.createElement("tbody");
    view.players.forEach((p, k) => {
      const tr = document.createElement("tr");
      tr.classList.toggle("to-move", view.to_move === k);
      tr.classList.toggle("winner", view.over && (view.winner === k || (view.winner === null && isSharing(k))));
      const who = document.createElement("td");
      const swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.style.background = p.css;
      who.append(swatch, `${p.seat} ${p.label}`);
      const score = document.createElement("td");
      score.className = "score";
      score.textContent = String(p.score);
      const pile = document.createElement("td");
      pile.className = "pile";
      pile.textContent = p.pile.length ? p.pile.join(" ") : "–";
      tr.append(who, score, pile);
      body.appendChild(tr);
    });
    table.appendChild(body);
    panel.appendChild(table);
    if (view.zihin) {
      const note = document.createElement("p");
      note.className = "note";
      note.textContent = "Grey is the Zihin: white moves the grey towers on bg, black those on gw.";
      panel.appendChild(note);
    }
  }

  function isSharing(k) {
    const best = Math.max(...view.players.map((p) => p.score));
    return view.players[k].score === best && / share the win/.test(view.result);
  }

  // --- highlights ----------------------------------------------------------------------

  function squaresOf(text) {
    const m = MOVE_RE.exec(text || "");
    if (!m) return [];
    return m[2] ? [`${m[1]}:${m[3]}`] : [`${m[1]}:${m[4]}`, `${m[1]}:${m[5]}`];
  }

  function highlight() {
    const legal = view.legal;
    const key = (m, sq) => `${m.board}:${sq}`;
    const targets = new Set(), captures = new Set(), places = new Set(), movable = new Set();
    if (view.phase === "place") {
      for (const m of legal) {
        if (!chosenType || m.type === chosenType) places.add(key(m, m.square));
      }
    } else {
      for (const m of legal) {
        if (!m.src) continue;
        movable.add(key(m, m.src));
        if (selected && m.board === selected.board && m.src === selected.square) {
          (m.kind === "capture" ? captures : targets).add(key(m, m.dst));
        }
      }
    }
    const last = view.moves.length ? view.moves[view.moves.length - 1].text : "";
    const lastSquares = new Set(squaresOf(last));
    const hintSquares = new Set(hinted ? squaresOf(hinted.text) : []);
    const chosen = selected ? `${selected.board}:${selected.square}` : null;
    for (const rect of layer.boards.querySelectorAll(".square")) {
      const sq = rect.getAttribute("data-square");
      rect.classList.toggle("target", targets.has(sq));
      rect.classList.toggle("capture", captures.has(sq));
      rect.classList.toggle("place", places.has(sq));
      rect.classList.toggle("from", sq === chosen);
      rect.classList.toggle("last", lastSquares.has(sq));
      rect.classList.toggle("hinted", hintSquares.has(sq));
    }
    for (const g of layer.towers.children) {
      const sq = `${g.getAttribute("data-board")}:${g.getAttribute("data-square")}`;
      g.classList.toggle("movable", movable.has(sq));
      g.classList.toggle("selected", sq === chosen);
      g.classList.toggle("capturable", captures.has(sq));
    }
    const types = new Set(legal.filter((m) => m.kind === "place").map((m) => m.type));
    for (const slot of layer.tray.querySelectorAll(".slot")) {
      const type = slot.getAttribute("data-type");
      slot.classList.toggle("choosable", types.has(type));
      slot.classList.toggle("chosen", type === chosenType);
      slot.classList.toggle("hinted", !!hinted && hinted.type === type);
    }
    for (const b of view.boards) {
      layer.boards.querySelector(`[data-board="${b.name}"]`).classList.toggle("frozen", b.frozen);
    }
    for (const edge of layer.boards.querySelectorAll(".edge")) {
      const colour = edge.getAttribute("data-colour");
      const mover = view.to_move === null ? null : view.players[view.to_move].seat;
      edge.classList.toggle("active", colour === (view.placing || mover));
    }
    svg.setAttribute("data-last-move", last);
  }

  // --- clicks --------------------------------------------------------------------------

  function clickSquare(board, square) {
    if (!view || !view.human_to_move || !board || !square) return;
    hinted = null;
    if (view.phase === "place") {
      const fits = view.legal.filter((m) => m.board === board && m.square === square);
      if (!fits.length) { selected = null; highlight(); return; }
      const move = chosenType && fits.find((m) => m.type === chosenType);
      if (move) { shell.play(move.text); return; }
      selected = { board, square };
      shell.message("");
      highlight();
      return;
    }
    if (selected) {
      const move = view.legal.find((m) => m.board === selected.board && m.src === selected.square
        && m.board === board && m.dst === square);
      if (move) { shell.play(move.text); return; }
    }
    const own = view.legal.some((m) => m.board === board && m.src === square);
    const again = selected && selected.board === board && selected.square === square;
    selected = own && !again ? { board, square } : null;
    highlight();
  }

  function clickType(type) {
    if (!view || !view.human_to_move || view.phase !== "place") return;
    if (!view.legal.some((m) => m.type === type)) return;
    hinted = null;
    if (selected) {
      const move = view.legal.find((m) => m.type === type && m.board === selected.board
        && m.square === selected.square);
      if (move) { shell.play(move.text); return; }
    }
    chosenType = chosenType === type ? null : type;
    highlight();
  }

  Tabletop.register({
    init(board, theShell) {
      svg = board;
      shell = theShell;
      svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
      layer.decor = el("g", { id: "decor" }, svg);
      layer.boards = el("g", { id: "boards" }, svg);
      layer.tray = el("g", { id: "tray" }, svg);
      layer.towers = el("g", { id: "towers" }, svg);
      drawLegend();
    },

    draw(next, before) {
      const fresh = !before || !view;
      view = next;
      selected = null;
      chosenType = null;
      hinted = null;
      if (!layer.boards.children.length) drawBoards();
      drawTowers(fresh);
      drawTray();
      drawPanel();
      highlight();
      if (view.human_to_move && view.legal.length === 1 && view.legal[0].kind === "pass") {
        shell.choose([{ label: "Pass: no step or capture is possible", move: "pass" }]);
      }
    },

    showHint(move) {
      hinted = move;
      selected = null;
      chosenType = null;
      highlight();
    },
  });
})();
