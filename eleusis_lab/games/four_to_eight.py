"""Eleusis for 4 to 8 participants (RULES.md section 2): one game, its replay, a match.

`play_four_to_eight` takes a rule, the players' agents, a seed and a
`FourToEightConfig`, and returns a `eleusis_lab.games.classic_record.GameRecord` (``game=
"four-to-eight"``), the record of classic Eleusis, whose fields fit this game:

- **Deck and deal** come from the seed-004 table (`eleusis_lab.cards.seed004_deck`).
  The table is data, and the number of hands is the table's: 3, 5, 6, 7 or 8 players
  (not counting the dealer) select the rows called 4, 5, 6, 7 and 8 participants. Seven
  and eight players play with two decks, so a card's identity includes its ``copy``.
  The dealer's one card is the starter; the hands are dealt one card at a time from
  seat 0 (left of the dealer), so all hands have the same size.
- **Phase 1**: players play their hands in turn, seat 0 first. A right card extends the
  main line; a wrong card goes face up in front of its player ("wrong cards", public)
  and may be played again only once his hand is empty. As hands have equal sizes and
  turns go round without skipping, every hand runs out in the same round: the dealer
  is scored then (`four_to_eight_dealer_score`, ``GameRecord.dealer_score``), from the
  wrong cards at that moment (``GameRecord.wrong_after_phase1``).
- **Phase 2**: players play their wrong cards, one per turn, in rotation from the seat
  after the last phase-1 player (``Observation.hand`` is then the wrong cards). Right:
  the card extends the main line. Wrong: it stays where it was and the turn passes.
  Phase 2 ends when a player has no card left (`PLAYER_OUT`, also possible as soon as
  the hands run out), when no player holds a card the rule accepts now (the dealer's
  declaration, `NO_PLAYABLE_CARD`), or at the turn cap (`TURN_CAP`, recorded in
  ``turn_cap_hit``, never silent).
- **Players' scores** (`four_to_eight_player_scores`): the player with the fewest cards
  left scores, everyone else 0; ties split equally. A game stopped by the turn cap is
  scored as if the dealer had declared that no card can be played.

Randomness and faults are as in classic Eleusis (`eleusis_lab.games.classic`): one
``numpy.random.SeedSequence`` shuffles the deck and spawns every agent's generator;
an agent that raises, plays a card it may not play or overruns ``decision_seconds`` is
recorded as a `eleusis_lab.record.Fault` and replaced by the first card it could play
(see `eleusis_lab.games.classic.ClassicConfig` for the full rule).

`play_four_to_eight_match` lets every participant deal once; `replay_four_to_eight`
re-derives a record from its seed and rule; `format_four_to_eight_layout` lays it out.

Examples
--------
>>> from eleusis_agents.simple import OracleAgent, RandomAgent
>>> agents = [OracleAgent(), RandomAgent(), RandomAgent()]
>>> record = play_four_to_eight("color(card) != color(last)", agents, seed=1)
>>> [len(hand) for hand in record.deal], len(record.unused)
([17, 17, 17], 0)
>>> replay_four_to_eight(record)
[]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from itertools import chain

import numpy as np

from eleusis_lab.agent import Agent, Event, Observation
from eleusis_lab.cards import N_FACES, Card, DeckPlan, seed004_deck
from eleusis_lab.errors import ConfigError
from eleusis_lab.games._faults import (
    FaultLog,
    check_agents,
    check_fault_options,
    check_seed,
    is_int,
)
from eleusis_lab.games.classic_record import (
    GameRecord,
    PlayCheck,
    check_classic_faults,
    check_deal,
    replay_phase1,
)
from eleusis_lab.games.match import MatchResult, check_deals, rotate_deal
from eleusis_lab.games.scoring import four_to_eight_dealer_score, four_to_eight_player_scores
from eleusis_lab.games.table import GameType, game_record_outcome, sample_table
from eleusis_lab.record import (
    NO_PLAYABLE_CARD,
    PLAYER_OUT,
    TURN_CAP,
    describe_agent,
    format_main_line_layout,
)
from eleusis_lab.rules import Context, Rule, RuleSyntaxError, parse

__all__ = [
    "GAME",
    "GAME_TYPE",
    "PLAYERS",
    "FourToEightConfig",
    "FourToEightMatch",
    "deck_plan",
    "format_four_to_eight_layout",
    "four_to_eight_deal",
    "play_four_to_eight",
    "play_four_to_eight_match",
    "replay_four_to_eight",
]

GAME = "four-to-eight"
#: The seed-004 table row (``participants``) for each number of players (hands).
PLAYERS: dict[int, int] = {seed004_deck(row).hands: row for row in range(4, 9)}


def deck_plan(n_players: int) -> DeckPlan:
    """The row of the seed-004 table that deals ``n_players`` hands.

    Raises
    ------
    ConfigError
        When no row of the table deals that many hands.

    Examples
    --------
    >>> plan = deck_plan(3)
    >>> plan.participants, len(plan.cards), plan.hand_size
    (4, 52, 17)
    >>> deck_plan(5).participants, len(deck_plan(8).cards)
    (5, 97)
    """
    row = PLAYERS.get(n_players) if is_int(n_players) else None
    if row is None:
        counts = ", ".join(map(str, sorted(PLAYERS)))
        raise ConfigError(
            f"the 4-8 player variant deals {counts} hands (the seed-004 table of RULES.md"
            f" section 2), so it takes that many players besides the dealer; got {n_players!r}"
        )
    return seed004_deck(row)


@dataclass(frozen=True)
class FourToEightConfig:
    """Options of the 4-8 player variant; the defaults are the decisions of RULES.md.

    Parameters
    ----------
    hand_size : int or None
        Cards dealt to each player; ``None`` deals the table's hands (17, 10, 8, 14 or
        12). A smaller number leaves the rest of the table's deck unused (short games,
        tests); a larger one is a `ConfigError` when the game is dealt.
    max_turns : int
        Cap on the number of phase-2 turns, a safety net; reaching it is recorded.
    on_fault : {"substitute", "raise"}
        What an agent's fault does to the game, as in classic Eleusis (see
        `eleusis_lab.games.classic.ClassicConfig`): record it and play the first card
        the agent could play, or stop the game.
    decision_seconds : float or None
        Time budget of one ``choose_play`` call, in seconds; ``None``: no limit.

    Examples
    --------
    >>> FourToEightConfig(hand_size=5).to_dict()
    {'hand_size': 5, 'max_turns': 1000, 'on_fault': 'substitute', 'decision_seconds': None}
    """

    hand_size: int | None = None
    max_turns: int = 1000
    on_fault: str = "substitute"
    decision_seconds: float | None = None

    def __post_init__(self) -> None:
        if self.hand_size is not None and not (is_int(self.hand_size) and self.hand_size >= 1):
            raise ConfigError(
                f"hand_size must be None or a whole number >= 1, got {self.hand_size!r}"
            )
        if not (is_int(self.max_turns) and self.max_turns >= 0):
            raise ConfigError(f"max_turns must be a whole number >= 0, got {self.max_turns!r}")
        check_fault_options(self.on_fault, self.decision_seconds)

    def to_dict(self) -> dict[str, object]:
        """The options as a plain dict (as stored in a `GameRecord`)."""
        return asdict(self)


def _deal(
    rng: np.random.Generator, plan: DeckPlan, hand_size: int | None
) -> tuple[Card, list[list[Card]], tuple[Card, ...]]:
    size = plan.hand_size if hand_size is None else hand_size
    if size > plan.hand_size:
        raise ConfigError(
            f"hand_size={size}, but the table deals {plan.hand_size} cards per hand to"
            f" {plan.hands} players"
        )
    deck = [plan.cards[i] for i in rng.permutation(len(plan.cards)).tolist()]
    n, dealt = plan.hands, plan.hands * size
    # The dealer's one card is the starter; then one card at a time from seat 0.
    hands = [deck[1 + seat : 1 + dealt : n] for seat in range(n)]
    return deck[0], hands, tuple(deck[1 + dealt :])


def four_to_eight_deal(
    seed: int, n_players: int, hand_size: int | None = None
) -> tuple[Card, list[list[Card]], tuple[Card, ...]]:
    """The starter, the hands and the unused cards that `play_four_to_eight` deals.

    Examples
    --------
    >>> starter, hands, unused = four_to_eight_deal(0, n_players=7)
    >>> [len(hand) for hand in hands], len(unused)
    ([14, 14, 14, 14, 14, 14, 14], 0)
    >>> starter, hands, unused = four_to_eight_deal(0, n_players=5, hand_size=4)
    >>> [len(hand) for hand in hands], len(unused)
    ([4, 4, 4, 4, 4], 30)
    """
    seed = check_seed(seed)
    plan = deck_plan(n_players)
    return _deal(np.random.default_rng(np.random.SeedSequence(seed)), plan, hand_size)


def play_four_to_eight(
    rule: Rule | str,
    agents: Sequence[Agent],
    seed: int,
    config: FourToEightConfig | None = None,
) -> GameRecord:
    """Play one game of the 4-8 player variant and return its record.

    Parameters
    ----------
    rule : Rule or str
        The dealer's secret rule (text is parsed with `eleusis_lab.rules.parse`).
    agents : sequence of Agent
        The players besides the dealer, seat 0 first (left of the dealer): 3, 5, 6, 7
        or 8 of them, the hands of a row of the seed-004 table; one object each.
    seed : int
        Seeds the shuffle and every agent's generator; same seed, same game.
    config : FourToEightConfig, optional
        Options of the game; the defaults when omitted.

    Returns
    -------
    GameRecord
        With ``game="four-to-eight"``: the deal, every play, the wrong cards when the
        hands ran out, the dealer's and the players' scores, how phase 2 ended.

    Raises
    ------
    ConfigError
        For a number of players that no row of the table deals, a shared agent object,
        a bad seed or a hand size larger than the table's.
    AgentError
        Only with ``config.on_fault="raise"``, as in `eleusis_lab.games.classic`.

    Examples
    --------
    >>> from eleusis_agents.simple import RandomAgent
    >>> players = [RandomAgent() for _ in range(5)]
    >>> record = play_four_to_eight("red(card)", players, seed=2)
    >>> len(record.deal), len(record.deal[0]), record.phase2_end
    (5, 10, 'no_playable_card')
    >>> counts = [len(pile) for pile in record.wrong_after_phase1]
    >>> record.dealer_score == four_to_eight_dealer_score(counts)
    True
    """
    if isinstance(rule, str):
        rule = parse(rule)
    config = FourToEightConfig() if config is None else config
    agents = check_agents(agents, "the 4-8 player variant", 1)
    plan = deck_plan(len(agents))
    seed = check_seed(seed)
    n = len(agents)

    sequence = np.random.SeedSequence(seed)
    starter, hands, unused = _deal(np.random.default_rng(sequence), plan, config.hand_size)
    agent_rngs = [np.random.default_rng(child) for child in sequence.spawn(n)]
    deal = tuple(map(tuple, hands))
    events: list[Event] = []
    faults = FaultLog(agents, config, events)
    stop = faults.stop
    faults.start_games(GAME, rule, starter, deal, agent_rngs)

    choose = [agent.choose_play for agent in agents]
    if config.decision_seconds is not None:
        choose = [faults.timed(seat, method) for seat, method in enumerate(choose)]
    observers = [agent.observe for agent in agents]
    legal_mask = rule.legal_mask
    main: tuple[Card, ...] = (starter,)
    last_right: bool | None = None
    # Two decks hold duplicate faces: hands and piles are keyed by the card itself
    # (its copy included), and the faces held count copies.
    held_hands: list[dict[Card, None]] = [dict.fromkeys(hand) for hand in deal]
    piles: list[dict[Card, None]] = [{} for _ in range(n)]
    pile_view: list[tuple[Card, ...]] = [() for _ in range(n)]

    def ask(seat: int, phase: int, offered: tuple[Card, ...], allowed: dict[Card, None]) -> Card:
        """The seat's card, or the first offered card after a recorded fault."""
        obs = Observation(GAME, seat, phase, offered, main, tuple(pile_view), last_right)
        try:
            card = choose[seat](obs)
        except Exception as error:
            if stop:
                raise
            card = faults.raised(seat, phase, offered, error)
        if not isinstance(card, Card) or card not in allowed:
            card = faults.illegal(seat, phase, offered, card)
        return card

    # -- phase 1: the hands, in turn, until they are all played out -------------------
    seat, to_play = 0, sum(len(hand) for hand in deal)
    while to_play:
        hand = held_hands[seat]
        if hand:  # hands have equal sizes: never skipped, kept for safety
            card = ask(seat, 1, tuple(hand), hand)
            del hand[card]
            right = bool((legal_mask(Context(main, last_right)) >> card.face) & 1)
            event = Event(seat, card, 1, right, len(main) - 1)
            if right:
                main += (card,)
            else:
                piles[seat][card] = None
                pile_view[seat] += (card,)
            last_right = right
            faults.announce(event, observers)
            to_play -= 1
        seat = (seat + 1) % n
    wrong_after_phase1 = tuple(pile_view)

    # -- phase 2: the wrong cards, until someone is out or nothing can be played -------
    copies = [0] * N_FACES  # copies of each face held by anyone
    for card in chain.from_iterable(piles):
        copies[card.face] += 1
    held = sum(1 << face for face in range(N_FACES) if copies[face])
    max_turns, turns = config.max_turns, 0
    end = PLAYER_OUT if not all(piles) else None
    while end is None:
        mask = legal_mask(Context(main, last_right))
        if not mask & held:
            end = NO_PLAYABLE_CARD  # the dealer declares that no card can be played
            break
        if turns >= max_turns:
            end = TURN_CAP
            break
        turns += 1
        pile = piles[seat]
        card = ask(seat, 2, pile_view[seat], pile)
        right = bool((mask >> card.face) & 1)
        event = Event(seat, card, 2, right, len(main) - 1)
        if right:
            del pile[card]
            pile_view[seat] = tuple(pile)
            copies[card.face] -= 1
            if not copies[card.face]:
                held &= ~(1 << card.face)
            main += (card,)
        last_right = right  # a wrong card stays where it was
        faults.announce(event, observers)
        if not pile:
            end = PLAYER_OUT
        seat = (seat + 1) % n

    cards_left = tuple(len(pile) for pile in piles)
    return GameRecord(
        game=GAME,
        rule=rule.text,
        rule_name=rule.name,
        seed=seed,
        config=config.to_dict(),
        agents=tuple(describe_agent(agent) for agent in agents),
        starter=starter,
        deal=deal,
        unused=unused,
        events=tuple(events),
        main_line=main,
        wrong_after_phase1=wrong_after_phase1,
        cards_left=cards_left,
        dealer_score=four_to_eight_dealer_score([len(pile) for pile in wrong_after_phase1]),
        player_scores=tuple(four_to_eight_player_scores(cards_left)),
        phase2_end=end,
        phase2_turns=turns,
        turn_cap_hit=end == TURN_CAP,
        faults=tuple(faults.faults),
    )


