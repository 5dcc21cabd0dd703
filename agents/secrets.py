"""Players of Secrets, the jack-and-king board game: random, heuristic and search.

- `RandomSecretsAgent` (``secrets-random``): a legal action drawn uniformly; answers a
  duel by beating with a random option or not at all, uniformly.
- `HeuristicSecretsAgent` (``secrets-heuristic``): scores every legal action in points
  and plays the best. Its jack runs the cheapest path to the right edge, where a
  secret face down costs the chance that it is an enemy ace times the jack's 1000
  points (a shortest-path search over the board, `exit_costs`); its king then hunts
  the secrets left (cheap, so worth the risk) and leaves. It takes and kills pieces
  when it can, keeps off squares next to an enemy that holds an ace (or its suit's
  queen), duels with its lowest plain card and beats a duel only when it pays: an
  enemy jack about to move right onto a square with no secret, beaten with a plain
  card. A square its piece keeps coming back to costs more each time (``BORED``), so
  that pieces blocking each other, or a piece waiting for cards, try another way.
- `SearchSecretsAgent` (``secrets-search``): determinised Monte Carlo. At a decision it
  keeps the heuristic's best few actions, then ``budget`` times draws the hidden cards
  (secrets face down, the other players' unseen cards) consistently with what it has
  seen, plays each candidate in that same world followed by ``horizon`` turns of
  heuristic play for every seat, and scores the position it reaches (cards in hand
  plus what the pieces on the board are likely to bring, `position_value`) by its
  margin over the best other seat. It plays the candidate with the best mean (plus
  a tenth of the heuristic's value, which settles near-ties). After ``patience``
  decisions with one piece it plays that piece as the heuristic would: play-outs
  reward waiting for others to turn the secrets up, and two search players must not
  wait for each other for ever.

All three take their randomness from the generator of ``start_game`` only.

Examples
--------
>>> from eleusis_lab.secrets.game import play_secrets
>>> record = play_secrets([SearchSecretsAgent(budget=4), HeuristicSecretsAgent(),
...                        RandomSecretsAgent(), HeuristicSecretsAgent()], seed=5)
>>> record.end, len(record.scores)
('no_pieces', 4)
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence

import numpy as np

from eleusis_lab.cards import Card
from eleusis_lab.secrets.agent import SecretsAgent, SecretsDuel
from eleusis_lab.secrets.moves import (
    ACE,
    DUEL,
    JACK,
    KILL,
    LEAVE,
    MOVE,
    N_COLS,
    N_SEATS,
    N_SQUARES,
    NEIGHBORS,
    QUEEN,
    SEAT_SUITS,
    SKIP,
    TAKE,
    SecretsAction,
    beat_value,
    card_points,
)
from eleusis_lab.secrets.state import SecretsState, SecretsView

__all__ = [
    "HeuristicSecretsAgent",
    "RandomSecretsAgent",
    "SearchSecretsAgent",
    "exit_costs",
    "position_value",
]

JACK_POINTS = 1000.0
STEP = 2.0  # points a move costs on the way out (time on the board is exposure)
DUEL_COST = 1.5  # points a duel costs on the way (a card, and it may be beaten)
NO_CARD_COST = 25.0  # a card of another suit when the hand is empty: a wall for now
DENIAL = 500.0  # points for killing an enemy jack (what it would have brought him)
THREAT = 0.5  # share of a piece's worth lost when it stands next to an armed enemy
KING_WORTH = 3.0  # a king on the board: its point and its use as a secret hunter
BORED = 1.0  # points per (visit count)^2 of a square the piece keeps coming back to
PRIOR = 0.1  # weight of the heuristic's values in a search's choice (breaks near-ties)
BLOCK = 4.0  # points for a square a piece stands on, on the way (it may move away)
INF = math.inf


# -- what a seat can tell from public information --------------------------------------------


def secret_odds(specials: Sequence[Card], suit: int) -> tuple[float, float, float]:
    """P(queen), P(own ace), P(enemy ace) of a secret face down, for a piece of ``suit``.

    ``specials`` are the aces and queens still face down (which square holds which is
    unknown, so every hidden square has the same odds).

    >>> from eleusis_lab.cards import parse_cards
    >>> secret_odds(parse_cards("QS AH AC AS"), suit=2)
    (0.25, 0.25, 0.5)
    """
    n = len(specials)
    if not n:
        return 0.0, 0.0, 0.0
    queens = sum(card.rank == QUEEN for card in specials)
    own = sum(card.rank == ACE and card.suit == suit for card in specials)
    return queens / n, own / n, (n - queens - own) / n


def _threats(
    pieces: Sequence[Sequence[int | None]], hands: Sequence[Sequence[Card]], seat: int
) -> set[int]:
    """The squares where a piece of ``seat`` could be killed or taken at once.

    A square next to an enemy's active piece when that enemy holds an ace (any) or the
    queen of ``seat``'s suit. Aces and queens in hand are always public (they only come
    from secrets and duels), so every player can tell.
    """
    suit = SEAT_SUITS[seat]
    danger: set[int] = set()
    for owner in range(N_SEATS):
        if owner == seat:
            continue
        jack, king = pieces[owner]
        at = jack if jack is not None else king
        if at is None:
            continue
        if any(
            card.rank == ACE or (card.rank == QUEEN and card.suit == suit) for card in hands[owner]
        ):
            danger.update(NEIGHBORS[at])
    return danger


def send_cost(card: Card) -> float:
    """What sending ``card`` in a duel costs, in points: its worth, and a plain card's use.

    Low plain cards are cheapest; aces, queens and jacks cost more than their points.
    """
    return card_points(card) * 1.5 + 0.3 + 0.01 * beat_value(card)


def _duel_cost(hand: Sequence[Card]) -> float:
    return DUEL_COST + min(map(send_cost, hand)) if hand else NO_CARD_COST


def _enter_costs(
    board: Sequence[Card | None], occupants: Sequence[Card | None], suit: int, duel_cost: float
) -> list[float]:
    enter = [STEP] * N_SQUARES
    for sq in range(N_SQUARES):
        card = board[sq]
        if card is not None:
            if card.rank == ACE:
                if card.suit != suit:
                    enter[sq] = INF
            elif card.suit != suit:
                enter[sq] += duel_cost
        if occupants[sq] is not None:
            enter[sq] += BLOCK
    return enter


def _spread(enter: list[float], goals: dict[int, float]) -> list[float]:
    """Backward shortest paths: per square, the cheapest cost to reach a goal from it."""
    cost = [INF] * N_SQUARES
    for sq, start in goals.items():
        cost[sq] = start
    heap = [(start, sq) for sq, start in goals.items()]
    heapq.heapify(heap)
    while heap:
        d, sq = heapq.heappop(heap)
        if d > cost[sq]:
            continue
        through = d + enter[sq]
        for nb in NEIGHBORS[sq]:
            if through < cost[nb]:
                cost[nb] = through
                heapq.heappush(heap, (through, nb))
    return cost


_EXITS = {N_COLS * row + N_COLS - 1: STEP for row in range(4)}


def exit_costs(
    board: Sequence[Card | None],
    occupants: Sequence[Card | None],
    hidden: Sequence[int],
    suit: int,
    duel_cost: float,
    risk: float,
) -> list[float]:
    """Per square: the cost in points of the cheapest way off the board from there.

    A shortest-path search backwards from the right edge (leaving costs one `STEP`).
    Entering a square costs a `STEP`, plus ``duel_cost`` for a card of another suit,
    plus ``risk`` for a secret face down (the chance of an enemy ace times what the
    piece is worth), plus `BLOCK` for a square a piece stands on (it may move away); a
    face-up enemy ace cannot be entered.

    >>> costs = exit_costs([None] * 32, [None] * 32, [], suit=2, duel_cost=2.0, risk=0.0)
    >>> costs[7], costs[1]  # a8 leaves at once; a2 is six moves and a leave away
    (2.0, 14.0)
    """
    enter = _enter_costs(board, occupants, suit, duel_cost)
    for sq in hidden:
        enter[sq] += risk
    return _spread(enter, _EXITS)


class _Plan:
    """Where a seat's active piece wants to go in one position, and what it is worth."""

    __slots__ = ("at", "is_jack", "worth", "odds", "costs", "hunting", "danger")

    def __init__(
        self, board, occupants, pieces, hands, hidden, specials, seat, caution, cache=None
    ):
        jack, king = pieces[seat]
        self.at = jack if jack is not None else king
        self.is_jack = jack is not None
        suit = SEAT_SUITS[seat]
        hand = hands[seat]
        p_queen, p_own, p_enemy = self.odds = secret_odds(specials, suit)
        self.danger = _threats(pieces, hands, seat)
        key = (seat, self.is_jack)
        if cache is not None and key in cache:
            # A play-out reuses a seat's paths for its horizon: they change slowly.
            self.worth, self.hunting, self.costs = cache[key]
            return
        duel_cost = _duel_cost(hand)
        self.hunting = False
        if self.is_jack:
            self.worth = JACK_POINTS
        else:
            self.worth = KING_WORTH
            if hidden:
                # A king hunts the secrets left while a find is worth the way there.
                find = p_queen * 100.0 + p_own * 10.0 - p_enemy * KING_WORTH
                enter = _enter_costs(board, occupants, suit, duel_cost)
                costs = _spread(enter, dict.fromkeys(hidden, 0.0))
                self.hunting = find - costs[self.at] > 0
                if self.hunting:
                    self.costs = costs
        if not self.hunting:
            risk = p_enemy * self.worth * caution
            self.costs = exit_costs(board, occupants, hidden, suit, duel_cost, risk)
        if cache is not None:
            cache[key] = (self.worth, self.hunting, self.costs)


