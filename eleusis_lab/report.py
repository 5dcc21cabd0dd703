"""``eleusis-lab report DIR``: the figures of an experiment and one self-contained page.

`write_report` reads an output directory of `eleusis_lab.run_experiment` (results,
events when stored, run metadata), draws every figure the data support with
`eleusis_lab.plots` from the tables of `eleusis_lab.analysis`, writes each as PNG and
SVG, and writes ``report.html``: the run's metadata, the leaderboard and the figures,
inline (SVG), so the page can be mailed or archived on its own. A figure the data do
not support is skipped with a note on the page: no events table, no learning curves;
no predictions, no accuracy curves; no adaptive dealer, no choices.

The figures (file stems):

- ``leaderboard``: mean score per agent and line-up, with confidence intervals;
- ``dealer_score_by_rule_bits`` (``_nodes``, ``_acceptance``, ``_classes``, and one
  per measure registered, `eleusis_lab.rules.complexity.measures`): the dealer's mean
  score against each complexity measure of the rule that varies;
- ``learning_curves``: wrong-play rate against the verdicts seen (needs events);
- ``prediction_accuracy``: accuracy of the seats' predictions (needs predictions);
- ``adaptive_choices``: the adaptive dealer's arms over the games (needs that dealer);
- ``example_game``: the first game, replayed and laid out as cards.

The page and the files are the same for the same results (no dates, stable SVG ids).
"""

from __future__ import annotations

import argparse
import html
import json
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from eleusis_lab.errors import ConfigError

