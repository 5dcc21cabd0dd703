"""Secrets, the jack-and-king board game (RULES.md section 4), beside the Eleusis games.

A game of its own, with its own agents and no rule language, resting only on the
toolkit's kernel (cards, records, the registries, the runner, the contract of a game's
positions and the driver that plays them): `game` plays one game
(`play_secrets`, and `GAME_TYPE`, its declaration), `state`, `moves` and `draw` hold
the board, the moves and the pictures of it, `record` the record and its replay,
`agent` the interface and registry of its players, and `tournament` tournaments of a
line-up on the experiment runner.
"""
