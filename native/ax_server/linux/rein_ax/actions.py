"""Actions on resolved elements, and synthetic input (XTest through the AT-SPI registry)."""

import time

from gi.repository import Atspi, GLib

from . import desktop, roles
from .desktop import S, AxFail, safe, bounds_of, extents
from .errors import SNAPSHOT_HINT

# Action names by preference: GTK3 click/press/activate/toggle, Qt Press/Toggle, links jump.
# Gecko names a check box's action after what it will do: `check` or `uncheck`.
CLICK_ACTIONS = ['click', 'press', 'activate', 'toggle', 'check', 'uncheck', 'jump', 'open', 'select', 'Press', 'Toggle', 'SetFocus']
PRESS_ACTIONS = ['press', 'click', 'activate', 'Press', 'toggle', 'Toggle', 'check', 'uncheck', 'jump']
TOGGLE_ACTIONS = ['toggle', 'click', 'press', 'activate', 'check', 'uncheck', 'Toggle', 'Press']
DEFAULT_WAIT_MS = 800


def wait_ms(params, default=DEFAULT_WAIT_MS):
    v = params.get('wait_ms')
    if v is None:
        return default
    return max(0, min(int(v), 10000))


def action_names(acc):
    try:
        n = Atspi.Action.get_n_actions(acc)
        return [Atspi.Action.get_action_name(acc, i) for i in range(n)]
    except GLib.Error:
        return []


def pick_action(acc, prefs):
    names = action_names(acc)
    lower = [n.lower() for n in names]
    for p in prefs:
        if p in names:
            return names.index(p), p
        if p.lower() in lower:
            return lower.index(p.lower()), names[lower.index(p.lower())]
    return None, None


def _bus(node):
    return node.acc.app.bus_name if node.acc.app is not None else None


def deepest_at(root, x, y):
    """The innermost element at a point below `root` (a window), in that window's coordinates as its
    toolkit reports them (screen coordinates, or window-relative ones on GTK 4)."""
    cur = root
    for _ in range(64):
        nxt = safe(lambda: Atspi.Component.get_accessible_at_point(cur, x, y, Atspi.CoordType.SCREEN))
        if nxt is None:
            nxt = _child_at(cur, x, y)
        if nxt is None or nxt.path == cur.path:
            return cur
        cur = nxt
    return cur


def _contains(b, x, y):
    return b is not None and b[0] <= x < b[0] + b[2] and b[1] <= y < b[1] + b[3]


def _child_at(acc, x, y):
    """The showing child at a point, for a container whose toolkit answers none: a GtkNotebook with its
    tabs hidden (Thunar's views) has page tabs without extents, so it finds no child at any point. A child
    without extents is passed through to its own children."""
    for c in desktop.children(acc):
        if S.SHOWING not in safe(lambda: desktop.states_of(c), set()):
            continue
        e = extents(c)
        if _contains(e, x, y):
            return c
        if e is None:
            for g in desktop.children(c):
                if S.SHOWING in safe(lambda: desktop.states_of(g), set()) and _contains(extents(g), x, y):
                    return g
    return None


def window_of(acc):
    return desktop.top_window(acc)


def is_within(acc, ancestor_path):
    cur = acc
    for _ in range(200):
        if cur is None:
            return False
        if cur.path == ancestor_path:
            return True
        cur = safe(lambda: cur.get_parent())
    return False


def centre(b):
    return b[0] + b[2] // 2, b[1] + b[3] // 2


def _label(node):
    return '%s "%s"' % (node.role, node.name)


def _covered(node, by):
    return AxFail('NOT_VISIBLE', '%s is covered at its centre by %s; nothing was clicked' % (_label(node), by),
                  hint='close or move what covers it (or scroll it into view), then take a new snapshot')


def check_point_shows(node, x, y):
    """Refuses unless the screen point shows the target, across all windows and apps: the X window on top
    at the point is the target's own window (not another app's, not a dialog of the same app), and within
    it the innermost accessible at the point is the target or inside it."""
    from . import xwin
    win = window_of(node.acc)
    pid = safe(lambda: node.acc.get_process_id())
    wname = desktop.norm(safe(lambda: win.get_name(), ''))
    wext = desktop.extents(win)
    top = xwin.topmost_at(x, y)
    if top is None:
        # No X server to ask for the stacking order: only a point that no other window contains is safe.
        for app, apid in desktop.desktop_apps():
            for w in desktop.children(app):
                if w.path == win.path and (w.app is None or win.app is None or w.app.bus_name == win.app.bus_name):
                    continue
                st = safe(lambda: desktop.states_of(w), set())
                b = desktop.bounds_of(w, w) if S.SHOWING in st else None
                if b is not None and b[0] <= x < b[0] + b[2] and b[1] <= y < b[1] + b[3]:
                    raise _covered(node, 'the window "%s" (pid %s), or it may be: the order of windows is unknown' % (
                        desktop.norm(safe(lambda: w.get_name(), '')), apid))
    elif not top:
        raise _covered(node, 'no window at all (the point is outside every window)')
    else:
        if top['pid'] != pid:
            raise _covered(node, 'the window "%s" of another app (pid %s)' % (top['name'], top['pid']))
        mine = xwin.window_for(pid, wname, (wext[2], wext[3]) if wext else None)
        if mine is None or mine['xid'] != top['xid']:
            raise _covered(node, 'another window of the app ("%s")' % top['name'])
    px, py = x, y
    if desktop._is_gtk4(node.acc):
        origin = desktop.window_origin(win)
        if origin is None:
            raise AxFail('NOT_VISIBLE', '%s: where its window is on the screen cannot be known, so no point is known to show it' % _label(node),
                         hint='use an action that needs no pointer (press, set_value, focus and key)')
        px, py = x - origin[0], y - origin[1]
    hit = deepest_at(win, px, py)
    if hit is None or not is_within(hit, node.acc.path):
        covering = safe(lambda: desktop.Node(hit)) if hit is not None else None
        raise _covered(node, _label(covering) if covering else 'nothing of its window')