def _value(
    plan: _Plan, board, occupants, hidden: set[int], action: SecretsAction, suit: int
) -> float:
    """The heuristic worth of ``action`` in points, for the seat of ``plan``."""
    kind = action.kind
    if kind == LEAVE:
        return -STEP if plan.hunting else plan.worth + plan.costs[plan.at]
    if kind == SKIP:
        return 0.0
    sq = action.square
    if kind == TAKE:
        return JACK_POINTS + DENIAL if occupants[sq].rank == JACK else 2.0
    if kind == KILL:
        return DENIAL if occupants[sq].rank == JACK else 1.0
    value = 0.0
    card = board[sq]
    if kind == DUEL:
        value -= send_cost(action.card)
    elif card is not None:
        if card.rank == ACE:
            if card.suit != suit:
                return -plan.worth - STEP  # certain death
            value += 15.0  # 10 points, and an ace kills
        else:
            value += 0.02
    if sq in hidden:
        p_queen, p_own, p_enemy = plan.odds
        value += p_queen * 100.0 + p_own * 15.0 - p_enemy * plan.worth
    here, there = plan.costs[plan.at], plan.costs[sq]
    if there < INF:
        value += (here - there) if here < INF else 0.0
    else:
        value -= 50.0
    if sq in plan.danger:
        value -= THREAT * plan.worth
    return value


