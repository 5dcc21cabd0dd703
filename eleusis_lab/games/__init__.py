"""The games of Eleusis, one package each, and what they share: the registry of games
(`eleusis_lab.games.table`), matches, the generic seat view and the game contract as a test.
"""
