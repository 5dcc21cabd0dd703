"""``eleusis-lab serve STUDY``: check a study spec and serve it with uvicorn
(`serve_command`); ``--check`` lists its deals instead.

The server is one process (its games and database are kept in that process), on
127.0.0.1 unless told otherwise: on the internet, put it behind a reverse proxy that
speaks HTTPS, with ``--https-only`` (the session cookie is then sent over HTTPS alone)
and ``--forwarded-allow-ips`` set to the proxy's address (so that the pace of requests
is kept per client, not per proxy).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from eleusis_lab.errors import ConfigError

__all__ = ["describe_study", "serve_command"]


def describe_study(study) -> str:
    """The study in a few lines: its games, the deals of each block and where they come
    from, where it writes.

    >>> from eleusis_lab.web.study import load_study
    >>> study = load_study({"name": "demo", "consent": "ok", "completion_code": "X",
    ...     "blocks": [{"spec": {"name": "agents", "game": "solo", "games": 3,
    ...                          "dealer": "red_only", "agents": ["bayes"]}}]})
    >>> print(describe_study(study))
    study demo: 1 game per participant, results in results/demo
      block 1 (game 1): solo, seat 0, 3 deals of cell {"lineup": "default"} of agents \
(games 0, 1, 2); the other seats: none
    """
    from eleusis_lab.text import plural

    lines = [
        f"study {study.name}: {plural(study.games, 'game')} per participant, results in {study.out}"
    ]
    if study.practice is not None:
        lines.append(f"  practice: {study.practice.game_type}, seat {study.practice.seat}")
    for block in study.blocks:
        others = [seat.name for i, seat in enumerate(block.deals[0].seats) if i != block.seat]
        games = ", ".join(str(deal.game) for deal in block.deals[:10])
        more = ", ..." if len(block.deals) > 10 else ""
        lines.append(
            f"  block {block.number} ({block.title}): {block.cell.game}, seat {block.seat},"
            f" {plural(len(block.deals), 'deal')} of cell {block.cell.label} of"
            f" {block.spec.name} (games {games}{more}); the other seats:"
            f" {', '.join(others) or 'none'}"
        )
    return "\n".join(lines)


def serve_command(args: argparse.Namespace) -> int:
    """Run ``eleusis-lab serve`` (its arguments: `eleusis_lab.cli`)."""
    from eleusis_lab.web.study import load_study

    study = load_study(args.study, out=args.out)
    if args.check:
        print(describe_study(study))
        return 0
    try:
        import uvicorn

        from eleusis_lab.web.app import make_app
    except ImportError as error:
        raise ConfigError(
            f"serving a study needs the web extra ({error.name} is missing):"
            " pip install 'eleusis-lab[web]'"
        ) from None
    app = make_app(study, Path(study.out), https_only=args.https_only)
    address = f"http://{args.host}:{args.port}/"
    print(describe_study(study))
    print(f"serving at {address} (e.g. {address}?{study.id_params[0]}=pilot-1); Ctrl-C stops")
    options = {}
    if args.forwarded_allow_ips:
        options.update(proxy_headers=True, forwarded_allow_ips=args.forwarded_allow_ips)
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level="warning",
        server_header=False,
        h11_max_incomplete_event_size=16 * 1024,
        limit_concurrency=100,
        **options,
    )
    return 0
