"""Splendor as the play shells show it: its :class:`~tabletop.play.view.View`.

**What a person sees** (SPLENDOR_RULES.md §9). The decks' order is never shown, only their
sizes. A reserved card's identity is shown only to its owner: everyone else sees its back
(its level, and whether it was reserved from a deck).

- The page (:meth:`SplendorView.position_json`, :meth:`SplendorView.player_json`) is drawn
  for one *observer* seat (:func:`observer`): the human to move, or else the human whose
  turn comes next. Its JSON holds that seat's view only; its ``position`` is the seat's view
  text (decks as ``#<count>``, other hands as ``?<level>``), not the full position. A table
  of agents only is watched as a spectator: every reserved card face up, the decks still
  hidden.
- The terminal's board (:meth:`SplendorView.diagram`) shows the public table, every
  reserved card as its back; at a human's prompt the move list starts with that human's own
  reserved cards (:meth:`SplendorView.move_menu`).

Moves in words: ``buy card 27 (level 1, red bonus, 0 points) from the market for w1``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from splendor_env import rules
from splendor_env.envs.render import card_label, noble_label, status_line
from splendor_env.rules import IllegalMoveError, State
from splendor_env.rules.components import (
    CARD_BONUS,
    CARD_COST,
    CARD_LEVEL,
    CARD_POINTS,
    COLOURS,
    GOLD,
    NOBLE_NEEDS,
    NOBLE_POINTS,
    SLOTS,
    TOKEN_LIMIT,
    TOKENS,
    WIN_POINTS,
)
from splendor_env.rules.moves import (
    BUY,
    BUY_HAND,
    NOBLE,
    PASS,
    RESERVE,
    RESERVE_DECK,
    RETURN,
    TAKE2,
    TAKE_COLOURS,
)
from splendor_env.rules.notation import MAIN, NOBLE_PHASE, PHASE_NAMES, RETURN_PHASE
from tabletop.games import Game, get_game
from tabletop.play.view import View

if TYPE_CHECKING:
    from tabletop.play.session import Session

#: Token kinds in words, ``w b g r k y``.
TOKEN_NAMES = ("white", "blue", "green", "red", "black", "gold")
#: The seats' colour names (the gems' colours are the cards' own, so seats take others).
SEAT_COLOURS = ("orange", "purple", "teal", "pink")
_SEAT_CSS = {"orange": "#e8892b", "purple": "#8a5cc2", "teal": "#2a9d8f", "pink": "#e26d9a"}
_ANSI = {
    "w": "\x1b[1;30;107m",
    "b": "\x1b[1;97;44m",
    "g": "\x1b[1;97;42m",
    "r": "\x1b[1;97;41m",
    "k": "\x1b[1;97;100m",
    "y": "\x1b[1;30;103m",
}
_ANSI_RESET = "\x1b[0m"
_GEM = re.compile(r"(?<![A-Za-z#?\d])([wbgrky])(\d+)\b")
_DECK = re.compile(r"\b(L[123]:[^/ ]+)/[^ ]+")
#: A position quoted in a rules error: the full text, decks and hands included.
_QUOTED_POSITION = re.compile(r"in position '[^']*'")


class PlayedGame:
    """Splendor's descriptor as the play shells use it (:attr:`SplendorView.game`): the
    same in everything but :meth:`play`, whose refusal quotes the position as the player to
    move sees it (its view text) instead of the full position the rules quote, decks and
    hands included."""

    def __init__(self, game: Game) -> None:
        self._game = game

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def play(self, state: State, move: str) -> State:
        """The state after ``move``; an :class:`IllegalMoveError` quotes the mover's view."""
        try:
            return self._game.play(state, move)
        except IllegalMoveError as err:
            seen = rules.view_text(state, state.to_move)
            raise IllegalMoveError(
                _QUOTED_POSITION.sub(f"in position {seen!r}", str(err))
            ) from None