# GTK's double-click time and distance are 400 ms and 5 px by default: two single clicks by ref on one place
# closer than that would reach the app as a double click (a tree row's activation).
_DOUBLE_CLICK_S = 0.5
_DOUBLE_CLICK_PX = 8
_last_click = [0.0, None]


def _single_click_at(x, y):
    """A left click at (x, y) that the toolkit cannot take for the second half of a double click."""
    last_t, last_p = _last_click
    gap = time.monotonic() - last_t
    if last_p is not None and gap < _DOUBLE_CLICK_S and abs(last_p[0] - x) <= _DOUBLE_CLICK_PX and abs(last_p[1] - y) <= _DOUBLE_CLICK_PX:
        time.sleep(_DOUBLE_CLICK_S - gap)
    Atspi.generate_mouse_event(x, y, 'b1c')
    _last_click[0], _last_click[1] = time.monotonic(), (x, y)


def _activates_row(acc):
    """Whether the element's `activate` action is its row's or item's activation, what a double click does:
    GTK's cells (GtkCellAccessible: "expand or contract", "edit", "activate") and icon view items."""
    return 'activate' in [n.lower() for n in action_names(acc)] and desktop.toolkit_of(acc)[0] == 'GTK'


def mouse_on_element(node, hub, kind, params):
    """A synthetic click at the element's centre, only when the point really shows that element."""
    b = bounds_of(node.acc)
    if b is None:
        raise AxFail('NOT_VISIBLE', '%s has no reliable screen bounds to click' % _label(node), hint=SNAPSHOT_HINT)
    x, y = centre(b)
    check_point_shows(node, x, y)
    seq = hub.seq
    if kind == 'b1c':
        _single_click_at(x, y)
    else:
        Atspi.generate_mouse_event(x, y, kind)
    return {'method': 'mouse', 'point': [x, y], 'effect': hub.wait_effect(seq, _bus(node), wait_ms(params))}


def _is_toggle(node):
    return node.role in ('checkbox', 'radio', 'switch') or node.raw in (Atspi.Role.TOGGLE_BUTTON, Atspi.Role.CHECK_MENU_ITEM, Atspi.Role.RADIO_MENU_ITEM)


def _is_on(states):
    return S.CHECKED in states or S.PRESSED in states


def _selection_container(node):
    """A row's or cell's container that selects its children (Selection), and the child's index in it."""
    if node.role not in ('row', 'cell'):
        return None, None
    parent = safe(lambda: node.acc.get_parent())
    if parent is not None and 'Selection' in desktop.interfaces_of(parent):
        return parent, safe(lambda: node.acc.get_index_in_parent())
    return None, None


def _verify_click(node, before, hub, params):
    """What a click should have done, read back: a toggle flipped (a radio on), a row selected. True when
    it did, None when there is nothing to read back, False when it did not."""
    acc = node.acc
    if _is_toggle(node):
        want = True if node.role == 'radio' or node.raw == Atspi.Role.RADIO_MENU_ITEM else not _is_on(before)
        ok, _ = hub.wait_until(lambda: _is_on(safe(lambda: _fresh_states(acc), set())) == want, wait_ms(params, 1000), 50)
        return bool(ok)
    container, _ = _selection_container(node)
    if container is not None and S.SELECTABLE in before:
        ok, _ = hub.wait_until(lambda: S.SELECTED in safe(lambda: _fresh_states(acc), set()), wait_ms(params, 600), 50)
        return bool(ok)
    return None


def click(params, hub, own_pid, press_only=False):
    if 'target' not in params:
        if press_only:
            raise AxFail('INVALID', 'press needs a target')
        return mouse({'action': 'click', 'x': params.get('x'), 'y': params.get('y'), 'button': params.get('button'),
                      'count': params.get('count'), 'wait_ms': params.get('wait_ms')}, hub)
    node, how = desktop.resolve(params['target'], own_pid, 'act')
    button = params.get('button') or 'left'
    count = int(params.get('count') or 1)
    out = {'acted_on': desktop.acted_on(node, how)}
    before = set(node.states)
    if button == 'left' and count == 1:
        idx, name = pick_action(node.acc, PRESS_ACTIONS if press_only else CLICK_ACTIONS)
        container, index = _selection_container(node)
        selectable = container is not None and index is not None and S.SELECTABLE in before
        if selectable and not press_only and _activates_row(node.acc):
            # A GTK tree cell's `activate` is its row's activation (`row-activated`: a double click, which
            # opens the file in a file list). A click selects and focuses it, as one mouse click does.
            idx, name = -1, None
        if idx is None and selectable:
            idx, name = -1, None
        if idx is not None:
            seq = hub.seq
            if idx >= 0:
                ok = safe(lambda: Atspi.Action.do_action(node.acc, idx), False)
                if not ok:
                    raise AxFail('FAILED', '%s refused its %s action' % (_label(node), name))
                method = 'action:%s' % name
                verified = _verify_click(node, before, hub, params)
            else:
                verified, method = False, None
            covered = None
            if verified is False and container is not None and index is not None and (idx < 0 or S.SELECTED not in safe(lambda: _fresh_states(node.acc), set())):
                # A row or cell with no action of its own that selects it: click it as a person would, with
                # the pointer (the point checked to show it), else focus it (a GTK 3 tree view then moves its
                # cursor there and selects it), else select it through its container.
                b = bounds_of(node.acc)
                if b is not None:
                    x, y = centre(b)
                    try:
                        check_point_shows(node, x, y)
                    except AxFail as e:
                        covered = e
                    if covered is None:
                        _single_click_at(x, y)
                        method = 'mouse'
                        out['point'] = [x, y]
                        verified = _verify_click(node, before, hub, params)
                if verified is False and S.FOCUSABLE in before and safe(lambda: Atspi.Component.grab_focus(node.acc), False):
                    method = 'focus'
                    verified = _verify_click(node, before, hub, params)
                if verified is False and safe(lambda: Atspi.Selection.select_child(container, index), False):
                    method = 'select'
                    verified = _verify_click(node, before, hub, params)
            if verified is False and covered is not None:
                raise covered
            if verified is False:
                what = 'toggle' if _is_toggle(node) else 'become selected'
                raise AxFail('FAILED', '%s did not %s: the %s was done and nothing changed' % (_label(node), what, method or 'click'),
                             hint='take a new snapshot to see its state; it may need another way (keys, or the mouse)')
            # Verified or not, the app's own event is waited for (it returns at once when it has come).
            out.update({'method': method, 'effect': hub.wait_effect(seq, _bus(node), wait_ms(params))})
            if verified:
                out['verified'] = True
            return out
        if press_only:
            raise AxFail('UNSUPPORTED', '%s has no press action' % _label(node), hint='use click, which falls back to the mouse')
    kind = {('left', 1): 'b1c', ('left', 2): 'b1d', ('right', 1): 'b3c', ('middle', 1): 'b2c'}.get((button, count))
    if kind is None:
        kind = 'b1c'
    out.update(mouse_on_element(node, hub, kind, params))
    if button == 'left' and count == 1:
        v = _verify_click(node, before, hub, params)
        if v is False:
            raise AxFail('FAILED', 'the mouse click on %s did not change it' % _label(node))
        if v:
            out['verified'] = True
    return out


