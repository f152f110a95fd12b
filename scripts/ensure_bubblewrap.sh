#!/usr/bin/env bash
# Untrusted code (fuzz targets, generated programs, compilers fed them,
# reduction candidates, replays) only ever runs under bubblewrap: make sure
# it is here, installing Debian's package when we can, or say what to install.
set -euo pipefail
command -v bwrap >/dev/null && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing bubblewrap with apt-get (the sandbox for untrusted code)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
    command -v bwrap >/dev/null && exit 0
fi
echo "fuzzweb runs untrusted code only under bubblewrap, which is not installed." >&2
echo "Install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) and try again." >&2
exit 1
