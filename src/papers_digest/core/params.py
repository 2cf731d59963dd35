"""params.yaml as a validated pydantic model; a bad value fails naming the key and the file."""

from __future__ import annotations

import datetime as dt
import re
import warnings
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from papers_digest.core.errors import ConfigError

DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class ParamsError(ConfigError, ValueError):
    """params.yaml is missing, unreadable or holds a bad value."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SourceParams(_Section):
    hf_url: str = "https://huggingface.co"
    arxiv_url: str = "https://arxiv.org"
    arxiv_interval_s: float = Field(3.0, ge=0)
    timeout_s: float = Field(60.0, gt=0)  # per HF or arXiv request
    # A larger arXiv page is not read (the abstract is used): no real paper comes close to this.
    max_page_mb: float = Field(15.0, gt=0)

    @field_validator("hf_url", "arxiv_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError(f"must start with http:// or https://, got {value!r}")
        return value.rstrip("/")


class Price(_Section):
    """USD per million tokens: prompt tokens computed, prompt tokens served from the cache, completion tokens."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cached_input: float | None = Field(None, ge=0)  # null: the same as input

    def cost_usd(self, prompt_tokens: int, cached_tokens: int, completion_tokens: int) -> float:
        """What these tokens cost; cached tokens are part of the prompt tokens, charged at their own rate."""
        cached = min(cached_tokens, prompt_tokens)
        cached_rate = self.input if self.cached_input is None else self.cached_input
        total = (prompt_tokens - cached) * self.input + cached * cached_rate + completion_tokens * self.output
        return round(total / 1_000_000, 6)


# The request fields the pipeline writes itself; llm.extra_body may not set them.
REQUEST_FIELDS = frozenset({"model", "messages", "temperature", "max_tokens", "response_format", "stream"})


class LlmParams(_Section):
    base_url: str = ""  # e.g. http://127.0.0.1:8000/v1; empty: no endpoint, nothing is generated
    model: str = ""
    concurrency: int = Field(3, ge=1, le=256)
    timeout_s: float = Field(600.0, gt=0)
    temperature: float | None = Field(None, ge=0, le=2)
    max_tokens: int | None = Field(None, ge=1)
    # Serve an identical earlier request from the store of finished calls; false re-asks (benchmarks).
    reuse: bool = True
    # Tokens the paper's message (title, section tags, text) may take; a longer paper is trimmed
    # (appendices first, then the longest sections from the end). null: never trim.
    max_input_tokens: int | None = Field(None, ge=256)
    # How the English digest is asked: one of the ways of papers_digest.ways (docs/checker.md, "Ways of asking"),
    # checked against that registry when a stage or `papers` starts (ways.way_named).
    asking: str = "steps"
    # Send the digest's JSON schema as response_format (falls back to prompt-only if refused).
    structured_output: bool = False
    # Fields added as they are to every request's body: an engine's own sampling settings, such as
    # llama.cpp's DRY penalty on repeated word runs (docs/engines.md). {}: none.
    extra_body: dict[str, Any] = Field(default_factory=dict)
    # A ceiling on a day's spending, in prompt + completion tokens of both generation stages; past it the
    # remaining papers are not sent and end failed (the retry queue takes them up later). null: none.
    budget_tokens_per_day: int | None = Field(None, ge=1)
    # What the endpoint charges, for the day's cost in run.json, the report and the status page. null: unpriced.
    price: Price | None = None

    @field_validator("base_url")
    @classmethod
    def _http_url_or_empty(cls, value: str) -> str:
        return _url_or_empty(value).rstrip("/")

    @field_validator("extra_body")
    @classmethod
    def _no_request_fields(cls, value: dict[str, Any]) -> dict[str, Any]:
        taken = sorted(key for key in value if key in REQUEST_FIELDS)
        if taken:
            raise ValueError(
                f"{', '.join(taken)} {'is' if len(taken) == 1 else 'are'} set by the pipeline itself "
                "(llm.model, llm.temperature, llm.max_tokens, llm.structured_output): remove from extra_body"
            )
        return value

    @property
    def configured(self) -> bool:
        return bool(self.base_url and self.model)

    def generation_settings(self) -> dict[str, Any]:
        """The request fields beyond model and messages (only those set)."""
        settings: dict[str, Any] = {}
        if self.temperature is not None:
            settings["temperature"] = self.temperature
        if self.max_tokens is not None:
            settings["max_tokens"] = self.max_tokens
        return {**self.extra_body, **settings}


