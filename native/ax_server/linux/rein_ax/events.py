"""AT-SPI events, so the helper waits for what an action did instead of sleeping.

One listener for the events that show an effect (state, name, text, value, children, windows). Each event
gets a sequence number; an action notes the number before it acts and then waits — running the GLib main
context, which is how events arrive — until an event from the target's app comes in, then for a short
quiet spell so the effects of one action arrive together. Both waits are bounded."""

import time

from gi.repository import Atspi, GLib

EVENT_TYPES = [
    'object:state-changed', 'object:property-change', 'object:children-changed', 'object:text-changed',
    'object:value-changed', 'object:selection-changed', 'object:active-descendant-changed',
    'object:text-caret-moved', 'window:create', 'window:destroy', 'window:activate', 'window:deactivate',
]


class EventHub:
    def __init__(self):
        self.seq = 0
        self.recent = []  # (seq, monotonic time, type, bus name, path, text of a text-changed event or None)
        self._listener = None

    def start(self):
        if self._listener is not None:
            return
        self._listener = Atspi.EventListener.new(self._on_event)
        for t in EVENT_TYPES:
            try:
                self._listener.register(t)
            except GLib.Error:
                pass

    def _on_event(self, ev):
        self.seq += 1
        src = ev.source
        bus = src.app.bus_name if src is not None and src.app is not None else ''
        path = src.path if src is not None else ''
        data = None
        if ev.type.startswith('object:text-changed'):
            # The text inserted or deleted: typing waits for its own characters (actions._type_keys).
            try:
                v = ev.any_data
                data = v.get_value() if hasattr(v, 'get_value') else v
            except Exception:  # noqa: BLE001 (a toolkit that sends no text)
                data = None
        self.recent.append((self.seq, time.monotonic(), ev.type, bus, path, data if isinstance(data, str) else None))
        if len(self.recent) > 2000:
            del self.recent[:1000]

    def since(self, seq, bus=None):
        return [e for e in self.recent if e[0] > seq and (bus is None or e[3] == bus)]

    def wait_effect(self, seq, bus, max_ms, quiet_ms=6, cap_ms=120):
        """Waits until an event from `bus` arrived after `seq` (at most max_ms), then until the app has been
        quiet for quiet_ms (at most cap_ms more). Returns {observed, events, waited_ms}."""
        started = time.monotonic()
        deadline = started + max_ms / 1000.0
        first = None
        while True:
            got = self.since(seq, bus)
            now = time.monotonic()
            if got and first is None:
                first = now
            if first is not None:
                last = got[-1][1]
                if now - last >= quiet_ms / 1000.0 or now - first >= cap_ms / 1000.0:
                    break
                pump_until(min(last + quiet_ms / 1000.0, first + cap_ms / 1000.0))
                continue
            if now >= deadline:
                break
            pump_until(deadline, lambda: self.seq > seq and bool(self.since(seq, bus)))
        got = self.since(seq, bus)
        kinds = []
        for e in got:
            if e[2] not in kinds:
                kinds.append(e[2])
        return {'observed': bool(got), 'events': kinds[:12], 'waited_ms': round((time.monotonic() - started) * 1000, 1)}

    def wait_until(self, check, timeout_ms, fallback_ms=250):
        """Runs `check()` now and again after every event (and at least every fallback_ms) until it returns
        something truthy or the time is up. Returns (value, waited_ms)."""
        started = time.monotonic()
        deadline = started + timeout_ms / 1000.0
        seen = self.seq
        value = check()
        while not value:
            now = time.monotonic()
            if now >= deadline:
                break
            pump_until(min(deadline, now + fallback_ms / 1000.0), lambda: self.seq != seen)
            seen = self.seq
            value = check()
        return value, round((time.monotonic() - started) * 1000, 1)


def pump_until(deadline, stop=None):
    """Runs the default main context until `deadline` (monotonic seconds) or until stop() is true after an
    iteration. A timeout source makes sure a blocking iteration wakes up in time."""
    ctx = GLib.MainContext.default()
    fired = [False]

    def wake():
        fired[0] = True
        return False

    delay = max(0, int((deadline - time.monotonic()) * 1000))
    src = GLib.timeout_add(max(1, delay), wake)
    try:
        while not fired[0]:
            ctx.iteration(True)
            if stop is not None and stop():
                break
            if time.monotonic() >= deadline:
                break
    finally:
        if not fired[0]:
            GLib.source_remove(src)