def observer(session: Session) -> int | None:
    """The seat the page is drawn for: the human to move, else the human whose turn comes
    first from the seat to move (from the next turn's seat once the game is over);
    ``None`` at a table of agents only."""
    humans = [k for k, agent in enumerate(session.agents) if agent is None]
    if not humans:
        return None
    state: State = session.state
    n = state.num_players
    start = state.to_move if state.to_move >= 0 else state.turn % n
    return min(humans, key=lambda k: (k - start) % n)


def spectator_text(state: State) -> str:
    """The position text with each deck written ``#<count>``, every hand face up."""
    sizes = iter(len(deck) for deck in state.decks)
    return _DECK.sub(lambda m: f"{m[1]}/#{next(sizes)}", rules.to_text(state))


def card_json(card: int) -> dict[str, Any]:
    """A face-up card: id, level (1-3), bonus colour letter, points and cost per colour."""
    cost = {COLOURS[c]: v for c, v in enumerate(CARD_COST[card]) if v}
    return {
        "id": card,
        "level": CARD_LEVEL[card] + 1,
        "bonus": COLOURS[CARD_BONUS[card]],
        "points": CARD_POINTS[card],
        "cost": cost,
    }


def card_words(card: int) -> str:
    """``card 27 (level 1, red bonus, 0 points, costs w1b1g1k1)``."""
    cost = "".join(f"{COLOURS[c]}{v}" for c, v in enumerate(CARD_COST[card]) if v)
    return (
        f"card {card} (level {CARD_LEVEL[card] + 1}, {TOKEN_NAMES[CARD_BONUS[card]]} bonus, "
        f"{_count(CARD_POINTS[card], 'point')}, costs {cost})"
    )


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _tokens_text(counts: Sequence[int], kinds: str = TOKENS) -> str:
    return "".join(f"{kinds[x]}{v}" for x, v in enumerate(counts) if v) or "nothing"


def payment(state: State, card: int) -> list[int]:
    """The tokens (``w b g r k y``) the player to move pays for ``card`` (§3.4)."""
    seat = state.to_move
    tokens, bonus = state.tokens[seat], state.bonus[seat]
    paid = [0] * 6
    for c, cost in enumerate(CARD_COST[card]):
        need = max(0, cost - bonus[c])
        paid[c] = min(need, tokens[c])
        paid[GOLD] += need - paid[c]
    return paid


def _parts(move: int) -> tuple[str, int, int]:
    """``(kind, a, b)`` of a move id: ``take`` (id), ``take2`` (colour), ``reserve`` and
    ``buy`` (level 0-2, slot 0-3), ``reserve-deck`` (level), ``buy-hand`` (slot), ``return``
    (token kind), ``noble`` (id), ``pass``."""
    if move < TAKE2:
        return "take", move, 0
    if move < RESERVE:
        return "take2", move - TAKE2, 0
    if move < RESERVE_DECK:
        return ("reserve", *divmod(move - RESERVE, SLOTS))
    if move < BUY:
        return "reserve-deck", move - RESERVE_DECK, 0
    if move < BUY_HAND:
        return ("buy", *divmod(move - BUY, SLOTS))
    if move < RETURN:
        return "buy-hand", move - BUY_HAND, 0
    if move < NOBLE:
        return "return", move - RETURN, 0
    if move < PASS:
        return "noble", move - NOBLE + 1, 0
    return "pass", 0, 0


