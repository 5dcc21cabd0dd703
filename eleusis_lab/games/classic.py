"""Classic Eleusis (RULES.md section 1): one game as a pure function of its inputs.

`play_classic` takes a rule, the active players' agents, a seed and a `ClassicConfig`,
plays the deal, phase 1 and phase 2, and returns a `GameRecord`. The dealer is not an
agent: he plays no cards and the rule is given.

Randomness: the seed feeds one ``numpy.random.SeedSequence``. The deck is shuffled by
a generator on that sequence, and every agent gets its own generator spawned from it,
so an agent's random stream depends on the seed and its seat only, never on the
engine's draws or on what the other agents draw.

Turn order: seats 0..N-1 in turn, cyclically (seat 0 sits left of the dealer). Phase 1
skips seats whose hand is empty; phase 2 goes on with the seat after the last phase-1
player, so the rotation is never broken.

Examples
--------
>>> from eleusis_lab.agent import Agent
>>> class FirstCard(Agent):
...     def choose_play(self, obs):
...         return obs.hand[0]
>>> record = play_classic("color(card) != color(last)", [FirstCard(), FirstCard()], seed=3)
>>> record.starter, len(record.deal[0]), len(record.deal[1])
(Card('QH'), 26, 25)
>>> record.phase2_end in ("player_out", "no_playable_card", "turn_cap")
True
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from eleusis_lab.agent import Agent, Event, GameInfo, Observation
from eleusis_lab.cards import Card, format_cards, standard_deck
from eleusis_lab.errors import AgentError, ConfigError
from eleusis_lab.games.scoring import classic_dealer_score, classic_player_scores
from eleusis_lab.record import (
    NO_PLAYABLE_CARD,
    PLAYER_OUT,
    TURN_CAP,
    GameRecord,
    describe_agent,
)
from eleusis_lab.rules import Context, Rule, parse

__all__ = ["AgentError", "ClassicConfig", "GAME", "classic_deal", "play_classic"]

GAME = "classic"
_DECK = tuple(standard_deck())


@dataclass(frozen=True)
class ClassicConfig:
    """Options of classic Eleusis; the defaults are the decisions of RULES.md.

    Parameters
    ----------
    hand_size : int or None
        Cards dealt to each player; ``None`` deals the whole deck (hands may differ by
        one card). With a number, the rest of the deck is left unused.
    retry_in_turn : bool
        Phase 2: after a wrong card, the player may try another of his cards in the same
        turn, until one is right or he has tried them all. Default: the turn passes.
    max_turns : int
        Cap on the number of phase-2 turns, a safety net; reaching it is recorded.

    Examples
    --------
    >>> ClassicConfig(hand_size=7).to_dict()
    {'hand_size': 7, 'retry_in_turn': False, 'max_turns': 1000}
    """

    hand_size: int | None = None
    retry_in_turn: bool = False
    max_turns: int = 1000

    def __post_init__(self) -> None:
        if self.hand_size is not None and not (_is_int(self.hand_size) and self.hand_size >= 1):
            raise ConfigError(
                f"hand_size must be None or a whole number >= 1, got {self.hand_size!r}"
            )
        if not (_is_int(self.max_turns) and self.max_turns >= 0):
            raise ConfigError(f"max_turns must be a whole number >= 0, got {self.max_turns!r}")
        if not isinstance(self.retry_in_turn, bool):
            raise ConfigError(f"retry_in_turn must be True or False, got {self.retry_in_turn!r}")

    def to_dict(self) -> dict[str, object]:
        """The options as a plain dict (as stored in a `GameRecord`)."""
        return asdict(self)


def _is_int(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _check_seed(seed: object) -> int:
    if not (_is_int(seed) and seed >= 0):
        raise ConfigError(f"a game seed is a whole number >= 0, got {seed!r}")
    return int(seed)


def _deal(
    rng: np.random.Generator, n_players: int, hand_size: int | None
) -> tuple[Card, list[list[Card]], tuple[Card, ...]]:
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


def classic_deal(
    seed: int, n_players: int, hand_size: int | None = None
) -> tuple[Card, list[list[Card]], tuple[Card, ...]]:
    """The starter, the hands and the unused cards that `play_classic` deals for ``seed``.

    Examples
    --------
    >>> starter, hands, unused = classic_deal(3, n_players=4)
    >>> starter, [len(hand) for hand in hands], len(unused)
    (Card('QH'), [13, 13, 13, 12], 0)
    >>> starter, hands, unused = classic_deal(3, n_players=4, hand_size=5)
    >>> starter, [len(hand) for hand in hands], len(unused)
    (Card('QH'), [5, 5, 5, 5], 31)
    """
    seed = _check_seed(seed)
    return _deal(np.random.default_rng(np.random.SeedSequence(seed)), n_players, hand_size)


def _check_agents(agents: Sequence[Agent]) -> list[Agent]:
    agents = list(agents)
    if len(agents) < 2:
        raise ConfigError(f"classic Eleusis needs at least 2 active players, got {len(agents)}")
    for seat, agent in enumerate(agents):
        if not isinstance(agent, Agent):
            raise ConfigError(f"seat {seat}: {agent!r} is not an Agent (eleusis_lab.agent.Agent)")
    if len({id(agent) for agent in agents}) != len(agents):
        # Agents keep per-game state, so one object cannot sit at two seats.
        raise ConfigError(
            "the same agent object sits at two seats; give each seat its own agent"
            " (eleusis_lab.agent.clone makes a fresh copy)"
        )
    return agents


def _not_offered(seat: int, agent: Agent, card: object, offered: tuple[Card, ...]) -> AgentError:
    what = repr(card) if isinstance(card, Card) else f"{card!r} (a {type(card).__name__})"
    return AgentError(
        f"seat {seat} ({agent!r}) played {what}, which is not among the cards it may play"
        f" now: {format_cards(offered) or 'none'}"
    )


def play_classic(
    rule: Rule | str,
    agents: Sequence[Agent],
    seed: int,
    config: ClassicConfig | None = None,
) -> GameRecord:
    """Play one game of classic Eleusis and return its record.

    Parameters
    ----------
    rule : Rule or str
        The dealer's secret rule (text is parsed with `eleusis_lab.rules.parse`).
    agents : sequence of Agent
        The N >= 2 active players, seat 0 first (left of the dealer); one object each.
    seed : int
        Seeds the shuffle and every agent's generator; same seed, same game.
    config : ClassicConfig, optional
        Options of the game; the defaults of `ClassicConfig` when omitted.

    Returns
    -------
    GameRecord
        Everything needed to replay, check, score and lay out the game.

    Raises
    ------
    AgentError
        When an agent plays a card it may not play now, naming the seat, agent and card.
    ConfigError
        For fewer than 2 agents, a shared agent object, a bad seed or hand size.

    Examples
    --------
    >>> from eleusis_lab.agent import Agent
    >>> class LowestCard(Agent):
    ...     def choose_play(self, obs):
    ...         return min(obs.hand)
    >>> record = play_classic("red(card)", [LowestCard(), LowestCard()], seed=1)
    >>> all(card.is_red for card in record.main_line[1:])
    True
    >>> record.dealer_score, record.phase2_end
    (6, 'no_playable_card')
    """
    if isinstance(rule, str):
        rule = parse(rule)
    config = ClassicConfig() if config is None else config
    agents = _check_agents(agents)
    seed = _check_seed(seed)
    n = len(agents)

    sequence = np.random.SeedSequence(seed)
    starter, hands, unused = _deal(np.random.default_rng(sequence), n, config.hand_size)
    agent_rngs = [np.random.default_rng(child) for child in sequence.spawn(n)]
    deal = tuple(map(tuple, hands))
    for seat, agent in enumerate(agents):
        info = GameInfo(GAME, seat, n, deal[seat], starter, rule if type(agent).sees_rule else None)
        agent.start_game(info, agent_rngs[seat])

    # Hot loop state: plain locals, tuples rebuilt only when they change. Hands and
    # piles map face -> card (one deck: a face is one card; dicts keep the order), so
    # that checking and removing a played card costs one lookup, not a scan.
    choose = [agent.choose_play for agent in agents]
    observers = [agent.observe for agent in agents]
    legal_mask = rule.legal_mask
    main: tuple[Card, ...] = (starter,)
    last_right: bool | None = None
    events: list[Event] = []
    held_hands = [{card.face: card for card in hand} for hand in deal]
    piles: list[dict[int, Card]] = [{} for _ in range(n)]
    pile_view: list[tuple[Card, ...]] = [() for _ in range(n)]

    # -- phase 1: every card of every hand is played once ---------------------------
    seat, to_play = 0, sum(len(hand) for hand in deal)
    while to_play:
        hand = held_hands[seat]
        if hand:
            offered = tuple(hand.values())
            card = choose[seat](
                Observation(GAME, seat, 1, offered, main, tuple(pile_view), last_right)
            )
            if not isinstance(card, Card) or hand.get(card.face) != card:
                raise _not_offered(seat, agents[seat], card, offered)
            face = card.face
            del hand[face]
            right = bool((legal_mask(Context(main, last_right)) >> face) & 1)
            event = Event(seat, card, 1, right, len(main) - 1)
            if right:
                main += (card,)
            else:
                piles[seat][face] = card
                pile_view[seat] += (card,)
            last_right = right
            events.append(event)
            for observe in observers:
                observe(event)
            to_play -= 1
        seat = (seat + 1) % n
    wrong_after_phase1 = tuple(pile_view)

    # -- phase 2: the wrong cards, until someone is out or nothing can be played -----
    held = 0  # faces held by anyone
    for pile in piles:
        for face in pile:
            held |= 1 << face
    retry, max_turns, turns = config.retry_in_turn, config.max_turns, 0
    end = PLAYER_OUT if not all(piles) else None
    while end is None:
        mask = legal_mask(Context(main, last_right))
        if not mask & held:
            end = NO_PLAYABLE_CARD  # the dealer declares that play cannot continue
            break
        if turns >= max_turns:
            end = TURN_CAP
            break
        turns += 1
        pile = piles[seat]
        untried = pile
        while True:
            offered = pile_view[seat] if untried is pile else tuple(untried.values())
            card = choose[seat](
                Observation(GAME, seat, 2, offered, main, tuple(pile_view), last_right)
            )
            if not isinstance(card, Card) or untried.get(card.face) != card:
                raise _not_offered(seat, agents[seat], card, offered)
            face = card.face
            right = bool((mask >> face) & 1)
            event = Event(seat, card, 2, right, len(main) - 1)
            if right:
                del pile[face]
                pile_view[seat] = tuple(pile.values())
                held &= ~(1 << face)
                main += (card,)
            last_right = right
            events.append(event)
            for observe in observers:
                observe(event)
            if right or not retry:
                break
            # The option of RULES.md 1.5: try another card in the same turn.
            if untried is pile:
                untried = dict(pile)
            del untried[face]
            if not untried:
                break
            mask = legal_mask(Context(main, last_right))
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
        dealer_score=classic_dealer_score([len(pile) for pile in wrong_after_phase1]),
        player_scores=tuple(classic_player_scores(cards_left)),
        phase2_end=end,
        phase2_turns=turns,
        turn_cap_hit=end == TURN_CAP,
    )