__all__ = ["report_command", "write_report"]

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
td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 1.5em 0; }
figure svg { max-width: 100%; height: auto; }
figcaption { color: #555; font-size: 0.9em; }
.notes { color: #7a4b00; }
code { font-size: 0.95em; }
"""

_EXAMPLE_ROWS = 6  # wrong cards shown under a main-line card of the example game


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


# -- loading ----------------------------------------------------------------------------------


def _load(directory: Path) -> tuple[dict[str, Any], pd.DataFrame, pd.DataFrame]:
    from eleusis_lab.storage import (
        METADATA,
        UncheckedWarning,
        load_events,
        load_results,
        read_metadata,
    )

    if not directory.is_dir():
        raise ConfigError(f"{directory}: no such directory of experiment results")
    metadata = read_metadata(directory)
    if metadata is None:
        raise ConfigError(
            f"{directory}: no experiment results here ({METADATA} is missing);"
            f" run an experiment into it first: eleusis-lab run SPEC --out {directory}"
        )
    try:
        with warnings.catch_warnings():  # a note on the page says so (see _build)
            warnings.simplefilter("ignore", UncheckedWarning)
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

    from eleusis_lab.storage import write_atomically

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


def _leaderboard_figure(board: pd.DataFrame):
    from eleusis_lab.plots import plot_leaderboard

    figure = _new_figure((7.0, 0.9 + 0.42 * max(len(board), 1)))
    plot_leaderboard(board, ax=figure.add_subplot())
    return figure


def _dealer_figures(results: pd.DataFrame, bins: int, notes: list[str]):
    from eleusis_lab.analysis import dealer_score_by_complexity, games_table
    from eleusis_lab.plots import BAND_GAMES, measure_label, plot_dealer_score
    from eleusis_lab.rules.complexity import complexity_columns

    games = games_table(results)
    games = games[games["dealer_score"].notna()]
    if games.empty:
        notes.append("No dealer score in these games (the game has no dealer): no dealer figures.")
        return
    constant = []
    for measure in (column for column in complexity_columns() if column in games.columns):
        if games[measure].nunique() < 2:
            constant.append(measure)
            continue
        table = dealer_score_by_complexity(games, measure, bins=bins)
        figure = _new_figure((6.4, 4.0))
        plot_dealer_score(table, ax=figure.add_subplot())
        label = measure_label(measure)
        yield (
            _Figure(
                f"dealer_score_by_{measure}",
                f"Dealer score against {label}",
                f"Mean dealer score per bin of {measure} ({len(games)} games, one line per"
                f" line-up; {_span(table['games'])} games a point), with its 95% confidence"
                f" band (t) where a point holds at least {BAND_GAMES} games; each point sits"
                " at the mean complexity of its bin's games.",
            ),
            figure,
        )
    if constant:
        notes.append(
            f"{', '.join(constant)}: the same for every rule dealt (e.g. a fixed dealer),"
            " so no dealer score figure against " + ("it." if len(constant) == 1 else "them.")
        )


def _span(counts: pd.Series) -> str:
    low, high = int(counts.min()), int(counts.max())
    return f"{low}" if low == high else f"{low} to {high}"


def _learning_figures(results: pd.DataFrame, events: pd.DataFrame, notes: list[str]):
    from eleusis_lab.analysis import delphi_accuracy, learning_curve
    from eleusis_lab.games.table import GAMES
    from eleusis_lab.plots import plot_delphi_accuracy, plot_learning_curve

    if events.empty:
        notes.append(
            "No events table (set events = true in the spec): no learning curves and no"
            " prediction accuracy."
        )
        return
    by = _by_lineup(results)
    games = [GAMES.get(name) for name in set(results["game_type"].dropna())]
    # One phase for every game, or every play: phases of different games do not compare.
    phases = {game.learning_phase if game is not None else None for game in games}
    phase = phases.pop() if len(phases) == 1 else None
    if phase is not None and not (events["phase"] == phase).any():
        phase = None
    curve = learning_curve(events, results, by=by, phase=phase)
    if curve.empty:
        notes.append(
            "The events hold no card a seat played (in Delphi the oracle places them):"
            " no learning curves."
        )
    else:
        figure = _new_figure((6.8, 4.2))
        plot_learning_curve(curve, ax=figure.add_subplot())
        which = "phase-1 plays" if phase == 1 else "plays"
        yield (
            _Figure(
                "learning_curves",
                "Learning curves",
                f"Rate of wrong {which} against the verdicts seen before the play (every"
                " seat's plays count), in bins of 5, with 95% Wilson intervals.",
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
    else:
        notes.append(
            "No predictions stored (set predictions = true in the spec): no accuracy curves."
        )


def _adaptive_figure(results: pd.DataFrame, notes: list[str]):
    from eleusis_lab.analysis import adaptive_choices
    from eleusis_lab.plots import plot_adaptive_choices

    choices = adaptive_choices(results)
    if choices.empty:
        notes.append("No adaptive dealer in this run: no figure of its choices.")
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
    from eleusis_lab.plots import draw_layout, layout_figsize
    from eleusis_lab.shards import rerun_game

    row = results.iloc[0]
    try:
        record = rerun_game(row)
    except Exception as error:  # an agent that cannot be made here, or fails in a replay
        notes.append(f"The first game could not be replayed ({error}): no example layout.")
        return
    if not hasattr(record, "main_line") or not hasattr(record, "events"):
        notes.append(f"{row['game_type']} records have no main line: no example layout.")
        return
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


# -- the page ---------------------------------------------------------------------------------


def _agent_text(agent: Any) -> str:
    if isinstance(agent, str):
        return agent
    if isinstance(agent, dict):
        params = ", ".join(f"{k}={v}" for k, v in agent.items() if k != "name")
        return f"{agent.get('name', '?')}({params})" if params else str(agent.get("name", "?"))
    return str(agent)


def _metadata_rows(metadata: dict[str, Any], results: pd.DataFrame) -> list[tuple[str, str]]:
    from eleusis_lab.analysis import games_table

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
    from eleusis_lab.storage import settled_status

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


def _answer_html(results: pd.DataFrame) -> str:
    """The study's answer, computed from the data: how the dealer's score moves with the
    rule's description length, per line-up (`eleusis_lab.analysis.complexity_effect`)."""
    from eleusis_lab.analysis import complexity_effect, games_table
    from eleusis_lab.record import TURN_CAP

    games = games_table(results)
    scored = games[games["dealer_score"].notna()] if "dealer_score" in games else games[:0]
    if scored.empty or "rule_bits" not in scored or scored["rule_bits"].nunique() < 2:
        return (
            "<p>No answer to give about complexity: these games have no dealer score, or"
            " every rule dealt had the same description length.</p>"
        )
    by = ["lineup"] if "lineup" in scored and scored["lineup"].nunique() > 1 else None
    effect = complexity_effect(scored, "bits", by=by)
    sentences = []
    for _, row in effect.iterrows():
        dealt = f"{int(row['games'])} games of rules of {row['measure_low']:.0f} to"
        dealt += f" {row['measure_high']:.0f} bits"
        head = f"{row['lineup']} ({dealt})" if by else dealt[0].upper() + dealt[1:]
        if pd.isna(row["slope"]):
            sentences.append(f"{head}: too few games to fit a line.")
            continue
        ci = f"95% CI {row['slope_low']:+.2f} to {row['slope_high']:+.2f}, r = {row['r']:.2f}"
        if row["slope_low"] > 0 or row["slope_high"] < 0:
            way = "raises" if row["slope"] > 0 else "lowers"
            sentences.append(
                f"{head}: each extra bit of the rule {way} the dealer's score by"
                f" {abs(row['slope']):.2f} points ({ci})."
            )
        else:
            sentences.append(f"{head}: no clear effect, {row['slope']:+.2f} points a bit ({ci}).")
    capped = int((games["end"] == TURN_CAP).sum()) if "end" in games else 0
    if capped:
        sentences.append(
            f"{capped} of {len(games)} games ended at the turn cap, not by the rules: their"
            " scores are those at the cap."
        )
    items = "".join(f"<li>{html.escape(sentence)}</li>" for sentence in sentences)
    return (
        f'<ul class="answer">{items}</ul><p>A least-squares line of the dealer\'s score on'
        " the rule's description length (bits) over the games of each line-up; the figure"
        " below shows the means per bin.</p>"
    )


def _rules_html(results: pd.DataFrame) -> str:
    """The dealer's mean score for every rule dealt, simplest first (the answer's data)."""
    from eleusis_lab.analysis import dealer_score_by_rule, games_table

    games = games_table(results)
    if (
        "dealer_score" not in games
        or games["dealer_score"].isna().all()
        or "rule_bits" not in games
    ):
        return "<p>No dealer score in these games.</p>"
    table = dealer_score_by_rule(results, "bits")
    lines = [
        "<table><tr><th>rule</th><th>bits</th><th>games</th><th>dealer score [95% CI]</th></tr>"
    ]
    for _, row in table.iterrows():
        score = _estimate(row["mean"], row["ci_low"], row["ci_high"])
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
        ("prediction accuracy", "prediction_accuracy", "accuracy_ci_low", "accuracy_ci_high", 3),
        ("rule found", "success_rate", "success_ci_low", "success_ci_high", 2),
    ]
    columns = [column for column in columns if board[column[1]].notna().any()]
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


def _page(
    metadata: dict[str, Any],
    results: pd.DataFrame,
    board: pd.DataFrame,
    by_seat: pd.DataFrame,
    figures: list[_Figure],
    notes: list[str],
) -> str:
    name = html.escape(str(metadata.get("experiment", "experiment")))
    meta = "\n".join(
        f"<tr><th>{html.escape(key)}</th><td>{html.escape(value)}</td></tr>"
        for key, value in _metadata_rows(metadata, results)
    )
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>eleusis-lab report: {name}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>{name}</h1>",
        "<p>Report of an eleusis-lab experiment. Intervals are 95% confidence intervals:"
        " t for means, Wilson for rates, order statistics for medians. A game is won by the"
        " seat with the highest score (a tie of k seats gives each 1/k).</p>",
        "<h2>The answer: does the rule's complexity change the dealer's score?</h2>",
        _answer_html(results),
        "<h2>Run</h2>",
        f"<table>{meta}</table>",
    ]
    if notes:
        items = "".join(f"<li>{html.escape(note)}</li>" for note in notes)
        parts.append(f'<h2>Notes</h2><ul class="notes">{items}</ul>')
    parts += ["<h2>Leaderboard</h2>", _leaderboard_html(board)]
    parts += ["<h2>By seat</h2>", _leaderboard_html(by_seat)]
    parts += ["<h2>By rule</h2>", _rules_html(results), "<h2>Figures</h2>"]
    for item in figures:
        parts.append(
            f'<figure id="{item.name}"><h3>{html.escape(item.title)}</h3>\n{item.svg}\n'
            f"<figcaption>{html.escape(item.caption)} Files: {item.name}.png,"
            f" {item.name}.svg.</figcaption></figure>"
        )
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _build(
    results_dir: str | Path,
    out: str | Path | None,
    bins: int,
    example_game: bool,
    dpi: int,
) -> _Report:
    from eleusis_lab.analysis import leaderboard
    from eleusis_lab.storage import UNCHECKED, done_shards, read_manifest, write_atomically

    directory = Path(results_dir)
    metadata, results, events = _load(directory)
    target = Path(out) if out is not None else directory / "report"
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(f"{target}: cannot write the report there: {error}") from None

    notes: list[str] = []
    planned = set(metadata.get("shards", []))
    stored = len(done_shards(directory) & planned)
    if stored < len(planned):
        notes.append(f"Partial results: {stored} of {len(planned)} shards stored so far.")
    if read_manifest(directory) is None:
        notes.append(UNCHECKED.format(out=directory) + ".")
    board = leaderboard(results, by=_by_lineup(results))
    made = [
        (
            _Figure(
                "leaderboard",
                "Leaderboard",
                "Mean score per seat-game of each agent (per line-up), with its 95%"
                " confidence interval (t).",
            ),
            _leaderboard_figure(board),
        ),
        *_dealer_figures(results, bins, notes),
        *_learning_figures(results, events, notes),
        *_adaptive_figure(results, notes),
    ]
    if example_game:
        made += list(_example_figure(results, notes))
    for item, figure in made:
        _save(figure, item, target, dpi)
    figures = [item for item, _ in made]
    page = target / "report.html"
    by_seat = leaderboard(results, by=[*_by_lineup(results), "seat"])
    text = _page(metadata, results, board, by_seat, figures, notes)
    write_atomically(page, lambda temporary: Path(temporary).write_text(text, encoding="utf-8"))
    return _Report(page, figures, notes)


