#!/bin/bash
# Lists what is in a Downloads folder (top level only) so cleanup can be proposed. It never deletes,
# moves or changes anything.
#
#   scan.sh [folder] [days] [large_mb]
#     folder    default ~/Downloads
#     days      an item not modified for this many days is "old" (default 90)
#     large_mb  an item at least this many MB is "large" (default 500)
#
# Output: one tab-separated line per item, largest first:
#   size_mb  modified(YYYY-MM-DD)  flags  path
# flags: old, large, installer (.dmg .pkg .iso .xip .zip), copy (a name like "x (1).pdf"),
# or "-". A summary follows.
set -u
export LC_ALL=C

folder="${1:-$HOME/Downloads}"
days="${2:-90}"
large_mb="${3:-500}"
case "$days" in ''|*[!0-9]*) echo "days must be a whole number: $days" >&2; exit 2 ;; esac
case "$large_mb" in ''|*[!0-9]*) echo "large_mb must be a whole number: $large_mb" >&2; exit 2 ;; esac
if [ ! -d "$folder" ]; then
  echo "no such folder: $folder" >&2
  exit 2
fi
if ! ls "$folder" >/dev/null 2>&1; then
  echo "cannot read $folder (on macOS, allow Rein to access the Downloads folder in System Settings > Privacy & Security > Files and Folders)" >&2
  exit 3
fi

now="$(date +%s)"
if [ "$(uname -s)" = Darwin ]; then
  mtime() { stat -f '%m' "$1"; }
else
  mtime() { stat -c '%Y' "$1"; }
fi
day_of() {
  if [ "$(uname -s)" = Darwin ]; then date -r "$1" +%Y-%m-%d; else date -d "@$1" +%Y-%m-%d; fi
}

tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT

total_kb=0
old_kb=0
old_n=0
count=0
# -print0 and read -d '' keep names with spaces and newlines intact.
while IFS= read -r -d '' item; do
  kb="$(du -sk "$item" 2>/dev/null | cut -f1)"
  kb="${kb:-0}"
  m="$(mtime "$item" 2>/dev/null || echo "$now")"
  age_days=$(( (now - m) / 86400 ))
  flags=""
  if [ "$age_days" -ge "$days" ]; then flags="$flags,old"; old_kb=$((old_kb + kb)); old_n=$((old_n + 1)); fi
  if [ "$kb" -ge $((large_mb * 1024)) ]; then flags="$flags,large"; fi
  name="$(basename "$item")"
  lower="$(printf '%s' "$name" | tr '[:upper:]' '[:lower:]')"
  case "$lower" in
    *.dmg|*.pkg|*.iso|*.xip|*.zip) flags="$flags,installer" ;;
  esac
  # Browsers name a second download of the same file "name (1).ext".
  if printf '%s' "$name" | grep -Eq ' \([0-9]+\)(\.[^ ]*)?$'; then flags="$flags,copy"; fi
  flags="${flags#,}"
  printf '%d\t%s\t%s\t%s\n' "$kb" "$(day_of "$m")" "${flags:--}" "$item" >>"$tmp"
  total_kb=$((total_kb + kb))
  count=$((count + 1))
done < <(find "$folder" -mindepth 1 -maxdepth 1 ! -name '.DS_Store' ! -name '.localized' -print0)

printf 'size_mb\tmodified\tflags\tpath\n'
sort -t "$(printf '\t')" -k1,1nr "$tmp" | awk -F '\t' 'BEGIN { OFS = "\t" } { printf "%.1f\t%s\t%s\t%s\n", $1 / 1024, $2, $3, $4 }'
awk -v n="$count" -v t="$total_kb" -v o="$old_n" -v d="$days" -v ok="$old_kb" \
  'BEGIN { printf "\n%d items, %.1f MB in total; %d not modified for %d+ days (%.1f MB)\n", n, t / 1024, o, d, ok / 1024 }'