def _answer_duel(duel: SecretsDuel, hidden: Sequence[int]) -> Card | None:
    """The heuristic's answer to a duel: beat an enemy jack that moves right onto a square
    with no secret, with the lowest plain card that beats; else let the piece in."""
    if duel.piece.rank != JACK or duel.square % N_COLS <= duel.start % N_COLS:
        return None
    if duel.square in hidden:
        return None  # let him turn the secret up: it may kill him
    plain = [card for card in duel.options if 2 <= card.rank <= 10]
    return min(plain, key=beat_value) if plain else None


def _best(values: list[float], rng: np.random.Generator | None) -> int:
    top = max(values)
    best = [i for i, v in enumerate(values) if v >= top - 1e-9]
    if rng is None or len(best) == 1:
        return best[0]
    return best[int(rng.integers(len(best)))]


def _heuristic_values(
    position, hands, hidden, specials, seat, legal, caution, cache=None, visits=None
) -> list[float]:
    """The value of each legal action; ``position`` is a `SecretsState` or a view.

    ``visits`` (square -> times the piece stood there) makes squares the piece keeps
    coming back to cost more and more (`BORED` times the count squared): pieces that
    block each other, or a piece that waits for cards, then try another way instead of
    wavering for ever.
    """
    board, occupants = position.board, position.occupants
    plan = _Plan(board, occupants, position.pieces, hands, hidden, specials, seat, caution, cache)
    suit = SEAT_SUITS[seat]
    hidden_set = set(hidden)
    values = [_value(plan, board, occupants, hidden_set, action, suit) for action in legal]
    if visits:
        for i, action in enumerate(legal):
            if action.kind in (MOVE, DUEL):
                values[i] -= BORED * visits.get(action.square, 0) ** 2
    return values


def _visits(agent: SecretsAgent, view: SecretsView) -> dict[int, int]:
    """Count one more stay of the agent's active piece on its square; the piece's counts."""
    at = view.active()
    piece = view.occupants[at]
    if piece != agent.piece_:
        agent.piece_, agent.visits_ = piece, {}
    agent.visits_[at] = agent.visits_.get(at, 0) + 1
    return agent.visits_


