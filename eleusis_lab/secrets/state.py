"""Secrets (RULES.md section 4): positions, the legal actions and what they do.

This module is the rules of the board game as data and transitions, with no agents
(its vocabulary, squares, card values, actions and effects, is in
`eleusis_lab.secrets.moves`):
`secrets_setup` lays out a game from a generator, `SecretsState` holds a position,
`SecretsState.legal_actions` lists what the player to move may do and
`SecretsState.apply` does it, and `SecretsState.view` is what one player sees of it.
The engine (`eleusis_lab.secrets.game`) and the replay (`eleusis_lab.secrets.record`)
drive it as every game's state (`eleusis_lab.games.state.GameState`,
`eleusis_lab.games.driver.drive`); the search agents go through the same functions.

A game has two kinds of decision (`SecretsState.to_move`): the turn of the seat to
move (one of `SecretsState.legal_actions`, a `eleusis_lab.secrets.moves.SecretsAction`;
a piece with none skips), and, after a duel whose defender holds a card that may beat
the one sent, the defender's answer (the beating card, or None), which completes the
turn. `SecretsState.apply` returns the turn's effects (pairs ``(code, card)``, see
`eleusis_lab.secrets.moves.EFFECTS`), the game's own events; a duel waiting for its
answer has none yet. A search that plays the defender's answer itself gives it with
the duel (``apply(action, beat)``).

The board
---------
Squares are numbered ``8 * row + column`` (0..31); row ``a`` is 0 and column ``1`` is
0, so ``a1`` is 0 and ``d8`` is 31. Row a (drawn on top) is hearts, b diamonds, c
clubs, d spades; seat 0 owns hearts, seat 1 diamonds, seat 2 clubs, seat 3 spades,
and seat 0 plays first. "Up" is toward row a.

Decisions where the rules are open (RULES.md section 4 and the seed's text)
------------------------------------------------------------------------------
- **Information.** Hands are private; everything done in play is public: the card
  sent in a duel, the card that beats it, a secret turned up, a card captured. So a
  player sees every card except the other players' dealt cards still in their hands
  and the unrevealed secrets (`SecretsView.unseen`). (A secret is turned up to see
  what it is; the seed does not say it is kept hidden.)
- **Any card may be sent** in a duel, a queen, an ace or a jack in hand included (the
  seed: "a queen is a card in hand too, and one may duel with it").
- **A queen takes a piece of its suit, the player's own king included** (the seed
  says "a jack or king of that suit", not "an enemy"); option
  ``queen_takes_own=False`` restricts it to enemy pieces. An ace kills enemy pieces
  only (the rules say so).
- **Special cards are kept** (``spend_special=False``); with ``spend_special=True`` the
  ace or queen used leaves the game, and a kill names which ace is spent.
- **A face-up ace** on a square (an enemy ace turned up by a secret) is entered by an
  ordinary move: its own suit's piece takes it into hand, any other piece dies there.
  So it is a legal move, and a forced one when nothing else is possible (the seed: an
  ace can be used to "send someone to certain death").
- **Order inside a move**: the card on the square is dealt with first (captured, or
  removed by a duel the defender did not beat), then the piece enters and the secret
  under the square, if any, is turned up.
- **Killed, dead and spent cards** leave the game (``SecretsState.out``); a piece that
  leaves the board by column 8, or a piece taken with a queen, goes to a hand.
- **A seat with no piece left** is passed over (no turn is recorded for it). A piece
  with no possible action skips (a recorded turn). When every piece left on the board
  has skipped in a row, nothing can change any more: the game ends as ``"blocked"``
  (the seed never meets this case) and the pieces still on the board score nothing.
- **Score and ties.** Cards in hand score J 1000, Q 100, A 10, K 1, any other 0.01,
  counted exactly in hundredths (`score_cents`). The weights make the order
  lexicographic (jacks, then queens, aces, kings, plain cards), which is the seed's
  tie-break; seats with equal totals share a rank (`secrets_ranks`).

Examples
--------
>>> from eleusis_lab.secrets.moves import square_name
>>> state = SecretsState.initial(secrets_setup(np.random.default_rng(0)))
>>> print(square_name(state.active(0)), [str(a) for a in state.legal_actions()][:3])
a2 ['a3/7S', 'a3/10C', 'a3/9C']
>>> position = SecretsState.from_layout({"a7": "JH", "a8": "5H"}, hands=["2C", "", "", ""])
>>> [str(action) for action in position.legal_actions()]
['a8', 'b7', 'a6']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from eleusis_lab.cards import Card, parse_card, parse_cards
from eleusis_lab.engines import check_seed
from eleusis_lab.games.state import GameState
from eleusis_lab.secrets.config import SecretsConfig
from eleusis_lab.secrets.moves import (
    ACE,
    CARD_SQUARES,
    DECK,
    DUEL,
    JACK,
    JACK_SQUARES,
    KILL,
    KING,
    KING_SQUARES,
    LEAVE,
    MOVE,
    N_COLS,
    N_SEATS,
    N_SQUARES,
    NEIGHBORS,
    QUEEN,
    SEAT_SUITS,
    SECRET_SQUARES,
    SKIP,
    SUIT_SEATS,
    TAKE,
    SecretsAction,
    beat_value,
    deck_card,
    parse_square,
    secrets_score,
)

__all__ = ["SecretsSetup", "SecretsState", "SecretsView", "secrets_setup"]

# Every action object, made once: legal_actions hands out these (no allocation per call).
_LEAVE = SecretsAction(LEAVE)
_SKIP = SecretsAction(SKIP)
_MOVES = tuple(SecretsAction(MOVE, sq) for sq in range(N_SQUARES))
_DUELS = tuple(tuple(SecretsAction(DUEL, sq, card) for card in DECK) for sq in range(N_SQUARES))
_KILLS = tuple(SecretsAction(KILL, sq) for sq in range(N_SQUARES))
_SPENT_KILLS = tuple(
    {suit: SecretsAction(KILL, sq, deck_card(ACE, suit)) for suit in range(4)}
    for sq in range(N_SQUARES)
)
_TAKES = tuple(
    {suit: SecretsAction(TAKE, sq, deck_card(QUEEN, suit)) for suit in range(4)}
    for sq in range(N_SQUARES)
)


class _Ask:
    def __repr__(self) -> str:
        return "ASK"


#: `SecretsState.apply`'s ``beat`` when none is given: a duel the defender may beat
#: waits for his answer.
_ASK: Any = _Ask()


# -- the set-up -----------------------------------------------------------------------------


@dataclass(frozen=True)
class SecretsSetup:
    """The cards as laid out before the first move.

    Attributes
    ----------
    board : tuple of Card or None
        The face-up card of each of the 32 squares (None on the kings' and jacks'
        squares, column 1 and 2).
    secrets : tuple of Card
        The aces and queens face down on `SECRET_SQUARES` (a5, a6, b5, ..., d6).
    hands : tuple of tuple of Card
        The three cards dealt to each seat.
    """

    board: tuple[Card | None, ...]
    secrets: tuple[Card, ...]
    hands: tuple[tuple[Card, ...], ...]


def secrets_setup(rng: np.random.Generator) -> SecretsSetup:
    """Lay out a game: shuffle the secrets, then the 36 plain cards; deal the 12 left.

    Draws two permutations from ``rng``: the 8 aces and queens (onto a5, a6, b5, ...,
    d6), then the 36 plain cards, of which the first 24 go face up onto the free
    squares in square order and the last 12 are dealt one at a time from seat 0.

    >>> setup = secrets_setup(np.random.default_rng(0))
    >>> [len(hand) for hand in setup.hands], sum(card is not None for card in setup.board)
    ([3, 3, 3, 3], 24)
    """
    specials = [card for card in DECK if card.rank in (ACE, QUEEN)]
    plain = [card for card in DECK if 2 <= card.rank <= 10]
    secrets = tuple(specials[i] for i in rng.permutation(len(specials)).tolist())
    shuffled = [plain[i] for i in rng.permutation(len(plain)).tolist()]
    board: list[Card | None] = [None] * N_SQUARES
    for sq, card in zip(CARD_SQUARES, shuffled, strict=False):
        board[sq] = card
    dealt = shuffled[len(CARD_SQUARES) :]
    hands = tuple(tuple(dealt[seat::N_SEATS]) for seat in range(N_SEATS))
    return SecretsSetup(tuple(board), secrets, hands)


# -- the state ------------------------------------------------------------------------------


class SecretsState(GameState):
    """A position of Secrets: the board, the pieces, the hands, whose turn it is.

    Mutable and cheap to copy (`copy`), for engines and search. Use `deal` for the
    start of the game `eleusis_lab.secrets.game.play_secrets` plays for a seed,
    `initial` for the start of a game laid out as a `SecretsSetup`, `from_layout` for a
    hand-built position.

    Attributes
    ----------
    board : list of Card or None
        The face-up card of each square (a plain card, or a turned-up ace).
    secrets : list of Card or None
        The face-down secret under each square, until it is turned up.
    occupants : list of Card or None
        The piece (a jack or a king) on each square.
    pieces : list of [int or None, int or None]
        Each seat's ``[jack square, king square]``; None once it left the board.
    hands : list of list of Card
        Each seat's cards in hand, in the order they came.
    private : list of set of Card
        The cards of each hand that only their owner has seen (dealt, never shown).
    out : list of Card
        The cards out of the game, in the order they left.
    seat : int
        The seat to move.
    turn : int
        Turns played (a forced skip is a turn; a seat with no piece has none).
    idle : int
        Forced skips in a row (the game is blocked once every piece left skipped).
    spend_special, queen_takes_own : bool
        The rule options (see the module's decisions).
    max_turns : int or None
        The turn cap (``SecretsConfig.max_turns``): the game is over once so many
        turns are played; None: no cap.
    duel : SecretsAction or None
        The duel waiting for its defender's answer (`apply` without ``beat``), else
        None.
    """

    game = "secrets"

    __slots__ = (
        "board",
        "secrets",
        "occupants",
        "pieces",
        "hands",
        "private",
        "out",
        "seat",
        "turn",
        "idle",
        "spend_special",
        "queen_takes_own",
        "max_turns",
        "duel",
    )

    def __init__(
        self,
        board: list[Card | None],
        secrets: list[Card | None],
        occupants: list[Card | None],
        pieces: list[list[int | None]],
        hands: list[list[Card]],
        private: list[set[Card]],
        out: list[Card],
        seat: int = 0,
        turn: int = 0,
        idle: int = 0,
        spend_special: bool = False,
        queen_takes_own: bool = True,
        max_turns: int | None = None,
        duel: SecretsAction | None = None,
    ):
        self.board = board
        self.secrets = secrets
        self.occupants = occupants
        self.pieces = pieces
        self.hands = hands
        self.private = private
        self.out = out
        self.seat = seat
        self.turn = turn
        self.idle = idle
        self.spend_special = spend_special
        self.queen_takes_own = queen_takes_own
        self.max_turns = max_turns
        self.duel = duel

    @classmethod
    def deal(cls, rule: None, seed: int, config: SecretsConfig | None = None) -> SecretsState:
        """The position before the first move of the game
        `eleusis_lab.secrets.game.play_secrets` plays for ``seed`` with ``config`` (its
        rule options and turn cap; the defaults of `SecretsConfig` when None). Secrets has
        no rule: ``rule`` is not used.

        >>> state = SecretsState.deal(None, 3, SecretsConfig(max_turns=2))
        >>> state.to_move(), [len(hand) for hand in state.hands], len(state.hidden_squares())
        (0, [3, 3, 3, 3], 8)
        >>> duel = state.legal_actions()[0]
        >>> str(duel), state.apply(duel), state.to_move()  # diamonds may beat: he answers
        ('a3/9H', (), 1)
        >>> state.legal_actions(), state.apply(None)
        ([None, Card('10H')], (('send', Card('9H')), ('discard', Card('10D'))))
        >>> state.apply(state.legal_actions()[0]), state.to_move(), state.is_terminal()
        ((), None, True)
        """
        config = SecretsConfig() if config is None else config
        rng = np.random.default_rng(np.random.SeedSequence(check_seed(seed)))
        return cls.initial(
            secrets_setup(rng), config.spend_special, config.queen_takes_own, config.max_turns
        )

    @classmethod
    def initial(
        cls,
        setup: SecretsSetup,
        spend_special: bool = False,
        queen_takes_own: bool = True,
        max_turns: int | None = None,
    ) -> SecretsState:
        """The position before the first move of a game laid out as ``setup``."""
        secrets: list[Card | None] = [None] * N_SQUARES
        for sq, card in zip(SECRET_SQUARES, setup.secrets, strict=True):
            secrets[sq] = card
        occupants: list[Card | None] = [None] * N_SQUARES
        pieces = []
        for seat, suit in enumerate(SEAT_SUITS):
            occupants[KING_SQUARES[seat]] = deck_card(KING, suit)
            occupants[JACK_SQUARES[seat]] = deck_card(JACK, suit)
            pieces.append([JACK_SQUARES[seat], KING_SQUARES[seat]])
        return cls(
            list(setup.board),
            secrets,
            occupants,
            pieces,
            [list(hand) for hand in setup.hands],
            [set(hand) for hand in setup.hands],
            [],
            spend_special=spend_special,
            queen_takes_own=queen_takes_own,
            max_turns=max_turns,
        )

    @classmethod
    def from_layout(
        cls,
        squares: Mapping[str, str],
        hands: Sequence[str] = ("", "", "", ""),
        seat: int = 0,
        out: str = "",
        spend_special: bool = False,
        queen_takes_own: bool = True,
    ) -> SecretsState:
        """A hand-built position, for tests and examples.

        Parameters
        ----------
        squares : mapping of str to str
            Square name to contents: a jack or king is a piece (``"JH"``), another card
            lies face up (``"7C"``, or a turned-up ace ``"AS"``), ``"?QS"`` is a secret
            face down, ``"7C?QS"`` a card covering a secret. Squares not named are empty.
        hands : sequence of 4 str
            Each seat's cards in hand, e.g. ``"2C 9H"``; they count as private.
        seat : int
            The seat to move.
        out : str
            Cards out of the game.

        Examples
        --------
        >>> state = SecretsState.from_layout({"a2": "JH", "a3": "7C?QS"}, ["5D", "", "", ""])
        >>> state.active(0), state.board[2], state.secrets[2]
        (1, Card('7C'), Card('QS'))
        """
        board: list[Card | None] = [None] * N_SQUARES
        secrets: list[Card | None] = [None] * N_SQUARES
        occupants: list[Card | None] = [None] * N_SQUARES
        pieces: list[list[int | None]] = [[None, None] for _ in range(N_SEATS)]
        for name, contents in squares.items():
            sq = parse_square(name)
            top, _, hidden = contents.partition("?")
            if hidden:
                secrets[sq] = DECK[parse_card(hidden).face]
            if not top:
                continue
            card = DECK[parse_card(top).face]
            if card.rank in (JACK, KING):
                occupants[sq] = card
                pieces[SUIT_SEATS[card.suit]][0 if card.rank == JACK else 1] = sq
            else:
                board[sq] = card
        held = [[DECK[card.face] for card in parse_cards(hand)] for hand in hands]
        return cls(
            board,
            secrets,
            occupants,
            pieces,
            held,
            [set(hand) for hand in held],
            [DECK[card.face] for card in parse_cards(out)],
            seat=seat,
            spend_special=spend_special,
            queen_takes_own=queen_takes_own,
        )

    def copy(self) -> SecretsState:
        """An independent copy (cards are immutable and shared)."""
        return SecretsState(
            self.board[:],
            self.secrets[:],
            self.occupants[:],
            [pair[:] for pair in self.pieces],
            [hand[:] for hand in self.hands],
            [set(cards) for cards in self.private],
            self.out[:],
            self.seat,
            self.turn,
            self.idle,
            self.spend_special,
            self.queen_takes_own,
            self.max_turns,
            self.duel,
        )

    # -- reading the position -------------------------------------------------------

    def active(self, seat: int | None = None) -> int | None:
        """The square of the seat's active piece (its jack, else its king), or None."""
        jack, king = self.pieces[self.seat if seat is None else seat]
        return jack if jack is not None else king

    @property
    def over(self) -> bool:
        """Whether no jack or king is left on the board (the end of the game)."""
        return all(jack is None and king is None for jack, king in self.pieces)

    @property
    def seats_in_play(self) -> int:
        """How many seats still have a piece on the board."""
        return sum(jack is not None or king is not None for jack, king in self.pieces)

    @property
    def blocked(self) -> bool:
        """Whether every piece left has skipped in a row: nothing can change any more."""
        return 0 < self.seats_in_play <= self.idle

    def hidden_squares(self) -> tuple[int, ...]:
        """The squares whose secret has not been turned up yet."""
        return tuple(sq for sq in SECRET_SQUARES if self.secrets[sq] is not None)

    def scores(self) -> tuple[float, ...]:
        """Each seat's score for the cards in hand now."""
        return tuple(secrets_score(hand) for hand in self.hands)

    def cards(self) -> Counter[Card]:
        """Every card of the position, wherever it is: board, secrets, pieces, hands, out."""
        places = [self.board, self.secrets, self.occupants, *self.hands, self.out]
        return Counter(card for place in places for card in place if card is not None)

    # -- the rules --------------------------------------------------------------------

    def to_move(self) -> int | None:
        """The seat whose decision is next: the defender of a duel waiting for his
        answer, else the seat to move (`seat`); None once the game is over (no piece
        left, `blocked`, or `max_turns` turns played).

        >>> SecretsState.from_layout({"b3": "JD"}, seat=1).to_move()
        1
        >>> SecretsState.from_layout({}).to_move()  # no jack or king left
        """
        if self.duel is not None:
            return self.defender(self.duel)
        cap = self.max_turns
        if self.over or self.blocked or (cap is not None and self.turn >= cap):
            return None
        return self.seat

    def legal_actions(self) -> list[Any]:
        """What the seat to move may do, in a fixed order; empty when it must skip.

        Per neighbour of the active piece (up, right, down, left): a move, or a duel
        per card in hand (in hand order), or a kill and a take of the piece there; then
        leaving the board from column 8. A seat with no piece has no action. While a
        duel waits for its answer (`duel`): the defender's answers, None (no beat) and
        then its `beating_cards`.

        >>> state = SecretsState.from_layout({"b3": "JD", "a3": "KH", "b4": "7C"},
        ...                                  hands=["", "AS 2D", "", ""], seat=1)
        >>> [str(action) for action in state.legal_actions()]
        ['kill a3', 'b4/AS', 'b4/2D', 'c3', 'b2']
        """
        if self.duel is not None:
            return [None, *self.beating_cards(self.duel)]
        seat = self.seat
        jack, king = self.pieces[seat]
        at = jack if jack is not None else king
        if at is None:
            return []
        suit = SEAT_SUITS[seat]
        hand = self.hands[seat]
        board, occupants = self.board, self.occupants
        aces = [card for card in hand if card.rank == ACE]
        actions: list[SecretsAction] = []
        for sq in NEIGHBORS[at]:
            other = occupants[sq]
            if other is not None:
                if aces and other.suit != suit:
                    if self.spend_special:
                        actions.extend(_SPENT_KILLS[sq][ace.suit] for ace in aces)
                    else:
                        actions.append(_KILLS[sq])
                if (other.suit != suit or self.queen_takes_own) and deck_card(
                    QUEEN, other.suit
                ) in hand:
                    actions.append(_TAKES[sq][other.suit])
                continue
            card = board[sq]
            if card is None or card.suit == suit or card.rank == ACE:
                actions.append(_MOVES[sq])
            elif hand:
                duels = _DUELS[sq]
                actions.extend(duels[sent.face] for sent in hand)
        if at % N_COLS == N_COLS - 1:
            actions.append(_LEAVE)
        return actions

    def defender(self, action: SecretsAction) -> int:
        """The seat that answers a duel: the owner of the suit of the card attacked."""
        return SUIT_SEATS[self.board[action.square].suit]

    def beating_cards(self, action: SecretsAction) -> tuple[Card, ...]:
        """The defender's cards that may beat the card sent by the duel ``action``.

        Cards of the sent card's suit with a higher `beat_value`, in hand order.

        >>> from eleusis_lab.secrets.moves import parse_action
        >>> state = SecretsState.from_layout({"a2": "JH", "a3": "7C"},
        ...                                  hands=["5C 5D", "", "3C 9C KC 8D", ""])
        >>> state.defender(parse_action("a3/5C")), state.beating_cards(parse_action("a3/5C"))
        (2, (Card('9C'), Card('KC')))
        >>> state.beating_cards(parse_action("a3/5D"))
        (Card('8D'),)
        """
        sent = action.card
        value = beat_value(sent)
        return tuple(
            card
            for card in self.hands[self.defender(action)]
            if card.suit == sent.suit and beat_value(card) > value
        )

    def apply(self, action: Any, beat: Any = _ASK) -> tuple[tuple[str, Card], ...]:
        """Play ``action`` for the seat to move and pass the turn; return its effects.

        ``beat`` is the defender's answer to a duel: one of `beating_cards`, or None
        when he does not beat. When it is not given and the defender holds a card that
        may beat, the duel waits for his answer (`duel`; `to_move` is the defender):
        nothing happens yet (no effects), and the next ``apply`` is his answer, one of
        `legal_actions` (a beating card, or None), which plays the duel. The action
        must be legal (`legal_actions`, or a skip when there is none): this is not
        checked here, the engine and the replay check it.

        Returns
        -------
        tuple of (str, Card)
            What happened, in order (codes in `EFFECTS`), e.g.
            ``(("send", 5D), ("discard", 7C), ("secret", QS))``.

        Examples
        --------
        >>> from eleusis_lab.secrets.moves import effect_text, parse_action, square_name
        >>> state = SecretsState.from_layout({"a2": "JH", "a3": "7C?QS"},
        ...                                  hands=["5D", "", "3C", ""])
        >>> [effect_text(e) for e in state.apply(parse_action("a3/5D"))]
        ['send 5D', 'discard 7C', 'secret QS']
        >>> square_name(state.active(0)), state.hands[0], state.hands[2]
        ('a3', [Card('QS')], [Card('3C'), Card('5D')])

        A duel the defender (clubs, seat 2) may beat waits for his answer:

        >>> state = SecretsState.from_layout({"a2": "JH", "a3": "7C"}, ["5C", "", "9C", ""])
        >>> state.apply(parse_action("a3/5C")), state.to_move(), state.legal_actions()
        ((), 2, [None, Card('9C')])
        >>> [effect_text(e) for e in state.apply(parse_card("9C"))], state.to_move()
        (['send 5C', 'beat 9C'], 0)
        """
        if self.duel is not None:  # the defender's answer to the duel waiting for it
            action, beat = self.duel, action
            self.duel = None
        elif beat is _ASK:
            if action.kind == DUEL and self.beating_cards(action):
                self.duel = action  # the defender answers first
                return ()
            beat = None
        seat = self.seat
        kind = action.kind
        effects: list[tuple[str, Card]] = []
        if kind == SKIP:
            self.idle += 1
        else:
            self.idle = 0
            pair = self.pieces[seat]
            index = 0 if pair[0] is not None else 1
            at = pair[index]
            hand = self.hands[seat]
            if kind == MOVE:
                self._enter(seat, index, at, action.square, effects)
            elif kind == DUEL:
                sq, sent = action.square, action.card
                attacked = self.board[sq]
                defender = SUIT_SEATS[attacked.suit]
                hand.remove(sent)
                self.private[seat].discard(sent)
                effects.append(("send", sent))
                if beat is not None:
                    self.hands[defender].remove(beat)
                    self.private[defender].discard(beat)
                    hand.append(sent)
                    hand.append(beat)
                    effects.append(("beat", beat))
                else:
                    self.hands[defender].append(sent)
                    self.board[sq] = None
                    self.out.append(attacked)
                    effects.append(("discard", attacked))
                    self._enter(seat, index, at, sq, effects)
            elif kind == LEAVE:
                piece = self.occupants[at]
                self.occupants[at] = None
                pair[index] = None
                hand.append(piece)
                effects.append(("leave", piece))
            else:  # kill or take
                sq = action.square
                victim = self.occupants[sq]
                self.occupants[sq] = None
                victim_pair = self.pieces[SUIT_SEATS[victim.suit]]
                victim_pair[0 if victim.rank == JACK else 1] = None
                if kind == KILL:
                    self.out.append(victim)
                    effects.append(("kill", victim))
                    used = action.card
                else:
                    hand.append(victim)
                    effects.append(("take", victim))
                    used = action.card
                if self.spend_special and used is not None:
                    hand.remove(used)
                    self.private[seat].discard(used)
                    self.out.append(used)
                    effects.append(("spend", used))
        self.turn += 1
        self._pass_turn()
        return tuple(effects)

    def _enter(
        self, seat: int, index: int, at: int, sq: int, effects: list[tuple[str, Card]]
    ) -> None:
        """Move the seat's piece from ``at`` onto ``sq`` (its card already dealt with)."""
        pair = self.pieces[seat]
        piece = self.occupants[at]
        self.occupants[at] = None
        suit = SEAT_SUITS[seat]
        hand = self.hands[seat]
        card = self.board[sq]
        if card is not None:
            if card.rank == ACE and card.suit != suit:  # a face-up enemy ace: death
                pair[index] = None
                self.out.append(piece)
                effects.append(("die", piece))
                return
            self.board[sq] = None
            hand.append(card)
            effects.append(("ace" if card.rank == ACE else "capture", card))
        self.occupants[sq] = piece
        pair[index] = sq
        secret = self.secrets[sq]
        if secret is not None:
            self.secrets[sq] = None
            effects.append(("secret", secret))
            if secret.rank == QUEEN or secret.suit == suit:
                hand.append(secret)
            else:  # an enemy ace: the piece dies, the ace stays face up
                self.board[sq] = secret
                self.occupants[sq] = None
                pair[index] = None
                self.out.append(piece)
                effects.append(("die", piece))

    def _pass_turn(self) -> None:
        """The next seat that still has a piece (the same seat when no other has one)."""
        pieces = self.pieces
        seat = self.seat
        for step in range(1, N_SEATS + 1):
            nxt = (seat + step) % N_SEATS
            jack, king = pieces[nxt]
            if jack is not None or king is not None:
                self.seat = nxt
                return
        self.seat = (seat + 1) % N_SEATS

    # -- what a player sees --------------------------------------------------------------

    def observation(self, seat: int) -> SecretsView:
        """What ``seat`` sees now: its `view`."""
        return self.view(seat)

    def view(self, seat: int) -> SecretsView:
        """What ``seat`` sees: all but the secrets and the other players' private cards."""
        private = self.private
        known = tuple(
            tuple(hand) if t == seat else tuple(c for c in hand if c not in private[t])
            for t, hand in enumerate(self.hands)
        )
        unseen = [card for t in range(N_SEATS) if t != seat for card in private[t]]
        unseen += [card for card in self.secrets if card is not None]
        return SecretsView(
            seat=seat,
            to_move=self.seat,
            turn=self.turn,
            idle=self.idle,
            board=tuple(self.board),
            occupants=tuple(self.occupants),
            pieces=tuple((jack, king) for jack, king in self.pieces),
            hidden=self.hidden_squares(),
            hand=known[seat],
            known_hands=known,
            hand_sizes=tuple(len(hand) for hand in self.hands),
            out=tuple(self.out),
            unseen=tuple(sorted(unseen, key=lambda card: card.face)),
            spend_special=self.spend_special,
            queen_takes_own=self.queen_takes_own,
        )

    def __repr__(self) -> str:
        if self.duel is not None:
            return f"<SecretsState turn {self.turn}, seat {self.to_move()} to answer {self.duel}>"
        return f"<SecretsState turn {self.turn}, seat {self.seat} to move>"


@dataclass(frozen=True)
class SecretsView:
    """What one seat sees of a position: everything but hidden cards.

    Attributes
    ----------
    seat : int
        The seat that sees.
    to_move : int
        The seat whose turn it is (for a duel's answer: the mover).
    turn, idle : int
        As in `SecretsState`.
    board, occupants : tuple of Card or None
        The face-up card and the piece of each of the 32 squares.
    pieces : tuple of (int or None, int or None)
        Each seat's jack and king squares.
    hidden : tuple of int
        The squares whose secret is still face down.
    hand : tuple of Card
        The seat's own cards.
    known_hands : tuple of tuple of Card
        Per seat, the cards this seat knows are in that hand (its own: all).
    hand_sizes : tuple of int
        How many cards each seat holds.
    out : tuple of Card
        The cards out of the game.
    unseen : tuple of Card
        The cards this seat cannot place: the secrets face down (aces and queens) and
        the other players' dealt cards they have not shown (plain cards).
    spend_special, queen_takes_own : bool
        The rule options.
    """

    seat: int
    to_move: int
    turn: int
    idle: int
    board: tuple[Card | None, ...]
    occupants: tuple[Card | None, ...]
    pieces: tuple[tuple[int | None, int | None], ...]
    hidden: tuple[int, ...]
    hand: tuple[Card, ...]
    known_hands: tuple[tuple[Card, ...], ...]
    hand_sizes: tuple[int, ...]
    out: tuple[Card, ...]
    unseen: tuple[Card, ...]
    spend_special: bool = False
    queen_takes_own: bool = True

    def active(self, seat: int | None = None) -> int | None:
        """The square of a seat's active piece (default: this seat), or None."""
        jack, king = self.pieces[self.seat if seat is None else seat]
        return jack if jack is not None else king

    @property
    def hidden_specials(self) -> tuple[Card, ...]:
        """The aces and queens still face down (which square holds which is unknown)."""
        return tuple(card for card in self.unseen if card.rank in (ACE, QUEEN))

    def determinize(self, rng: np.random.Generator) -> SecretsState:
        """A full position consistent with this view, the hidden cards drawn at random.

        The face-down aces and queens are shuffled over the hidden squares, and the
        unseen plain cards dealt to the other seats' unknown places in hand. Used by
        search agents (determinised Monte Carlo).

        >>> state = SecretsState.initial(secrets_setup(np.random.default_rng(1)))
        >>> guess = state.view(0).determinize(np.random.default_rng(2))
        >>> guess.hands[0] == state.hands[0], guess.cards() == state.cards()
        (True, True)
        """
        specials = [card for card in self.unseen if card.rank in (ACE, QUEEN)]
        plain = [card for card in self.unseen if card.rank not in (ACE, QUEEN)]
        secrets: list[Card | None] = [None] * N_SQUARES
        for sq, i in zip(self.hidden, rng.permutation(len(specials)).tolist(), strict=True):
            secrets[sq] = specials[i]
        order = [plain[i] for i in rng.permutation(len(plain)).tolist()]
        hands, private, start = [], [], 0
        for t in range(N_SEATS):
            known = list(self.known_hands[t])
            if t == self.seat:
                hands.append(known)
                private.append(set())
                continue
            extra = order[start : start + self.hand_sizes[t] - len(known)]
            start += len(extra)
            hands.append(known + extra)
            private.append(set(extra))
        occupants = list(self.occupants)
        pieces = [list(pair) for pair in self.pieces]
        return SecretsState(
            list(self.board),
            secrets,
            occupants,
            pieces,
            hands,
            private,
            list(self.out),
            self.to_move,
            self.turn,
            self.idle,
            self.spend_special,
            self.queen_takes_own,
        )
