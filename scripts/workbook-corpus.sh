#!/usr/bin/env bash
# The real-world workbook corpus of crates/sheet/tests/corpus.rs: files no
# one here wrote, from registries only, each source pinned by hash.
#
#   scripts/workbook-corpus.sh            (make-fixtures.sh --tools-only calls it)
#
# - umya-spreadsheet's test files: workbooks from its bug reports and
#   Apache POI's (made by Excel, LibreOffice, Google Sheets, .NET and
#   Java libraries). The crate comes from crates.io, pinned by Cargo.lock's
#   checksum.
# - Debian's r-cran-openxlsx and r-cran-readxl: their example workbooks,
#   made by Excel (readxl's .xls ones go to foreign/, the formats read and
#   saved as .xlsx). The .deb files are pinned by SHA-256 below.
#
# Written to $BATON_WORKBOOK_CORPUS (default ~/.cache/baton-workbook-corpus),
# once: a later run with the stamp present returns at once.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT="${BATON_WORKBOOK_CORPUS:-${XDG_CACHE_HOME:-$HOME/.cache}/baton-workbook-corpus}"
STAMP="$OUT/.complete-v2"
[ -f "$STAMP" ] && exit 0

DEBS=(
  "r-cran-openxlsx=4.2.5.2-1 cc998ce373488a27ed2baab183268fafae7a44dcfd08ba5c1a5fd10e9b4e64a1"
  "r-cran-readxl=1.4.2-1 eb705525f906c968022162e8e58993a8b444ae900ff0487389769721bdcb4e67"
)

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/corpus/umya" "$tmp/corpus/debian" "$tmp/corpus/foreign"

manifest="$(${CARGO:-cargo} metadata --format-version 1 --locked | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(next(p["manifest_path"] for p in d["packages"] if p["name"] == "umya-spreadsheet"))')"
cp "$(dirname "$manifest")"/tests/test_files/*.xlsx "$(dirname "$manifest")"/tests/test_files/*.xlsm "$tmp/corpus/umya/"

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
for spec in "${DEBS[@]}"; do
  read -r pkg sum <<<"$spec"
  (cd "$tmp" && { apt-get download -qq "$pkg" 2>/dev/null || { "${sudo_cmd[@]}" apt-get update -qq && apt-get download -qq "$pkg"; }; })
  deb="$(ls "$tmp"/"${pkg%%=*}"_*.deb)"
  echo "$sum  $deb" | sha256sum -c --quiet
  dpkg-deb -x "$deb" "$tmp/x"
done
find "$tmp/x" -type f \( -name '*.xlsx' -o -name '*.xlsm' \) -exec cp {} "$tmp/corpus/debian/" \;
find "$tmp/x" -type f \( -name '*.xls' -o -name '*.ods' \) -exec cp {} "$tmp/corpus/foreign/" \;

rm -rf "$OUT"
mkdir -p "$(dirname "$OUT")"
mv "$tmp/corpus" "$OUT"
touch "$STAMP"
echo "workbook-corpus: $(find "$OUT" -type f \( -name '*.xlsx' -o -name '*.xlsm' \) | wc -l) workbooks and $(find "$OUT/foreign" -type f | wc -l) xls/ods in $OUT"