# -- replay -------------------------------------------------------------------------------


def replay_four_to_eight(rec: GameRecord) -> list[str]:  # noqa: C901 - one pass over the game
    """Check a four-to-eight record against the rules, without the agents.

    Re-parses the rule, re-deals from the seed and the table, replays every event (turn
    order, the card comes from the hand, or from the wrong cards once the hand is empty,
    position, verdict), re-derives how phase 2 ended and the scores with
    `eleusis_lab.games.scoring`, and checks the faults (a substituted play is the first
    card the agent could play). `eleusis_lab.record.replay` calls it for this game.

    Parameters
    ----------
    rec : GameRecord
        A record with ``game="four-to-eight"``.

    Returns
    -------
    list of str
        The discrepancies found, most fundamental first; empty when consistent.

    Examples
    --------
    >>> from eleusis_agents.simple import RandomAgent
    >>> record = play_four_to_eight("red(card)", [RandomAgent() for _ in range(3)], seed=0)
    >>> replay_four_to_eight(record)
    []
    >>> replay_four_to_eight(record.replace(dealer_score=record.dealer_score + 1))
    ['dealer score: recorded -1, the wrong-card counts after phase 1 give -2']
    """
    problems: list[str] = []
    if rec.game != GAME:
        return [f"not a {GAME} record: the game is {rec.game!r}"]
    try:
        rule = parse(rec.rule)
    except RuleSyntaxError as error:
        return [f"the rule does not parse: {error.message} ({rec.rule!r})"]
    n = len(rec.deal)
    if n not in PLAYERS or len(rec.agents) != n:
        counts = ", ".join(map(str, sorted(PLAYERS)))
        return [f"{n} hands dealt for {len(rec.agents)} agents; the table deals {counts} hands"]
    plan = deck_plan(n)
    max_turns = rec.config.get("max_turns", 1000)

    deck = f"the table's {len(plan.cards)}-card deck for {n} players"
    check_deal(rec, plan.cards, deck, four_to_eight_deal, problems)
    problems += check_classic_faults(rec)
    plays = PlayCheck(rec, rule, problems)
    phase1 = replay_phase1(rec, plays, problems)
    if phase1 is None:
        return problems
    piles, wrong_after, seat = phase1
    events = rec.events

    # Phase 2: one card per turn, in rotation; a wrong card stays with its player.
    turns = 0
    while plays.k < len(events):
        if not all(piles):
            problems.append(f"event {plays.k}: phase 2 goes on after a player went out")
            break
        if not plays.playable(piles):
            problems.append(
                f"event {plays.k}: phase 2 goes on although no player holds a right card"
            )
            break
        if turns >= max_turns:
            problems.append(f"event {plays.k}: phase 2 goes past the turn cap ({max_turns} turns)")
            break
        turns += 1
        e = events[plays.k]
        if e.phase != 2 or e.seat != seat:
            problems.append(f"{plays.where(e)}: seat {seat} should play a wrong card in phase 2")
            return problems
        if e.card not in piles[seat]:
            problems.append(f"{plays.where(e)}: seat {seat} does not hold that card")
            return problems
        plays.faults_at(e, piles[seat])
        if plays.follow(e):
            piles[seat].remove(e.card)
        seat = (seat + 1) % n

    plays.check_end(
        rec,
        piles,
        wrong_after,
        turns,
        max_turns,
        four_to_eight_dealer_score,
        four_to_eight_player_scores,
    )
    return problems


