// The play page's shell, the same for every game: the table, the status, the move log, undo,
// hints and the agents' moves. The game's board script (/game/board.js) draws positions and
// turns clicks into moves; it calls Tabletop.register(board) with
//   board.init(svg, shell)     once: build the board in the <svg id="board">
//   board.draw(view, before)   draw a game view (before: the previous view of the same game,
//                              null for a new game or the start-position preview)
//   board.showHint(move)       optional: point at a hinted move (an entry of view.legal)
// and the shell gives it shell.view, shell.play(moveText), shell.choose(items, onCancel)
// (buttons {label, move}), shell.clearChoices(), shell.message(text) and shell.el(...).
"use strict";

const Tabletop = (() => {
  const SVGNS = "http://www.w3.org/2000/svg";
  const AGENT_DELAY_MS = 550;
  const options = JSON.parse(document.getElementById("options").textContent);
  const $ = (id) => document.getElementById(id);

  let board = null;  // the game's board script
  let view = null;   // the game view drawn now: a game's, or the start-position preview
  let session = 0;   // bumped by every new game, to stop the previous game's agent loop

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

  function message(text) { $("message").textContent = text || ""; }

  function showHintText(text, move) {
    $("hint-text").textContent = text || "";
    $("hint-text").setAttribute("data-move", move || "");
  }

  // --- status and log ------------------------------------------------------------------

  function seatName(k) {
    const p = view.players[k];
    return `${p.seat} (${p.colour}, ${p.label})`;
  }

  function drawStatus() {
    let text, state;
    if (!view.id) { text = "Setting up a new game…"; state = "starting"; }
    else if (view.over) { text = `Game over: ${view.result}`; state = "over"; }
    else if (view.human_to_move) { text = `Your move, ${seatName(view.to_move)}: ${view.turn_text}`; state = "human"; }
    else { text = `${seatName(view.to_move)} is thinking… (${view.turn_text})`; state = "agent"; }
    $("status").textContent = text;
    $("status").setAttribute("data-state", state);
    const log = $("log");
    log.innerHTML = "";
    // The list numbers the moves; a game whose turns hold several moves also names the turn.
    const counted = options.turn_word !== options.move_word;
    for (const m of view.moves) {
      const li = document.createElement("li");
      const seat = view.players[m.player].seat;
      li.textContent = counted ? `${options.turn_word} ${m.turn} ${seat}: ${m.text}` : `${seat}: ${m.text}`;
      log.appendChild(li);
    }
    log.scrollTop = log.scrollHeight;
    $("download").classList.toggle("disabled", !view.id);
    $("download").href = view.id ? `/api/games/${view.id}/log` : "#";
    $("undo").disabled = !view.id || !view.players.some((p) => p.human) || view.moves.length === 0;
    $("hint").disabled = !view.human_to_move;
  }

  // --- choices offered by the board ----------------------------------------------------

  function choose(items, onCancel) {
    const box = $("choices");
    box.innerHTML = "";
    const title = document.createElement("div");
    title.textContent = "Choose:";
    box.appendChild(title);
    for (const item of items) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = item.label;
      b.setAttribute("data-move", item.move);
      b.setAttribute("data-step", item.move);
      b.addEventListener("click", () => { clearChoices(); play(item.move); });
      box.appendChild(b);
    }
    if (onCancel) {
      const cancel = document.createElement("button");
      cancel.type = "button";
      cancel.textContent = "Cancel";
      cancel.addEventListener("click", () => { clearChoices(); onCancel(); });
      box.appendChild(cancel);
    }
    box.classList.remove("hidden");
  }

  function clearChoices() { $("choices").classList.add("hidden"); $("choices").innerHTML = ""; }

  // --- playing -------------------------------------------------------------------------

  function show(next) {
    const before = view && view.id && view.id === next.id ? view : null;
    view = next;
    message("");
    showHintText("");
    clearChoices();
    board.draw(view, before);
    drawStatus();
    if (view.id && !view.over && !view.human_to_move) {
      const mine = session;
      setTimeout(() => agentMove(mine), AGENT_DELAY_MS);
    }
  }

  async function play(text) {
    if (!view || !view.id) return;
    try { show(await api("POST", `/api/games/${view.id}/move`, { move: text, ply: view.ply })); }
    catch (err) { message(err.message); }
  }

  async function agentMove(mine) {
    if (mine !== session || !view || !view.id || view.over || view.human_to_move) return;
    try {
      const next = await api("POST", `/api/games/${view.id}/agent-step`, { ply: view.ply });
      if (mine === session) show(next);
    } catch (err) {
      if (mine === session) message(err.message);
    }
  }

  async function undo() {
    try { show(await api("POST", `/api/games/${view.id}/undo`, { ply: view.ply })); }
    catch (err) { message(err.message); }
  }

  async function hint() {
    const asked = view;
    $("hint").disabled = true;
    showHintText("Thinking…");
    try {
      const h = await api("POST", `/api/games/${asked.id}/hint`, { ply: asked.ply });
      if (view !== asked) return;
      showHintText(`Hint: ${h.text} (${h.words})`, h.text);
      if (board.showHint) board.showHint(h.move);
    } catch (err) {
      if (view === asked) { showHintText(""); message(err.message); }
    } finally {
      if (view === asked) $("hint").disabled = !view.human_to_move;
    }
  }

  async function newGame(event) {
    if (event) event.preventDefault();
    const players = [...document.querySelectorAll("#seat-choices select")].map((s) => s.value);
    const seed = $("seed").value === "" ? null : Number($("seed").value);
    session += 1;
    const mine = session;
    view = null;
    show(options.start[String(players.length)]);  // the start position at once
    try {
      const next = await api("POST", "/api/games", { players, seed });
      if (mine === session) show(next);
    } catch (err) {
      if (mine === session) message(err.message);
    }
  }

  // --- the table -----------------------------------------------------------------------

  function seatChoices() {
    const n = $("num-players").value, box = $("seat-choices");
    const previous = [...box.querySelectorAll("select")].map((s) => s.value);
    const allowed = options.table[n];
    const fallback = (k) => {
      if (k === 0) return "human";
      return allowed.includes(options.default_opponent) ? options.default_opponent : allowed[allowed.length > 1 ? 1 : 0];
    };
    box.innerHTML = "";
    options.seats[n].forEach((seat, k) => {
      const label = document.createElement("label");
      const swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.style.background = seat.css;
      const name = document.createElement("span");
      name.className = "seat-label";
      name.textContent = `${seat.seat} `;
      const select = document.createElement("select");
      select.id = `player-${k}`;
      select.title = `${seat.seat} (${seat.colour})`;
      for (const p of allowed) {
        const o = document.createElement("option");
        o.value = o.textContent = p;
        select.appendChild(o);
      }
      const wanted = previous[k];
      select.value = wanted && allowed.includes(wanted) ? wanted : fallback(k);
      label.append(swatch, name, select);
      box.appendChild(label);
    });
  }

  function start() {
    board.init($("board"), shell);
    seatChoices();
    $("num-players").addEventListener("change", () => {
      seatChoices();
      if (!view || !view.id) show(options.start[$("num-players").value]);
    });
    $("setup").addEventListener("submit", newGame);
    $("undo").addEventListener("click", undo);
    $("hint").addEventListener("click", hint);
    newGame();
  }

  const shell = {
    options,
    el,
    play,
    choose,
    clearChoices,
    message,
    get view() { return view; },
  };

  function register(gameBoard) {
    board = gameBoard;
    start();
  }

  return { register, el, options };
})();