def combo_selection(acc):
    """The name of a combo box's chosen item: its Selection, else a checked or selected item inside it."""
    if 'Selection' in desktop.interfaces_of(acc):
        child = safe(lambda: Atspi.Selection.get_selected_child(acc, 0))
        if child is not None:
            n = desktop.name_of(child)
            if n:
                return n
    for item in desktop.walk_matches(acc, lambda a: safe(lambda: a.get_role()) in (Atspi.Role.MENU_ITEM, Atspi.Role.LIST_ITEM,
                                                                                    Atspi.Role.CHECK_MENU_ITEM, Atspi.Role.RADIO_MENU_ITEM), 500):
        st = safe(lambda: item.get_state_set().get_states(), []) or []
        if S.SELECTED in st or S.CHECKED in st:
            n = desktop.name_of(item)
            if n:
                return n
    return None


def get_value(params, own_pid):
    node, how = desktop.resolve(params.get('target'), own_pid, 'read')
    acc = node.acc
    out = {'acted_on': desktop.acted_on(node, how)}
    ifaces = desktop.interfaces_of(acc)
    if roles.is_secret(node.raw, node.states):
        out.update({'value': None, 'kind': 'text', 'secure': True})
        n = _text_len(acc)
        if n is not None:
            out['length'] = n
        return out
    if 'Value' in ifaces and node.role in roles.NUMBER_VALUE_ROLES:
        out.update({'value': '%g' % Atspi.Value.get_current_value(acc), 'kind': 'number',
                    'min': safe(lambda: Atspi.Value.get_minimum_value(acc)), 'max': safe(lambda: Atspi.Value.get_maximum_value(acc))})
    elif node.role == 'combobox' and not ('Text' in ifaces and S.EDITABLE in node.states) and combo_selection(acc) is not None:
        out.update({'value': combo_selection(acc), 'kind': 'text'})
    elif 'Text' in ifaces and node.role in roles.TEXT_READ_ROLES:
        out.update({'value': desktop.text_of(acc), 'kind': 'text'})
    elif node.role in ('checkbox', 'radio', 'switch') or S.CHECKABLE in node.states or node.raw == Atspi.Role.TOGGLE_BUTTON:
        out.update({'value': 'true' if S.CHECKED in node.states or S.PRESSED in node.states else 'false', 'kind': 'state'})
    else:
        out.update({'value': node.name, 'kind': 'name'})
    if S.CHECKED in node.states:
        out['checked'] = True
    return out


TRUE_WORDS = {'true', 'on', 'yes', '1', 'checked'}
FALSE_WORDS = {'false', 'off', 'no', '0', 'unchecked'}


def _text_is(acc, value, secret):
    def check():
        safe(lambda: acc.clear_cache())
        if secret:
            return _text_len(acc) == desktop.text_units(acc, value)
        return safe(lambda: desktop.text_of(acc)) == value
    return check


