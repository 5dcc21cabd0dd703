"""A language model at the table: any OpenAI-compatible chat endpoint plays Eleusis.

`LLMAgent` (registered as ``llm``) sends, for each decision, one self-contained message
built from a prompt template of the game (`PROMPTS`: the game's rules, the table as the
seat sees it, the recent turns with their verdicts and the model's own short reasoning,
and the rule language's vocabulary with examples) and reads the reply, a small JSON
object, strictly: a reply that does not parse, a card not in the hand or a rule that
does not parse gets one retry with the error quoted, then is a fault of the seat
(`LLMReplyError`), which the game handles by its ``on_fault`` as any agent's.

It plays solo (a card, a tentative rule with a confidence 0-10, and whether to declare,
in one move, as the published benchmark asks), classic and four-to-eight Eleusis (a
card, with its best guess of the rule), Delphi (a probability per card) and New
Eleusis (a card, a string of 2-4 or "no play", with its best guess; it becomes the
Prophet when it states that guess with a confidence of 9 or more, and the Prophet's
calls are its stated rule's verdicts, without a request).

The endpoint is `eleusis_lab.chat.ChatEndpoint` through the official ``openai`` client
(``pip install 'eleusis-lab[llm]'``): Ollama, vLLM, a llama.cpp server, OpenRouter or a
hosted API. The key is read from the environment variable ``api_key_env`` names and is
never kept in a parameter, a record, a transcript or an error. With ``cache=PATH``
replies are kept in an SQLite file (`eleusis_lab.chat_cache.ChatCache`), keyed by the
model, the endpoint, the parameters, the whole prompt and the game's deal and decision,
so that a rerun replays without a call; with ``transcripts=DIR`` every request and
reply of a game is written, as it happens, to ``DIR/GAME-DEAL-seatK.jsonl`` with its
tokens, seconds and retries. ``usage_`` totals what the game's requests cost (calls,
tokens and seconds; replies from the cache are counted apart, in ``cached``).

Examples
--------
On the command line, against a local Ollama model (the decision limit raised for a
model's pace)::

    eleusis-lab play --game solo --agents "llm(model='qwen3:8b')" --decision-limit 600
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Callable, Mapping
from importlib.resources import files
from pathlib import Path
from string import Template
from typing import Any

import numpy as np

from eleusis_agents.rule_language import rule_language
from eleusis_lab.agent import Agent, Event, GameInfo, Observation
from eleusis_lab.cards import Card, CardError, parse_card
from eleusis_lab.chat import CACHE_MODES, ChatEndpoint, cache_mode_in_force
from eleusis_lab.chat_cache import ChatCache
from eleusis_lab.games.new_eleusis import NewEleusisDecisions, NewEleusisObservation
from eleusis_lab.games.solo import SoloDecisions, SoloMove
from eleusis_lab.games.solo.scoring import MAX_TURNS
from eleusis_lab.rules import Context, parse
from eleusis_lab.run_context import run_folder

__all__ = ["PROMPTS", "LLMAgent", "LLMReplyError", "prompt_template", "read_reply"]

#: The games an `LLMAgent` has a prompt for, and the template of each.
PROMPTS = {
    "solo": "solo.txt",
    "classic": "classic.txt",
    "four-to-eight": "classic.txt",
    "delphi": "delphi.txt",
    "new-eleusis": "new_eleusis.txt",
}
#: What a game's template says of the game beyond the common text (`prompt_template`).
_GAME_NOTES = {
    "classic": (
        "Phase 1 ends when every hand is played out; in phase 2 players play their wrong"
        " cards: a right one leaves them, a wrong one is taken back."
    ),
    "four-to-eight": (
        "A wrong card may be played again only once its player's hand is empty; the game"
        " ends when a player has no cards left."
    ),
}
#: Where a run's games keep their transcripts and their replies, in its output folder,
#: unless the agent's ``transcripts`` and ``cache`` say otherwise.
RUN_TRANSCRIPTS, RUN_CACHE = "transcripts", "llm_cache.sqlite"
#: The longest reasoning of the model's kept in the history of its later prompts.
REASONING_KEPT = 200
#: The turns of the history a classic or Delphi prompt shows (the most recent).
HISTORY_TURNS = 30


class LLMReplyError(Exception):
    """A reply that could not be used, after its retry: the fault of the seat."""


def prompt_template(name: str) -> Template:
    """The prompt template ``name`` of `PROMPTS`, with the rule language in it.

    >>> text = prompt_template("solo.txt").template
    >>> "THE RULE LANGUAGE" in text and "$hand" in text
    True
    """
    text = files("eleusis_agents").joinpath("prompts", name).read_text(encoding="utf-8")
    return Template(text.replace("$language", rule_language()))


# -- reading a reply ----------------------------------------------------------------------

_FENCED = re.compile(r"```(?:json)?\s*(\{.*\})\s*```", re.DOTALL)
_THINKING = re.compile(r"^\s*<think>.*?</think>", re.DOTALL)


def read_reply(text: str, fields: Mapping[str, Callable[[Any], Any]]) -> dict[str, Any]:
    """The JSON object of a reply, each field read by its reader in ``fields``;
    `ValueError` naming what is wrong.

    The reply is one JSON object, alone or in one fenced block (a reasoning model's
    ``<think>`` block before it is left out); a field missing, or one its reader
    refuses, is an error. Fields beyond ``fields`` are ignored.

    >>> read_reply('{"card": "QH", "extra": 1}', {"card": str})
    {'card': 'QH'}
    >>> read_reply('```json\\n{"card": "QH"}\\n```', {"card": str})
    {'card': 'QH'}
    >>> read_reply("I play QH", {"card": str})
    Traceback (most recent call last):
    ...
    ValueError: the reply is not one JSON object: Expecting value at line 1, column 1
    """
    body = _THINKING.sub("", text, count=1).strip()
    fenced = _FENCED.fullmatch(body)
    if fenced:
        body = fenced.group(1)
    try:
        data = json.loads(body)
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno}"
        raise ValueError(f"the reply is not one JSON object: {error.msg} at {where}") from None
    if not isinstance(data, dict):
        raise ValueError(f"the reply is JSON but not an object: {body[:80]!r}")
    read = {}
    for name, reader in fields.items():
        if name not in data:
            raise ValueError(f"the reply has no {name!r}")
        try:
            read[name] = reader(data[name])
        except (TypeError, ValueError) as error:
            raise ValueError(f"{name}: {error}") from None
    return read


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected text, got {value!r}")
    return value.strip()


def _number(low: float, high: float) -> Callable[[Any], float]:
    def number(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"expected a number from {low:g} to {high:g}, got {value!r}")
        if not low <= value <= high:
            raise ValueError(f"expected a number from {low:g} to {high:g}, got {value!r}")
        return float(value)

    return number


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected true or false, got {value!r}")
    return value


def _rule(value: Any) -> str:
    text = _text(value)
    parse(text)  # RuleSyntaxError (a ValueError) says where it fails
    return text


def _cards(cards: Any) -> str:
    return " ".join(map(str, cards)) or "(none)"


# -- the agent ------------------------------------------------------------------------------

_CACHES: dict[str, Any] = {}  # path -> the ChatCache open in this process
_CACHES_LOCK = threading.Lock()


class LLMAgent(SoloDecisions, NewEleusisDecisions, Agent):
    """A language model behind an OpenAI-compatible chat endpoint, as a player.

    Parameters
    ----------
    model : str
        The model's name at the endpoint, e.g. ``'qwen3:8b'`` (Ollama) or
        ``'gpt-5.2'``.
    base_url : str
        The endpoint, up to ``/v1``; default Ollama's on this machine.
    api_key_env : str or None
        The environment variable holding the key (None: no key, a local server).
    temperature : float
        Sampling temperature, 0 to 2.
    max_tokens : int or None
        The most tokens of a reply (None: the endpoint's default).
    timeout : float
        Seconds one request may take before it is retried.
    retries : int
        Retries of a request that failed (429, 5xx, time-out), with backoff.
    cache : str or None
        An SQLite file of replies (`eleusis_lab.chat_cache.ChatCache`); None: none.
    cache_mode : {"write", "read", "off"}
        ``"write"``: replay what is stored, store what is new; ``"read"``: replay, store
        nothing; ``"off"``: neither.
    transcripts : str or None
        A folder for each game's requests and replies (JSON lines); None: none.
    concurrency : int
        The most requests this process has under way at once at this endpoint, over
        every game played in threads (``bench solo --threads``, the threads backend);
        the first agent of an endpoint sets it.
    """

    def __init__(
        self,
        model: str | None = None,
        base_url: str = "http://127.0.0.1:11434/v1",
        api_key_env: str | None = "OPENAI_API_KEY",
        temperature: float = 0.7,
        max_tokens: int | None = None,
        timeout: float = 120.0,
        retries: int = 3,
        cache: str | None = None,
        cache_mode: str = "write",
        transcripts: str | None = None,
        concurrency: int = 8,
    ):
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout = timeout
        self.retries = retries
        self.cache = cache
        self.cache_mode = cache_mode
        self.transcripts = transcripts
        self.concurrency = concurrency

    def check_params(self) -> None:
        self._check_values()
        try:
            self._endpoint()  # the endpoint checks the rest: base_url, timeout, retries
        except ImportError as error:  # without the llm extra: one line saying how
            raise ValueError(str(error)) from None

    def _check_values(self) -> None:
        if not isinstance(self.model, str) or not self.model.strip():
            raise ValueError(
                f"model: name the endpoint's model, e.g. llm(model='qwen3:8b'); got {self.model!r}"
            )
        try:
            _number(0, 2)(self.temperature)
        except (TypeError, ValueError) as error:
            raise ValueError(f"temperature: {error}") from None
        whole = isinstance(self.max_tokens, int) and not isinstance(self.max_tokens, bool)
        if self.max_tokens is not None and not (whole and self.max_tokens >= 1):
            raise ValueError(f"max_tokens: expected a whole number >= 1, got {self.max_tokens!r}")
        if isinstance(self.concurrency, bool) or not (
            isinstance(self.concurrency, int) and 1 <= self.concurrency <= 256
        ):
            raise ValueError(f"concurrency: expected 1 to 256, got {self.concurrency!r}")
        if self.cache_mode not in CACHE_MODES:
            raise ValueError(f"cache_mode: expected one of {CACHE_MODES}, got {self.cache_mode!r}")
        for name in ("cache", "transcripts"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, str) and value.strip()):
                raise ValueError(f"{name}: expected a path or None, got {value!r}")

    # -- the endpoint, made once per agent and parameters

    def _endpoint(self, cache: str | Path | None = None) -> Any:
        """The endpoint of these parameters, replying from ``cache`` (default: the
        ``cache`` parameter)."""
        cache = self.cache if cache is None else cache
        mode = cache_mode_in_force(self.cache_mode)  # --llm-cache, over the parameter
        made = getattr(self, "endpoint_", None)
        wanted = repr((sorted(self.get_params().items()), str(cache), mode))
        if made is not None and getattr(self, "endpoint_for_", None) == wanted:
            return made
        params: dict[str, Any] = {"temperature": float(self.temperature)}
        if self.max_tokens is not None:
            params["max_tokens"] = self.max_tokens
        self.endpoint_ = ChatEndpoint(
            self.model,
            self.base_url,
            api_key_env=self.api_key_env,
            timeout=self.timeout,
            retries=self.retries,
            params=params,
            cache=_cache(cache) if cache and mode != "off" else None,
            cache_mode=mode,
        )
        self.endpoint_for_ = wanted
        return self.endpoint_

    # -- the game

    def start_game(self, info: GameInfo, rng: np.random.Generator) -> None:
        super().start_game(info, rng)
        if info.game not in PROMPTS:
            raise ValueError(f"llm has no prompt for {info.game!r}; it plays {', '.join(PROMPTS)}")
        self._check_values()
        self.template_ = prompt_template(PROMPTS[info.game])
        deal = " ".join(map(str, info.hand)) + f" / {info.starter}"
        self.deal_ = hashlib.sha256(deal.encode()).hexdigest()[:12]
        self.decisions_ = 0
        self.turns_: list[str] = []  # the history, a line per event
        self.reasons_: dict[int, str] = {}  # event index -> the model's reasoning then
        self.failed_: list[str] = []  # solo: the declarations that were wrong
        self.declared_: tuple[int, str] | None = None  # solo: the last move's declaration
        self.proposal_: tuple[str, float] | None = None
        self.usage_ = {
            "calls": 0,
            "tokens_in": 0,
            "tokens_out": 0,
            "reasoning_tokens": 0,
            "seconds": 0.0,
            "cached": 0,
            "retries": 0,
        }
        # in a run, the transcripts and the cache go to its folder unless said otherwise
        run = run_folder()
        transcripts = self.transcripts or (None if run is None else run / RUN_TRANSCRIPTS)
        cache = self.cache or (None if run is None else run / RUN_CACHE)
        self._endpoint(cache)
        self.transcript_path_ = None
        if transcripts is not None:
            folder = Path(transcripts)
            folder.mkdir(parents=True, exist_ok=True)
            self.transcript_path_ = folder / f"{info.game}-{self.deal_}-seat{info.seat}.jsonl"
            self.transcript_path_.write_text("")  # a game played again starts it afresh

    def observe(self, event: Event) -> None:
        who = "you" if event.seat == self.info_.seat else f"seat {event.seat}"
        if self.info_.game == "delphi":
            who = "the oracle"
        verdict = "right" if event.right else "wrong"
        what = {  # New Eleusis tells more kinds of events than plays
            "string": f"{who} played {event.card} in a string: the string was wrong",
            "set_aside": f"{who} set aside {event.card} after a true no play",
            "dealer": f"the dealer played {event.card} from {who}'s hand after a false no play",
        }.get(event.kind, f"{who} played {event.card}: {verdict}")
        line = f"{len(self.turns_) + 1}. {what}"
        reason = self.reasons_.get(len(self.turns_))
        if reason:
            line += f" (you thought: {reason})"
        self.turns_.append(line)

    def solo_move(self, obs: Observation) -> SoloMove:
        turn = len(self.turns_) + 1
        if self.declared_ is not None:  # the game went on: that declaration was wrong
            self.failed_.append(f"turn {self.declared_[0]}: {self.declared_[1]}")
            self.declared_ = None
        wrong = len(self.failed_)
        prompt = self.template_.substitute(
            hand_size=len(obs.hand),
            max_turns=MAX_TURNS,
            turn=turn,
            wrong=wrong,
            wrong_points=-2 * wrong,
            score_now=MAX_TURNS + 1 - turn - 2 * wrong,
            main_line=_cards(obs.main_line),
            side_line=_cards(obs.wrong_cards[0]),
            history="\n".join(self.turns_) or "(none yet)",
            failed="; ".join(self.failed_) or "none",
            hand=_cards(obs.hand),
            example_card=obs.hand[0],
        )
        reply = self._guess("solo_move", prompt, card=self._card_of(obs.hand), declare=_flag)
        if reply["declare"]:
            self.declared_ = (turn, reply["rule"])
        return SoloMove(reply["card"], *self.proposal_, reply["declare"])

    def choose_play(self, obs: Observation) -> Card:
        wrong = "; ".join(
            f"seat {seat}: {_cards(cards)}" for seat, cards in enumerate(obs.wrong_cards)
        )
        prompt = self.template_.substitute(
            players=self.info_.n_players,
            game_notes=_GAME_NOTES.get(self.info_.game, ""),
            seat=obs.seat,
            phase=obs.phase,
            main_line=_cards(obs.main_line),
            wrong_cards=wrong,
            history="\n".join(self.turns_[-HISTORY_TURNS:]) or "(none yet)",
            hand=_cards(obs.hand),
            example_card=obs.hand[0],
        )
        return self._guess("choose_play", prompt, card=self._card_of(obs.hand))["card"]

    def predict(self, obs: Observation, cards: list[Card]) -> np.ndarray:
        """Delphi's predictions, a request per card; elsewhere 0.5 for every card, as
        an agent that cannot tell (a request per card of every decision would cost a
        game's worth of calls)."""
        if self.info_.game != "delphi":
            return super().predict(obs, cards)
        probabilities = []
        for card in cards:
            prompt = self.template_.substitute(
                main_line=_cards(obs.main_line),
                side_line=_cards(obs.wrong_cards[0]) if obs.wrong_cards else "(none)",
                history="\n".join(self.turns_[-HISTORY_TURNS:]) or "(none yet)",
                card=card,
            )
            fields = {"probability": _number(0, 1), "rule": _rule, "reasoning": _text}
            reply = self._ask("predict", prompt, fields)
            self._remember(reply, f"p = {reply['probability']:g}; ")
            self.proposal_ = (reply["rule"], max(reply["probability"], 1 - reply["probability"]))
            probabilities.append(reply["probability"])
        return np.array(probabilities)

    def usage(self) -> dict[str, float] | None:
        """The game's requests, tokens and seconds (`eleusis_lab.agent.USAGE_FIELDS`):
        what it cost, so replies served from the cache count nothing."""
        made = getattr(self, "usage_", None)
        if made is None:
            return None
        names = ("calls", "tokens_in", "tokens_out", "reasoning_tokens")
        return {**{name: made[name] for name in names}, "model_seconds": made["seconds"]}

    def choose_turn(self, obs: NewEleusisObservation) -> tuple[Card, ...] | None:
        """New Eleusis: a card, a string of 2 to 4, or None for "no play"."""
        situation = "Sudden death is in force." if obs.phase == 2 else ""
        prophet = "There is no Prophet." if obs.prophet is None else f"Seat {obs.prophet} is"
        if obs.prophet is not None:
            prophet += " the Prophet" + (" (you)." if obs.prophet == obs.seat else ".")
        under = "; ".join(
            f"under {card}: {_cards(wrong)}"
            for card, wrong in zip(obs.main_line, obs.side_line, strict=False)
            if wrong
        )
        prompt = self.template_.substitute(
            players=self.info_.n_players,
            seat=obs.seat,
            situation=f"{prophet} {situation}".strip(),
            main_line=_cards(obs.main_line),
            side_line=under or "(none)",
            hand_sizes=", ".join(f"seat {i}: {n}" for i, n in enumerate(obs.hand_sizes)),
            history="\n".join(self.turns_[-HISTORY_TURNS:]) or "(none yet)",
            hand=_cards(obs.hand),
            example_card=obs.hand[0],
        )
        return self._guess("choose_turn", prompt, cards=self._string_of(obs.hand))["cards"] or None

    def call_play(self, obs: NewEleusisObservation, cards: tuple[Card, ...]) -> bool:
        """The Prophet's call: the verdict of the rule the model last stated."""
        rule = self._stated_rule()
        if rule is None:
            return super().call_play(obs, cards)
        line = obs.main_line
        for card in cards:
            if not rule.accepts(card, Context(line)):
                return False
            line += (card,)
        return True

    def call_no_play(self, obs: NewEleusisObservation, hand: tuple[Card, ...]) -> bool:
        """The Prophet's call of a "no play": the rule it last stated accepts none."""
        rule = self._stated_rule()
        if rule is None:
            return super().call_no_play(obs, hand)
        return not any(rule.accepts(card, Context(obs.main_line)) for card in hand)

    def _stated_rule(self) -> Any:
        return None if self.proposal_ is None else parse(self.proposal_[0])

    def propose_rule(self) -> tuple[str, float] | None:
        """The rule the model stated in its last reply, with its confidence (no call)."""
        return self.proposal_

    def __getstate__(self) -> dict[str, Any]:
        # the endpoint holds a connection pool: made again where the copy plays
        return {k: v for k, v in self.__dict__.items() if k not in ("endpoint_", "endpoint_for_")}

    # -- one decision: a request, its reply read strictly, one retry

    def _string_of(self, hand: tuple[Card, ...]) -> Callable[[Any], tuple[Card, ...]]:
        """The reader of a New Eleusis turn: 0 ("no play") to 4 cards of the hand, each
        card of the hand at most once (two decks: a face held twice may be played twice)."""
        one = self._card_of(hand)

        def string(value: Any) -> tuple[Card, ...]:
            if not isinstance(value, list) or len(value) > 4:
                raise ValueError(f"expected a list of 0 to 4 cards, got {value!r}")
            left, played = list(hand), []
            for text in value:
                card = one(text)
                held = [c for c in left if c.rank == card.rank and c.suit == card.suit]
                if not held:
                    raise ValueError(f"{text!r} is in the string more often than in your hand")
                left.remove(held[0])
                played.append(held[0])
            return tuple(played)

        return string

    def _card_of(self, hand: tuple[Card, ...]) -> Callable[[Any], Card]:
        def card(value: Any) -> Card:
            text = _text(value)
            try:
                face = parse_card(text.upper())
            except CardError as error:
                raise ValueError(str(error)) from None
            held = [c for c in hand if c.rank == face.rank and c.suit == face.suit]
            if not held:
                raise ValueError(f"{text!r} is not in your hand ({_cards(hand)})")
            return held[0]

        return card

    def _ask(self, call: str, prompt: str, fields: Mapping[str, Callable[[Any], Any]]) -> Any:
        """The reply to ``prompt`` read by ``fields`` (`read_reply`); a reply that cannot
        be used is asked again once, quoting why, then is `LLMReplyError`."""
        endpoint = self.endpoint_  # made for the game in start_game
        messages = [{"role": "user", "content": prompt}]
        decision, self.decisions_ = self.decisions_, self.decisions_ + 1
        for attempt in (1, 2):
            key = {
                "game": self.info_.game,
                "seat": self.info_.seat,
                "deal": self.deal_,
                "decision": decision,
                "attempt": attempt,
            }
            with _slots(self.base_url, self.concurrency):
                reply = endpoint.complete(messages, key=key)
            try:
                read, problem = read_reply(reply.text, fields), None
            except ValueError as error:
                read, problem = None, str(error)
            self._count(decision, call, messages, reply, problem)
            if problem is None:
                return read
            if attempt == 2:
                first = problem.splitlines()[0]
                raise LLMReplyError(f"the reply could not be used, twice: {first}")
            retry = (
                f"Your reply could not be used: {problem}\n"
                "Reply again with only the JSON object asked for."
            )
            messages = [
                *messages,
                {"role": "assistant", "content": reply.text},
                {"role": "user", "content": retry},
            ]
        raise AssertionError("unreachable")

    def _guess(self, call: str, prompt: str, **answer: Callable[[Any], Any]) -> dict[str, Any]:
        """The reply to a decision's ``prompt``: the ``answer`` fields and the model's
        guess of the rule with its confidence 0-10, kept as its proposal and, with its
        reasoning, in the history of its later prompts."""
        fields = {**answer, "rule": _rule, "confidence": _number(0, 10), "reasoning": _text}
        reply = self._ask(call, prompt, fields)
        self.proposal_ = (reply["rule"], reply["confidence"] / 10)
        self._remember(reply, f"rule {reply['rule']}, confidence {reply['confidence']:g}/10; ")
        return reply

    def _remember(self, reply: Mapping[str, Any], stated: str = "") -> None:
        """Keep the model's reasoning for the event its decision makes, shown in the
        history of its later prompts."""
        reason = (stated + reply.get("reasoning", ""))[:REASONING_KEPT]
        if reason:
            self.reasons_[len(self.turns_)] = reason

    def _count(
        self,
        decision: int,
        call: str,
        messages: list[dict[str, str]],
        reply: Any,
        problem: str | None,
    ) -> None:
        """Add a reply to the game's usage and to its transcript."""
        usage = self.usage_
        if reply.cached:  # what the game's requests cost: a stored reply costs nothing
            usage["cached"] += 1
        else:
            usage["calls"] += reply.attempts
            usage["tokens_in"] += reply.tokens_in
            usage["tokens_out"] += reply.tokens_out
            usage["reasoning_tokens"] += reply.reasoning_tokens
            usage["seconds"] += reply.seconds
            usage["retries"] += len(reply.retried)
        if self.transcript_path_ is not None:
            entry = {
                "decision": decision,
                "call": call,
                "messages": messages,
                "reply": reply.text,
                "tokens_in": reply.tokens_in,
                "tokens_out": reply.tokens_out,
                "reasoning_tokens": reply.reasoning_tokens,
                "seconds": round(reply.seconds, 3),
                "attempts": reply.attempts,
                "retried": list(reply.retried),
                "cached": reply.cached,
                "cache_mode": self.endpoint_.cache_mode if self.endpoint_.cache else "off",
                "unusable": problem,
            }
            with self.transcript_path_.open("a", encoding="utf-8") as out:
                out.write(json.dumps(entry) + "\n")


_SLOTS: dict[str, threading.BoundedSemaphore] = {}  # base_url -> its requests under way


def _slots(base_url: str, concurrency: int) -> threading.BoundedSemaphore:
    """The semaphore bounding the requests under way at ``base_url`` in this process."""
    with _CACHES_LOCK:
        if base_url not in _SLOTS:
            _SLOTS[base_url] = threading.BoundedSemaphore(concurrency)
        return _SLOTS[base_url]


def _cache(path: str) -> Any:
    """The `ChatCache` of ``path``, opened once per process."""
    key = str(Path(path).resolve())
    with _CACHES_LOCK:
        if key not in _CACHES:
            _CACHES[key] = ChatCache(key)
        return _CACHES[key]
