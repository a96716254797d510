#!/usr/bin/env bash
# Builds the document fixture corpus in tests/fixtures/docs/ and the
# spreadsheet toolbox fixtures in tests/fixtures/sheets/ (see the READMEs
# there): installs the producers, then runs scripts/make_fixtures.py, which
# writes every fixture (plus truth.json for docs) and re-opens each file to
# check it. Idempotent: installs only what is missing and rewrites the same
# bytes.
#
#   scripts/make-fixtures.sh [--out DIR] [--sheets-out DIR] [--only docs|sheets] [--verify-only]
#   scripts/make-fixtures.sh --tools-only
#
# --tools-only installs the producers and exits: LibreOffice (soffice),
# poppler-utils (pdftotext, pdftoppm), python3-uno, the virtualenv whose
# Python runs scripts/sheet_dump.py, the OpenAI SDKs' test clients, the
# MCP servers the tests connect to and the real-world workbook corpus
# (scripts/workbook-corpus.sh). Silent and well under a second when all
# of it is there; `make test` calls it.
#
# The Python producers live in a private virtualenv, by default
# ~/.cache/baton-fixtures-venv (override with BATON_FIXTURES_VENV).
set -euo pipefail

cd "$(dirname "$0")/.."

tools_only=0
args=()
for a in "$@"; do
  if [ "$a" = "--tools-only" ]; then tools_only=1; else args+=("$a"); fi
done

APT_PACKAGES=(
  libreoffice-writer-nogui libreoffice-calc-nogui  # soffice --headless --convert-to
  fonts-dejavu-core                                # rendered text in images/scans
  fonts-crosextra-carlito fonts-crosextra-caladea  # Calibri/Cambria metrics for docx→pdf
  poppler-utils                                    # pdftotext, pdftoppm
  python3-uno                                      # LibreOffice scripting (pivot.xlsx)
)
# Exact versions, transitive dependencies included.
PIP_PACKAGES=(
  python-docx==1.2.0
  openpyxl==3.1.5
  reportlab==5.1.0
  python-pptx==1.0.2
  EbookLib==0.20
  pillow==13.0.0
  lxml==6.1.3
  et_xmlfile==2.0.0
  XlsxWriter==3.3.1
  typing_extensions==4.16.0
  six==1.17.0
  charset-normalizer==3.5.3
  # The official OpenAI SDK, as a client of `baton serve` in the tests.
  openai==3.51.0
  annotated-types==0.8.0
  anyio==4.16.0
  h11==0.16.0
  httpcore2==2.16.2
  httpx2==2.16.2
  idna==3.20
  jiter==0.19.0
  pydantic==2.14.4
  pydantic_core==2.50.5
  sniffio==1.3.1
  truststore==0.10.5
  typing-inspection==0.4.5
  # The official MCP SDK: a plugin written with it, and a client of
  # `baton mcp`, in the tests.
  mcp==2.3.0
  mcp-types==2.3.0
  jsonschema==4.26.0
  jsonschema-specifications==2025.9.1
  referencing==0.37.0
  rpds-py==2026.9.1
  attrs==26.1.0
  opentelemetry-api==1.45.2
  python-multipart==0.0.34
  sse-starlette==3.7.0
  starlette==1.10.0
  uvicorn==0.54.0
  click==8.5.1
  cryptography==50.0.2
  cffi==2.1.1
  pycparser==3.12
  PyJWT==2.15.1
)
VENV="${BATON_FIXTURES_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/baton-fixtures-venv}"

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
apt_updated=0
apt_install() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "make-fixtures: installing ${missing[*]}"
  if [ "$apt_updated" -eq 0 ]; then
    "${sudo_cmd[@]}" apt-get update -qq
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

apt_install "${APT_PACKAGES[@]}"

if [ ! -x "$VENV/bin/python" ]; then
  py="${PYTHON:-python3}"
  if ! "$py" -c 'import ensurepip, venv' >/dev/null 2>&1; then
    apt_install python3-venv
    py=/usr/bin/python3
  fi
  echo "make-fixtures: creating $VENV"
  rm -rf "$VENV"
  "$py" -m venv "$VENV"
fi

# The pins that are not installed at exactly that version (importlib.metadata
# normalizes names as pip does; much faster than `pip freeze`).
need="$("$VENV/bin/python" - "${PIP_PACKAGES[@]}" <<'PY'
import sys
from importlib import metadata

for spec in sys.argv[1:]:
    name, _, want = spec.partition("==")
    try:
        have = metadata.version(name)
    except metadata.PackageNotFoundError:
        have = None
    if have != want:
        print(spec)
PY
)"
if [ -n "$need" ]; then
  echo "make-fixtures: pip installing" $need
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check "${PIP_PACKAGES[@]}"
fi

# npm packages the tests run (npm ci only when a lock file changed): the
# official OpenAI SDK for JavaScript, a client of `baton serve`, and real MCP
# servers Baton connects to.
for dir in crates/server/tests/clients crates/mcp/tests/servers; do
  if [ ! -f "$dir/node_modules/.package-lock.json" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    echo "make-fixtures: npm ci in $dir"
    (cd "$dir" && npm ci --no-audit --no-fund --silent)
  fi
done

# The real-world workbooks of crates/sheet/tests/corpus.rs (once, cached).
scripts/workbook-corpus.sh

[ "$tools_only" -eq 1 ] && exit 0
exec "$VENV/bin/python" scripts/make_fixtures.py ${args[@]+"${args[@]}"}
