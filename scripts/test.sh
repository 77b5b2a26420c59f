#!/usr/bin/env bash
# Install the test dependencies and run the whole test suite (CI runs this through .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install --quiet --disable-pip-version-check -e '.[test]'
# Browser tests drive Debian's Chromium (Playwright's own browser download cannot work offline).
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  apt-get install -y -qq chromium >/dev/null 2>&1 \
    || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }
fi
python -m pytest -q "$@"
