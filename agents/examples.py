"""A small agent written the way the guide shows: a learner in 20 lines.

`ColourPairs` learns how often a card of each colour is right after a card of each
colour, and plays the colour most often right. It is the example of a new agent class
of the guide's agents page (docs/guide/agents.md), and it passes
`eleusis_lab.testing.check_agent`.
"""

import numpy as np

from eleusis_lab.agent import LearningAgent
from eleusis_lab.cards import COLOR


class ColourPairs(LearningAgent):
    """Learns P(right | colour of the last card, colour of the card) from every play."""

    def __init__(self, prior: float = 1.0):
        self.prior = prior

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.right_ = np.full((3, 2), self.prior)  # last card black, red or none x card colour
        self.seen_ = np.full((3, 2), 2 * self.prior)

    def learn(self, context, card, right):
        last = int(context.main_line[-1].is_red) if context.main_line else 2
        self.right_[last, int(card.is_red)] += right
        self.seen_[last, int(card.is_red)] += 1

    def predict_faces(self, context):
        last = int(context.main_line[-1].is_red) if context.main_line else 2
        return (self.right_[last] / self.seen_[last])[COLOR]
