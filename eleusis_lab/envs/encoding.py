"""How the environments encode what a seat sees and what it does, as fixed-size arrays.

A card is its face, ``13 * suit + rank - 1`` (0 is the ace of clubs, 51 the king of
spades; two copies of a face are the same to a policy). An action is a face
(``Discrete(52)``), with a mask of the faces the seat may play now; the environment
plays the first card of that face it is offered.

The observation of a seat (`observation_space`, `encode`):

- ``hand``: how many cards of each face it holds and may play now (52 counts);
- ``main_line``: the faces of the last `LINE` cards of the main line, the latest last,
  ``-1`` where the line is shorter;
- ``wrong``: per seat, how many cards of each face lie face up in front of it;
- ``last_right``: the previous play's verdict, 0 none yet, 1 wrong, 2 right;
- ``phase``: the game's phase (0 to 3).

Counts above `MOST_COPIES` (a pile of the games shuffling several decks together) show
as `MOST_COPIES`; ``last_right`` and ``phase`` are ``numpy.int64``, as PettingZoo's
``api_test`` wants a discrete observation. A mask of the actions allowed is ``int8``
(`mask_space`, `allowed`), as PettingZoo's and Gymnasium's masked samplers take it.

>>> from eleusis_lab.agent import Observation
>>> from eleusis_lab.cards import parse_cards
>>> obs = Observation("classic", 0, 1, tuple(parse_cards("AC 2C KS")),
...                   tuple(parse_cards("5H 6H")), ((), tuple(parse_cards("7D"))), True)
>>> encoded = encode(obs, seats=2)
>>> encoded["hand"].nonzero()[0].tolist(), encoded["main_line"][-2:].tolist()
([0, 1, 51], [30, 31])
>>> encoded["wrong"][1].nonzero()[0].tolist(), int(encoded["last_right"])
([19], 2)
>>> observation_space(2).contains(encoded)
True
>>> action_mask(obs.hand).nonzero()[0].tolist(), allowed([2, 0], actions=4).tolist()
([0, 1, 51], [1, 0, 1, 0])
>>> card_of(51, obs.hand)
Card('KS')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from gymnasium import spaces

from eleusis_lab.agent import Observation
from eleusis_lab.cards import N_FACES, Card

__all__ = [
    "LINE",
    "MOST_COPIES",
    "action_mask",
    "action_space",
    "allowed",
    "card_of",
    "encode",
    "face_counts",
    "mask_space",
    "observation_space",
]

#: The main line's cards an observation shows, the latest last.
LINE = 16
#: The most cards of one face a pile may hold (several decks are shuffled together in
#: the larger games).
MOST_COPIES = 4


def observation_space(seats: int) -> spaces.Dict:
    """The observation space of a game of ``seats`` seats (`encode`)."""
    return spaces.Dict(
        {
            "hand": spaces.Box(0, MOST_COPIES, (N_FACES,), np.int8),
            "main_line": spaces.Box(-1, N_FACES - 1, (LINE,), np.int8),
            "wrong": spaces.Box(0, MOST_COPIES, (seats, N_FACES), np.int8),
            "last_right": spaces.Discrete(3),
            "phase": spaces.Discrete(4),
        }
    )


def action_space() -> spaces.Discrete:
    """A face to play (`card_of`)."""
    return spaces.Discrete(N_FACES)


def mask_space(actions: int = N_FACES) -> spaces.Box:
    """The space of a mask over ``actions`` actions (`allowed`)."""
    return spaces.Box(0, 1, (actions,), np.int8)


def face_counts(cards: Iterable[Card], most: int = MOST_COPIES) -> np.ndarray:
    """How many of the ``cards`` have each face, ``most`` at the most (``int8``).

    >>> from eleusis_lab.cards import parse_cards
    >>> face_counts(parse_cards("AC AC AC AC AC 2C"))[:3].tolist()
    [4, 1, 0]
    """
    counts = np.zeros(N_FACES, np.int64)
    for card in cards:
        counts[card.face] += 1
    return np.minimum(counts, most).astype(np.int8)


def encode(obs: Observation, seats: int) -> dict[str, np.ndarray | int]:
    """``obs`` as arrays of `observation_space` ``(seats)``."""
    line = np.full(LINE, -1, np.int8)
    faces = [card.face for card in obs.main_line[-LINE:]]
    if faces:
        line[-len(faces) :] = faces
    wrong = np.zeros((seats, N_FACES), np.int8)
    for seat, pile in enumerate(obs.wrong_cards[:seats]):
        wrong[seat] = face_counts(pile)
    last = 0 if obs.last_play_right is None else 1 + bool(obs.last_play_right)
    return {
        "hand": face_counts(obs.hand),
        "main_line": line,
        "wrong": wrong,
        "last_right": np.int64(last),
        "phase": np.int64(obs.phase),
    }


def allowed(indices: Iterable[int], actions: int = N_FACES) -> np.ndarray:
    """The mask of `mask_space` ``(actions)`` allowing the actions of ``indices`` (1) and
    no other (0)."""
    mask = np.zeros(actions, np.int8)
    mask[list(indices)] = 1
    return mask


def action_mask(offered: Iterable[Card]) -> np.ndarray:
    """The mask allowing each face among the ``offered`` cards."""
    return allowed(card.face for card in offered)


def card_of(face: int, offered: Sequence[Card]) -> Card | None:
    """The first of the ``offered`` cards with ``face``, or None."""
    return next((card for card in offered if card.face == face), None)
