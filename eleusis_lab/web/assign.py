"""Which deals a participant gets: `assignment`, balanced by the study's counter.

Participants are numbered 1, 2, 3 ... in the order they consent (the store's
counter). Participant ``n`` plays the practice game, then one deal of each block: deal
``(n - 1) mod D`` of a block of ``D`` deals, so that every deal of a block is played
equally often (to within one) by every run of ``D`` participants. With ``order =
"rotate"`` the blocks' order also turns with the counter (block ``(n - 1 + j) mod B``
comes ``j``-th), so that each block comes first equally often.

A participant who leaves keeps his number: the next one is dealt the next deals, and
the counts stay balanced over those who started.

Examples
--------
>>> from eleusis_lab.web.study import load_study
>>> study = load_study({
...     "name": "demo", "consent": "I agree.", "completion_code": "X1", "order": "rotate",
...     "blocks": [
...         {"spec": {"game": "solo", "games": 3, "dealer": "red(card)", "agents": ["random"]}},
...         {"spec": {"game": "classic", "games": 2, "dealer": "red(card)",
...                   "agents": ["random", "random"]}},
...     ],
... })
>>> [[deal.label for deal in assignment(study, n)] for n in (1, 2, 3)]
[['block 1 game 0', 'block 2 game 0'], ['block 2 game 1', 'block 1 game 1'], \
['block 1 game 2', 'block 2 game 0']]
"""

from __future__ import annotations

from eleusis_lab.web.study import Deal, Study

__all__ = ["assignment"]


def assignment(study: Study, number: int) -> list[Deal]:
    """The deals of participant ``number`` (counted from 1), in the order he plays them:
    the practice game first, when the study has one."""
    if number < 1:
        raise ValueError(f"participants are numbered from 1, got {number}")
    k = number - 1
    blocks = list(study.blocks)
    if study.order == "rotate":
        turn = k % len(blocks)
        blocks = blocks[turn:] + blocks[:turn]
    deals = [block.deals[k % len(block.deals)] for block in blocks]
    return ([study.practice] if study.practice is not None else []) + deals
