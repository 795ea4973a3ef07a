// Splut!'s board for the play page (see /static/app.js): the diamond in SVG, pieces and rocks
// moved by CSS transforms, a step chosen by clicking a piece and then a square.
"use strict";

(() => {
  const CELL = 60, MARGIN = 30;
  const FILES = "abcdefghi";
  const DIR_NAMES = { n: "north", e: "east", s: "south", w: "west" };

  let shell = null;
  let view = null;      // the view drawn now
  let selected = null;  // square of the selected piece
  let svg, squares, coords, pieces;

  const el = (...args) => shell.el(...args);

  function squareXY(name) {
    const f = FILES.indexOf(name[0]), r = Number(name.slice(1)) - 1;
    return [MARGIN + f * CELL, MARGIN + (8 - r) * CELL];
  }

  function drawBoard() {
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
      const fill = view.players.find((pl) => pl.seat === p.seat).css;
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
    const wanted = new Map([...view.pieces, ...view.rocks].map((p) => [p.id, p]));
    for (const g of [...pieces.children]) {
      if (!wanted.has(g.getAttribute("data-piece")) && !g.classList.contains("gone")) {
        g.classList.add("gone");
        g.removeAttribute("data-square");
        setTimeout(() => g.remove(), 400);
      }
    }
    for (const [id, p] of wanted) {
      let g = pieces.querySelector(`[data-piece="${id}"]:not(.gone)`);
      if (!g) { g = makePiece(p); pieces.appendChild(g); }
      const [x, y] = squareXY(p.square);
      g.style.transform = `translate(${x}px, ${y}px)`;
      g.setAttribute("data-square", p.square);
      g.classList.toggle("locked", !!p.locked);
      g.classList.toggle("levitating", !!p.levitating);
    }
  }

  function highlight(choiceRocks = [], hinted = null) {
    const legal = view.legal;
    const sources = new Set(legal.map((s) => s.src));
    const targets = new Set(legal.filter((s) => s.src === selected).map((s) => s.dst));
    const last = view.moves.length ? view.moves[view.moves.length - 1] : null;
    for (const rect of squares.children) {
      const sq = rect.getAttribute("data-square");
      rect.classList.toggle("target", targets.has(sq));
      rect.classList.toggle("from", sq === selected);
      rect.classList.toggle("hinted", !!hinted && (sq === hinted.src || sq === hinted.dst));
    }
    for (const g of pieces.children) {
      const sq = g.getAttribute("data-square");
      const own = !g.classList.contains("rock");
      g.classList.toggle("movable", own && sources.has(sq));
      g.classList.toggle("selected", own && sq === selected);
      g.classList.toggle("choice", choiceRocks.includes(sq) && g.classList.contains("rock"));
    }
    svg.setAttribute("data-last-step", last ? last.text : "");
  }

  function describe(s) {
    if (s.option === "pull") return "Move and pull the rock behind";
    if (s.option === "throw") return `Throw the rock ${DIR_NAMES[s.throw]}`;
    if (s.option === "levitate") return `Move and levitate the rock on ${s.rock}`;
    return s.piece === "W" ? "Move without levitating" : "Move only";
  }

  function offer(steps) {
    shell.choose(
      steps.map((s) => ({ label: `${describe(s)} (${s.text})`, move: s.text })),
      () => { selected = null; highlight(); },
    );
    highlight(steps.filter((s) => s.rock).map((s) => s.rock));
  }

  function clicked(square) {
    if (!view || !view.human_to_move || !square) return;
    const legal = view.legal;
    if (selected) {
      const steps = legal.filter((s) => s.src === selected && s.dst === square);
      if (steps.length === 1) { shell.clearChoices(); shell.play(steps[0].text); return; }
      if (steps.length > 1) { offer(steps); return; }
    }
    shell.clearChoices();
    selected = legal.some((s) => s.src === square) && square !== selected ? square : null;
    highlight();
  }

  function splut() {
    const banner = document.getElementById("splut");
    banner.classList.remove("hidden");
    setTimeout(() => banner.classList.add("hidden"), 1200);
  }

  Tabletop.register({
    init(board, theShell) {
      svg = board;
      shell = theShell;
      svg.setAttribute("viewBox", "0 0 600 600");
      squares = el("g", { id: "squares" }, svg);
      coords = el("g", { id: "coords" }, svg);
      pieces = el("g", { id: "pieces" }, svg);
      const banner = document.createElement("div");
      banner.id = "splut";
      banner.className = "hidden";
      banner.textContent = "SPLUT!";
      svg.parentNode.appendChild(banner);
      drawBoard();
    },

    draw(next, before) {
      view = next;
      selected = null;
      if (!before) pieces.innerHTML = "";
      drawPieces();
      highlight();
      if (before && next.players.some((p, k) => before.players[k].alive && !p.alive)) splut();
    },

    showHint(step) {
      selected = null;
      highlight([], step);
    },
  });
})();
