#!/usr/bin/env bash
# `make test`: make sure a real PostgreSQL, a real Redis and Chromium are
# there, then lint and run the whole suite against them.
#
# DATABASE_URL / REDIS_URL name the servers when set. Otherwise the local ones
# on the default ports are used: started if installed but stopped, installed
# with apt when running as root, and otherwise we stop and say what to install.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python

fail() { echo "make test: $*" >&2; exit 1; }
is_root() { [ "$(id -u)" = 0 ]; }
apt_install() {
    is_root || return 1
    command -v apt-get >/dev/null || return 1
    echo "make test: installing $* with apt-get"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

pg_up() { $PY - "$1" <<'PYCODE'
import sys, psycopg
from urllib.parse import urlparse
url = urlparse(sys.argv[1])
try:
    psycopg.connect(host=url.hostname, port=url.port or 5432, user=url.username or "postgres",
                    password=url.password, dbname="postgres", connect_timeout=3).close()
except Exception as error:
    print(error, file=sys.stderr); sys.exit(1)
PYCODE
}
redis_up() { $PY -c "import redis,sys; redis.Redis.from_url(sys.argv[1], socket_connect_timeout=2).ping()" "$1" 2>/dev/null; }

start_local_postgres() {
    if ! command -v pg_ctlcluster >/dev/null; then
        apt_install postgresql || fail "PostgreSQL is not installed. Install it (Debian: apt-get install postgresql) or set DATABASE_URL."
        # A fresh Debian cluster wants a password over TCP; the test user is
        # the local postgres superuser, so let loopback connections in.
        local hba
        hba=$(ls /etc/postgresql/*/main/pg_hba.conf | head -1)
        sed -i '1i host all postgres 127.0.0.1/32 trust\nhost all postgres ::1/128 trust' "$hba"
    fi
    local version
    version=$(ls /etc/postgresql | sort -V | tail -1)
    pg_ctlcluster --skip-systemctl-redirect "$version" main start 2>/dev/null \
        || pg_ctlcluster --skip-systemctl-redirect "$version" main reload 2>/dev/null || true
}

start_local_redis() {
    if ! command -v redis-server >/dev/null; then
        apt_install redis-server || fail "Redis is not installed. Install it (Debian: apt-get install redis-server) or set REDIS_URL."
    fi
    mkdir -p var/test-redis
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
        --dir "$PWD/var/test-redis" --logfile "$PWD/var/test-redis/redis.log"
}

if [ -n "${DATABASE_URL:-}" ]; then
    pg_up "$DATABASE_URL" || fail "cannot reach the PostgreSQL named by DATABASE_URL."
else
    export DATABASE_URL="postgres://postgres@127.0.0.1:5432/fuzzweb"
    if ! pg_up "$DATABASE_URL" 2>/dev/null; then
        start_local_postgres
        for _ in $(seq 30); do pg_up "$DATABASE_URL" 2>/dev/null && break; sleep 1; done
        pg_up "$DATABASE_URL" || fail "PostgreSQL on 127.0.0.1:5432 does not accept user postgres."
    fi
fi

if [ -n "${REDIS_URL:-}" ]; then
    redis_up "$REDIS_URL" || fail "cannot reach the Redis named by REDIS_URL."
else
    # Database 15 of the local Redis; the suite empties it when it starts.
    export REDIS_URL="redis://127.0.0.1:6379/15"
    if ! redis_up "$REDIS_URL"; then
        start_local_redis
        for _ in $(seq 30); do redis_up "$REDIS_URL" && break; sleep 0.5; done
        redis_up "$REDIS_URL" || fail "Redis on 127.0.0.1:6379 did not start."
    fi
fi

export FUZZWEB_CHROMIUM="${FUZZWEB_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$FUZZWEB_CHROMIUM" ]; then
    apt_install chromium || fail "Chromium is needed for the browser tests. Install it (Debian: apt-get install chromium) or set FUZZWEB_CHROMIUM."
fi

# Every untrusted execution runs under bubblewrap.
bash scripts/ensure_bubblewrap.sh || fail "bubblewrap is needed (Debian: apt-get install bubblewrap)."

# The differential engines' tests run real compilers and interpreters:
# Csmith programs through gcc, clang and tcc; generated Python through PyPy.
# Reduction of C programs runs C-Vise (C-Reduce is its fallback).
for tool in csmith clang tcc pypy3 cvise creduce; do
    if ! command -v "$tool" >/dev/null || [ ! -d /usr/include/csmith ]; then
        apt_install csmith libcsmith-dev clang tcc pypy3 cvise creduce \
            || fail "The tests need csmith, libcsmith-dev, clang, tcc, pypy3, cvise and creduce (Debian packages)."
        break
    fi
done

# bench/gcc_regressions.py replays GCC 12's own regression tests (from Debian's source
# package) against gcc-11: real wrong code, grouped by cause.
if ! command -v gcc-11 >/dev/null || ! command -v gcc-12 >/dev/null || [ ! -f /usr/src/gcc-12/gcc-12.2.0-dfsg.tar.xz ]; then
    apt_install gcc-11 gcc-12 gcc-12-source \
        || fail "bench/gcc_regressions.py needs gcc-11, gcc-12 and gcc-12-source (Debian packages)."
fi

# The Kotlin campaigns compile with kotlinc (npm) on a JVM.
if ! command -v java >/dev/null; then
    apt_install default-jre-headless || fail "The Kotlin tests need java (Debian: apt-get install default-jre-headless)."
fi
if ! command -v npm >/dev/null; then
    apt_install npm || fail "The Kotlin tests need npm to fetch kotlinc (Debian: apt-get install npm)."
fi
make --no-print-directory kotlin

.venv/bin/ruff check .
.venv/bin/ruff format --check .
# With arguments, exactly the pytest run asked for. Without, the whole suite in
# FUZZWEB_TEST_PROCESSES processes (each with its own test database and Redis
# database: tests/conftest.py), most of whose time is spent waiting on workers,
# compilers and browsers; then, alone, the tests that restart the servers all
# of them share or time calls against a limit a loaded machine stretches.
if [ $# -gt 0 ]; then
    exec $PY -m pytest "$@"
fi
$PY -m pytest -n "${FUZZWEB_TEST_PROCESSES:-2}" --dist loadfile -m "not serial"
exec $PY -m pytest -m serial
