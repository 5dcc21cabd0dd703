"""Run one study of this folder and print its leaderboard.

    python experiments/run_study.py agent_leaderboard --jobs 2
    python experiments/run_study.py delphi_accuracy --games 20     # a trial

The run itself is ``eleusis-lab run experiments/NAME.toml`` (same options, same
results, resumable); this script adds the leaderboard
(`eleusis_lab.analysis.leaderboard`). ``eleusis-lab report`` draws the figures.
"""

import argparse
from pathlib import Path

from eleusis_lab import run_experiment
from eleusis_lab.analysis import leaderboard

HERE = Path(__file__).resolve().parent


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("study", choices=sorted(path.stem for path in HERE.glob("*.toml")))
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--games", type=int, help="games per cell instead of the spec's")
    parser.add_argument("--out", help="output directory instead of the spec's")
    args = parser.parse_args(argv)
    spec = HERE / f"{args.study}.toml"
    table = run_experiment(spec, jobs=args.jobs, out=args.out, games=args.games)
    board = leaderboard(table)[["lineup", "agent", "games", "mean_score", "win_rate"]]
    print(board.round(3).to_string(index=False))
    return table


if __name__ == "__main__":
    main()