def set_value(params, hub, own_pid):
    node, how = desktop.resolve(params.get('target'), own_pid, 'act')
    acc = node.acc
    value = params.get('value')
    if not isinstance(value, str):
        raise AxFail('INVALID', 'value must be a string')
    out = {'acted_on': desktop.acted_on(node, how)}
    ifaces = desktop.interfaces_of(acc)
    bus = _bus(node)
    seq = hub.seq
    secret = roles.is_secret(node.raw, node.states)
    if _is_toggle(node):
        want = value.strip().lower()
        if want not in TRUE_WORDS | FALSE_WORDS:
            raise AxFail('INVALID', '%s takes true or false, not %r' % (node.role, value))
        on = want in TRUE_WORDS
        if on == _is_on(node.states):
            out.update({'method': 'none', 'value': 'true' if on else 'false', 'verified': True, 'effect': {'observed': True, 'events': [], 'waited_ms': 0}})
            return out
        idx, name = pick_action(acc, TOGGLE_ACTIONS)
        if idx is None or not safe(lambda: Atspi.Action.do_action(acc, idx), False):
            raise AxFail('FAILED', 'could not toggle %s' % _label(node))
        ok, _ = hub.wait_until(lambda: _is_on(safe(lambda: _fresh_states(acc), set())) == on, wait_ms(params, 1000), 50)
        if not ok:
            raise AxFail('FAILED', '%s did not become %s after its %s action' % (_label(node), 'checked' if on else 'unchecked', name))
        out.update({'method': 'action:%s' % name, 'value': 'true' if on else 'false', 'verified': True, 'effect': hub.wait_effect(seq, bus, wait_ms(params))})
        return out
    if 'Value' in ifaces and node.role in ('slider', 'spinbutton', 'scrollbar'):
        try:
            number = float(value)
        except ValueError:
            raise AxFail('INVALID', '%s takes a number, not %r' % (node.role, value))
        lo = safe(lambda: Atspi.Value.get_minimum_value(acc))
        hi = safe(lambda: Atspi.Value.get_maximum_value(acc))
        if lo is not None and hi is not None and hi > lo and not (lo <= number <= hi):
            raise AxFail('INVALID', '%g is outside %s’s range %g–%g' % (number, _label(node), lo, hi))
        if not safe(lambda: Atspi.Value.set_current_value(acc, number), False):
            raise AxFail('FAILED', '%s refused the value %g' % (_label(node), number))
        step = safe(lambda: Atspi.Value.get_minimum_increment(acc)) or 0

        def near():
            safe(lambda: acc.clear_cache())
            now = safe(lambda: Atspi.Value.get_current_value(acc))
            return now is not None and abs(now - number) <= max(step / 2, 1e-9 * max(1, abs(number)))
        ok, _ = hub.wait_until(near, wait_ms(params, 1000), 50)
        now = safe(lambda: Atspi.Value.get_current_value(acc))
        if not ok:
            raise AxFail('FAILED', '%s is %s, not the value %g that was set' % (_label(node), '?' if now is None else '%g' % now, number))
        out.update({'method': 'value', 'value': None if now is None else '%g' % now, 'verified': True, 'effect': hub.wait_effect(seq, bus, 0)})
        return out
    if 'EditableText' in ifaces:
        if S.EDITABLE not in node.states or S.READ_ONLY in node.states:
            raise AxFail('DISABLED', '%s is read-only' % _label(node))
        before = safe(lambda: desktop.text_of(acc), '') or ''
        said = safe(lambda: Atspi.EditableText.set_text_contents(acc, value), False)
        ok, _ = hub.wait_until(_text_is(acc, value, secret), wait_ms(params, 1000), 50) if said else (False, 0)
        method = 'editable_text'
        if not ok:
            safe(lambda: acc.clear_cache())
            now = safe(lambda: desktop.text_of(acc), '') or ''
            if now != before and not secret:
                raise AxFail('FAILED', 'the text of %s did not become the value that was set: it reads %r' % (_label(node), desktop.clip(now, 80)))
            # The text interface did nothing (Gecko's answers true and ignores it; a password field of
            # any toolkit is checked by its length): select all and type the value, into this app only.
            root = desktop.app_of(acc)
            pid = safe(lambda: acc.get_process_id())
            focus_app_window(root, pid, hub, window_of(acc))
            if not _focus_node(node, hub):
                raise AxFail('FAILED', '%s ignored the new text and did not take the keyboard focus; nothing was typed' % _label(node))
            send_combo(1 << 2, keysym('a'))
            if value:
                _type_keys(value, pid, hub, bus)
            else:
                send_combo(0, keysym('BackSpace'))
            ok, _ = hub.wait_until(_text_is(acc, value, secret), wait_ms(params, 1500), 50)
            method = 'keys'
            if not ok:
                n = _text_len(acc)
                raise AxFail('FAILED', '%s did not take the value: it has %s character%s, not %d' % (
                    _label(node), n, '' if n == 1 else 's', len(value)) if secret else
                    'the text of %s did not become the value that was set (neither through its text interface nor typed)' % _label(node))
        out.update({'method': method, 'value': None if secret else desktop.clip(value), 'verified': True, 'effect': hub.wait_effect(seq, bus, 0)})
        if secret:
            out['secure'] = True
        return out
    if node.role == 'combobox':
        return _choose_in_combo(node, value, hub, params, out)
    raise AxFail('UNSUPPORTED', '%s has no value to set (no text, number or check state)' % _label(node))


def _choose_in_combo(node, value, hub, params, out):
    acc = node.acc
    items = desktop.walk_matches(acc, lambda a: safe(lambda: a.get_role()) in (Atspi.Role.MENU_ITEM, Atspi.Role.LIST_ITEM,
                                                                                Atspi.Role.CHECK_MENU_ITEM, Atspi.Role.RADIO_MENU_ITEM), 500)
    named = [a for a in items if desktop.name_of(a) == desktop.norm(value)]
    if not named:
        raise AxFail('NOT_FOUND', 'combobox "%s" has no item called %r' % (node.name, value))
    if len(named) > 1:
        raise AxFail('AMBIGUOUS', 'combobox "%s" has %d items called %r' % (node.name, len(named), value))
    item = named[0]
    want = desktop.norm(value)
    seq = hub.seq

    def chosen():
        safe(lambda: acc.clear_cache())
        return combo_selection(acc) == want or desktop.name_of(acc) == want

    index = safe(lambda: item.get_index_in_parent())
    method = None
    # On the combo itself (GTK 3's combo sets its active item); selecting on the popup menu only
    # highlights the item and leaves the combo blank.
    if index is not None and 'Selection' in desktop.interfaces_of(acc) and safe(lambda: Atspi.Selection.select_child(acc, index), False):
        ok, _ = hub.wait_until(chosen, wait_ms(params, 800), 50)
        method = 'select' if ok else None
    if method is None:
        idx, name = pick_action(item, CLICK_ACTIONS)
        if idx is not None and safe(lambda: Atspi.Action.do_action(item, idx), False):
            ok, _ = hub.wait_until(chosen, wait_ms(params, 1000), 50)
            method = 'action:%s' % name if ok else None
    if method is None:
        raise AxFail('FAILED', 'could not choose %r in combobox "%s": it shows %r' % (value, node.name, combo_selection(acc) or desktop.name_of(acc)))
    out.update({'method': method, 'value': want, 'verified': True, 'effect': hub.wait_effect(seq, _bus(node), 0)})
    return out


