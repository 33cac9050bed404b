#!/bin/bash
# Lists the commits made since a point in time in every git repository under a folder, for a
# stand-up summary. Read-only: it runs `git log` and `git status` and nothing else.
#
#   standup.sh [folder] [since] [author]
#     folder  where to look for repositories, up to 4 levels deep (default: the home folder)
#     since   anything `git log --since` understands: "yesterday 00:00", "last friday 00:00",
#             "2 days ago", "2024-05-01". Default: the start of the previous working day
#             (Friday when today is Monday).
#     author  a pattern matched against author name and email; "all" for everyone.
#             Default: your git user.email (else user.name).
set -u
export LC_ALL=C

root="${1:-$HOME}"
since="${2:-}"
author="${3:-}"

if [ ! -d "$root" ]; then
  echo "no such folder: $root" >&2
  exit 2
fi
if ! command -v git >/dev/null 2>&1; then
  echo "git is not installed (on macOS: xcode-select --install)" >&2
  exit 3
fi
if [ -z "$since" ]; then
  if [ "$(date +%u)" = 1 ]; then since="last friday 00:00"; else since="yesterday 00:00"; fi
fi
if [ -z "$author" ]; then
  author="$(git config --global user.email 2>/dev/null || true)"
  [ -z "$author" ] && author="$(git config --global user.name 2>/dev/null || true)"
fi
[ "$author" = all ] && author=""

echo "Commits since: $since"
echo "Author: ${author:-everyone}"
echo "Searching: $root"

found=0
active=0
# Hidden folders (except .git itself), ~/Library, node_modules and the Trash are skipped: they hold
# no repositories worth reporting and are slow or permission-protected on macOS. Dates shown are
# commit dates, the ones `--since` filters on (a rebased commit counts as recent work).
while IFS= read -r -d '' gitdir; do
  repo="$(dirname "$gitdir")"
  found=$((found + 1))
  if [ -n "$author" ]; then
    log="$(git -C "$repo" log --all --no-merges --since="$since" --author="$author" --regexp-ignore-case \
      --date=format:'%a %H:%M' --format='  %cd  %h  %s' 2>/dev/null)"
  else
    log="$(git -C "$repo" log --all --no-merges --since="$since" \
      --date=format:'%a %H:%M' --format='  %cd  %h  %s  (%an)' 2>/dev/null)"
  fi
  [ -z "$log" ] && continue
  active=$((active + 1))
  branch="$(git -C "$repo" symbolic-ref --quiet --short HEAD 2>/dev/null || echo detached)"
  changed="$(git -C "$repo" status --porcelain 2>/dev/null | wc -l | tr -d ' ')"
  printf '\n== %s (on %s) ==\n%s\n' "$repo" "$branch" "$log"
  if [ "$changed" != 0 ]; then printf '  + %s uncommitted change(s)\n' "$changed"; fi
done < <(find "$root" -mindepth 1 -maxdepth 4 \
  \( -name node_modules -o -name Library -o -name .Trash -o \( -name '.?*' ! -name .git \) \) -prune \
  -o -name .git -print0 -prune 2>/dev/null | sort -z)

printf '\n%d repositories searched, %d with commits in the period.\n' "$found" "$active"