# -- layout -------------------------------------------------------------------------------


def format_four_to_eight_layout(record: GameRecord, columns: int = 13, max_rows: int = 12) -> str:
    """The table at the end of a four-to-eight game, then the scores and the faults.

    As `eleusis_lab.record.format_layout` (the main line in blocks of ``columns`` cards,
    the wrong cards under the card they were played on, ``*`` for phase 2), with the
    row of the seed-004 table the deck came from.

    Examples
    --------
    >>> from eleusis_agents.simple import RandomAgent
    >>> record = play_four_to_eight("red(card)", [RandomAgent() for _ in range(3)], seed=0)
    >>> print(format_four_to_eight_layout(record))  # doctest: +ELLIPSIS
    four-to-eight Eleusis, seed 0, rule: red(card)
    deck: 52 cards (the 4-participant row of the seed-004 table), the starter and 3 hands of 17
    ...
    dealer score: -2
    phase 2 ended after 0 turns: no player held a card the rule accepts
    """
    text = format_main_line_layout(record, columns, max_rows)
    n = len(record.deal)
    if n not in PLAYERS:
        return text
    plan = deck_plan(n)
    size = len(record.deal[0]) if record.deal else 0
    deck = (
        f"deck: {len(plan.cards)} cards (the {plan.participants}-participant row of the"
        f" seed-004 table), the starter and {n} hands of {size}"
    )
    if record.unused:
        deck += f", {len(record.unused)} cards unused"
    first, rest = text.split("\n", 1)
    return f"{first}\n{deck}\n{rest}"


