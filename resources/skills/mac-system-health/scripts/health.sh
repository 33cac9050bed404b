#!/bin/bash
# Read-only snapshot of this Mac's health: OS, uptime and load, disk, memory and swap, battery,
# thermal state and the processes using the most CPU and memory. Changes nothing and needs no sudo.
# On other systems it prints what the portable commands can tell and says what it skipped.
set -u
export LC_ALL=C

section() { printf '\n== %s ==\n' "$1"; }
have() { command -v "$1" >/dev/null 2>&1; }
top_n="${1:-8}"
case "$top_n" in ''|*[!0-9]*) top_n=8 ;; esac

os="$(uname -s)"

section "System"
if [ "$os" = Darwin ] && have sw_vers; then
  printf '%s %s (build %s), %s\n' "$(sw_vers -productName)" "$(sw_vers -productVersion)" "$(sw_vers -buildVersion)" "$(uname -m)"
  model="$(sysctl -n hw.model 2>/dev/null)"
  [ -n "$model" ] && printf 'Model: %s\n' "$model"
else
  uname -srm
fi
uptime

section "Disk"
if [ "$os" = Darwin ] && [ -d /System/Volumes/Data ]; then
  # On APFS the sealed system volume and the data volume share one container; the data volume is
  # where the user's files (and the free space that matters) are.
  df -H / /System/Volumes/Data 2>/dev/null
else
  df -h / 2>/dev/null
fi

section "Memory"
if [ "$os" = Darwin ]; then
  mem_bytes="$(sysctl -n hw.memsize 2>/dev/null)"
  [ -n "$mem_bytes" ] && printf 'Installed: %s GB\n' "$((mem_bytes / 1073741824))"
  # One sample, no process list: the "PhysMem:" line is the same figure Activity Monitor shows.
  top -l 1 -n 0 2>/dev/null | grep -E '^PhysMem:'
  level="$(sysctl -n kern.memorystatus_vm_pressure_level 2>/dev/null)"
  case "$level" in
    1) echo 'Memory pressure: normal (green)' ;;
    2) echo 'Memory pressure: WARNING (yellow)' ;;
    4) echo 'Memory pressure: CRITICAL (red)' ;;
  esac
  sysctl -n vm.swapusage 2>/dev/null | sed 's/^/Swap: /'
elif [ -r /proc/meminfo ]; then
  grep -E '^(MemTotal|MemAvailable|SwapTotal|SwapFree):' /proc/meminfo
fi

section "Battery"
if [ "$os" = Darwin ] && have pmset; then
  pmset -g batt 2>/dev/null
  if pmset -g batt 2>/dev/null | grep -q 'InternalBattery'; then
    # Cycle count, condition and maximum capacity (the health figure shown in System Settings).
    system_profiler SPPowerDataType 2>/dev/null |
      grep -E 'Cycle Count|Condition|Maximum Capacity|Full Charge Capacity' | sed 's/^ */  /'
  fi
  # Quiet unless something was recorded: a healthy Mac prints only "Note: No … has been recorded".
  therm="$(pmset -g therm 2>/dev/null | grep -v '^Note: No ' | grep -v '^[[:space:]]*$')"
  [ -n "$therm" ] && printf 'Thermal:\n%s\n' "$therm"
else
  echo 'skipped (macOS only)'
fi

section "Top $top_n processes by CPU"
if [ "$os" = Darwin ]; then
  # BSD ps: -r sorts by CPU, -m by memory; rss is in KiB.
  ps -Ao pid,pcpu,pmem,rss,comm -r | head -n "$((top_n + 1))"
else
  ps -eo pid,pcpu,pmem,rss,comm --sort=-pcpu 2>/dev/null | head -n "$((top_n + 1))"
fi

section "Top $top_n processes by memory"
if [ "$os" = Darwin ]; then
  ps -Ao pid,pcpu,pmem,rss,comm -m | head -n "$((top_n + 1))"
else
  ps -eo pid,pcpu,pmem,rss,comm --sort=-rss 2>/dev/null | head -n "$((top_n + 1))"
fi
exit 0
