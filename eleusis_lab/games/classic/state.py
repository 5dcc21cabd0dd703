"""The rules of classic Eleusis and of its 4-8 player variant as positions and moves:
`MainLineState` (RULES.md sections 1 and 2).

The two games differ only in their deal and their scores (`MainLineGame`: `CLASSIC`
here, ``FOUR_TO_EIGHT`` in `eleusis_lab.games.four_to_eight.engine`). Everything else
is one game on one main line: phase 1 plays every hand out, seats in turn skipping
empty hands; phase 2 plays the wrong cards, from the seat after the last phase-1
player, until a player is out, nobody holds a right card, or the turn cap. The engine
(`eleusis_lab.games.classic.engine.play_main_line`), the replays and the PettingZoo
environment (`eleusis_lab.envs.table`) all move the game through this state.

An action is a `eleusis_lab.cards.Card` of `MainLineState.legal_actions`: the seat's
hand in phase 1, its wrong cards in phase 2 (less the ones it tried this turn, with
the option ``retry_in_turn``).

Examples
--------
>>> state = MainLineState.deal("red(card)", seed=1, players=2)
>>> state.to_move(), state.phase, len(state.legal_actions())
(0, 1, 26)
>>> while not state.is_terminal():
...     _ = state.apply(min(state.legal_actions()))
>>> state.end, state.dealer_score(), state.scores()
('no_playable_card', 6, (0.0, 12.0))
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from eleusis_lab.agent import Event, GameTraits, Observation
from eleusis_lab.cards import N_FACES, Card, standard_deck
from eleusis_lab.engines import card_key, check_seed
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.classic.record import NO_PLAYABLE_CARD, PLAYER_OUT
from eleusis_lab.games.classic.scoring import classic_dealer_score, classic_player_scores
from eleusis_lab.games.state import GameState
from eleusis_lab.record import TURN_CAP
from eleusis_lab.rules import Context, Rule, parse

__all__ = ["CLASSIC", "Dealt", "MainLineGame", "MainLineState", "classic_deal_from"]

#: A deal: the starter, each seat's hand, the cards left unused.
Dealt = tuple[Card, list[list[Card]], tuple[Card, ...]]
_DECK = tuple(standard_deck())


def classic_deal_from(rng: np.random.Generator, n_players: int, hand_size: int | None) -> Dealt:
    """Classic's deal from ``rng``: one shuffled 52-card deck, the starter first, then one
    card at a time from seat 0; ``hand_size=None`` deals the whole deck.

    >>> starter, hands, unused = classic_deal_from(np.random.default_rng(0), 3, 4)
    >>> [len(hand) for hand in hands], len(unused)
    ([4, 4, 4], 39)
    """
    deck = [_DECK[i] for i in rng.permutation(len(_DECK)).tolist()]
    dealt = len(deck) - 1 if hand_size is None else n_players * hand_size
    if dealt > len(deck) - 1:
        raise ConfigError(
            f"hand_size={hand_size} for {n_players} players needs {dealt} cards,"
            f" but the deck has {len(deck) - 1} after the starter"
        )
    # One card at a time starting at seat 0: card j of the deal goes to seat j mod N.
    hands = [deck[1 + seat : 1 + dealt : n_players] for seat in range(n_players)]
    return deck[0], hands, tuple(deck[1 + dealt :])


@dataclass(frozen=True)
class MainLineGame:
    """What a game on one main line is besides its rules of play.

    Attributes
    ----------
    name : str
        The game's registered name (``"classic"``, ``"four-to-eight"``).
    traits : GameTraits
        What the game tells its players of itself.
    deal : callable
        ``deal(rng, n_players, hand_size)``: the starter, the hands and the unused cards.
    dealer_score : callable
        The dealer's score from each seat's wrong-card count after phase 1.
    player_scores : callable
        The players' scores from the cards each has left at the end.
    """

    name: str
    traits: GameTraits
    deal: Callable[[np.random.Generator, int, int | None], Dealt]
    dealer_score: Callable[[Sequence[int]], int]
    player_scores: Callable[[Sequence[int]], list[float]]


#: Classic Eleusis (RULES.md section 1): one deck, its dealer's and players' scores.
CLASSIC = MainLineGame(
    "classic",
    GameTraits(rule_from="dealer", scored_on="plays"),
    classic_deal_from,
    classic_dealer_score,
    classic_player_scores,
)


class MainLineState(GameState):
    """A position of classic Eleusis or its 4-8 player variant; `apply` moves it on.

    Make the first position with `deal` (from a seed, as the game's play function deals
    it) or with the constructor (a given deal, as a replay does).

    Parameters
    ----------
    variant : MainLineGame
        The game: its name, deal and scores.
    rule : Rule or str
        The dealer's rule.
    starter : Card
        The first card of the main line.
    hands : sequence of sequence of Card
        Each seat's dealt hand, seat 0 first.
    unused : sequence of Card
        The cards dealt to nobody.
    retry_in_turn : bool
        Phase 2: after a wrong card the seat tries another of its cards in the same turn,
        until one is right or it tried them all (RULES.md 1.5's option).
    max_turns : int
        The cap on phase-2 turns.

    Attributes
    ----------
    seat : int or None
        The seat to move, None once the game is over.
    phase : int
        1 while hands are played out, then 2.
    main : tuple of Card
        The main line, the starter first.
    last_right : bool or None
        The previous play's verdict, None before the first play.
    hands, piles : list of dict
        Each seat's cards in hand and wrong cards in front of it, each card keyed by
        itself, in the order they came (the order they are offered in).
    allowed : dict
        The cards the seat to move may play now, each keyed by itself (its hand, its
        wrong cards, or those it has not tried this turn); empty once the game is over.
    turns : int
        The phase-2 turns in which a card was played.
    wrong_after_phase1 : tuple of tuple of Card or None
        Each seat's wrong cards when phase 1 ended, None before.
    end : str or None
        How phase 2 ended (``"player_out"``, ``"no_playable_card"``, ``"turn_cap"``).
    own : dict
        The cards of the hands, each keyed by its ``id()``: an action that is one of these
        very objects (a card of an observation's hand, of `allowed`) is the state's own,
        known without reading its values (`apply`, the engine's hot path).
    play : callable
        ``play(card) -> Event``: `apply` for the state's own card of `allowed`, unchecked.
    sequence : numpy.random.SeedSequence or None
        The seed's sequence, for a state made by `deal`.
    """

    def __init__(
        self,
        variant: MainLineGame,
        rule: Rule | str,
        starter: Card,
        hands: Sequence[Sequence[Card]],
        unused: Sequence[Card] = (),
        *,
        retry_in_turn: bool = False,
        max_turns: int = 1000,
    ):
        self.variant = variant
        self.game = variant.name  # type: ignore[misc] # one state class for two games
        self.rule = parse(rule) if isinstance(rule, str) else rule
        self.starter = starter
        self.deal_hands = tuple(map(tuple, hands))
        self.unused = tuple(unused)
        self.retry, self.max_turns = retry_in_turn, max_turns
        self._legal_mask = self.rule.legal_mask
        n = self.n = len(self.deal_hands)
        self.main: tuple[Card, ...] = (starter,)
        self.last_right: bool | None = None
        # Dicts keyed by the card itself (two decks hold duplicate faces: the copy tells
        # them apart): a played card is found and removed in one lookup, in offered order.
        self.hands: list[dict[Card, Card]] = [{card: card for card in h} for h in hands]
        self.own = {id(card): card for hand in self.hands for card in hand.values()}
        self.piles: list[dict[Card, Card]] = [{} for _ in range(n)]
        self._views: list[tuple[Card, ...]] = [() for _ in range(n)]  # piles as tuples
        self._wrong = tuple(self._views)  # `_views` as a tuple, made again as it changes
        self.wrong_after_phase1: tuple[tuple[Card, ...], ...] | None = None
        self.phase, self.turns, self.end = 1, 0, None
        self._held = 0  # phase 2: the faces in the piles, as a bit mask
        self._offered: tuple[Card, ...] = ()  # phase 2: `allowed` as a tuple
        self.seat: int | None = 0
        self.allowed: dict[Card, Card] = {}
        self.sequence: np.random.SeedSequence | None = None  # the seed's, when dealt by `deal`
        moves = self._moves()
        next(moves)  # up to the first decision
        # the state's own card of `allowed`, nothing checked
        self.play: Callable[[Card], Event] = moves.send

    @classmethod
    def deal(
        cls,
        rule: Rule | str,
        seed: int,
        config: Any = None,
        *,
        players: int,
        variant: MainLineGame = CLASSIC,
    ) -> MainLineState:
        """The first position of the game ``play_classic`` (or the variant's play
        function) deals for ``seed`` to ``players`` seats; ``config`` gives
        ``hand_size``, ``max_turns`` and ``retry_in_turn`` (defaults when None or
        absent).

        The seed's ``numpy.random.SeedSequence`` is kept as ``state.sequence``: the engine
        spawns each seat's generator from it.

        >>> state = MainLineState.deal("red(card)", 3, players=4)
        >>> state.starter, [len(hand) for hand in state.hands]
        (Card('QH'), [13, 13, 13, 12])
        """
        sequence = np.random.SeedSequence(check_seed(seed))
        dealt = variant.deal(
            np.random.default_rng(sequence), players, getattr(config, "hand_size", None)
        )
        state = cls(
            variant,
            rule,
            *dealt,
            retry_in_turn=getattr(config, "retry_in_turn", False),
            max_turns=getattr(config, "max_turns", 1000),
        )
        state.sequence = sequence
        return state

    # -- the protocol ---------------------------------------------------------------------

    def to_move(self) -> int | None:
        """The seat to move, None once the game is over."""
        return self.seat

    def legal_actions(self) -> tuple[Card, ...]:
        """The cards the seat to move may play now, in the order offered (a fault's
        substitute is the first); () once the game is over."""
        return tuple(self.allowed) if self.phase == 1 else self._offered

    def observation(self, seat: int) -> Observation:
        """What ``seat`` sees: the engine's `Observation`. Its ``hand`` is what the seat
        may play now when it is to move, else every card it holds (its hand in phase 1,
        its wrong cards in phase 2)."""
        if seat == self.seat:
            hand = tuple(self.allowed) if self.phase == 1 else self._offered
        else:
            hand = tuple(self.hands[seat]) if self.phase == 1 else self._views[seat]
        return Observation(
            self.game, seat, self.phase, hand, self.main, self._wrong, self.last_right
        )

    def apply(self, action: Any) -> tuple[Event, ...]:
        """Play ``action``, one of `legal_actions` (a card is read by its rank, suit and
        copy, `eleusis_lab.engines.card_key`, unless it is one of the state's own, `own`);
        the play's event.

        Raises
        ------
        ValueError
            For a card the seat may not play now, or once the game is over.
        """
        own = self.own.get(id(action))
        card = self.allowed.get(own if own is action else card_key(action))  # type: ignore[arg-type]
        if card is None:
            raise ValueError(
                f"{action!r} is not a card seat {self.seat} may play now"
                if self.seat is not None
                else "the game is over"
            )
        return (self.play(card),)

    def scores(self) -> tuple[float, ...]:
        """The players' scores from the cards each has left (final once the game is
        over)."""
        return tuple(self.variant.player_scores(self.cards_left()))

    # -- the game's own -------------------------------------------------------------------

    def dealer_score(self) -> int:
        """The dealer's score, from the wrong cards after phase 1.

        Raises
        ------
        ValueError
            Before phase 1 ended.
        """
        if self.wrong_after_phase1 is None:
            raise ValueError("the dealer is scored once phase 1 ended")
        return self.variant.dealer_score([len(pile) for pile in self.wrong_after_phase1])

    def cards_left(self) -> tuple[int, ...]:
        """How many wrong cards each seat holds."""
        return tuple(map(len, self.piles))

    @property
    def mid_turn(self) -> bool:
        """Whether the seat to move already tried a card this turn (``retry_in_turn``)."""
        return (
            self.phase == 2 and self.seat is not None and self.allowed is not self.piles[self.seat]
        )

    def end_condition(self) -> str | None:
        """How phase 2 would end now (as judged at the start of a turn), or None while it
        goes on; the end once the game is over, None in phase 1."""
        if self.end is not None or self.phase == 1:
            return self.end
        if not all(self.piles):
            return PLAYER_OUT
        if not self._legal_mask(Context(self.main, self.last_right)) & self._held:
            return NO_PLAYABLE_CARD  # the dealer declares that play cannot continue
        if self.turns >= self.max_turns:
            return TURN_CAP
        return None

    # -- the rules of play -----------------------------------------------------------------

    def _moves(self) -> Generator[Event | None, Card, None]:
        """The game from the deal to its end, as a coroutine: it sets the decision up (the
        seat, the cards allowed), receives the card played and yields its event.

        One pass with plain locals, the state's attributes written as they change, so
        that the engine's hot loop costs what a loop of its own would.
        """
        n, hands, piles, views = self.n, self.hands, self.piles, self._views
        legal_mask, retry, max_turns = self._legal_mask, self.retry, self.max_turns
        main, last_right = self.main, self.last_right
        event: Event | None = None
        # The last context judged and its verdicts, (main line, last verdict, legal mask):
        # a wrong card after a wrong card leaves the context as it was, and its verdicts
        # are not looked up again.
        judged: list = [None, None, 0]

        def verdicts() -> int:
            if judged[0] is not main or judged[1] is not last_right:
                judged[:] = main, last_right, legal_mask(Context(main, last_right))
            return judged[2]

        # -- phase 1: every card of every hand is played once -----------------------------
        seat, to_play = 0, sum(map(len, hands))
        while to_play:
            hand = hands[seat]
            if hand:
                self.seat = seat
                self.allowed = hand
                card = yield event
                del hand[card]
                right = bool((verdicts() >> card.face) & 1)
                event = Event(seat, card, 1, right, len(main) - 1)
                if right:
                    main += (card,)
                    self.main = main
                else:
                    piles[seat][card] = card
                    views[seat] += (card,)
                    self._wrong = tuple(views)
                self.last_right = last_right = right
                to_play -= 1
            seat = (seat + 1) % n
        self.phase = 2
        self.wrong_after_phase1 = tuple(views)

        # -- phase 2: the wrong cards, until someone is out or nothing can be played ------
        copies = [0] * N_FACES  # copies of each face held by anyone
        for pile in piles:
            for card in pile:
                copies[card.face] += 1
        held = self._held = sum(1 << face for face in range(N_FACES) if copies[face])
        turns, end = 0, PLAYER_OUT if not all(piles) else None
        while end is None:
            mask = verdicts()
            if not mask & held:
                end = NO_PLAYABLE_CARD  # the dealer declares that play cannot continue
                break
            if turns >= max_turns:
                end = TURN_CAP
                break
            pile = piles[seat]
            untried = self.allowed = pile
            self.seat, self._offered = seat, views[seat]
            card = yield event
            turns += 1
            self.turns = turns
            while True:
                face = card.face
                right = bool((mask >> face) & 1)
                event = Event(seat, card, 2, right, len(main) - 1)
                self.last_right = last_right = right  # a wrong card stays where it was
                if right:
                    del pile[card]
                    views[seat] = tuple(pile)
                    self._wrong = tuple(views)
                    copies[face] -= 1
                    if not copies[face]:
                        held &= ~(1 << face)
                        self._held = held
                    main += (card,)
                    self.main = main
                if right or not retry:
                    break
                # The option of RULES.md 1.5: try another card in the same turn.
                if untried is pile:
                    untried = self.allowed = dict(pile)
                del untried[card]
                if not untried:
                    break
                mask = verdicts()
                self._offered = tuple(untried)
                card = yield event
            if not pile:
                end = PLAYER_OUT
            seat = (seat + 1) % n
        self.end, self.seat, self.allowed, self._offered = end, None, {}, ()
        yield event