def focus(params, hub, own_pid):
    if params.get('target'):
        node, how = desktop.resolve(params['target'], own_pid, 'act')
        ok = _focus_node(node, hub)
        if not ok:
            raise AxFail('FAILED', '%s "%s" did not take the keyboard focus' % (node.role, node.name))
        return {'acted_on': desktop.acted_on(node, how), 'focused': True}
    root, pid = desktop.find_app(params, own_pid)
    wins = [w for w in desktop.children(root) if S.SHOWING in safe(lambda: desktop.states_of(w), set())]
    if not wins:
        raise AxFail('NOT_VISIBLE', 'the app has no window on screen')
    w = wins[0]
    active = S.ACTIVE in safe(lambda: desktop.states_of(w), set())
    if not active:
        safe(lambda: Atspi.Component.grab_focus(w))
        active, _ = hub.wait_until(lambda: S.ACTIVE in safe(lambda: _fresh_states(w), set()), 1000)
    return {'app': desktop.app_info(root, pid, windows=False), 'window': desktop.norm(safe(lambda: w.get_name(), '')), 'focused': bool(active)}


def _fresh_states(acc):
    safe(lambda: acc.clear_cache())
    return desktop.states_of(acc)


def _focus_node(node, hub):
    if S.FOCUSED in node.states:
        return True
    safe(lambda: Atspi.Component.grab_focus(node.acc), False)
    ok, _ = hub.wait_until(lambda: S.FOCUSED in safe(lambda: _fresh_states(node.acc), set()), 1000, 50)
    return bool(ok)


# ---------------------------------------------------------------------------------------------- keys

_KEY_ALIASES = {
    'enter': 'Return', 'return': 'Return', 'esc': 'Escape', 'escape': 'Escape', 'tab': 'Tab', 'space': 'space',
    'backspace': 'BackSpace', 'delete': 'Delete', 'del': 'Delete', 'forwarddelete': 'Delete', 'home': 'Home', 'end': 'End',
    'pageup': 'Page_Up', 'page_up': 'Page_Up', 'pagedown': 'Page_Down', 'page_down': 'Page_Down', 'up': 'Up', 'down': 'Down',
    'left': 'Left', 'right': 'Right', 'insert': 'Insert', 'menu': 'Menu',
}
_MODIFIERS = {
    'ctrl': 2, 'control': 2, 'shift': 0, 'alt': 3, 'option': 3, 'super': 6, 'meta': 6, 'win': 6, 'cmd': 6, 'command': 6,
}


def _gdk():
    import gi
    gi.require_version('Gdk', '3.0')
    from gi.repository import Gdk
    return Gdk


def keysym(name):
    Gdk = _gdk()
    if len(name) == 1:
        return Gdk.unicode_to_keyval(ord(name))
    alias = _KEY_ALIASES.get(name.lower())
    if alias:
        return Gdk.keyval_from_name(alias)
    if name.lower().startswith('f') and name[1:].isdigit():
        return Gdk.keyval_from_name('F%d' % int(name[1:]))
    v = Gdk.keyval_from_name(name)
    if v and v != 0xffffff:
        return v
    raise AxFail('INVALID', 'unknown key %r (use names like Return, Tab, Escape, Up, F5, a, or ctrl+shift+a)' % name)


def parse_combo(keys):
    if not isinstance(keys, str) or not keys.strip():
        raise AxFail('INVALID', 'keys must be a key name or a combination such as ctrl+a')
    parts = [p for p in keys.strip().split('+')]
    if keys.strip().endswith('++'):
        parts = parts[:-2] + ['+']
    mods = 0
    for m in parts[:-1]:
        bit = _MODIFIERS.get(m.strip().lower())
        if bit is None:
            raise AxFail('INVALID', 'unknown modifier %r (ctrl, shift, alt, super)' % m)
        mods |= 1 << bit
    return mods, keysym(parts[-1].strip() or '+')


def send_combo(mods, sym):
    if mods:
        Atspi.generate_keyboard_event(mods, None, Atspi.KeySynthType.LOCKMODIFIERS)
    try:
        Atspi.generate_keyboard_event(sym, None, Atspi.KeySynthType.SYM)
    finally:
        if mods:
            Atspi.generate_keyboard_event(mods, None, Atspi.KeySynthType.UNLOCKMODIFIERS)


def _app_of_pid(pid, own_pid):
    for a, p in desktop.desktop_apps():
        if p == pid and p != own_pid:
            return a, p
    return None, None


def keyboard_app(params, own_pid):
    """The app keys without a target are for: the one `pid`/`app` names, else the one whose window holds
    the X keyboard focus (the app they would reach anyway), else the one with the active window."""
    from . import xwin
    if params.get('pid') is not None or params.get('app'):
        return desktop.find_app(params, own_pid)
    fp = xwin.focus_pid()
    if fp:
        root, pid = _app_of_pid(fp, own_pid)
        if root is None:
            raise AxFail('NOT_FOUND', 'the keyboard focus is in a window of pid %d, which is not on the accessibility bus; no keys were sent' % fp,
                         hint='name the app the keys are for (app or pid), or focus it first')
        return root, pid
    return desktop.find_app({}, own_pid)


def _showing_windows(root):
    out = []
    for w in desktop.children(root):
        st = safe(lambda: _fresh_states(w), set())
        if S.SHOWING in st or not desktop.states_known(w, st):
            out.append((w, st))
    return out


def _holds_keyboard(win, pid):
    """The app's window is active and (when there is an X server to ask) its app holds the X input focus."""
    from . import xwin
    if S.ACTIVE not in safe(lambda: _fresh_states(win), set()):
        return False
    return not xwin.available() or xwin.focus_pid() == pid


