"""Environments the reinforcement-learning and multi-agent field plugs into, each a thin
layer over a game's `eleusis_lab.games.state.GameState` (``pip install
'eleusis-lab[rl]'``): a Gymnasium environment for solo and PettingZoo AEC environments
for the games of several seats. Observations and actions are encoded alike in every
one of them (`eleusis_lab.envs.encoding`), and the games of several seats share one
PettingZoo base and one way for the toolkit's agents to act in them
(`eleusis_lab.envs.seats`).
"""
