"""``eleusis-lab report DIR``: an experiment's answer, its figures and one page.

`write_report` reads an output directory of `eleusis_lab.run_experiment` (results,
events when stored, run metadata) and writes ``report.html``, one self-contained page
(the figures inline, as SVG), with each figure beside it as PNG and SVG. The page:

1. **The answer**, computed from the games: how each complexity measure of the rule
   relates to the dealer's score, in sentences generated from the numbers (which
   measures, which way, how strongly, with intervals, in which line-ups), then the
   tables behind them: Spearman's rank correlation of each measure with the dealer's
   score per line-up and over all games, with bootstrap intervals
   (`eleusis_lab.analysis.complexity_correlations`), and a least-squares regression of
   the dealer's score on the standardised measures, the line-up and the number of
   players (`eleusis_lab.analysis.complexity_regression`). `answer_markdown` writes it
   as Markdown (``eleusis-lab report DIR --markdown PATH``).
2. **The dealer's score against each measure** that varies, a line per line-up, each
   point the mean of a bin of games: `BINS` quantile bins, merged until each holds at
   least `MIN_BIN_GAMES` games, the games of each point written under it.
3. **Leaderboards**, one per line-up (a score depends on the table), and by seat.
4. **The rules**: the dealer's mean score for every rule dealt, simplest first.
5. **Distributions** of the dealer's and the seats' scores, per line-up.
6. **More figures**, those the data support: learning curves (events), prediction
   accuracy (predictions, or Delphi), an adaptive dealer's choices, an example game.
7. **Warnings**, only when there is something to warn of: the games that ended at the
   turn cap, and the agents' faults per agent and kind.
8. **Notes**, only about what the spec asked for and the page cannot show (events
   asked for, none stored), partial or unchecked results, an example game that could
   not be replayed. A figure the study did not ask for (no events, no adaptive dealer)
   is simply not there.
9. **The run**: the spec, line-ups, dealer, seeds, versions, timings.

The figures (file stems): ``dealer_score_by_rule_bits`` (``_nodes`` ..., one per
measure registered, `eleusis_lab.rules.complexity.measures`, that varies),
``leaderboard``, ``score_distributions``, ``learning_curves``,
``prediction_accuracy``, ``adaptive_choices``, ``example_game``.

The page and the files are the same for the same results (no dates, stable SVG ids, a
seeded bootstrap).
"""

from __future__ import annotations

import argparse
import html
import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd

from eleusis_lab.analysis import (
    GAME_KEYS,
    POOLED,
    SEES_RULE_MARK,
    adaptive_choices,
    agent_labels,
    attach_agents,
    complexity_correlations,
    complexity_regression,
    dealer_score_by_complexity,
    dealer_score_by_rule,
    delphi_accuracy,
    games_table,
    leaderboard,
    learning_curve,
    learning_window,
    model_usage,
)
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.table import GAMES, game_columns
from eleusis_lab.record import TURN_CAP
from eleusis_lab.rules.complexity import complexity_columns, get_measure
from eleusis_lab.shards import rerun_game
from eleusis_lab.storage import (
    METADATA,
    done_shards,
    load_events,
    load_results,
    read_metadata,
    settled_status,
    write_atomically,
)

__all__ = [
    "BINS",
    "MARKDOWN_BEGIN",
    "MARKDOWN_END",
    "MIN_BIN_GAMES",
    "answer_markdown",
    "below_random_note",
    "report_command",
    "trial_note",
    "write_report",
]

_SVG_START = re.compile(r"<svg\b")
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.DOTALL)
_ID = re.compile(r'\bid="([^"]+)"')
_HREF = re.compile(r'href="#([^"]+)"')
_URL = re.compile(r"url\(#([^)]+)\)")
_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto;
       padding: 0 1em; color: #222; }