def write_report(
    results_dir: str | Path,
    out: str | Path | None = None,
    bins: int = 5,
    example_game: bool = True,
    dpi: int = 120,
) -> Path:
    """Write the figures (PNG and SVG) and the page of an experiment's results.

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
    example_game : bool
        Replay the first game and draw its layout (`eleusis_lab.plots.draw_layout`).
    dpi : int
        Resolution of the PNG files.

    Returns
    -------
    Path
        The page, ``out / "report.html"``; the figures are beside it.

    Raises
    ------
    ConfigError
        For a directory without results (no run metadata, or no shard stored yet), or
        an ``out`` that cannot be written.

    Examples
    --------
    >>> import tempfile
    >>> from eleusis_lab import run_experiment
    >>> out = tempfile.mkdtemp()
    >>> _ = run_experiment({"name": "demo", "games": 4, "dealer": "suit_cycle",
    ...                     "agents": ["random", "oracle"]}, out=out, progress=False)
    >>> page = write_report(out)
    >>> page.name, sorted(p.name for p in page.parent.glob("*.png"))
    ('report.html', ['example_game.png', 'leaderboard.png'])
    """
    return _build(results_dir, out, bins, example_game, dpi).path


# -- the command line -----------------------------------------------------------------------


def report_command(args: argparse.Namespace) -> int:
    """``eleusis-lab report``: write the report, print where and what was skipped.

    A directory without results raises `ConfigError` (the command line prints it as one
    line, exit 2).
    """
    report = _build(args.dir, args.out, args.bins, args.example, args.dpi)
    print(f"{report.path} ({len(report.figures)} figures, PNG and SVG beside it)")
    for note in report.notes:
        print(f"  note: {note}")
    return 0
