#!/bin/bash
# Moves the given files or folders to the Trash through Finder, so "Put Back" still works.
# Run it only after the user has agreed to the exact list. Paths must be absolute and must exist.
#
#   trash.sh /Users/me/Downloads/old.dmg "/Users/me/Downloads/report (1).pdf"
set -u
if [ "$#" -eq 0 ]; then
  echo "usage: trash.sh /absolute/path ..." >&2
  exit 2
fi
for p in "$@"; do
  case "$p" in
    /*) ;;
    *) echo "not an absolute path: $p" >&2; exit 2 ;;
  esac
  if [ ! -e "$p" ]; then
    echo "does not exist: $p" >&2
    exit 2
  fi
done
if [ "$(uname -s)" != Darwin ]; then
  if command -v gio >/dev/null 2>&1; then
    exec gio trash -- "$@"
  fi
  echo "moving to the Trash is only supported on macOS (or Linux with gio); nothing was changed" >&2
  exit 3
fi
# The paths travel as arguments, never spliced into the script, so quotes in names are harmless.
# The first run asks the user to let Rein control Finder (System Settings > Privacy & Security > Automation).
osascript \
  -e 'on run argv' \
  -e 'repeat with p in argv' \
  -e 'set f to (POSIX file (contents of p)) as alias' \
  -e 'tell application "Finder" to delete f' \
  -e 'end repeat' \
  -e 'return (count of argv) as text' \
  -e 'end run' \
  "$@" >/dev/null || exit $?
echo "moved $# item(s) to the Trash"
