#!/usr/bin/env bash
# Install the test dependencies and run the whole test suite (CI runs this through .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install --quiet --disable-pip-version-check -e '.[test]'
# Browser tests drive Debian's Chromium (Playwright's own browser download cannot work offline);
# the two-replica test runs Debian's redis-server. Installed when running as root and missing.
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
if [ "${#missing[@]}" -gt 0 ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 \
    || { apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null; }
fi
python -m pytest -q "$@"
