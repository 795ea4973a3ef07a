// Splendor's table for the play page (see /static/app.js): the nobles on top, the market
// (level 3 at the top, each row after its deck) and the supply on the right, drawn in the
// SVG; every player's tokens, bonuses, points, nobles and reserved hand in the side panel.
// The page is drawn for one seat (view.observer): other players' reserved cards show their
// backs only. Clicks: gems of the supply, then Take; a market card, then Buy or Reserve; a
// deck to reserve its top card; a card of one's own hand to buy it; in a return phase a token
// (one at a time); in a noble phase a noble. The choices also come as buttons.
"use strict";

(() => {
  const W = 620, H = 512;
  const CARD_W = 92, CARD_H = 124, CARD_GAP = 8;
  const MARKET_X = 100, MARKET_Y = 104, ROW_H = CARD_H + 10;
  const NOBLE = 80, NOBLE_Y = 10;
  const SUPPLY_X = 566, SUPPLY_Y = 132, TOKEN_R = 23, TOKEN_GAP = 62;
  const TOKENS = "wbgrky";
  const GEM_NAMES = { w: "white", b: "blue", g: "green", r: "red", k: "black", y: "gold" };

  let shell = null;
  let svg = null;
  let view = null;
  const layer = {};
  let picked = [];       // the supply gems chosen so far for a take
  let hinted = null;     // the hinted move (an entry of view.legal)

  const el = (...args) => shell.el(...args);
  const legal = () => (view && view.human_to_move ? view.legal : []);
  const sortColours = (cs) => [...cs].sort((a, b) => TOKENS.indexOf(a) - TOKENS.indexOf(b)).join("");
  const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

  function html(tag, attrs = {}, parent = null, text = null) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text !== null) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }

  // --- the SVG table -------------------------------------------------------------------

  function gem(parent, colour, cx, cy, r, count) {
    el("circle", { class: `gem gem-${colour}`, cx, cy, r }, parent);
    if (count !== undefined) {
      el("text", { class: `gem-count on-${colour}`, x: cx, y: cy }, parent).textContent = String(count);
    }
  }

  function drawCard(parent, card, x, y) {
    const g = el("g", { class: `card level-${card.level}`, transform: `translate(${x},${y})`,
      "data-id": card.id }, parent);
    el("rect", { class: "card-bg", width: CARD_W, height: CARD_H, rx: 8 }, g);
    el("rect", { class: `band gem-${card.bonus}`, width: CARD_W, height: 30, rx: 8 }, g);
    el("rect", { class: `band gem-${card.bonus}`, y: 14, width: CARD_W, height: 16 }, g);
    if (card.points) {
      el("text", { class: `points on-${card.bonus}`, x: 9, y: 23 }, g).textContent = String(card.points);
    }
    gem(g, card.bonus, CARD_W - 16, 15, 9);
    Object.entries(card.cost).reverse().forEach(([colour, n], k) => {
      gem(g, colour, 15, CARD_H - 15 - k * 22, 10, n);
    });
    el("text", { class: "card-id", x: CARD_W - 7, y: CARD_H - 8 }, g).textContent = `#${card.id}`;
    const cost = Object.entries(card.cost).map(([c, n]) => `${c}${n}`).join("");
    el("title", {}, g).textContent =
      `card ${card.id}: level ${card.level}, ${GEM_NAMES[card.bonus]} bonus, ${card.points} points, costs ${cost}`;
    return g;
  }

  function drawNobles() {
    view.nobles.forEach((noble, k) => {
      const x = MARKET_X + k * (NOBLE + 14);
      const g = el("g", { class: "noble", transform: `translate(${x},${NOBLE_Y})`, "data-noble": noble.id }, layer.table);
      el("rect", { class: "noble-bg", width: NOBLE, height: NOBLE, rx: 6 }, g);
      el("text", { class: "points", x: 8, y: 24 }, g).textContent = String(noble.points);
      el("text", { class: "noble-id", x: 8, y: NOBLE - 8 }, g).textContent = `#${noble.id}`;
      Object.entries(noble.needs).forEach(([colour, n], i) => {
        const y = 6 + i * 24;
        el("rect", { class: `need gem-${colour}`, x: NOBLE - 28, y, width: 20, height: 20, rx: 3 }, g);
        el("text", { class: `gem-count on-${colour}`, x: NOBLE - 18, y: y + 10 }, g).textContent = String(n);
      });
      const needs = Object.entries(noble.needs).map(([c, n]) => `${c}${n}`).join("");
      el("title", {}, g).textContent = `noble ${noble.id}: ${noble.points} points, needs bonuses ${needs}`;
      g.addEventListener("click", () => clickNoble(noble.id));
    });
  }

  function drawMarket() {
    view.market.forEach((row, r) => {
      const y = MARKET_Y + r * ROW_H;
      const deck = el("g", { class: `deck level-${row.level}`, transform: `translate(8,${y})`,
        "data-deck": row.level }, layer.table);
      el("rect", { class: "deck-bg", width: 84, height: CARD_H, rx: 8 }, deck);
      el("text", { class: "deck-level", x: 42, y: 50 }, deck).textContent = "I".repeat(row.level);
      el("text", { class: "deck-count", x: 42, y: 82 }, deck).textContent = `${row.deck} left`;
      el("title", {}, deck).textContent = `deck ${row.level}: ${row.deck} cards, face down`;
      deck.addEventListener("click", () => clickDeck(row.level));
      row.slots.forEach((card, s) => {
        const x = MARKET_X + s * (CARD_W + CARD_GAP);
        let g;
        if (card) {
          g = drawCard(layer.table, card, x, y);
        } else {
          g = el("g", { class: "card empty", transform: `translate(${x},${y})` }, layer.table);
          el("rect", { class: "slot-bg", width: CARD_W, height: CARD_H, rx: 8 }, g);
        }
        g.setAttribute("data-slot", `${row.level}.${s}`);
        g.addEventListener("click", () => clickCard(row.level, s));
      });
    });
  }

  function drawSupply() {
    el("text", { class: "supply-title", x: SUPPLY_X, y: SUPPLY_Y - 36 }, layer.table).textContent = "Supply";
    [...TOKENS].forEach((t, k) => {
      const cy = SUPPLY_Y + k * TOKEN_GAP;
      const g = el("g", { class: "token", "data-token": t }, layer.table);
      el("circle", { class: "ring", cx: SUPPLY_X, cy, r: TOKEN_R + 4 }, g);
      gem(g, t, SUPPLY_X, cy, TOKEN_R, view.supply[t]);
      el("title", {}, g).textContent = `${GEM_NAMES[t]}: ${view.supply[t]} in the supply`;
      g.addEventListener("click", () => clickGem(t));
    });
  }

  // --- the players ---------------------------------------------------------------------

  function miniCard(parent, card, mine, h) {
    const div = html("div", { class: "mini-card" }, parent);
    if (card.id === undefined) {
      div.classList.add("back", `level-${card.level}`);
      html("span", { class: "back-level" }, div, "I".repeat(card.level));
      if (card.blind) html("span", { class: "blind" }, div, "deck");
      div.title = `a reserved level-${card.level} card${card.blind ? " from a deck" : ""}`;
      return div;
    }
    div.classList.add(`level-${card.level}`);
    div.setAttribute("data-id", card.id);
    if (mine) div.setAttribute("data-hand", h);
    const head = html("div", { class: `mini-head gem-${card.bonus}` }, div);
    html("span", { class: `on-${card.bonus}` }, head, card.points ? String(card.points) : "");
    html("span", { class: `on-${card.bonus}` }, head, `#${card.id}`);
    const cost = html("div", { class: "mini-cost" }, div);
    for (const [c, n] of Object.entries(card.cost)) html("span", { class: `chip gem-${c} on-${c}` }, cost, String(n));
    div.title = `card ${card.id}: ${GEM_NAMES[card.bonus]} bonus, ${card.points} points${card.blind ? ", reserved from a deck" : ""}`;
    if (mine) div.addEventListener("click", () => clickHand(h));
    return div;
  }

  function drawPanel() {
    const panel = document.getElementById("panel");
    panel.innerHTML = "";
    const note = html("p", { class: "note" }, panel);
    note.textContent = view.observer === null
      ? "A table of agents only: every reserved card is shown."
      : `Drawn for ${view.players[view.observer].seat}: other players' reserved cards show their backs.`;
    view.players.forEach((p, k) => {
      const box = html("div", { class: "player", "data-seat": k }, panel);
      box.classList.toggle("to-move", view.to_move === k);
      box.classList.toggle("winner", view.over && view.winner === k);
      const head = html("div", { class: "player-head" }, box);
      const swatch = html("span", { class: "swatch" }, head);
      swatch.style.background = p.css;
      html("span", { class: "who" }, head, `${p.seat} ${p.label}${view.observer === k ? " (you)" : ""}`);
      html("span", { class: "pts" }, head, `${p.points} pts`);
      html("span", { class: "cards" }, head, `${p.cards} cards`);
      for (const id of p.nobles) html("span", { class: "noble-badge" }, head, `noble #${id}`);
      const tokens = html("div", { class: "tokens" }, box);
      html("span", { class: "row-label" }, tokens, "tokens");
      for (const t of TOKENS) {
        const chip = html("span", { class: `chip gem-${t} on-${t}`, "data-token": t }, tokens, String(p.tokens[t]));
        chip.title = `${GEM_NAMES[t]} tokens`;
        chip.addEventListener("click", () => clickReturn(k, t));
      }
      html("span", { class: "held" }, tokens, `(${p.held})`);
      const bonus = html("div", { class: "bonus" }, box);
      html("span", { class: "row-label" }, bonus, "bonus");
      for (const c of TOKENS.slice(0, 5)) {
        html("span", { class: `chip square gem-${c} on-${c}` }, bonus, String(p.bonus[c])).title = `${GEM_NAMES[c]} bonus`;
      }
      const hand = html("div", { class: "hand" }, box);
      html("span", { class: "row-label" }, hand, "hand");
      if (!p.hand.length) html("span", { class: "empty-hand" }, hand, "–");
      p.hand.forEach((card, h) => miniCard(hand, card, view.observer === k, h));
    });
  }

  // --- highlights ----------------------------------------------------------------------

  function highlight() {
    const moves = legal();
    const kinds = (pred) => moves.filter(pred);
    const slots = new Set(kinds((m) => m.slot !== undefined).map((m) => `${m.level}.${m.slot}`));
    const decks = new Set(kinds((m) => m.deck !== undefined).map((m) => String(m.deck)));
    const gems = new Set(kinds((m) => m.colours).flatMap((m) => [...m.colours]));
    const hands = new Set(kinds((m) => m.hand !== undefined).map((m) => String(m.hand)));
    const returns = new Set(kinds((m) => m.token).map((m) => m.token));
    const nobles = new Set(kinds((m) => m.noble).map((m) => String(m.noble)));
    const h = hinted || {};
    for (const g of layer.table.querySelectorAll(".card[data-slot]")) {
      const slot = g.getAttribute("data-slot");
      g.classList.toggle("choosable", slots.has(slot));
      g.classList.toggle("hinted", h.slot !== undefined && `${h.level}.${h.slot}` === slot);
    }
    for (const g of layer.table.querySelectorAll(".deck")) {
      const d = g.getAttribute("data-deck");
      g.classList.toggle("choosable", decks.has(d));
      g.classList.toggle("hinted", String(h.deck) === d);
    }
    for (const g of layer.table.querySelectorAll(".token")) {
      const t = g.getAttribute("data-token");
      g.classList.toggle("choosable", gems.has(t));
      g.classList.toggle("picked", picked.includes(t));
      g.classList.toggle("hinted", !!h.colours && h.colours.includes(t));
    }
    for (const g of layer.table.querySelectorAll(".noble")) {
      const id = g.getAttribute("data-noble");
      g.classList.toggle("choosable", nobles.has(id));
      g.classList.toggle("hinted", String(h.noble) === id);
    }
    const panel = document.getElementById("panel");
    for (const div of panel.querySelectorAll(".mini-card[data-hand]")) {
      const slot = div.getAttribute("data-hand");
      div.classList.toggle("choosable", hands.has(slot));
      div.classList.toggle("hinted", String(h.hand) === slot);
    }
    const mover = view.to_move === null ? null : panel.querySelector(`.player[data-seat="${view.to_move}"]`);
    for (const chip of panel.querySelectorAll(".tokens .chip")) {
      const own = mover !== null && mover.contains(chip);
      const t = chip.getAttribute("data-token");
      chip.classList.toggle("choosable", own && returns.has(t));
      chip.classList.toggle("hinted", own && h.token === t);
    }
    const last = view.moves.length ? view.moves[view.moves.length - 1].text : "";
    svg.setAttribute("data-last-move", last);
    svg.setAttribute("data-phase", view.phase);
  }

  // --- clicks --------------------------------------------------------------------------

  function offer(moves, none) {
    if (!moves.length) { shell.clearChoices(); shell.message(none); return; }
    shell.message("");
    shell.choose(moves.map((m) => ({ label: capital(m.words), move: m.text })), () => {
      picked = [];
      highlight();
    });
  }

  function clickGem(t) {
    if (!legal().length || view.phase !== "main" || t === "y") return;
    hinted = null;
    picked = picked.includes(t) ? picked.filter((c) => c !== t) : [...picked, t].slice(-3);
    highlight();
    if (!picked.length) { shell.clearChoices(); return; }
    const chosen = sortColours(picked);
    const moves = legal().filter((m) => m.colours && (m.colours === chosen
      || (picked.length === 1 && m.kind === "take2" && m.colours === chosen + chosen)));
    offer(moves, picked.length < 3 && moves.length === 0
      ? "Choose more colours (3 different ones, or one with 4 left for two of it)." : "No take of these colours is allowed.");
  }

  function clickCard(level, slot) {
    if (!legal().length) return;
    hinted = null;
    picked = [];
    highlight();
    offer(legal().filter((m) => m.level === level && m.slot === slot), "You can neither buy nor reserve this card now.");
  }

  function clickDeck(level) {
    if (!legal().length) return;
    hinted = null;
    picked = [];
    highlight();
    offer(legal().filter((m) => m.deck === level), `You cannot reserve from deck ${level} now.`);
  }

  function clickHand(h) {
    if (!legal().length) return;
    hinted = null;
    picked = [];
    highlight();
    offer(legal().filter((m) => m.hand === h), "You cannot buy this card yet.");
  }

  function clickReturn(seat, t) {
    if (!legal().length || view.phase !== "return" || seat !== view.to_move) return;
    const move = legal().find((m) => m.token === t);
    if (move) shell.play(move.text);
  }

  function clickNoble(id) {
    if (!legal().length || view.phase !== "noble") return;
    const move = legal().find((m) => m.noble === id);
    if (move) shell.play(move.text);
  }

  Tabletop.register({
    init(board, theShell) {
      svg = board;
      shell = theShell;
      svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
      layer.table = el("g", { id: "table" }, svg);
    },

    draw(next) {
      view = next;
      picked = [];
      hinted = null;
      layer.table.innerHTML = "";
      drawNobles();
      drawMarket();
      drawSupply();
      drawPanel();
      highlight();
      const moves = legal();
      if (moves.length && (view.phase === "return" || view.phase === "noble" || moves[0].kind === "pass")) {
        shell.choose(moves.map((m) => ({ label: capital(m.words), move: m.text })));
      }
    },

    showHint(move) {
      hinted = move;
      picked = [];
      highlight();
    },
  });
})();
