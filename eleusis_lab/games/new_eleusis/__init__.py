"""New Eleusis (RULES.md section 5): one round as a pure function of its inputs, and a match.

`play_new_eleusis` takes a rule, the players' agents (3 to 7: with the dealer, 4 to 8
participants), a seed and a `NewEleusisConfig`, and plays one round: the deal of 14
cards each from two decks, the starter, turns of one card or a string of 2 to 4, "no
play" declarations, the Prophet, sudden death and the scores. It returns a
`NewEleusisRecord`, which goes to JSON and back, is checked without the agents by
`replay_new_eleusis` and laid out by `format_new_eleusis_layout`. The dealer is not an
agent: the rule is given, and the dealer's part (judging, the right card he plays after
a false "no play", overruling the Prophet) follows from it. `play_new_eleusis_match`
plays a match: every participant deals once. What a person at a human seat is shown is
in `eleusis_lab.games.new_eleusis.people`.

Seats and turns: seat 0 sits left of the dealer, seats go clockwise. The starter's
value (A=1 .. K=13) counted clockwise from the dealer picks the first player: count 1
is seat 0 and the dealer is not counted (he does not play), so the first player is
seat ``(value - 1) mod N``; ``count_dealer=True`` counts the dealer's place too and a
count ending on him gives the turn to his left. Turns then go clockwise, skipping the
Prophet and the expelled players.

Decisions where RULES.md is silent (each is documented where it applies):

- The stock: the deck is dealt one card at a time from seat 0; the starter is the next
  card; the rest is the stock. Whenever the stock holds `NewEleusisConfig.low_stock`
  (4) cards or fewer, another deck, shuffled, goes under it (a third, then a fourth ...
  as needed; the cards of deck ``k`` have ``copy == k``).
- A "no play" is judged on the player's whole hand. A false one is a wrong play: in
  sudden death it expels the player. The dealer's right card is the first right card
  of the hand, in the order the player holds his cards (the order he received them).
- An expelled player draws the penalty of his wrong play like any other (his hand
  still counts when scoring; so a wrong play never leaves a hand empty).
- Only the player who has just played may declare himself Prophet, right after his
  play (or "no play") is judged, as in Abbott's rules; not after a play that ended the
  round or expelled him. His marker goes on the last card played in the round (the
  starter if none was); "cards played" count the main and side line but not the
  starter, and include the dealer's cards. Sudden death is in force for a turn when 40
  cards have been played with no Prophet in place, or 30 after the marker of the
  Prophet in place; an overthrow lifts the 30 and brings back the 40.
- The Prophet's calls: he calls every play (`NewEleusisDecisions.call_play`) and every
  "no play" (`NewEleusisDecisions.call_no_play`, seeing the declared hand, which is
  shown to everyone). On an overthrow the player draws nothing and is not expelled; a
  true "no play" still sets his hand aside and deals him the smaller hand (that is not
  a penalty). The Prophet's 5 cards are drawn after the player's cards.

Randomness: the seed feeds one ``numpy.random.SeedSequence``; the deck and every
added deck are shuffled by a generator on it, and every agent gets its own generator
spawned from it (as in classic Eleusis).

Faults: as in classic Eleusis (`eleusis_lab.games.classic.ClassicConfig`), an agent that
raises, answers something it may not, overruns the time budget or is stopped at the
decision limit is recorded as a `eleusis_lab.record.Fault` and (but for the budget)
replaced by a fixed choice that draws on no random stream: the turn becomes the first
card of its hand played alone, a Prophet's call becomes "right", and a declaration of
Prophet becomes "no". A `Fault`'s ``event`` is the index of the turn in
`NewEleusisRecord.turns`, its ``call`` the agent method.

Examples
--------
>>> from eleusis_agents.simple import OracleAgent, RandomAgent
>>> agents = [RandomAgent(), RandomAgent(), OracleAgent()]
>>> record = play_new_eleusis("color(card) != color(last)", agents, seed=1)
>>> record.starter, record.first_seat, [len(hand) for hand in record.deal]
(Card('KH', copy=1), 0, [14, 14, 14])
>>> record.end in END_REASONS, replay_new_eleusis(record)
(True, [])
>>> NewEleusisRecord.from_json(record.to_json()) == record
True
"""

from __future__ import annotations

from itertools import chain