def focus_app_window(root, pid, hub, win=None):
    """Gives the keyboard focus to the app's window (`win`, else its active or first window) and checks it
    with the X server, so keystrokes reach this app and no other. Refuses otherwise: no key is sent."""
    from . import xwin
    if win is None:
        wins = _showing_windows(root)
        if not wins:
            raise AxFail('NOT_VISIBLE', 'the app (pid %d) has no window on screen; no keys were sent' % pid)
        active = [w for w, st in wins if S.ACTIVE in st]
        win = active[0] if active else wins[0][0]
    if _holds_keyboard(win, pid):
        return win
    safe(lambda: Atspi.Component.grab_focus(win))
    ok, _ = hub.wait_until(lambda: _holds_keyboard(win, pid), 700, 50)
    if not ok and xwin.available():
        ext = desktop.extents(win)
        xw = xwin.window_for(pid, desktop.norm(safe(lambda: win.get_name(), '')), (ext[2], ext[3]) if ext else None)
        if xw is not None:
            xwin.activate(xw['xid'])
            ok, _ = hub.wait_until(lambda: _holds_keyboard(win, pid), 1000, 50)
    if not ok:
        other = xwin.focus_pid()
        raise AxFail('NOT_VISIBLE', 'could not give the keyboard focus to the window "%s" (pid %d)%s; no keys were sent' % (
            desktop.norm(safe(lambda: win.get_name(), '')), pid, ', it stays with pid %s' % other if other and other != pid else ''),
            hint='bring the app to the front (accessibility focus with app), then try again')
    return win


def _prepare_keyboard(params, own_pid, hub):
    """Keys always go to a named app: the target's (focused first), or the app `keyboard_app` picks. Its
    window gets the keyboard focus, checked with the X server, so keystrokes cannot land in another app.
    Returns (node or None, how, bus, root, pid)."""
    if params.get('target'):
        node, how = desktop.resolve(params['target'], own_pid, 'act')
        root = desktop.app_of(node.acc)
        pid = safe(lambda: node.acc.get_process_id())
        focus_app_window(root, pid, hub, window_of(node.acc))
        if not _focus_node(node, hub):
            raise AxFail('FAILED', '%s did not take the keyboard focus; no keys were sent' % _label(node))
        return node, how, _bus(node), root, pid
    root, pid = keyboard_app(params, own_pid)
    focus_app_window(root, pid, hub)
    return None, None, (root.app.bus_name if root.app is not None else None), root, pid


def _app_result(out, node, how, root, pid):
    if node is not None:
        out['acted_on'] = desktop.acted_on(node, how)
    else:
        out['app'] = desktop.app_info(root, pid, windows=False)
    return out


def key(params, hub, own_pid):
    combos = [parse_combo(k) for k in (params.get('keys') if isinstance(params.get('keys'), list) else [params.get('keys')])]
    node, how, bus, root, pid = _prepare_keyboard(params, own_pid, hub)
    from . import xwin
    seq = hub.seq
    for i, (mods, sym) in enumerate(combos):
        if i and xwin.available() and xwin.focus_pid() != pid:
            raise AxFail('FAILED', 'the keyboard focus left the app (pid %d) after %d of %d keys; the rest were not sent' % (pid, i, len(combos)))
        send_combo(mods, sym)
    # Only the app's own events count as its reaction.
    return _app_result({'method': 'keys', 'effect': hub.wait_effect(seq, bus, wait_ms(params, 400))}, node, how, root, pid)


def _text_len(acc):
    return safe(lambda: Atspi.Text.get_character_count(acc))


def _focused_text(root):
    """The app's focused element when it shows text (where typed characters go), else None."""
    found = desktop.collection_matches(root, states=[S.FOCUSED]) or []
    if not found:
        # GTK 4 answers no Collection match for states: walk the showing part of the tree.
        found = desktop.walk_matches(root, lambda a: S.FOCUSED in safe(lambda: a.get_state_set().get_states(), []), 5000)
    for acc in reversed(found):
        if 'Text' in desktop.interfaces_of(acc):
            return acc
    return None


def _expect_inserted(acc, before, caret, text, secret):
    """A check that the text now reads `before` with `text` inserted at `caret` (the count only, for secret
    text; a selection the typing replaced is allowed for)."""
    def check():
        safe(lambda: acc.clear_cache())
        if secret:
            n = _text_len(acc)
            return n is not None and n == len(before) + desktop.text_units(acc, text)
        now = safe(lambda: desktop.text_of(acc))
        if now is None:
            return False
        if now == before[:caret] + text + before[caret:]:
            return True
        return now.count(text) > before.count(text) and len(now) <= len(before) + len(text)
    return check


def _type_keys(text, pid, hub, bus=None):
    """Each character as a key, the X focus checked before each: a focus that moves stops the typing.

    A character the keyboard map lacks (ë, 日) is typed by the registry through a spare key code that it
    remaps for that character. The app reads the map when it handles the key, so a second such character
    sent before the app handled the first re-maps the code under it: "Zoë 日本" arrived as "Zo本 本本" in
    Firefox. After each of them the app's event inserting that character is awaited (bounded) before the
    next key goes."""
    from . import xwin
    for i, ch in enumerate(text):
        if xwin.available() and xwin.focus_pid() != pid:
            raise AxFail('FAILED', 'the keyboard focus left the app (pid %d) after %d of %d characters; the rest was not typed' % (pid, i, len(text)))
        if ch == '\n':
            send_combo(0, keysym('Return'))
        elif ch == '\t':
            send_combo(0, keysym('Tab'))
        elif ord(ch) < 0x80:
            send_combo(0, keysym(ch))
        else:
            seq = hub.seq
            send_combo(0, keysym(ch))
            # Its own insertion, not that of a character typed just before it (a secret field's text is
            # masked: there the wait runs out, which leaves the app the time all the same).
            hub.wait_until(lambda: any(e[2].startswith('object:text-changed:insert') and e[5] and ch in e[5] for e in hub.since(seq, bus)), 600, 20)


def _byte_length(acc, text):
    """The length AT-SPI's InsertText wants: bytes of UTF-8 for ATK and GTK 4 (GtkEditable's length), UTF-16
    units for Qt (a QString's length). Passing code points cut "ÄÖ 日本" short."""
    if desktop.is_qt(acc):
        return len(text.encode('utf-16-le')) // 2
    return len(text.encode('utf-8'))