def position_value(state: SecretsState, seat: int) -> float:
    """What ``seat`` can expect from a position, in points (a search's evaluation).

    Its cards in hand; for a jack on the board, 1000 less the cost of its cheapest way
    off (`exit_costs`, the risk of the secrets on the way included), halved next to an
    armed enemy; for a king, its point and, while secrets are face down, a share of
    what it may find.

    >>> from eleusis_lab.secrets.game import secrets_deal
    >>> round(position_value(secrets_deal(0), 0), 1)
    280.4
    """
    hand = state.hands[seat]
    value = sum(card_points(card) for card in hand)
    jack, king = state.pieces[seat]
    if jack is None and king is None:
        return value
    suit = SEAT_SUITS[seat]
    hidden = [sq for sq in range(N_SQUARES) if state.secrets[sq] is not None]
    p_queen, p_own, p_enemy = secret_odds([state.secrets[sq] for sq in hidden], suit)
    danger = _threats(state.pieces, state.hands, seat)
    if jack is not None:
        costs = exit_costs(
            state.board, state.occupants, hidden, suit, _duel_cost(hand), p_enemy * JACK_POINTS
        )
        worth = max(0.0, JACK_POINTS - costs[jack])
        value += worth * (1 - THREAT) if jack in danger else worth
    if king is not None:
        hunt = 0.0
        if hidden:
            hunt = max(0.0, p_queen * 100.0 + p_own * 10.0 - p_enemy) * min(len(hidden), 2) * 0.5
        value += (1.0 + hunt) * (1 - THREAT if jack is None and king in danger else 1)
    return value


# -- the agents --------------------------------------------------------------------------------


class RandomSecretsAgent(SecretsAgent):
    """Plays a legal action drawn uniformly; beats a duel at random (or not).

    Examples
    --------
    >>> import numpy as np
    >>> from eleusis_lab.secrets.game import secrets_deal
    >>> state = secrets_deal(0)
    >>> agent = RandomSecretsAgent()
    >>> agent.start_game(None, np.random.default_rng(0))
    >>> legal = tuple(state.legal_actions())
    >>> agent.choose_action(state.view(0), legal) in legal
    True
    """

    def choose_action(self, view: SecretsView, legal: tuple[SecretsAction, ...]) -> SecretsAction:
        return legal[int(self.rng_.integers(len(legal)))]

    def answer_duel(self, view: SecretsView, duel: SecretsDuel) -> Card | None:
        i = int(self.rng_.integers(len(duel.options) + 1))
        return duel.options[i] if i < len(duel.options) else None


class _Scoring(SecretsAgent):
    """What the heuristic and search players share: visit counts and the heuristic."""

    def start_game(self, info, rng: np.random.Generator) -> None:
        super().start_game(info, rng)
        self.piece_: Card | None = None  # the piece whose visits are counted
        self.visits_: dict[int, int] = {}

    def _scores(self, view: SecretsView, legal, visits: dict[int, int]) -> list[float]:
        """The heuristic's points for each legal action."""
        return _heuristic_values(
            view,
            view.known_hands,
            view.hidden,
            view.hidden_specials,
            view.seat,
            legal,
            self.caution,
            None,
            visits,
        )


class HeuristicSecretsAgent(_Scoring):
    """Scores each legal action in points and plays the best (ties: at random).

    Parameters
    ----------
    caution : float
        Weight of the risk of a secret face down on the jack's way out (1: the
        expected loss, chance of an enemy ace times 1000; 0: secrets are ignored).
    beat : bool
        Whether it ever beats a duel (see the module's description of when).

    Examples
    --------
    >>> import numpy as np
    >>> from eleusis_lab.secrets.state import (SecretsState)
    >>> state = SecretsState.from_layout({"a8": "JH", "b8": "JD"}, ["QD", "", "", ""])
    >>> agent = HeuristicSecretsAgent()
    >>> agent.start_game(None, np.random.default_rng(0))
    >>> str(agent.choose_action(state.view(0), tuple(state.legal_actions())))
    'take b8 QD'
    """

    def __init__(self, caution: float = 1.0, beat: bool = True):
        self.caution = caution
        self.beat = beat

    def choose_action(self, view: SecretsView, legal: tuple[SecretsAction, ...]) -> SecretsAction:
        visits = _visits(self, view)
        if len(legal) == 1:
            return legal[0]
        return legal[_best(self._scores(view, legal, visits), self.rng_)]

    def answer_duel(self, view: SecretsView, duel: SecretsDuel) -> Card | None:
        return _answer_duel(duel, view.hidden) if self.beat else None