from eleusis_lab.cards import Card, standard_deck, two_decks
from eleusis_lab.games.new_eleusis.decisions import NewEleusisDecisions, NewEleusisObservation
from eleusis_lab.games.new_eleusis.engine import (
    LOW_STOCK_LIMIT,
    TRAITS,
    NewEleusisConfig,
    play_new_eleusis,
)
from eleusis_lab.games.new_eleusis.match import NewEleusisMatch, play_new_eleusis_match
from eleusis_lab.games.new_eleusis.people import NewEleusisView
from eleusis_lab.games.new_eleusis.record import (
    ALL_EXPELLED,
    DEALER,
    END_REASONS,
    GAME,
    ILLEGAL_DECISION,
    PLAY,
    PLAYER_OUT,
    SET_ASIDE,
    STRING,
    TURN_CAP,
    NewEleusisRecord,
    ProphetTerm,
    Turn,
    format_new_eleusis_layout,
)
from eleusis_lab.games.new_eleusis.replay import replay_new_eleusis
from eleusis_lab.games.new_eleusis.scoring import (
    new_eleusis_dealer_score,
    new_eleusis_player_scores,
)
from eleusis_lab.games.new_eleusis.state import NewEleusisState
from eleusis_lab.games.new_eleusis.table import first_player, new_eleusis_deal
from eleusis_lab.games.table import GameType, Outcome, SampleGame

__all__ = [
    "ALL_EXPELLED",
    "DEALER",
    "END_REASONS",
    "GAME",
    "GAME_TYPE",
    "LOW_STOCK_LIMIT",
    "ILLEGAL_DECISION",
    "PLAY",
    "PLAYER_OUT",
    "SET_ASIDE",
    "STRING",
    "TURN_CAP",
    "NewEleusisConfig",
    "NewEleusisDecisions",
    "NewEleusisMatch",
    "NewEleusisObservation",
    "NewEleusisRecord",
    "NewEleusisState",
    "ProphetTerm",
    "Turn",
    "first_player",
    "format_new_eleusis_layout",
    "new_eleusis_deal",
    "new_eleusis_outcome",
    "play_new_eleusis",
    "play_new_eleusis_match",
    "replay_new_eleusis",
]


def new_eleusis_outcome(record: NewEleusisRecord) -> Outcome:
    """The `Outcome` of a round of New Eleusis.

    ``plays`` counts the cards a seat put down itself (one card or a string);
    ``wrong_cards`` those of them that were wrong, over the whole round. The hands set
    aside after a true "no play" and the dealer's cards after a false one are in the
    events (their ``kind`` tells them apart) but in neither count.
    """
    n = record.n_players
    plays, wrong = [0] * n, [0] * n
    events = record.events
    for event in events:
        if event.kind in (PLAY, STRING):
            plays[event.seat] += 1
            wrong[event.seat] += not event.right
    return Outcome(
        scores=tuple(float(score) for score in record.player_scores),
        dealer_score=float(record.dealer_score),
        wrong_cards=tuple(wrong),
        cards_left=tuple(record.cards_left),
        plays=tuple(plays),
        end=record.end,
        events=tuple(events),
    )


def _cards(record: NewEleusisRecord) -> tuple[tuple[Card, ...], dict[str, tuple[Card, ...]]]:
    """Two decks and each deck added when the stock ran low, and where each card is at
    the end."""
    deck = (
        *two_decks(),
        *chain.from_iterable(standard_deck(copy=k) for k in range(2, record.decks)),
    )
    places = {
        "main line": record.main_line,
        "side line": tuple(chain.from_iterable(record.side_line)),
        "stock": record.stock,
    }
    for seat, (hand, aside) in enumerate(zip(record.hands, record.set_aside, strict=True)):
        places[f"seat {seat}"] = hand
        places[f"seat {seat} set aside"] = aside
    return deck, places


def _score(record: NewEleusisRecord) -> tuple[list[int], int]:
    """The scores the formulas give from the hands at the end and, with a Prophet in
    place, the cards played before and after his marker (counted from the turns)."""
    sizes = [len(hand) for hand in record.hands]
    prophet = record.prophets[-1] if record.prophets else None
    if prophet is None or prophet.overthrown is not None:
        players = new_eleusis_player_scores(sizes)
        return players, new_eleusis_dealer_score(players)
    main = side = 0
    marked = (0, 0)
    for index, turn in enumerate(record.turns):
        if turn.cards and turn.right:
            main += len(turn.cards)
        elif turn.cards:
            side += len(turn.cards)
        elif turn.dealer_card is not None:
            main += 1
        if index == prophet.turn:
            marked = (main, side)
    players = new_eleusis_player_scores(sizes, prophet.seat, main - marked[0], side - marked[1])
    return players, new_eleusis_dealer_score(players, prophet.marker)


#: New Eleusis, as `eleusis_lab.games.table.GAMES` knows it.
GAME_TYPE = GameType(
    GAME,
    play_new_eleusis,
    NewEleusisConfig,
    new_eleusis_outcome,
    min_players=3,
    max_players=7,
    main_line_only=True,
    title="New Eleusis",
    record_type=NewEleusisRecord,
    replay=replay_new_eleusis,
    layout=format_new_eleusis_layout,
    match=play_new_eleusis_match,
    match_type=NewEleusisMatch,
    default_players=4,
    sample=SampleGame("color(card) != color(last)", 3, {"max_turns": 60}),
    cards=_cards,
    score=_score,
    seat_view=NewEleusisView,
    mixins=(NewEleusisDecisions,),
    traits=TRAITS,
    state_type=NewEleusisState,
)