h1 { margin-bottom: 0.2em; }
table { border-collapse: collapse; margin: 0.6em 0 1.2em; font-size: 0.9em; }
th, td { border-bottom: 1px solid #ddd; padding: 3px 8px; text-align: left;
         vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
figure { margin: 1.5em 0; }
figure svg { max-width: 100%; height: auto; }
figcaption { color: #555; font-size: 0.9em; }
.notes { color: #7a4b00; }
.lead { font-size: 1.05em; }
.trial { font-weight: bold; background: #fff4d6; border-left: 4px solid #e0a000;
         padding: 0.4em 0.8em; }
ul.answer li { margin: 0.35em 0; }
.warnings { border-left: 4px solid #c77700; background: #fff8ec; padding: 0.2em 1em; }
code { font-size: 0.95em; }
"""

_EXAMPLE_ROWS = 6  # wrong cards shown under a main-line card of the example game
#: Quantile bins of each measure in the dealer-score figures, before merging.
BINS = 10
#: The fewest games a point of the dealer-score figures holds: a bin of fewer is merged
#: with its neighbours (`eleusis_lab.analysis.dealer_score_by_complexity`). At 30 a
#: point's t interval is within 5% of the normal one, and its mean is no longer the
#: luck of a handful of games.
MIN_BIN_GAMES = 30
#: The fewest points a line of the dealer-score figures needs to show a shape: with
#: fewer games a line-up than this many points of `MIN_BIN_GAMES`, the line-ups are
#: pooled into one line.
MIN_POINTS = 5
#: The by-rule table's rows at each end (most and least dealer-scoring rules) when more
#: rules were dealt than twice this, and the fewest games of a rule given an interval.
RULE_ROWS, MIN_RULE_GAMES = 15, 10
#: The fewest plays a bin of a learning curve holds to be drawn: a rate from a handful of
#: plays swings to 0 or 1 (late bins hold the few games still going).
MIN_CURVE_PLAYS = 10


@dataclass
class _Figure:
    name: str
    title: str
    caption: str
    svg: str = ""


@dataclass
class _Report:
    path: Path
    figures: list[_Figure]
    notes: list[str]
    trial: str | None = None  # `trial_note`, for a trial run


# -- loading ----------------------------------------------------------------------------------


def _load(directory: Path) -> tuple[dict[str, Any], pd.DataFrame, pd.DataFrame]:
    if not directory.is_dir():
        raise ConfigError(f"{directory}: no such directory of experiment results")
    metadata = read_metadata(directory)
    if metadata is None:
        raise ConfigError(
            f"{directory}: no experiment results here ({METADATA} is missing);"
            f" run an experiment into it first: eleusis-lab run SPEC --out {directory}"
        )
    try:
        results = load_results(directory)
        events = load_events(directory)
    except (KeyError, TypeError) as error:
        raise ConfigError(f"{directory}: unreadable run metadata: {error}") from None
    if results.empty:
        planned = len(metadata.get("shards", []))
        raise ConfigError(
            f"{directory}: no games stored yet (0 of {planned} shards); run or resume the"
            " experiment first"
        )
    return metadata, results, events


# -- figures ----------------------------------------------------------------------------------


def _new_figure(size: tuple[float, float]):
    from matplotlib.figure import Figure

    return Figure(figsize=size, layout="constrained")


def _inline_svg(text: str, prefix: str) -> str:
    """An SVG file's text ready to sit inline in HTML: no prolog, ids of its own."""
    match = _SVG_START.search(text)
    text = text[match.start() :] if match else text
    text = _METADATA.sub("", text)
    text = _ID.sub(lambda m: f'id="{prefix}-{m.group(1)}"', text)
    text = _HREF.sub(lambda m: f'href="#{prefix}-{m.group(1)}"', text)
    return _URL.sub(lambda m: f"url(#{prefix}-{m.group(1)})", text)


def _save(figure: Any, item: _Figure, out: Path, dpi: int) -> None:
    import matplotlib as mpl

    engine = figure.get_layout_engine()
    if engine is not None:  # lay the figure out once, for both files
        engine.execute(figure)
        figure.set_layout_engine("none")
    # written whole or not at all: a report killed mid-way leaves no truncated figure
    write_atomically(
        out / f"{item.name}.png",
        lambda temporary: figure.savefig(
            temporary, format="png", dpi=dpi, metadata={"Software": None}
        ),
    )
    svg = out / f"{item.name}.svg"
    with mpl.rc_context({"svg.hashsalt": item.name, "svg.fonttype": "path"}):
        write_atomically(
            svg,
            lambda temporary: figure.savefig(temporary, format="svg", metadata={"Date": None}),
        )
    item.svg = _inline_svg(svg.read_text(encoding="utf-8"), item.name)


def _by_lineup(results: pd.DataFrame) -> list[str]:
    several = "lineup" in results.columns and results["lineup"].nunique() > 1
    return ["lineup", "agent"] if several else ["agent"]


def below_random_note(results: pd.DataFrame, events: pd.DataFrame) -> str | None:
    """Why the random player ranks above learners of its line-up, where it does, in a
    game whose learning phase makes every card of a hand be played (classic Eleusis):
    a learner plays the cards it rates right first and so holds its wrong ones back, its
    wrong plays fewer early in the phase and more late. The rates are read from the
    events (`learning_window`); None where random ranks below every learner, or the
    games have no such phase or no events.
    """
    phases = {GAMES[name].learning_phase for name in results["game_type"].dropna().unique()}
    if phases != {1} or events.empty:
        return None
    by = _by_lineup(results)
    window = learning_window(events, 1)
    plays = attach_agents(events[(events["phase"] == 1) & (events["seat"] >= 0)], results)
    plays = plays[plays["right"].notna()]
    plays = plays.assign(wrong=~plays["right"].astype(bool), early=plays["index"] < window)
    rates = plays.groupby([*by, "early"])["wrong"].mean()
    sentences = []
    board = leaderboard(results, by=by)
    for key, part in board.groupby(by[:-1]) if by[:-1] else [((), board)]:
        scores = part.set_index("agent")["mean_score"]
        if "random" not in scores:
            continue
        learners = [a for a in scores.index if a != "random" and not a.endswith(SEES_RULE_MARK)]
        below = [a for a in learners if scores[a] < scores["random"]]
        if not below:
            continue
        where = f" in {key[0]}" if by[:-1] else ""

        def wrong(agent: str, key: tuple = key) -> str:
            early, late = (rates.get((*key, agent, e), float("nan")) for e in (True, False))
            return f"{agent} {early:.0%} then {late:.0%}"

        sentences.append(
            f"Random ranks above {', '.join(below)}{where}. In phase 1 every card of a hand"
            " is played, so a learner that plays the cards it rates right first holds its"
            " wrong ones back: the share of wrong plays over the first"
            f" {window} plays of the phase, then later, is {', '.join(map(wrong, below))},"
            f" {wrong('random')}. The scores rest on the phase's end and on phase 2, where"
            " every seat plays its wrong cards back; compare their intervals before"
            " reading an order."
        )
    return " ".join(sentences) or None


def _leaderboard_figure(board: pd.DataFrame):
    from eleusis_lab.plots import plot_leaderboard  # matplotlib: only when drawing

    figure = _new_figure((7.0, 0.9 + 0.42 * max(len(board), 1)))
    plot_leaderboard(board, ax=figure.add_subplot())
    return figure


def _dealer_figures(results: pd.DataFrame, bins: int, min_games: int):
    from eleusis_lab.plots import BAND_GAMES, measure_label, plot_dealer_score  # matplotlib

    games = games_table(results)
    games = games[games["dealer_score"].notna()] if "dealer_score" in games else games[:0]
    lineups = games.groupby("lineup").size() if "lineup" in games else pd.Series(dtype=int)
    # a line per line-up, unless one would have too few points to show a shape
    pooled = len(lineups) > 1 and lineups.min() < MIN_POINTS * min_games
    if pooled:
        lines = (
            f"the {len(lineups)} line-ups pooled: with {lineups.min():,} games in a line-up, a"
            f" line each would have fewer than {MIN_POINTS} points"
        )
        within = "merged"
    else:
        lines, within = "a line per line-up", "merged within each line-up"
    for measure in (column for column in complexity_columns() if column in games.columns):
        if games[measure].nunique() < 2:  # the answer says so
            continue
        table = dealer_score_by_complexity(
            games, measure, bins=bins, by=None if pooled else "lineup", min_games=min_games
        )
        figure = _new_figure((6.4, 4.4))
        plot_dealer_score(table, ax=figure.add_subplot())
        yield (
            _Figure(
                f"dealer_score_by_{measure}",
                f"Dealer score against {measure_label(measure)}",
                f"Mean dealer score per bin of {measure} ({_count(len(games))}, {lines}):"
                f" {bins} quantile bins, {within} until each holds at least {min_games}"
                f" games; the numbers along the foot are the games of each point"
                f" ({_span(table['games'])}), a row per line in its colour, or one when"
                f" the lines agree. 95% confidence band (t) where a point holds at least"
                f" {BAND_GAMES} games; each point sits at the mean complexity of its games.",
            ),
            figure,
        )


def _distribution_figure(results: pd.DataFrame):
    from eleusis_lab.plots import plot_score_distributions  # matplotlib

    lineups = results["lineup"].nunique() if "lineup" in results else 1
    figure = _new_figure((max(6.4, 2.2 + 1.6 * lineups), 4.0))
    plot_score_distributions(results, fig=figure)
    yield (
        _Figure(
            "score_distributions",
            "Distributions of the scores",
            "The dealer's score (one value per game, where the game has a dealer) and the"
            " seats' scores (one per seat and game) per line-up, with the games"
            " (seat-games) under each name: the box"
            " spans the quartiles, the line is the median, the triangle the mean, the"
            " whiskers reach the last value within 1.5 box lengths, and the dots lie"
            " beyond.",
        ),
        figure,
    )


def _span(counts: pd.Series) -> str:
    low, high = int(counts.min()), int(counts.max())
    return f"{low}" if low == high else f"{low} to {high}"


def _learning_figures(
    results: pd.DataFrame, events: pd.DataFrame, spec: dict[str, Any], notes: list[str]
):
    from eleusis_lab.plots import plot_delphi_accuracy, plot_learning_curve  # matplotlib

    if events.empty:
        if spec.get("events"):
            notes.append("The spec asks for events, but none are stored: no learning curves.")
        return
    by = _by_lineup(results)
    games = [GAMES.get(name) for name in set(results["game_type"].dropna())]
    # One phase for every game, or every play: phases of different games do not compare.
    phases = {game.learning_phase if game is not None else None for game in games}
    phase = phases.pop() if len(phases) == 1 else None
    if phase is not None and not (events["phase"] == phase).any():
        phase = None
    window = learning_window(events, phase)
    curve = learning_curve(
        events, results, by=by, phase=phase, min_plays=MIN_CURVE_PLAYS, max_seen=window
    )
    if curve.empty:
        notes.append(
            "The events hold no card a seat played (in Delphi the oracle places them):"
            " no learning curves."
        )
    else:
        figure = _new_figure((6.8, 4.2))
        plot_learning_curve(curve, ax=figure.add_subplot())
        which = f"phase-{phase} plays" if phase is not None else "plays"
        shown = (
            ""
            if window is None
            else f" Only the first {window} plays of the phase, half of a median game's,"
            " while players still hold about half of their hands: later every card must"
            " be played, the hands run out of right cards and every player's rate climbs,"
            " the random player's too, which is not forgetting."
        )
        yield (
            _Figure(
                "learning_curves",
                "Learning curves",
                f"Rate of wrong {which} against the verdicts seen before the play (every"
                " seat's plays count), in bins of 5 holding at least"
                f" {MIN_CURVE_PLAYS} plays, with 95% Wilson intervals.{shown}",
            ),
            figure,
        )
    if events["p_right"].notna().any():
        accuracy = delphi_accuracy(events, results, by=by)
        everyone = bool(games) and all(
            game is not None and game.everyone_predicts for game in games
        )
        figure = _new_figure((6.8, 4.2))
        plot_delphi_accuracy(accuracy, ax=figure.add_subplot())
        yield (
            _Figure(
                "prediction_accuracy",
                "Prediction accuracy (Delphi tokens)",
                "Share of predictions (a token 'right' when the probability is >= 0.5)"
                " that matched the verdict, against the verdicts seen before, with 95%"
                " Wilson intervals. "
                + (
                    "Every player predicts every card, as in Delphi."
                    if everyone
                    else "Each seat predicts the card it chose to play, just before the verdict."
                ),
            ),
            figure,
        )
    elif spec.get("predictions"):
        notes.append("The spec asks for predictions, but none are stored: no accuracy curves.")


def _adaptive_figure(results: pd.DataFrame):
    from eleusis_lab.plots import plot_adaptive_choices  # matplotlib

    choices = adaptive_choices(results)
    if choices.empty:
        return
    cells = list(dict.fromkeys(choices["cell"])) if "cell" in choices else [None]
    columns = min(len(cells), 2)
    rows = -(-len(cells) // columns)
    figure = _new_figure((6.4 * columns, 3.8 * rows))
    axes = figure.subplots(rows, columns, squeeze=False)
    for ax, cell in zip(axes.flat, cells, strict=False):
        part = choices if cell is None else choices[choices["cell"] == cell]
        plot_adaptive_choices(part, ax=ax)
        if cell is not None and len(cells) > 1:
            ax.set_title(str(cell), fontsize=9)
    for ax in axes.flat[len(cells) :]:
        ax.remove()
    yield (
        _Figure(
            "adaptive_choices",
            "The adaptive dealer's choices",
            "Cumulative share of the games of each cell dealt from each arm (complexity"
            " band), in the order the games were played. The dealer is made fresh for each"
            " shard and learns over its games.",
        ),
        figure,
    )


def _example_figure(results: pd.DataFrame, notes: list[str]):
    from eleusis_lab.plots import draw_layout, layout_figsize  # matplotlib

    row = results.iloc[0]
    try:
        record = rerun_game(row)
    except Exception as error:  # an agent that cannot be made here, or fails in a replay
        notes.append(f"The first game could not be replayed ({error}): no example layout.")
        return
    if not hasattr(record, "main_line") or not hasattr(record, "events"):
        return  # a game with no layout to draw (Secrets)
    figure = _new_figure(layout_figsize(record, max_rows=_EXAMPLE_ROWS))
    draw_layout(record, ax=figure.add_subplot(), max_rows=_EXAMPLE_ROWS)
    agents = ", ".join(agent.get("name", "?") for agent in getattr(record, "agents", ()))
    yield (
        _Figure(
            "example_game",
            "An example game",
            f"Game {row['game']} of cell {row['cell']}, replayed from its seed ({agents}):"
            " the main line, and the wrong cards under the card they were played on.",
        ),
        figure,
    )


# -- the answer -------------------------------------------------------------------------------


@dataclass
class _Table:
    """A table of the answer, as text cells, to write as HTML or Markdown."""

    title: str
    caption: str
    header: list[str]
    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)


@dataclass
class _Answer:
    lead: str
    findings: list[str]
    tables: list[_Table]
    trial: str | None = None  # what a trial run's answer says of itself first


def _count(n: int, noun: str = "game") -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _interval(value: float, low: float, high: float) -> str:
    return f"{value:+.2f} [{low:+.2f}, {high:+.2f}]"


def _clear(low: float, high: float) -> bool:
    """The interval excludes 0."""
    return bool(low > 0 or high < 0)


def _strength(rho: float) -> str:
    """Words for a rank correlation's size: under 0.1 very weak, under 0.3 weak, under
    0.5 moderate, else strong (Cohen's small, medium and large are 0.1, 0.3, 0.5)."""
    size = abs(rho)
    if size < 0.1:
        return "very weak"
    if size < 0.3:
        return "weak"
    return "moderate" if size < 0.5 else "strong"


def _measure_label(name: str) -> str:
    """What a measure is: "rule description length (bits)"."""
    return get_measure(name).label or name


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _listed(rows: pd.DataFrame) -> str:
    return ", ".join(
        f"{row.lineup} ({_interval(row.rho, row.ci_low, row.ci_high)})" for row in rows.itertuples()
    )


def _lineup_clause(overall: pd.Series, lineups: pd.DataFrame) -> str:
    """Whether the overall relation holds in each line-up, as a clause (none for one)."""
    if lineups.empty:
        return ""
    clear = lineups["ci_low"].gt(0) | lineups["ci_high"].lt(0)
    missing = lineups["rho"].isna()
    tail = f"; no figure for {', '.join(lineups.loc[missing, 'lineup'])}" if missing.any() else ""
    if not _clear(overall["ci_low"], overall["ci_high"]):
        found = (
            f"; but clear in {_listed(lineups[clear])}" if clear.any() else "; nor in any line-up"
        )
        return found + tail
    along = clear & ((lineups["rho"] > 0) == (overall["rho"] > 0))
    if along.all():
        low, high = lineups["rho"].min(), lineups["rho"].max()
        return f"; clear the same way in every line-up (ρ from {low:+.2f} to {high:+.2f})"
    parts = [
        f"clear the same way in {along.sum()} of the {len(lineups)} line-ups"
        if along.any()
        else "clear in no line-up on its own"
    ]
    if (unclear := ~clear & ~missing).any():
        parts.append(f"unclear in {_listed(lineups[unclear])}")
    if (against := clear & ~along).any():
        parts.append(f"the other way in {_listed(lineups[against])}")
    return "; " + "; ".join(parts) + tail


def _correlation_findings(correlations: pd.DataFrame) -> list[str]:
    """A sentence per measure, the strongest relation first."""
    if "lineup" in correlations and (correlations["lineup"] == POOLED).any():
        overall = correlations[correlations["lineup"] == POOLED]
        lineups = correlations[correlations["lineup"] != POOLED]
    else:
        overall, lineups = correlations, correlations.iloc[:0]
    overall = overall.assign(_size=overall["rho"].abs()).sort_values(
        "_size", ascending=False, kind="stable", na_position="last"
    )
    findings, silent = [], {}  # silent: note -> the measures it keeps quiet
    for _, row in overall.iterrows():
        label = _measure_label(row["measure"])
        if row["note"]:
            silent.setdefault(row["note"], []).append(label)
            continue
        rho = f"ρ = {_interval(row['rho'], row['ci_low'], row['ci_high'])}"
        over = f"over {_count(row['games'])}"
        if _clear(row["ci_low"], row["ci_high"]):
            way = "more" if row["rho"] > 0 else "less"
            text = (
                f"{_capital(label)}: the higher it is, the {way} the dealer scores, a"
                f" {_strength(row['rho'])} rank correlation ({rho} {over})"
            )
        else:
            text = f"{_capital(label)}: no clear relation with the dealer's score ({rho} {over})"
        mine = lineups[lineups["measure"] == row["measure"]]
        findings.append(text + _lineup_clause(row, mine) + ".")
    for note, labels in silent.items():
        them = "it" if len(labels) == 1 else "them"
        findings.append(f"{_capital(_joined(labels))}: {note}, so nothing to say about {them}.")
    return findings


_HELD = (("line-up", "the line-up"), ("players", "the number of players"))


def _joined(words: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return " and ".join(filter(None, [", ".join(words[:-1]), *words[-1:]]))


def _effects(rows: pd.DataFrame) -> str:
    """Regression terms and their coefficients: "bits +0.36 [+0.24, +0.49], ..."."""
    return ", ".join(
        f"{row.term} {_interval(row.coef, row.ci_low, row.ci_high)}" for row in rows.itertuples()
    )


def _regression_findings(regression: pd.DataFrame) -> list[str]:
    """What the regression adds: each measure with the others, the line-up and the
    players held fixed, and how the line-ups and the players move the score."""
    notes = regression.attrs.get("notes", [])
    if regression.empty:
        why = notes[-1].removesuffix(": no regression")
        return [f"No regression of the dealer's score on the measures: {why}."]
    kinds = set(regression["kind"])
    measures = regression[regression["kind"] == "measure"]
    terms = ["the measures", *(name for kind, name in _HELD if kind in kinds)]

    clear = [row.term for row in measures.itertuples() if _clear(row.ci_low, row.ci_high)]
    unclear = [row.term for row in measures.itertuples() if not _clear(row.ci_low, row.ci_high)]
    if clear:
        verdict = f" With the others fixed, the effect of {_joined(clear)} stays clear"
        verdict += f"; that of {_joined(unclear)} does not." if unclear else "."
    else:
        verdict = " With the others fixed, no measure has a clear effect."
    findings = [
        f"Together, in a least-squares regression on {_joined(terms)}"
        f" (R² = {regression.attrs['r_squared']:.2f} over"
        f" {_count(regression.attrs['games'])}), one standard deviation more of a"
        f" measure, the others fixed, moves the dealer's score by {_effects(measures)}"
        " points." + verdict
    ]
    lineups = regression[regression["kind"] == "line-up"]
    if len(lineups):
        findings.append(
            f"Against the {regression.attrs['reference']} line-up, at the same measures,"
            f" the dealer's score differs by {_effects(lineups)} points."
        )
    players = regression[regression["kind"] == "players"]
    if len(players):
        row = players.iloc[0]
        findings.append(
            "Each player more moves the dealer's score by"
            f" {_interval(row['coef'], row['ci_low'], row['ci_high'])} points."
        )
    return findings


def _correlation_table(correlations: pd.DataFrame) -> _Table:
    """Measures down, line-ups (then all of them) across, rho [interval] in each cell."""
    if "lineup" in correlations:
        groups = list(dict.fromkeys(correlations["lineup"]))
        games = correlations.groupby("lineup", sort=False)["games"].max()
        header = ["measure", *(f"{group} ({_count(int(games[group]))})" for group in groups)]
    else:
        groups = [None]
        header = ["measure", _count(int(correlations["games"].max()))]
    rows = []
    for measure, part in correlations.groupby("measure", sort=False):
        cells = [
            "–" if pd.isna(row.rho) else _interval(row.rho, row.ci_low, row.ci_high)
            for row in part.itertuples()
        ]
        rows.append([measure, *cells])
    noted: dict[tuple[str, str], list[str]] = {}  # (note, where) -> measures
    for (measure, note), part in correlations[correlations["note"] != ""].groupby(
        ["measure", "note"], sort=False
    ):
        where = "" if len(part) == len(groups) else f" in {', '.join(map(str, part['lineup']))}"
        noted.setdefault((note, where), []).append(measure)
    notes = [f"{', '.join(names)}{where}: {note}." for (note, where), names in noted.items()]
    attrs = correlations.attrs
    caption = (
        "Spearman's rank correlation of each measure with the dealer's score (one value"
        " per game), per line-up and over all the games, with its"
        f" {attrs['confidence']:.0%} percentile bootstrap interval"
        f" ({attrs['n_resamples']:,} resamples of the games, or of whole deals where games"
        f" share one, seed {attrs['seed']})."
    )
    return _Table("Rank correlations", caption, header, rows, notes)


def _p_text(p: float) -> str:
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def _regression_table(regression: pd.DataFrame) -> _Table:
    reference = regression.attrs["reference"]
    rows = []
    for row in regression.itertuples():
        if row.kind == "measure":
            term = f"{row.term} (per SD = {row.unit:.3g})"
        elif row.kind == "line-up":
            term = f"line-up {row.term} (against {reference})"
        elif row.kind == "players":
            term = "players (per player)"
        else:
            term = "intercept (" + (f"line-up {reference}, " if reference else "") + "all at means)"
        coefficient = _interval(row.coef, row.ci_low, row.ci_high)
        rows.append([term, coefficient, f"{row.se:.3f}", _p_text(row.p_value)])
    attrs = regression.attrs
    caption = (
        "Least-squares regression of the dealer's score (points) on the measures, each"
        " standardised (its coefficient is points per standard deviation, the deviation"
        " in the measure's units in brackets)"
        + (f", a dummy per line-up against {reference}" if reference else "")
        + (", the number of players (centred)" if "players" in set(regression["kind"]) else "")
        + f"; {_count(attrs['games'])}, R² = {attrs['r_squared']:.3f}; "
        + (
            f"standard errors clustered by deal and {attrs['confidence']:.0%} normal intervals"
            if attrs.get("clustered")
            else f"classical standard errors and {attrs['confidence']:.0%} t intervals"
        )
        + " (statsmodels OLS)."
    )
    header = ["term", f"coefficient [{attrs['confidence']:.0%} CI]", "standard error", "p"]
    return _Table("Regression", caption, header, rows, [f"{n}." for n in attrs["notes"]])


def trial_note(metadata: dict[str, Any], results: pd.DataFrame | None = None) -> str | None:
    """What the answer of a trial run (fewer games per cell than its spec plays, as
    ``--games`` asks) says of itself: what the full study is and about how long it takes
    with as many jobs, at the trial's median time a game (its ``wall_time``, so that
    starting workers and building hypothesis spaces do not count); None for a run of the
    spec's size.

    >>> metadata = {"spec": {"games": 2500}, "units": 100, "unit": "game",
    ...             "source": "experiments/rule_complexity.toml", "cells": [1, 2, 3, 4],
    ...             "runs": [{"jobs": 2}]}
    >>> played = pd.DataFrame({"cell": 1, "game": range(400), "wall_time": 0.03})
    >>> note = trial_note(metadata, played)
    >>> note.split(":")[0], "(10,000 games)" in note, "about 2 minutes with 2 jobs" in note
    ('A trial of 400 games (100 per cell), not the study', True, True)
    >>> trial_note({"spec": {"games": 100}, "units": 100}) is None
    True
    """
    spec = metadata.get("spec") or {}
    full, units, unit = spec.get("games"), metadata.get("units"), metadata.get("unit", "game")
    if not (isinstance(full, int) and isinstance(units, int)) or units >= full:
        return None
    cells = len(metadata.get("cells") or ()) or 1
    noun = "matches" if unit == "match" else f"{unit}s"
    pace = ""
    runs = metadata.get("runs") or [{}]
    jobs = runs[-1].get("jobs") or 1
    if results is not None and "wall_time" in results and results["wall_time"].notna().any():
        games = results.drop_duplicates([key for key in GAME_KEYS if key in results])
        per_game = games["wall_time"].median()
        minutes = per_game * full * cells / jobs / 60
        pace = f", about {max(1, round(minutes))} minutes with {jobs} jobs at this trial's pace"
    return (
        f"A trial of {_count(units * cells, unit)} ({units:,} per cell), not the study: the"
        f" spec plays {full:,} per cell ({full * cells:,} {noun}), and with fewer games the"
        " intervals are wider and a sign may differ from the full study's. The full study:"
        f" eleusis-lab run {metadata.get('source', 'SPEC')}{pace}."
    )


def _ended_at_cap(games: pd.DataFrame) -> pd.DataFrame:
    return games[games["end"] == TURN_CAP] if "end" in games else games.iloc[:0]


def _answer(results: pd.DataFrame) -> _Answer:
    """The study's answer: sentences and the tables they come from."""
    games = games_table(results)
    scored = games[games["dealer_score"].notna()] if "dealer_score" in games else games[:0]
    measured = [c for c in complexity_columns() if c in scored and scored[c].notna().any()]
    if scored.empty or not measured:
        why = "no dealer score" if scored.empty else "no rule, so no complexity"
        return _Answer(
            f"No answer about complexity: these games have {why}; the study's question"
            " does not apply to them.",
            [],
            [],
        )
    lineups = scored["lineup"].nunique() if "lineup" in scored else 1
    experiment = f" of {scored['experiment'].iloc[0]}" if "experiment" in scored else ""
    lead = (
        f"From the {_count(len(scored))}{experiment}"
        + (f" ({lineups} line-ups)" if lineups > 1 else "")
        + ": first the rank correlation of each measure with the dealer's score, then a"
        " regression that holds the other measures fixed. Intervals are 95%; a relation"
        " is clear when its interval excludes 0."
    )
    correlations = complexity_correlations(scored)
    regression = complexity_regression(scored)
    findings = [*_correlation_findings(correlations), *_regression_findings(regression)]
    capped = len(_ended_at_cap(games))
    if capped:
        findings.append(
            f"{_count(capped)} of {len(games):,} ended at the turn cap: their scores are"
            " those at the cap (the report's warnings list them)."
        )
    tables = [_correlation_table(correlations)]
    if not regression.empty:
        tables.append(_regression_table(regression))
    return _Answer(lead, findings, tables)


def _html_table(table: _Table, text_columns: int = 1) -> str:
    """The table; cells after the first ``text_columns`` are numbers, set right."""
    head = "".join(f"<th>{html.escape(cell)}</th>" for cell in table.header)
    lines = [f"<table><tr>{head}</tr>"]
    for row in table.rows:
        cells = "".join(
            f"<td>{html.escape(cell)}</td>"
            if i < text_columns
            else f'<td class="num">{html.escape(cell)}</td>'
            for i, cell in enumerate(row)
        )
        lines.append(f"<tr>{cells}</tr>")
    lines.append("</table>")
    return "\n".join(lines)


def _answer_html(answer: _Answer) -> str:
    parts = [f'<p class="trial">{html.escape(answer.trial)}</p>'] if answer.trial else []
    parts.append(f'<p class="lead">{html.escape(answer.lead)}</p>')
    if answer.findings:
        items = "".join(f"<li>{html.escape(finding)}</li>" for finding in answer.findings)
        parts.append(f'<ul class="answer">{items}</ul>')
    for table in answer.tables:
        parts += [
            f"<h3>{html.escape(table.title)}</h3>",
            f"<p>{html.escape(table.caption)}</p>",
            _html_table(table),
        ]
        if table.notes:
            items = "".join(f"<li>{html.escape(note)}</li>" for note in table.notes)
            parts.append(f'<ul class="notes">{items}</ul>')
    return "\n".join(parts)


def _markdown_cell(text: str) -> str:
    return text.replace("|", "\\|")


def _answer_markdown(answer: _Answer) -> str:
    parts = [f"**{answer.trial}**", ""] if answer.trial else []
    parts += [answer.lead, ""]
    parts += [f"- {finding}" for finding in answer.findings]
    for table in answer.tables:
        parts += ["", f"**{table.title}.** {table.caption}", ""]
        parts.append("| " + " | ".join(map(_markdown_cell, table.header)) + " |")
        parts.append("|" + "---|" * len(table.header))
        parts += ["| " + " | ".join(map(_markdown_cell, row)) + " |" for row in table.rows]
        if table.notes:
            parts += ["", *(f"- {note}" for note in table.notes)]
    # ends with a blank line: a line after it would otherwise read as a last table row
    return "\n".join(parts).strip() + "\n\n"


def answer_markdown(results: pd.DataFrame, trial: str | None = None) -> str:
    """The report's first section, the study's answer, as Markdown.

    The same sentences and tables as the page (see the module's docstring), for a
    README or a paper's notes: `write_report` with ``markdown=PATH`` writes it into a
    file.

    Parameters
    ----------
    results : DataFrame
        A results table (`eleusis_lab.load_results`).
    trial : str, optional
        What a trial run says of itself first (`trial_note`).

    Returns
    -------
    str
        A lead paragraph, a bullet per finding, and the tables (rank correlations, the
        regression) with their captions and notes.

    Examples
    --------
    >>> import pandas as pd
    >>> games = pd.DataFrame({"game": range(4), "rule_bits": [5.0, 10.0, 15.0, 20.0],
    ...                       "dealer_score": [1.0, 3.0, 2.0, 4.0]})
    >>> text = answer_markdown(games)
    >>> print(text.splitlines()[2][:60])
    - Rule description length (bits): no clear relation with the
    """
    return _answer_markdown(replace(_answer(results), trial=trial))


#: The lines between which `write_report` writes the answer into an existing file.
MARKDOWN_BEGIN = "<!-- the answer, written by eleusis-lab report --markdown: do not edit -->"
MARKDOWN_END = "<!-- end of the answer -->"


def _markdown_place(path: Path) -> tuple[str, str]:
    """What goes before and after the answer in ``path``: nothing for a new file, the
    text around the marked lines of an existing one (checked before any work is done)."""
    if not path.exists():
        return "", "\n"
    text = path.read_text(encoding="utf-8")
    start, end = text.find(MARKDOWN_BEGIN), text.find(MARKDOWN_END)
    if start < 0 or end < start:
        raise ConfigError(
            f"{path}: exists and has no place marked for the answer; put the lines"
            f" {MARKDOWN_BEGIN!r} and {MARKDOWN_END!r} where it goes, or name a new file"
        )
    return text[:start], text[end + len(MARKDOWN_END) :]


def _write_markdown(path: Path, place: tuple[str, str], text: str) -> None:
    before, after = place
    whole = f"{before}{MARKDOWN_BEGIN}\n{text}{MARKDOWN_END}{after}"
    write_atomically(path, lambda temporary: Path(temporary).write_text(whole, encoding="utf-8"))


# -- warnings ---------------------------------------------------------------------------------

#: Games that ended at the turn cap listed one by one; the rest are counted.
_LISTED_GAMES = 20
#: Games with faults replayed to tell the faults' kinds (the results count faults only):
#: at most this many, taking at most this long to play (a fault may be a decision that
#: hung until the game's limit stopped it, and its replay would hang as long).
_FAULT_REPLAYS, _REPLAY_SECONDS = 20, 30.0


def _number(value: Any) -> str:
    return "–" if value is None or pd.isna(value) else f"{value:g}"


def _rule_text(row: pd.Series) -> str:
    name = row.get("rule_name")
    return str(name) if isinstance(name, str) else str(row.get("rule") or "–")


def _cap_warning(games: pd.DataFrame) -> str:
    capped = _ended_at_cap(games)
    if capped.empty:
        return ""
    columns = [c for c in ("lineup", "cell") if c in capped]
    header = [*columns, "rule", "game", "dealer score"]
    rows = [
        [*(str(row[c]) for c in columns), _rule_text(row), str(row["game"])]
        + [_number(row.get("dealer_score"))]
        for _, row in capped.head(_LISTED_GAMES).iterrows()
    ]
    more = len(capped) - len(rows)
    return (
        f"<p>{_count(len(capped))} of {len(games):,} ended at the turn cap, not by the"
        " rules: their scores are those at the cap.</p>"
        + _html_table(_Table("", "", header, rows), text_columns=len(columns) + 1)
        + (f"<p>... and {more:,} more (their <code>end</code> is turn_cap).</p>" if more else "")
    )


def _fault_kinds(faulted: pd.DataFrame, keys: list[str]) -> defaultdict[tuple, Counter]:
    """(line-up, agent) -> faults per kind, from a replay of each game of ``faulted``
    (every seat's rows, with ``_lineup`` and ``_agent``). A game that cannot be
    replayed adds none."""
    kinds: defaultdict[tuple, Counter] = defaultdict(Counter)
    for _, game in faulted.groupby(keys, sort=False):
        try:
            record = rerun_game(game.iloc[0])
        except Exception:  # an agent that cannot be made here: its kinds stay unknown
            continue
        agent_at = dict(zip(game["seat"], game["_agent"], strict=True))
        for fault in getattr(record, "faults", ()):
            kinds[(game["_lineup"].iloc[0], agent_at.get(fault.seat, "?"))][fault.kind] += 1
    return kinds


def _fault_warning(results: pd.DataFrame) -> str:
    if "faults" not in results or not results["faults"].fillna(0).any():
        return ""
    keys = [key for key in GAME_KEYS if key in results]
    table = results.assign(_agent=agent_labels(results), _lineup=results.get("lineup", ""))
    faulty = table[table["faults"].fillna(0) > 0]
    games = faulty.drop_duplicates(keys)
    played = games["wall_time"].fillna(0) if "wall_time" in games else pd.Series(0, games.index)
    replayed = games[played.cumsum() <= _REPLAY_SECONDS].head(_FAULT_REPLAYS)[keys]
    kinds = _fault_kinds(table.merge(replayed, on=keys), keys)
    rows = []
    for (lineup, agent), part in faulty.groupby(["_lineup", "_agent"], sort=True):
        mine = kinds[(lineup, agent)]
        kinds_text = ", ".join(f"{kind} {n:,}" for kind, n in sorted(mine.items())) or "–"
        counts = [f"{len(part):,}", f"{int(part['faults'].sum()):,}", kinds_text]
        rows.append([*([str(lineup)] if "lineup" in results else []), str(agent), *counts])
    header = [*(["line-up"] if "lineup" in results else []), "agent", "games", "faults", "kinds"]
    replays = (
        "each of them"
        if len(replayed) == len(games)
        else f"the first {len(replayed):,} (at most {_FAULT_REPLAYS} games and"
        f" {_REPLAY_SECONDS:g} s of play)"
    )
    return (
        f"<p>Agents faulted {_count(int(faulty['faults'].sum()), 'time')} in"
        f" {_count(len(games))}: the engine recorded each fault and the game went on."
        " The results count the faults; their kinds"
        f" are those of a replay of {replays} (a decision over time may not be over time"
        " again in a replay).</p>"
        + _html_table(_Table("", "", header, rows), text_columns=len(header) - 3)
    )


def _warnings_html(results: pd.DataFrame) -> str:
    """Turn caps and faults, or nothing when there are none."""
    parts = [_cap_warning(games_table(results)), _fault_warning(results)]
    body = "".join(part for part in parts if part)
    return f'<h2 id="warnings">Warnings</h2>\n<div class="warnings">{body}</div>' if body else ""


# -- the page ---------------------------------------------------------------------------------


def _agent_text(agent: Any) -> str:
    if isinstance(agent, str):
        return agent
    if isinstance(agent, dict):
        params = ", ".join(f"{k}={v}" for k, v in agent.items() if k != "name")
        return f"{agent.get('name', '?')}({params})" if params else str(agent.get("name", "?"))
    return str(agent)


def _metadata_rows(metadata: dict[str, Any], results: pd.DataFrame) -> list[tuple[str, str]]:
    spec = metadata.get("spec") or {}
    rows: list[tuple[str, str]] = [("experiment", str(metadata.get("experiment", "?")))]
    if spec.get("description"):
        rows.append(("description", str(spec["description"])))
    rows.append(("spec", str(metadata.get("source", "?"))))
    rows.append(("game", ", ".join(sorted(set(results["game_type"].dropna().astype(str))))))
    if "lineups" in spec:
        lineups = "; ".join(
            f"{lineup.get('name', '?')}: {', '.join(map(_agent_text, lineup.get('agents', [])))}"
            for lineup in spec["lineups"]
        )
    else:
        lineups = ", ".join(map(_agent_text, spec.get("agents", [])))
    rows.append(("line-ups", lineups))
    dealer = spec.get("dealer")
    rows.append(("dealer", json.dumps(dealer) if isinstance(dealer, dict) else str(dealer)))
    if spec.get("config"):
        rows.append(("options", json.dumps(spec["config"], sort_keys=True)))
    if spec.get("grid"):
        rows.append(("grid", json.dumps(spec["grid"], sort_keys=True)))
    cells = metadata.get("cells", [])
    rows.append(("cells", f"{len(cells)}: " + ", ".join(str(c.get("cell")) for c in cells)))
    rows.append(("seed", str(spec.get("seed", 0))))
    unit = metadata.get("unit", "game")
    units = f"{metadata.get('units', '?')} {unit}{'es' if unit == 'match' else 's'} per cell"
    games = len(games_table(results))
    rows.append(("stored", f"{games} games, {len(results)} rows ({units})"))
    rows.append(
        (
            "tables",
            f"events: {'yes' if spec.get('events') else 'no'},"
            f" predictions: {'yes' if spec.get('predictions') else 'no'}",
        )
    )

    runs = metadata.get("runs") or []
    if runs:
        run = runs[-1]
        when = f"{run.get('started', '?')} to {run.get('finished', '?')}"
        rows.append(
            (
                "last run",
                f"{settled_status(run)}, {when}, {run.get('seconds', '?')} s,"
                f" backend {run.get('backend', '?')} with {run.get('jobs', '?')} jobs"
                f" ({len(runs)} run{'s' if len(runs) > 1 else ''} in all)",
            )
        )
        git = run.get("git")
        if git:
            rows.append(("git", f"{git.get('commit')}{' (dirty)' if git.get('dirty') else ''}"))
        versions = run.get("versions") or {}
        if versions:
            rows.append(("versions", ", ".join(f"{k} {v}" for k, v in versions.items())))
        if run.get("host"):
            rows.append(("host", f"{run['host']} ({run.get('platform', '?')})"))
    return rows


def _estimate(value: float, low: float, high: float, digits: int = 2) -> str:
    if pd.isna(value):
        return "–"
    text = f"{value:.{digits}f}"
    if pd.isna(low) or pd.isna(high):
        return text
    return f"{text} [{low:.{digits}f}, {high:.{digits}f}]"


def _rules_html(results: pd.DataFrame) -> str:
    """The dealer's mean score for every rule dealt, simplest first (the answer's data)."""
    games = games_table(results)
    if (
        "dealer_score" not in games
        or games["dealer_score"].isna().all()
        or "rule_bits" not in games
    ):
        return "<p>No dealer score in these games.</p>"
    table = dealer_score_by_rule(results, "bits")
    lead = (
        f"The dealer's mean score on each of the {len(table)} rules dealt, simplest first;"
        f" an interval where the rule was dealt in at least {MIN_RULE_GAMES} games."
    )
    if len(table) > 2 * RULE_ROWS:
        ranked = table.sort_values("mean", ascending=False, kind="stable")
        table = pd.concat([ranked.head(RULE_ROWS), ranked.tail(RULE_ROWS)])
        lead = (
            f"The {RULE_ROWS} rules of the {len(ranked)} dealt on which the dealer scores"
            f" most, then the {RULE_ROWS} on which he scores least; an interval where the"
            f" rule was dealt in at least {MIN_RULE_GAMES} games. Every rule's:"
            " eleusis_lab.analysis.dealer_score_by_rule(eleusis_lab.load_results(DIR))."
        )
    lines = [
        f"<p>{html.escape(lead)}</p>",
        "<table><tr><th>rule</th><th>bits</th><th>games</th><th>dealer score [95% CI]</th></tr>",
    ]
    for _, row in table.iterrows():
        # few games of a rule are often one deal played by several line-ups: no interval
        enough = row["games"] >= MIN_RULE_GAMES
        score = _estimate(
            row["mean"], *((row["ci_low"], row["ci_high"]) if enough else (None,) * 2)
        )
        lines.append(
            f"<tr><td>{html.escape(str(row['rule']))}</td>"
            f'<td class="num">{row["rule_bits"]:.1f}</td>'
            f'<td class="num">{int(row["games"])}</td>'
            f'<td class="num">{html.escape(score)}</td></tr>'
        )
    lines.append("</table>")
    return "\n".join(lines)


def _leaderboard_html(board: pd.DataFrame) -> str:
    head = [c for c in ("lineup", "agent", "seat") if c in board.columns]
    columns = [
        ("mean score", "mean_score", "score_ci_low", "score_ci_high", 2),
        ("wrong cards", "mean_wrong_cards", "wrong_ci_low", "wrong_ci_high", 2),
        ("win rate", "win_rate", "win_ci_low", "win_ci_high", 2),
        ("identified", "identification_rate", "identification_ci_low", "identification_ci_high", 2),
        (
            "median plays to identify",
            "median_plays_to_identify",
            "plays_ci_low",
            "plays_ci_high",
            0,
        ),
        # then the summaries of the games' own columns, as each game declares them
        *(
            (column.heading, *column.summary_columns, column.digits)
            for column in game_columns()
            if column.summary is not None
        ),
    ]
    columns = [
        column for column in columns if column[1] in board and board[column[1]].notna().any()
    ]
    header = "".join(f"<th>{html.escape(c)}</th>" for c in [*head, "games"])
    header += "".join(f"<th>{html.escape(title)}</th>" for title, *_ in columns)
    lines = [f"<table><tr>{header}</tr>"]
    for _, row in board.iterrows():
        cells = "".join(f"<td>{html.escape(str(row[c]))}</td>" for c in head)
        cells += f'<td class="num">{int(row["games"])}</td>'
        for _, value, low, high, digits in columns:
            text = _estimate(row[value], row[low], row[high], digits)
            cells += f'<td class="num">{html.escape(text)}</td>'
        lines.append(f"<tr>{cells}</tr>")
    lines.append("</table>")
    return "\n".join(lines)


def _usage_html(results: pd.DataFrame) -> str:
    """The requests, tokens and seconds of the seats that report them (language
    models: `eleusis_lab.analysis.model_usage`); nothing when none does."""
    table = model_usage(results, by=_by_lineup(results))
    if table.empty:
        return ""
    shown = table.reset_index()
    keys = [c for c in ("lineup", "agent") if c in shown.columns]
    columns = [
        ("games", "games", "{:d}"),
        ("requests", "calls", "{:,d}"),
        ("tokens in", "tokens_in", "{:,d}"),
        ("tokens out", "tokens_out", "{:,d}"),
        ("reasoning tokens", "reasoning_tokens", "{:,d}"),
        ("seconds waiting", "model_seconds", "{:,.1f}"),
        ("requests a game", "calls_per_game", "{:.1f}"),
        ("tokens a game", "tokens_per_game", "{:,.0f}"),
    ]
    header = "".join(f"<th>{html.escape(c)}</th>" for c in keys)
    header += "".join(f"<th>{html.escape(title)}</th>" for title, *_ in columns)
    lines = [
        "<h2>Language models: requests, tokens and seconds</h2>",
        f"<table><tr>{header}</tr>",
    ]
    for _, row in shown.iterrows():
        cells = "".join(f"<td>{html.escape(str(row[c]))}</td>" for c in keys)
        cells += "".join(
            f'<td class="num">{html.escape(form.format(row[c]))}</td>' for _, c, form in columns
        )
        lines.append(f"<tr>{cells}</tr>")
    lines.append("</table>")
    return "\n".join(lines)


def _leaderboards_html(board: pd.DataFrame) -> str:
    """A table per line-up (agents rank within their table), or one without line-ups."""
    if "lineup" not in board.columns:
        return _leaderboard_html(board)
    return "\n".join(
        f"<h3>{html.escape(str(lineup))}</h3>\n" + _leaderboard_html(part.drop(columns="lineup"))
        for lineup, part in board.groupby("lineup", sort=False)
    )


def _figure_html(item: _Figure) -> str:
    return (
        f'<figure id="{item.name}"><h3>{html.escape(item.title)}</h3>\n{item.svg}\n'
        f"<figcaption>{html.escape(item.caption)} Files: {item.name}.png,"
        f" {item.name}.svg.</figcaption></figure>"
    )


def _page(
    metadata: dict[str, Any],
    results: pd.DataFrame,
    answer: _Answer,
    figures: list[_Figure],
    notes: list[str],
    below_random: str | None = None,
) -> str:
    name = html.escape(str(metadata.get("experiment", "experiment")))
    by_name = {item.name: item for item in figures}
    key = [item for item in figures if item.name.startswith("dealer_score_by_")]
    placed = {"leaderboard", "score_distributions", *(item.name for item in key)}
    more = [item for item in figures if item.name not in placed]
    meta = "\n".join(
        f"<tr><th>{html.escape(key)}</th><td>{html.escape(value)}</td></tr>"
        for key, value in _metadata_rows(metadata, results)
    )
    by = _by_lineup(results)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>eleusis-lab report: {name}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>{name}</h1>",
        "<p>Report of an eleusis-lab experiment. Intervals are 95% confidence intervals:"
        " bootstrap for rank correlations, t for means and regression coefficients, Wilson"
        " for rates, order statistics for medians. A game is won by the seat with the"
        " highest score (a tie of k seats gives each 1/k).</p>",
        "<h2>The answer: how does the rule's complexity relate to the dealer's score?"
        + (" (a trial)" if answer.trial else "")
        + "</h2>",
        _answer_html(answer),
    ]
    if key:
        parts += ["<h2>The dealer's score against each measure</h2>", *map(_figure_html, key)]
    parts += ["<h2>Leaderboard</h2>", _figure_html(by_name["leaderboard"])]
    parts.append(_leaderboards_html(leaderboard(results, by=by)))
    if below_random:
        parts.append(f'<p class="lead">{html.escape(below_random)}</p>')
    parts += ["<h2>By seat</h2>", _leaderboards_html(leaderboard(results, by=[*by, "seat"]))]
    parts.append(_usage_html(results))
    parts += ["<h2>By rule</h2>", _rules_html(results)]
    parts += ["<h2>Distributions</h2>", _figure_html(by_name["score_distributions"])]
    if more:
        parts += ["<h2>More figures</h2>", *map(_figure_html, more)]
    parts.append(_warnings_html(results))
    if notes:
        items = "".join(f"<li>{html.escape(note)}</li>" for note in notes)
        parts.append(f'<h2>Notes</h2><ul class="notes">{items}</ul>')
    parts += ["<h2>Run</h2>", f"<table>{meta}</table>", "</body></html>\n"]
    return "\n".join(part for part in parts if part)


def _storage_notes(directory: Path, metadata: dict[str, Any]) -> list[str]:
    """Partial results."""
    notes = []
    planned = set(metadata.get("shards", []))
    stored = len(done_shards(directory) & planned)
    if stored < len(planned):
        notes.append(f"Partial results: {stored} of {len(planned)} shards stored so far.")
    return notes


def _figures(
    results: pd.DataFrame,
    events: pd.DataFrame,
    spec: dict[str, Any],
    options: dict[str, Any],
    notes: list[str],
):
    """Every figure the data support, drawn one at a time, as (_Figure, figure)."""
    yield from _dealer_figures(results, options["bins"], options["min_games"])
    board = leaderboard(results, by=_by_lineup(results))
    yield (
        _Figure(
            "leaderboard",
            "Mean score per seat-game",
            "Mean score per seat-game of each agent (per line-up), with its 95% confidence"
            " interval (t).",
        ),
        _leaderboard_figure(board),
    )
    yield from _distribution_figure(results)
    yield from _learning_figures(results, events, spec, notes)
    yield from _adaptive_figure(results)
    if options["example_game"]:
        yield from _example_figure(results, notes)


def _build(
    results_dir: str | Path,
    out: str | Path | None,
    markdown: str | Path | None = None,
    progress: bool = False,
    **options: Any,
) -> _Report:
    """The report; ``options``: ``bins``, ``min_games``, ``example_game``, ``dpi``."""
    from tqdm.auto import tqdm

    directory = Path(results_dir)
    metadata, results, events = _load(directory)
    place = _markdown_place(Path(markdown)) if markdown is not None else None
    target = Path(out) if out is not None else directory / "report"
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(f"{target}: cannot write the report there: {error}") from None
    notes = _storage_notes(directory, metadata)

    bar = tqdm(desc="report", unit=" part", disable=not progress, leave=False, dynamic_ncols=True)
    bar.set_postfix_str("the answer")
    answer = replace(_answer(results), trial=trial_note(metadata, results))
    if place is not None:
        _write_markdown(Path(markdown), place, _answer_markdown(answer))
    bar.update()
    figures = []
    for item, figure in _figures(results, events, metadata.get("spec") or {}, options, notes):
        bar.set_postfix_str(item.name)
        _save(figure, item, target, options["dpi"])
        figures.append(item)
        bar.update()
    bar.close()
    page = target / "report.html"
    text = _page(metadata, results, answer, figures, notes, below_random_note(results, events))
    write_atomically(page, lambda temporary: Path(temporary).write_text(text, encoding="utf-8"))
    return _Report(page, figures, notes, answer.trial)


def write_report(
    results_dir: str | Path,
    out: str | Path | None = None,
    bins: int = BINS,
    min_games: int = MIN_BIN_GAMES,
    example_game: bool = True,
    dpi: int = 120,
    markdown: str | Path | None = None,
) -> Path:
    """Write the page of an experiment's results, its figures (PNG and SVG) and, if
    asked, its answer as Markdown.

    Parameters
    ----------
    results_dir : str or Path
        An output directory of `eleusis_lab.run_experiment`.
    out : str or Path, optional
        Where to write; default ``results_dir / "report"``. Files of the same names
        are replaced.
    bins : int
        Quantile bins of each complexity measure for the dealer-score figures
        (`eleusis_lab.analysis.dealer_score_by_complexity`).
    min_games : int
        The fewest games a point of those figures holds: smaller bins are merged.
    example_game : bool
        Replay the first game and draw its layout (`eleusis_lab.plots.draw_layout`).
    dpi : int
        Resolution of the PNG files.
    markdown : str or Path, optional
        Also write the answer (`answer_markdown`) to this file: a new file gets it
        whole, between the lines `MARKDOWN_BEGIN` and `MARKDOWN_END`; an existing one
        gets it between those lines, the rest of the file unchanged (this is how the
        README's study section is written).

    Returns
    -------
    Path
        The page, ``out / "report.html"``; the figures are beside it.

    Raises
    ------
    ConfigError
        For a directory without results (no run metadata, or no shard stored yet), an
        ``out`` that cannot be written, or a ``markdown`` file that exists without the
        two lines.

    Examples
    --------
    >>> import tempfile
    >>> from eleusis_lab import run_experiment
    >>> out = tempfile.mkdtemp()
    >>> _ = run_experiment({"name": "demo", "games": 4, "dealer": "suit_cycle",
    ...                     "agents": ["random", "oracle"]}, out=out, progress=False)
    >>> page = write_report(out)
    >>> page.name, sorted(p.name for p in page.parent.glob("*.png"))
    ('report.html', ['example_game.png', 'leaderboard.png', 'score_distributions.png'])
    """
    options = {"bins": bins, "min_games": min_games, "example_game": example_game, "dpi": dpi}
    return _build(results_dir, out, markdown, **options).path


# -- the command line -----------------------------------------------------------------------


def report_command(args: argparse.Namespace) -> int:
    """``eleusis-lab report``: write the report, print where and what was skipped.

    A directory without results raises `ConfigError` (the command line prints it as one
    line, exit 2).
    """
    report = _build(
        args.dir,
        args.out,
        args.markdown,
        progress=not args.quiet,
        bins=args.bins,
        min_games=args.min_games,
        example_game=args.example,
        dpi=args.dpi,
    )
    print(f"{report.path} ({len(report.figures)} figures, PNG and SVG beside it)")
    if report.trial:
        print(f"  {report.trial}")
    if args.markdown:
        print(f"{args.markdown} (the answer, as Markdown)")
    for note in report.notes:
        print(f"  note: {note}")
    return 0