class SearchSecretsAgent(_Scoring):
    """Determinised Monte Carlo over the hidden cards, with heuristic play-outs.

    Parameters
    ----------
    budget : int
        Worlds drawn per decision; each candidate action is played out once in each
        (the same worlds for every candidate). 0 plays as the heuristic.
    width : int
        Candidate actions kept per decision (the heuristic's best ones).
    horizon : int
        Turns played out after the candidate, every seat playing the heuristic.
    scale : float or None
        How a play-out is scored from the margin, the position's worth to the agent
        less the best other seat's (`position_value`): None (the default) scores the
        margin in points; a number scores ``1000 * tanh(margin / scale)``, saturated,
        which weighs close contests more than sure leads (about as strong against the
        heuristic in our measures, with lower mean scores).
    caution : float
        The heuristic's ``caution`` (see `HeuristicSecretsAgent`).
    patience : int
        Decisions with one piece after which it plays that piece as the heuristic does.
        Play-outs reward waiting for others to turn the secrets up; two search players
        could wait for each other for ever, so waiting has an end.

    Examples
    --------
    >>> import numpy as np
    >>> from eleusis_lab.secrets.game import secrets_deal
    >>> state = secrets_deal(4)
    >>> agent = SearchSecretsAgent(budget=2)
    >>> agent.start_game(None, np.random.default_rng(0))
    >>> legal = tuple(state.legal_actions())
    >>> agent.choose_action(state.view(0), legal) in legal
    True
    """

    def __init__(
        self,
        budget: int = 12,
        width: int = 4,
        horizon: int = 12,
        scale: float | None = None,
        caution: float = 1.0,
        patience: int = 40,
    ):
        self.budget = budget
        self.width = width
        self.horizon = horizon
        self.scale = scale
        self.caution = caution
        self.patience = patience

    def choose_action(self, view: SecretsView, legal: tuple[SecretsAction, ...]) -> SecretsAction:
        visits = _visits(self, view)
        if len(legal) == 1:
            return legal[0]
        values = self._scores(view, legal, visits)
        first = _best(values, self.rng_)  # the heuristic's choice, ties as it breaks them
        if (
            self.budget <= 0
            or values[first] >= JACK_POINTS  # a jack banked or taken: nothing to weigh
            or sum(visits.values()) > self.patience
        ):
            return legal[first]
        order = [
            first,
            *sorted((i for i in range(len(legal)) if i != first), key=lambda i: -values[i]),
        ]
        candidates = [legal[i] for i in order[: max(1, self.width)]]
        if len(candidates) == 1:
            return candidates[0]
        totals = [0.0] * len(candidates)
        seat = view.seat
        for _ in range(self.budget):
            world = view.determinize(self.rng_)
            for i, action in enumerate(candidates):
                sim = world.copy()
                _play(sim, action)
                _rollout(sim, self.horizon, self.caution)
                totals[i] += _margin(sim, seat, self.scale)
        # Near-ties (often: nothing the horizon can tell apart) go the heuristic's way,
        # so that a piece never wavers back and forth between equal play-outs.
        scores = [totals[i] / self.budget + PRIOR * values[order[i]] for i in range(len(totals))]
        return candidates[max(range(len(candidates)), key=lambda i: scores[i])]

    def answer_duel(self, view: SecretsView, duel: SecretsDuel) -> Card | None:
        return _answer_duel(duel, view.hidden)


def _play(state: SecretsState, action: SecretsAction) -> None:
    """Apply ``action`` in a simulation, the defender answering as the heuristic does."""
    beat = None
    if action.kind == DUEL:
        options = state.beating_cards(action)
        if options:
            beat = _answer_duel(SecretsDuel.of(state, action, options), state.hidden_squares())
    state.apply(action, beat)


def _rollout(state: SecretsState, turns: int, caution: float) -> None:
    """Play ``turns`` turns (or to the end), every seat by the heuristic, no ties broken."""
    cache: dict = {}
    for _ in range(turns):
        if state.over or state.blocked:
            return
        legal = state.legal_actions()
        if not legal:
            state.apply(SecretsAction(SKIP))
            continue
        if len(legal) == 1:
            _play(state, legal[0])
            continue
        hidden = state.hidden_squares()
        specials = [state.secrets[sq] for sq in hidden]
        values = _heuristic_values(
            state, state.hands, hidden, specials, state.seat, legal, caution, cache
        )
        _play(state, legal[_best(values, None)])


def _margin(state: SecretsState, seat: int, scale: float | None) -> float:
    """How well ``seat`` stands: ``d``, its `position_value` less the best of the other
    seats', or with a ``scale`` ``1000 * tanh(d / scale)`` (saturated: a sure lead or a
    hopeless deficit weighs little more than a clear one)."""
    mine = position_value(state, seat)
    best = max(position_value(state, t) for t in range(N_SEATS) if t != seat)
    if scale is None:
        return mine - best
    return JACK_POINTS * math.tanh((mine - best) / scale)