def type_text(params, hub, own_pid):
    text = params.get('text')
    if not isinstance(text, str) or text == '':
        raise AxFail('INVALID', 'text must be a non-empty string')
    if params.get('target'):
        node, how = desktop.resolve(params['target'], own_pid, 'act')
        acc = node.acc
        ifaces = desktop.interfaces_of(acc)
        secret = roles.is_secret(node.raw, node.states)
        if 'EditableText' in ifaces and S.EDITABLE in node.states:
            # Inserted at the caret through the toolkit: no keyboard involved, nothing lands elsewhere.
            before = safe(lambda: desktop.text_of(acc), '') or ''
            caret = safe(lambda: Atspi.Text.get_caret_offset(acc), -1)
            if caret is None or caret < 0 or caret > len(before):
                caret = len(before)
            seq = hub.seq
            ok = safe(lambda: Atspi.EditableText.insert_text(acc, caret, text, _byte_length(acc, text)), False)
            landed = _expect_inserted(acc, before, caret, text, secret)
            done, _ = hub.wait_until(landed, wait_ms(params, 1000), 50) if ok else (False, 0)
            out = {'acted_on': desktop.acted_on(node, how), 'method': 'insert_text'}
            if done:
                out.update({'effect': hub.wait_effect(seq, _bus(node), 0), 'verified': True})
                return out
            safe(lambda: acc.clear_cache())
            now = safe(lambda: desktop.text_of(acc), '') or ''
            if now != before:
                raise AxFail('FAILED', '%s did not get the text: it reads %r now' % (_label(node), '…' if secret else desktop.clip(now, 80)))
            # The text interface said yes and did nothing (Gecko): type it, through the app's focus.
            root = desktop.app_of(acc)
            pid = safe(lambda: acc.get_process_id())
            focus_app_window(root, pid, hub, window_of(acc))
            if not _focus_node(node, hub):
                raise AxFail('FAILED', '%s ignored the inserted text and did not take the keyboard focus; nothing was typed' % _label(node))
            safe(lambda: acc.clear_cache())
            before = safe(lambda: desktop.text_of(acc), '') or ''
            safe(lambda: Atspi.Text.set_caret_offset(acc, min(caret, len(before))))
            caret = safe(lambda: Atspi.Text.get_caret_offset(acc), len(before))
            seq = hub.seq
            _type_keys(text, pid, hub, _bus(node))
            done, _ = hub.wait_until(_expect_inserted(acc, before, caret if 0 <= caret <= len(before) else len(before), text, secret),
                                     wait_ms(params, 1500), 50)
            if not done:
                raise AxFail('FAILED', '%s did not get the typed text (its text interface ignores insertions, and typing did not land either)' % _label(node))
            out.update({'method': 'keys', 'effect': hub.wait_effect(seq, _bus(node), 0), 'verified': True})
            return out
    node, how, bus, root, pid = _prepare_keyboard(params, own_pid, hub)
    if node is not None:
        acc = node.acc
    else:
        # The focus event of a window just activated may still be on its way.
        acc, _ = hub.wait_until(lambda: _focused_text(root), 300, 30)
    secret = node is not None and roles.is_secret(node.raw, node.states)
    before = caret = None
    if acc is not None:
        safe(lambda: acc.clear_cache())
        before = safe(lambda: desktop.text_of(acc))
        caret = safe(lambda: Atspi.Text.get_caret_offset(acc), -1)
        if before is not None and (caret is None or not 0 <= caret <= len(before)):
            caret = len(before)
    seq = hub.seq
    _type_keys(text, pid, hub, bus)
    out = {'method': 'keys'}
    if before is not None and S.EDITABLE in safe(lambda: _fresh_states(acc), set()):
        done, _ = hub.wait_until(_expect_inserted(acc, before, caret, text, secret), wait_ms(params, 1000), 50)
        if not done:
            raise AxFail('FAILED', 'the typed text did not appear in the focused %s of the app (pid %d)' % (
                desktop.Node(acc).role if acc is not None else 'element', pid))
        out['verified'] = True
    else:
        # Nothing editable has the focus (shortcuts, a canvas): what the keys did cannot be read back.
        out['verified'] = False
    out['effect'] = hub.wait_effect(seq, bus, wait_ms(params, 400))
    return _app_result(out, node, how, root, pid)


# ---------------------------------------------------------------------------------------------- mouse

def mouse(params, hub):
    action = params.get('action') or 'click'
    x, y = params.get('x'), params.get('y')
    if not isinstance(x, (int, float)) or not isinstance(y, (int, float)):
        raise AxFail('INVALID', 'mouse needs x and y (screen pixels)')
    x, y = int(x), int(y)
    button = params.get('button') or 'left'
    count = int(params.get('count') or 1)
    b = {'left': 1, 'middle': 2, 'right': 3}.get(button)
    if b is None:
        raise AxFail('INVALID', 'button must be left, middle or right')
    seq = hub.seq
    if action == 'move':
        Atspi.generate_mouse_event(x, y, 'abs')
    elif action == 'click':
        if count == 2:
            Atspi.generate_mouse_event(x, y, 'b%dd' % b)
        else:
            for i in range(max(1, min(count, 3))):
                Atspi.generate_mouse_event(x, y, 'b%dc' % b)
    elif action == 'down':
        Atspi.generate_mouse_event(x, y, 'b%dp' % b)
    elif action == 'up':
        Atspi.generate_mouse_event(x, y, 'b%dr' % b)
    elif action == 'drag':
        tx, ty = params.get('to_x'), params.get('to_y')
        if not isinstance(tx, (int, float)) or not isinstance(ty, (int, float)):
            raise AxFail('INVALID', 'drag needs to_x and to_y')
        Atspi.generate_mouse_event(x, y, 'abs')
        Atspi.generate_mouse_event(x, y, 'b%dp' % b)
        steps = 8
        for i in range(1, steps + 1):
            Atspi.generate_mouse_event(int(x + (tx - x) * i / steps), int(y + (ty - y) * i / steps), 'abs')
        Atspi.generate_mouse_event(int(tx), int(ty), 'b%dr' % b)
    else:
        raise AxFail('INVALID', 'unknown mouse action %r' % action)
    return {'method': 'mouse', 'point': [x, y], 'effect': hub.wait_effect(seq, None, wait_ms(params, 300))}


