"""Studies with people in the browser: participants play the toolkit's games on the
same deals as the agents, and their games are stored as a run stores its games
(``eleusis-lab serve STUDY``; docs/guide/participants.md).

The modules, each with one job:

- `eleusis_lab.web.study`: the study spec, and the deals it takes from the agents'
  experiment specs (`load_study`);
- `eleusis_lab.web.assign`: which deals a participant gets, by the counter;
- `eleusis_lab.web.seat`: the participant's seat, and a game moved on one answer at a
  time through the game's own play function;
- `eleusis_lab.web.store`: the study's SQLite database: participants (their ids
  hashed with a salt), games, every decision with its response time
  (`load_participants`, `load_decisions`);
- `eleusis_lab.web.results`: a finished game's rows, events and record, stored as a
  run's shard;
- `eleusis_lab.web.flow`: where a participant stands and what his requests do;
- `eleusis_lab.web.checker` and `eleusis_lab.web.english`: the rule checker and a rule
  read in English;
- `eleusis_lab.web.page`: what a game's page shows;
- `eleusis_lab.web.limits`: the bounds on requests, and the security headers;
- `eleusis_lab.web.app`: the Starlette app and its routes; `eleusis_lab.web.serve`: the
  command.

Only `eleusis_lab.web.app` and `eleusis_lab.web.serve` need the ``web`` extra
(Starlette, uvicorn, Jinja2): a study's spec, deals and data are read without it.
"""

from eleusis_lab.web.store import load_decisions, load_participants
from eleusis_lab.web.study import load_study

__all__ = ["load_decisions", "load_participants", "load_study"]