class SplendorView(View):
    """Splendor in the terminal and the browser."""

    name = "splendor"
    move_word = "move"
    turn_word = "turn"
    move_examples = "take wbg, take2 r, reserve 1.3, reserve deck 2, buy 2.0, buy r0, return k"
    illegal_error = IllegalMoveError
    colour_css = _SEAT_CSS
    static_dir = Path(__file__).parent / "static"
    #: The page's ``position`` is the observer's view text (:func:`observer`), never the
    #: full position with the decks' order.
    json_aliases = {"position": "view_text"}
    log_hidden_while_running = (
        "the log of a game of Splendor is given once the game is over: it holds the decks' order"
    )
    help_html = """<p><b>Your turn</b> is one main action: click up to three gems of
        different colours in the supply and then <i>Take</i> (or one gem with at least 4
        left, then <i>Take 2</i>); or click a market card to <i>Buy</i> or <i>Reserve</i>
        it; or click a deck to reserve its top card face down; or click a card in your
        reserved hand to buy it. Reserving gives a gold token (a joker) while the supply
        has one; you may hold 3 reserved cards. A bought card's gem is a permanent discount
        (its bonus) and its number is prestige points. <b>More than 10 tokens:</b> return
        them one at a time (the buttons, or your tokens in your panel). <b>Nobles</b> (3
        points) visit at the end of your turn when your bonuses meet their requirement; if
        several do, click the one you want. <b>The end:</b> once someone has 15 points the
        round is played out; most points wins, then fewest bought cards. Other players'
        reserved cards show only their backs. The full rules are in the project's
        <code>SPLENDOR_RULES.md</code>.</p>"""

    @property
    def game(self) -> Game:
        """The descriptor, refusing moves without showing hidden cards (:class:`PlayedGame`)."""
        return PlayedGame(get_game(self.name))  # type: ignore[return-value]

    def seat_colours(self, num_players: int) -> list[str]:
        return list(SEAT_COLOURS[:num_players])

    def normalise(self, text: str) -> str:
        """A move as typed in any letter case and spacing (``" Take  WBG"`` ->
        ``"take wbg"``)."""
        return " ".join(text.lower().split())

    # --- moves ------------------------------------------------------------------------------

    def describe(self, state: State, move: str) -> str:
        kind, a, b = _parts(rules.move_id(state, move))
        seat = state.to_move
        held = sum(state.tokens[seat])
        gold = " and 1 gold" if state.supply[GOLD] else " (no gold left)"
        if kind in ("take", "take2"):
            colours = TAKE_COLOURS[a] if kind == "take" else (a, a)
            counts = [colours.count(c) for c in range(5)]
            words = "take " + ", ".join(f"{v} {TOKEN_NAMES[c]}" for c, v in enumerate(counts) if v)
        elif kind == "reserve":
            card = state.market[a][b]
            words = f"reserve {card_words(card)} from market {a + 1}.{b}{gold}"
        elif kind == "reserve-deck":
            words = f"reserve the top card of deck {a + 1} face down{gold}"
        elif kind in ("buy", "buy-hand"):
            card = state.market[a][b] if kind == "buy" else state.hands[seat][a]
            where = f"market {a + 1}.{b}" if kind == "buy" else f"your hand (r{a})"
            price = _tokens_text(payment(state, card))
            words = f"buy {card_words(card)} from {where} for {price.replace('nothing', 'free')}"
        elif kind == "return":
            return f"return 1 {TOKEN_NAMES[a]} token ({held} held, {TOKEN_LIMIT} allowed)"
        elif kind == "noble":
            need = _tokens_text(NOBLE_NEEDS[a], COLOURS)
            return f"choose noble {a} (needs bonuses {need}): {NOBLE_POINTS} points"
        else:
            return "pass: no main action is possible"
        return words + self._consequences(state, move)

    def _consequences(self, state: State, move: str) -> str:
        """What follows a main action at the end of the turn: returns, a noble, the end."""
        seat = state.to_move
        after = rules.play(state, move)
        held = sum(after.tokens[seat])
        if after.phase == RETURN_PHASE:
            return f", then return {held - TOKEN_LIMIT} (over {TOKEN_LIMIT})"
        if after.phase == NOBLE_PHASE:
            return ", then choose one of the nobles that qualify"
        words = ""
        gained = set(after.owned[seat]) - set(state.owned[seat])
        if gained:
            words += f", noble {gained.pop()} visits"
        if after.points[seat] >= WIN_POINTS and state.points[seat] < WIN_POINTS:
            words += f", reaching {after.points[seat]} points"
        return words

    def move_json(self, state: State, move: str) -> dict[str, Any]:
        """``kind`` (``take``, ``take2``, ``reserve``, ``buy``, ``return``, ``noble``,
        ``pass``) and what the page needs to find the move: ``colours`` (take), ``level``
        and ``slot`` (market), ``deck`` (a deck's level), ``hand`` (a hand slot), ``token``,
        ``noble``; ``card`` for a card the mover may see; ``words``."""
        kind, a, b = _parts(rules.move_id(state, move))
        out: dict[str, Any] = {"text": move, "kind": kind.split("-")[0]}
        if kind == "take":
            out["colours"] = "".join(COLOURS[c] for c in TAKE_COLOURS[a])
        elif kind == "take2":
            out["colours"] = COLOURS[a] * 2
        elif kind in ("reserve", "buy"):
            out |= {"level": a + 1, "slot": b, "card": state.market[a][b]}
        elif kind == "reserve-deck":
            out["deck"] = a + 1
        elif kind == "buy-hand":
            out |= {"hand": a, "card": state.hands[state.to_move][a]}
        elif kind == "return":
            out["token"] = TOKENS[a]
        elif kind == "noble":
            out["noble"] = a
        out["words"] = self.describe(state, move)
        return out

    def move_menu(self, state: State, moves: Sequence[str]) -> list[str] | None:
        """The moves numbered as usual, after the mover's own reserved cards (which the
        board shows only as backs) and, in a return or noble phase, what is asked."""
        if not moves:
            return None
        seat = state.to_move
        lines = []
        hand = state.hands[seat]
        if hand:
            cards = "; ".join(
                f"r{h} {card_label(c)}{' from a deck' if blind else ''}"
                for h, (c, blind) in enumerate(zip(hand, state.blind[seat], strict=True))
            )
            lines.append(f"your reserved cards: {cards}")
        if state.phase == RETURN_PHASE:
            held = sum(state.tokens[seat])
            lines.append(
                f"you hold {held} tokens ({_tokens_text(state.tokens[seat])}): return "
                f"{held - TOKEN_LIMIT} more, one at a time"
            )
        elif state.phase == NOBLE_PHASE:
            lines.append("several nobles qualify: choose the one who visits")
        width = max(map(len, moves))
        lines += [
            f"{n:>3}. {m:<{width}}  {self.describe(state, m)}" for n, m in enumerate(moves, 1)
        ]
        return lines

    # --- the terminal ------------------------------------------------------------------------

    def diagram(self, state: State, color: bool = True) -> str:
        """The public table: supply, nobles, market and deck sizes, every player's tokens,
        bonuses, points, cards, nobles and reserved cards' backs (``?2*``: a level-2 card
        reserved from a deck)."""
        lines = [status_line(state)]
        lines.append("supply   " + " ".join(f"{TOKENS[x]}{v}" for x, v in enumerate(state.supply)))
        lines.append("nobles   " + ("   ".join(map(noble_label, state.nobles)) or "-"))
        for level in (2, 1, 0):
            row = " | ".join(card_label(c) if c else "-" for c in state.market[level])
            lines.append(f"L{level + 1} [{len(state.decks[level]):2}]  {row}")
        for p in range(state.num_players):
            tokens = "".join(f"{TOKENS[x]}{v}" for x, v in enumerate(state.tokens[p]))
            bonus = "".join(f"{COLOURS[c]}{v}" for c, v in enumerate(state.bonus[p]))
            backs = ",".join(
                f"?{CARD_LEVEL[c] + 1}{'*' if blind else ''}"
                for c, blind in zip(state.hands[p], state.blind[p], strict=True)
            )
            owned = ",".join(f"#{x}" for x in sorted(state.owned[p])) or "-"
            mark = ">" if p == state.to_move else " "
            lines.append(
                f"{mark}P{p} {state.points[p]:2} pts  tokens {tokens} ({sum(state.tokens[p])})  "
                f"bonus {bonus}  cards {len(state.bought[p])}  nobles {owned}  "
                f"hand {backs or '-'}"
            )
        text = "\n".join(lines)
        if color:
            text = _GEM.sub(lambda m: f"{_ANSI[m[1]]}{m[0]}{_ANSI_RESET}", text)
        return text

    def turn_text(self, session: Session) -> str:
        state: State = session.state
        n = state.num_players
        words = f"turn {state.turn} (round {state.turn // n + 1})"
        if state.final:
            words += ", final round"
        seat = state.to_move
        if state.phase == RETURN_PHASE:
            held = sum(state.tokens[seat])
            return f"{words}: return {held - TOKEN_LIMIT} token(s), one at a time"
        if state.phase == NOBLE_PHASE:
            return f"{words}: choose a noble"
        if state.phase == MAIN and session.legal_moves() == ["pass"]:
            return f"{words}: no main action, pass"
        return words

    def score_text(self, state: State) -> str:
        return "points " + ", ".join(
            f"P{k} {v} ({len(state.bought[k])} cards)" for k, v in enumerate(state.points)
        )

    def notes(self, session: Session) -> list[str]:
        """Which noble visited whom, and who triggered the end."""
        lines = []
        states = session.states
        for k in range(1, len(states)):
            before, after = states[k - 1], states[k]
            for p in range(after.num_players):
                for noble in sorted(set(after.owned[p]) - set(before.owned[p])):
                    lines.append(f"noble {noble} visited P{p} in turn {before.turn}")
            if after.final and not before.final:
                lines.append(f"P{before.to_move} triggered the end in turn {before.turn}")
        return lines

    # --- the page ----------------------------------------------------------------------------

    def position_json(self, session: Session) -> dict[str, Any]:
        """The table as the observer (:func:`observer`) may see it: ``observer`` (a seat, or
        ``None`` for a spectator), ``phase``, ``turn``, ``round``, ``final``, ``supply``
        (per token letter), ``nobles`` (id, points, needs), ``market`` (per level from 3 to
        1: ``level``, ``deck`` size and 4 ``slots``, each a card or ``None``) and
        ``view_text``."""
        state: State = session.state
        seat = observer(session)
        return {
            "observer": seat,
            "phase": PHASE_NAMES[state.phase],
            "turn": state.turn,
            "round": state.turn // state.num_players + 1,
            "final": state.final,
            "supply": dict(zip(TOKENS, state.supply, strict=True)),
            "nobles": [
                {
                    "id": noble,
                    "points": NOBLE_POINTS,
                    "needs": {COLOURS[c]: v for c, v in enumerate(NOBLE_NEEDS[noble]) if v},
                }
                for noble in state.nobles
            ],
            "market": [
                {
                    "level": level + 1,
                    "deck": len(state.decks[level]),
                    "slots": [card_json(c) if c else None for c in state.market[level]],
                }
                for level in (2, 1, 0)
            ],
            "view_text": spectator_text(state) if seat is None else rules.view_text(state, seat),
        }

    def player_json(self, session: Session, player: int) -> dict[str, Any]:
        """``points``, ``tokens`` and ``bonus`` (per letter), ``cards`` (how many bought),
        ``nobles`` (ids) and ``hand``: per reserved card its ``level`` and ``blind`` (from a
        deck), and the card itself only if the observer may see it."""
        state: State = session.state
        seat = observer(session)
        shown = seat is None or seat == player
        hand = [
            {**(card_json(c) if shown else {"level": CARD_LEVEL[c] + 1}), "blind": blind}
            for c, blind in zip(state.hands[player], state.blind[player], strict=True)
        ]
        return {
            "points": state.points[player],
            "tokens": dict(zip(TOKENS, state.tokens[player], strict=True)),
            "held": sum(state.tokens[player]),
            "bonus": dict(zip(COLOURS, state.bonus[player], strict=True)),
            "cards": len(state.bought[player]),
            "nobles": sorted(state.owned[player]),
            "hand": hand,
        }


VIEW = SplendorView()