# ---------------------------------------------------------------------------------------------- scroll

def _scrollbars(pane):
    bars = {}
    for c in desktop.children(pane):
        if safe(lambda: c.get_role()) == Atspi.Role.SCROLL_BAR:
            st = safe(lambda: desktop.states_of(c), set())
            bars['v' if S.VERTICAL in st else 'h'] = c
    return bars


def _scroll_pane_of(acc):
    cur = acc
    for _ in range(100):
        if cur is None:
            return None
        if safe(lambda: cur.get_role()) == Atspi.Role.SCROLL_PANE and _scrollbars(cur):
            return cur
        cur = safe(lambda: cur.get_parent())
    return None


def _adjust(bar, delta):
    v = Atspi.Value.get_current_value(bar)
    lo = Atspi.Value.get_minimum_value(bar)
    hi = Atspi.Value.get_maximum_value(bar)
    target = max(lo, min(hi, v + delta))
    Atspi.Value.set_current_value(bar, target)
    return v, target


def scroll(params, hub, own_pid):
    direction = params.get('direction') or 'down'
    amount = max(1, min(int(params.get('amount') or 3), 50))
    if direction not in ('up', 'down', 'left', 'right'):
        raise AxFail('INVALID', 'direction must be up, down, left or right')
    target = params.get('target')
    if not target:
        x, y = params.get('x'), params.get('y')
        if not isinstance(x, (int, float)) or not isinstance(y, (int, float)):
            raise AxFail('INVALID', 'scroll needs a target, or x and y')
        seq = hub.seq
        btn = {'up': 4, 'down': 5, 'left': 6, 'right': 7}[direction]
        for _ in range(amount):
            Atspi.generate_mouse_event(int(x), int(y), 'b%dc' % btn)
        return {'method': 'wheel', 'effect': hub.wait_effect(seq, None, wait_ms(params, 300))}
    node, how = desktop.resolve(target, own_pid, 'scroll')
    out = {'acted_on': desktop.acted_on(node, how)}
    bus = _bus(node)
    seq = hub.seq
    if params.get('into_view'):
        return _into_view(node, hub, out, params)
    pane = _scroll_pane_of(node.acc)
    if pane is not None:
        bars = _scrollbars(pane)
        bar = bars.get('v' if direction in ('up', 'down') else 'h')
        if bar is not None:
            page = safe(lambda: extents(pane), None)
            step = max(20, int((page[3] if direction in ('up', 'down') else page[2]) * 0.15)) if page else 60
            sign = -1 if direction in ('up', 'left') else 1
            before, after = _adjust(bar, sign * step * amount)
            out.update({'method': 'scrollbar', 'before': before, 'after': after, 'effect': hub.wait_effect(seq, bus, wait_ms(params, 300))})
            return out
    b = bounds_of(node.acc)
    if b is None:
        raise AxFail('NOT_VISIBLE', '%s "%s" has no bounds to scroll at' % (node.role, node.name))
    x, y = centre(b)
    btn = {'up': 4, 'down': 5, 'left': 6, 'right': 7}[direction]
    for _ in range(amount):
        Atspi.generate_mouse_event(x, y, 'b%dc' % btn)
    out.update({'method': 'wheel', 'effect': hub.wait_effect(seq, bus, wait_ms(params, 300))})
    return out


def _into_view(node, hub, out, params):
    acc = node.acc
    seq = hub.seq
    bus = _bus(node)

    def visible():
        b = extents(acc)
        return b is not None and desktop.on_screen(acc, b)

    if visible():
        out.update({'method': 'none', 'in_view': True, 'effect': {'observed': True, 'events': [], 'waited_ms': 0}})
        return out
    if safe(lambda: Atspi.Component.scroll_to(acc, Atspi.ScrollType.ANYWHERE), False):
        ok, _ = hub.wait_until(visible, 500, 30)
        if ok:
            out.update({'method': 'scroll_to', 'in_view': True, 'effect': hub.wait_effect(seq, bus, 0)})
            return out
    pane = _scroll_pane_of(acc)
    if pane is not None:
        bars = _scrollbars(pane)
        pb = extents(pane)
        for _ in range(4):
            b = extents(acc)
            if b is None or pb is None:
                break
            moved = False
            if 'v' in bars and (b[1] < pb[1] or b[1] + b[3] > pb[1] + pb[3]):
                delta = (b[1] - pb[1]) if b[1] < pb[1] else (b[1] + b[3] - (pb[1] + pb[3]))
                _adjust(bars['v'], delta)
                moved = True
            if 'h' in bars and (b[0] < pb[0] or b[0] + b[2] > pb[0] + pb[2]):
                delta = (b[0] - pb[0]) if b[0] < pb[0] else (b[0] + b[2] - (pb[0] + pb[2]))
                _adjust(bars['h'], delta)
                moved = True
            if not moved:
                break
            ok, _ = hub.wait_until(visible, 300, 20)
            if ok:
                out.update({'method': 'scrollbar', 'in_view': True, 'effect': hub.wait_effect(seq, bus, 0)})
                return out
    if S.FOCUSABLE in node.states:
        safe(lambda: Atspi.Component.grab_focus(acc))
        ok, _ = hub.wait_until(visible, 500, 30)
        if ok:
            out.update({'method': 'focus', 'in_view': True, 'effect': hub.wait_effect(seq, bus, 0)})
            return out
    raise AxFail('FAILED', 'could not bring %s "%s" into view' % (node.role, node.name))