EngineKind = Literal["none", "llama-cpp", "vllm", "sglang"]


class EngineParams(_Section):
    """A local engine started for the batch and stopped after it (none: use llm.base_url)."""

    kind: EngineKind = "none"
    model: str = ""  # llama-cpp: a GGUF file; vllm / sglang: a Hugging Face model id or local folder
    # llama-cpp: a llama-server executable; empty: llama.cpp's server embedded by `make engine` (xllamacpp)
    binary: str = ""
    context_tokens: int = Field(16384, ge=512)  # the engine's context window (max model length)
    host: str = "127.0.0.1"
    port: int = Field(8642, ge=1, le=65535)
    gpu_memory_fraction: float = Field(0.85, gt=0, le=1)  # vLLM --gpu-memory-utilization, SGLang --mem-fraction-static
    prefix_caching: bool = True
    startup_timeout_s: float = Field(900.0, gt=0)
    extra_args: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _model_when_managed(self) -> EngineParams:
        if self.kind != "none" and not self.model:
            raise ValueError(f"engine.model is required when engine.kind is {self.kind!r}")
        return self

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"


class RetryParams(_Section):
    """Transient HTTP failures (connection errors, timeouts, 408/409/429/5xx): tries and backoff cap."""

    attempts: int = Field(4, ge=1, le=20)
    max_wait_s: float = Field(60.0, ge=0)


class AlertParams(_Section):
    """Where `papers daily` reports a bad run: a JSON webhook (the environment's PAPERS_ALERT_WEBHOOK wins) and
    the apprise URLs of PAPERS_ALERT_URLS, only from the environment (core/notify.py)."""

    webhook_url: str = ""
    # A day whose failed papers are more than this share of those picked is reported (0-1).
    max_failed_share: float = Field(0.5, ge=0, le=1)

    @field_validator("webhook_url")
    @classmethod
    def _http_url_or_empty(cls, value: str) -> str:
        return _url_or_empty(value)


LOCAL_PREVIEW = "http://localhost:8000/"  # `python3 -m http.server -d data/site 8000`


class SiteParams(_Section):
    """The readers' site: its public address, and an optional "report a problem" link on each paper and result."""

    # The site's public address: Atom feeds, the email, link previews and pushed digests link there.
    base_url: str = LOCAL_PREVIEW

    @field_validator("base_url")
    @classmethod
    def _base_http_url(cls, value: str) -> str:
        if not value:
            raise ValueError("must be the site's address, e.g. https://digest.example.org/")
        return _url_or_empty(value)

    # A URL template with {arxiv_id}, {date}, {field}, {title}, {page} (each filled URL-encoded), e.g.
    # https://github.com/OWNER/REPO/issues/new?title=Digest+of+{arxiv_id}:+{field}. Empty: no link.
    report_url: str = ""

    @field_validator("report_url")
    @classmethod
    def _known_fields(cls, value: str) -> str:
        _url_or_empty(value)
        try:
            value.format(arxiv_id="", date="", field="", title="", page="")
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(f"may use only {{arxiv_id}}, {{date}}, {{field}}, {{title}}, {{page}}: {exc}") from None
        return value


class EmailParams(_Section):
    """The day's digest by email after `papers daily` (and `papers email`); the password only from the
    environment (PAPERS_SMTP_PASSWORD)."""

    to: list[str] = Field(default_factory=list)  # empty: no email
    sender: str = "papers-digest@localhost"
    smtp_host: str = "localhost"
    smtp_port: int = Field(587, ge=1, le=65535)
    starttls: bool = True
    username: str = ""  # empty: no login
    lang: Literal["both", "en", "zh"] = "both"
    # Papers link to their pages at site.base_url (the email's own `site_url` before #39: validate_params moves it).


