#!/usr/bin/env bash
# The Python client as its users get it, without PyPI: builds the wheel with Debian's setuptools
# and wheel (python3-setuptools, python3-wheel; no build isolation, so nothing is downloaded),
# installs it with `pip install --no-index` into a fresh venv, type-checks the package and the
# tests against the installed wheel with mypy --strict (py.typed is shipped), and runs
# tests/ against the real API (SQLite and PostgreSQL) with the installed package, not the sources.
# Usage: bash clients/python/check-wheel.sh   (after `npm run build` at the repository's root)
set -euo pipefail
cd "$(dirname "$0")"
here=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/rewind-python-XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "-- build the wheel (Debian's $(/usr/bin/python3 -c 'import setuptools, wheel; print(f"setuptools {setuptools.__version__}, wheel {wheel.__version__}")'))"
# From a copy: setuptools writes build/ and *.egg-info beside the sources it builds.
mkdir "$work/src" && cp -r pyproject.toml README.md rewind_client "$work/src/"
/usr/bin/python3 -m pip wheel --quiet --no-build-isolation --no-deps --no-index --wheel-dir "$work/dist" "$work/src"
wheel=$(echo "$work"/dist/rewind_client-*-py3-none-any.whl)
/usr/bin/python3 -m zipfile -l "$wheel"
/usr/bin/python3 -m zipfile -l "$wheel" | grep 'rewind_client/py.typed' > /dev/null || { echo "the wheel does not ship rewind_client/py.typed" >&2; exit 1; }

echo "-- install it into a fresh venv with pip --no-index ($(python3 --version))"
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --no-index --disable-pip-version-check "$wheel"
# Run from outside clients/python, so that `import rewind_client` can only find the installed wheel.
cd "$work"
"$work/venv/bin/python" -c 'import rewind_client, sys; assert rewind_client.__file__.startswith(sys.prefix), rewind_client.__file__; print("installed:", rewind_client.__file__)'

echo "-- types: mypy --strict on the package, and on the tests (a user's code) against the installed wheel"
mypy --version
mypy --strict --cache-dir "$work/mypy-cache" "$here/rewind_client"
# Against the wheel in the venv: without its py.typed mypy would refuse to read the installed package.
mypy --strict --cache-dir "$work/mypy-cache" --python-executable "$work/venv/bin/python" "$here/tests"

echo "-- tests against the real API, with the installed wheel"
"$work/venv/bin/python" -m unittest discover -s "$here/tests" -t "$here/tests" -v
