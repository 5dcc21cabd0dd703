"""A test mixin shared by the agent tests: it keeps every observation and choice."""


class Watch:
    """Mixin that keeps every observation and choice."""

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.choices_ = []

    def choose_play(self, obs):
        card = super().choose_play(obs)
        self.choices_.append((obs, card))
        return card