# -- match --------------------------------------------------------------------------------


class FourToEightMatch(MatchResult):
    """The games of a four-to-eight match and the participants' totals.

    A `eleusis_lab.games.match.MatchResult` whose games have ``game="four-to-eight"``:
    the same fields, JSON (`to_json`, `from_json`) and ``winners``.
    """

    title = "four-to-eight Eleusis"
    game = GAME


def play_four_to_eight_match(
    agents: Sequence[Agent],
    seed: int,
    rules: Rule | str | Sequence[Rule | str],
    deals_per_player: int = 1,
    config: FourToEightConfig | None = None,
) -> FourToEightMatch:
    """Play a four-to-eight match: every participant deals once, the deal passing left.

    Participant ``k`` deals game ``k``; the others play, seat 0 being participant
    ``k + 1``. The dealer scores the game's dealer score, each player his player score.
    Seeds and rule draws derive from ``seed`` as in `eleusis_lab.games.match.play_match`.

    Parameters
    ----------
    agents : sequence of Agent
        The participants: 4, 6, 7, 8 or 9 (the dealer and 3, 5, 6, 7 or 8 players, the
        hands of a row of the seed-004 table). The same objects play every game.
    seed : int
        The match seed.
    rules : Rule, str or sequence of them
        One rule for every game, or rules from which each deal draws uniformly.
    deals_per_player : int
        How many times each participant deals (RULES.md section 2: once).
    config : FourToEightConfig, optional
        Options of every game.

    Returns
    -------
    FourToEightMatch

    Raises
    ------
    ConfigError
        For a number of participants the table cannot deal, no rules, or
        ``deals_per_player < 1``.

    Examples
    --------
    >>> from eleusis_agents.simple import OracleAgent, RandomAgent
    >>> agents = [OracleAgent(), RandomAgent(), RandomAgent(), RandomAgent()]
    >>> result = play_four_to_eight_match(agents, seed=0, rules="red(card)")
    >>> result.dealers, result.seats[1]
    ((0, 1, 2, 3), (2, 3, 0))
    >>> sum(result.totals) == sum(g.dealer_score + sum(g.player_scores) for g in result.games)
    True
    """
    p = len(agents)
    if p - 1 not in PLAYERS:
        counts = ", ".join(str(players + 1) for players in sorted(PLAYERS))
        raise ConfigError(
            f"a four-to-eight match needs {counts} participants (a dealer and a hand of the"
            f" seed-004 table for each other participant), got {p}"
        )
    return rotate_deal(
        lambda rule, seated, game_seed: play_four_to_eight(rule, seated, game_seed, config),
        agents,
        seed,
        rules,
        p * check_deals(deals_per_player),
        FourToEightMatch,
    )


# -- the declaration -------------------------------------------------------------------------


def _sample_game(agent: Agent, seed: int) -> GameRecord:
    """A four-to-eight game (RULES.md section 2): 3 players, hands of 8, random opponents."""
    agents = sample_table(agent, 3, seed)
    config = FourToEightConfig(hand_size=8, max_turns=40, on_fault="raise")
    return play_four_to_eight("color(card) != color(last)", agents, seed, config)


#: Eleusis for four to eight players, as `eleusis_lab.games.table.GAMES` knows it.
GAME_TYPE = GameType(
    "four-to-eight",
    play_four_to_eight,
    FourToEightConfig,
    game_record_outcome,
    min_players=3,
    title="Eleusis for 4 to 8 players",
    record_type=GameRecord,
    replay=replay_four_to_eight,
    layout=format_four_to_eight_layout,
    match=play_four_to_eight_match,
    default_players=3,
    sample_game=_sample_game,
)