class NotifyParams(_Section):
    """The day's digest pushed to chats after `papers daily`, to the apprise URLs of PAPERS_NOTIFY_URLS (only
    from the environment: they carry the services' tokens)."""

    papers: int = Field(5, ge=1, le=50)  # the day's top papers, one line each
    lang: Literal["en", "zh"] = "en"  # the push's language: titles, sentences, areas


ENV_NAME = r"[A-Z_][A-Z0-9_]*"  # an environment variable's name: where a subscriber's secrets are
DEFAULT_SUBSCRIBER = "default"  # email.to and PAPERS_NOTIFY_URLS: every paper, in the day's order


class SubscriberParams(_Section):
    """A reader who gets the day's papers of their areas and keywords first (docs/operations.md, "Subscribers"),
    by email (`to`, and the addresses in the environment variable `to_env`) and pushes (the apprise URLs in the
    environment variable `urls_env`: they carry tokens, so never this file)."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")  # names it in the output and in the record of what was sent
    areas: list[str] = Field(default_factory=list)  # slugs of day/areas.yaml, e.g. agent, reinforcement-learning
    keywords: list[str] = Field(default_factory=list)  # words or phrases, English or Chinese, e.g. tool use, 智能体
    to: list[str] = Field(default_factory=list)
    to_env: str = ""
    urls_env: str = ""

    @field_validator("to_env", "urls_env")
    @classmethod
    def _variable_name(cls, value: str) -> str:
        if value and not re.fullmatch(ENV_NAME, value):
            raise ValueError(f"must name an environment variable (A-Z, 0-9, _), got {value!r}")
        return value

    @field_validator("areas")
    @classmethod
    def _slugs(cls, areas: list[str]) -> list[str]:
        bad = [a for a in areas if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", a)]
        if bad:
            raise ValueError(f"must be area slugs (topics/<slug>.html), got {bad}")
        return areas

    @field_validator("keywords")
    @classmethod
    def _words(cls, keywords: list[str]) -> list[str]:
        if any(not k.strip() for k in keywords):
            raise ValueError("must be words or phrases, got an empty one")
        return [" ".join(k.split()) for k in keywords]

    @model_validator(mode="after")
    def _interests_and_a_destination(self) -> SubscriberParams:
        if not (self.areas or self.keywords):
            raise ValueError(
                f"subscriber {self.name!r} has no areas and no keywords: a reader of every paper in the day's order "
                "is email.to or PAPERS_NOTIFY_URLS"
            )
        if not (self.to or self.to_env or self.urls_env):
            raise ValueError(f"subscriber {self.name!r} has nowhere to go: set to, to_env or urls_env")
        return self


class NoticeParams(_Section):
    """A day without a digest still reaches the readers, once: an empty day (no paper was listed, or every one was
    digested before) and a failed day (the run failed, or no picked paper was digested)."""

    empty_day: bool = True
    failed_day: bool = True


class Params(_Section):
    date: str
    limit: int = Field(20, ge=1, le=1000)
    # Papers that failed on one of the previous `backfill_days` dates are tried again (0: never).
    backfill_days: int = Field(3, ge=0, le=60)
    # `papers daily` with no date also runs the days before yesterday, this many back, that never finished.
    catch_up_days: int = Field(7, ge=0, le=366)
    source: SourceParams = Field(default_factory=SourceParams)
    llm: LlmParams = Field(default_factory=LlmParams)
    engine: EngineParams = Field(default_factory=EngineParams)
    retry: RetryParams = Field(default_factory=RetryParams)
    alerts: AlertParams = Field(default_factory=AlertParams)
    site: SiteParams = Field(default_factory=SiteParams)
    email: EmailParams = Field(default_factory=EmailParams)
    notify: NotifyParams = Field(default_factory=NotifyParams)
    subscribers: list[SubscriberParams] = Field(default_factory=list)
    notices: NoticeParams = Field(default_factory=NoticeParams)

    @field_validator("subscribers")
    @classmethod
    def _names_once(cls, subscribers: list[SubscriberParams]) -> list[SubscriberParams]:
        names = [s.name for s in subscribers]
        taken = sorted({n for n in names if names.count(n) > 1 or n == DEFAULT_SUBSCRIBER})
        if taken:
            raise ValueError(f"names must be unique and not {DEFAULT_SUBSCRIBER!r} (email.to), got {taken}")
        return subscribers

    @model_validator(mode="after")
    def _endpoint_of_a_managed_engine(self) -> Params:
        # A managed engine is the endpoint: the stages talk to it wherever llm.base_url points.
        if self.engine.kind != "none":
            self.llm.base_url = self.engine.base_url
        return self

    @field_validator("date", mode="before")
    @classmethod
    def _quoted_iso_date(cls, value: object) -> str:
        if isinstance(value, dt.date):
            raise ValueError(f'must be a quoted string, write date: "{value.isoformat()}"')
        if not isinstance(value, str) or not DATE_RE.match(value):
            raise ValueError(f"must be a date written YYYY-MM-DD, got {value!r}")
        try:
            dt.date.fromisoformat(value)
        except ValueError:
            raise ValueError(f"is not a real calendar date: {value!r}") from None
        return value


def _url_or_empty(value: str) -> str:
    if value and not value.startswith(("http://", "https://")):
        raise ValueError(f"must be empty or start with http:// or https://, got {value!r}")
    return value


def load_params(path: str | Path = "params.yaml") -> Params:
    """Read and validate params.yaml; raise ParamsError with one line per problem."""
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ParamsError(f"{path}: file not found") from None
    except yaml.YAMLError as exc:
        raise ParamsError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(raw, dict):
        raise ParamsError(f"{path}: must be a mapping of keys to values")
    return validate_params(raw, path)


class MovedKeyWarning(UserWarning):
    """A key of an older params.yaml that has a new name: its value was moved there."""


def validate_params(raw: dict[str, Any], source: str | Path = "params.yaml") -> Params:
    try:
        return Params.model_validate(_moved_keys(raw, source))
    except ValidationError as exc:
        raise ParamsError("\n".join(_describe(source, err) for err in exc.errors())) from None


def _moved_keys(raw: dict[str, Any], source: str | Path) -> dict[str, Any]:
    """An older file's keys under their new names, with a warning naming the new key: `email.site_url` is
    `site.base_url` since the site has one address for everything (#39). Both set, to different addresses, is an
    error: which one the site has cannot be guessed."""
    email, site = raw.get("email"), raw.get("site")
    if not isinstance(email, dict) or "site_url" not in email:
        return raw
    old = email["site_url"]
    moved = {**raw, "email": {k: v for k, v in email.items() if k != "site_url"}}
    site = site if isinstance(site, dict) else {}
    if old and site.get("base_url", LOCAL_PREVIEW) not in (LOCAL_PREVIEW, old):
        raise ParamsError(
            f"{source}: email.site_url ({old!r}) and site.base_url ({site['base_url']!r}) differ: the site has one "
            "address now, site.base_url (the feeds, the email and link previews use it); remove email.site_url"
        )
    if old:
        moved["site"] = {**site, "base_url": old}
    note = f"site.base_url is {old!r} from it" if old else "it was empty, and papers link to site.base_url"
    warnings.warn(
        f"{source}: email.site_url is now site.base_url ({note}): remove email.site_url", MovedKeyWarning, stacklevel=3
    )
    return moved


def _describe(source: str | Path, err: Any) -> str:
    key = ".".join(str(part) for part in err["loc"])
    kind = err["type"]
    if kind == "extra_forbidden":
        return f"{source}: unknown key {key!r}"
    if kind == "missing":
        return f"{source}: {key} is required"
    message = err["msg"].removeprefix("Value error, ")
    if key and message.startswith(f"{key}."):  # a section's own check names its key already
        return f"{source}: {message}"
    got = err.get("input")
    if kind.startswith(("greater_than", "less_than")) or kind.endswith("_type") or kind.endswith("_parsing"):
        return f"{source}: {key} {message.lower()}, got {got!r}"
    return f"{source}: {key} {message}"
