"""Actions on resolved elements, and synthetic input (XTest through the AT-SPI registry)."""

from gi.repository import Atspi, GLib

from . import desktop, roles
from .desktop import S, AxFail, safe, bounds_of
from .errors import SNAPSHOT_HINT

# Action names by preference: GTK3 click/press/activate/toggle, Qt Press/Toggle, links jump.
CLICK_ACTIONS = ['click', 'press', 'activate', 'toggle', 'jump', 'open', 'select', 'Press', 'Toggle', 'SetFocus']
PRESS_ACTIONS = ['press', 'click', 'activate', 'Press', 'toggle', 'Toggle', 'jump']
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
    """The innermost element at a screen point below `root`."""
    cur = root
    for _ in range(64):
        nxt = safe(lambda: Atspi.Component.get_accessible_at_point(cur, x, y, Atspi.CoordType.SCREEN))
        if nxt is None or nxt.path == cur.path:
            return cur
        cur = nxt
    return cur


def window_of(acc):
    cur = acc
    last = acc
    for _ in range(200):
        parent = safe(lambda: cur.get_parent())
        if parent is None or safe(lambda: parent.get_role()) == Atspi.Role.APPLICATION:
            return cur
        last = cur
        cur = parent
    return last


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


def mouse_on_element(node, hub, kind, params):
    """A synthetic click at the element's centre, only when the point really shows that element."""
    b = bounds_of(node.acc)
    if b is None:
        raise AxFail('NOT_VISIBLE', '%s "%s" has no bounds to click' % (node.role, node.name), hint=SNAPSHOT_HINT)
    x, y = centre(b)
    hit = deepest_at(window_of(node.acc), x, y)
    if hit is None or not is_within(hit, node.acc.path):
        covering = desktop.Node(hit) if hit is not None else None
        raise AxFail('NOT_VISIBLE', '%s "%s" is covered at its centre by %s' % (
            node.role, node.name, '%s "%s"' % (covering.role, covering.name) if covering else 'nothing of its window'),
            hint='close what covers it or scroll it into view, then take a new snapshot')
    seq = hub.seq
    Atspi.generate_mouse_event(x, y, kind)
    return {'method': 'mouse', 'point': [x, y], 'effect': hub.wait_effect(seq, _bus(node), wait_ms(params))}


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
    if button == 'left' and count == 1:
        idx, name = pick_action(node.acc, PRESS_ACTIONS if press_only else CLICK_ACTIONS)
        if idx is not None:
            seq = hub.seq
            ok = safe(lambda: Atspi.Action.do_action(node.acc, idx), False)
            if not ok:
                raise AxFail('FAILED', '%s "%s" refused its %s action' % (node.role, node.name, name))
            out.update({'method': 'action:%s' % name, 'effect': hub.wait_effect(seq, _bus(node), wait_ms(params))})
            return out
        if press_only:
            raise AxFail('UNSUPPORTED', '%s "%s" has no press action' % (node.role, node.name), hint='use click, which falls back to the mouse')
    kind = {('left', 1): 'b1c', ('left', 2): 'b1d', ('right', 1): 'b3c', ('middle', 1): 'b2c'}.get((button, count))
    if kind is None:
        kind = 'b1c'
    out.update(mouse_on_element(node, hub, kind, params))
    return out


def get_value(params, own_pid):
    node, how = desktop.resolve(params.get('target'), own_pid, 'read')
    acc = node.acc
    out = {'acted_on': desktop.acted_on(node, how)}
    ifaces = desktop.interfaces_of(acc)
    if roles.is_secret(node.raw, node.states):
        out.update({'value': None, 'kind': 'text', 'secure': True})
        return out
    if 'Value' in ifaces and node.role in roles.NUMBER_VALUE_ROLES:
        out.update({'value': '%g' % Atspi.Value.get_current_value(acc), 'kind': 'number',
                    'min': safe(lambda: Atspi.Value.get_minimum_value(acc)), 'max': safe(lambda: Atspi.Value.get_maximum_value(acc))})
    elif 'Text' in ifaces and node.role in ('textfield', 'textarea', 'combobox', 'text', 'spinbutton'):
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
    if node.role in ('checkbox', 'radio', 'switch') or node.raw == Atspi.Role.TOGGLE_BUTTON:
        want = value.strip().lower()
        if want not in TRUE_WORDS | FALSE_WORDS:
            raise AxFail('INVALID', '%s takes true or false, not %r' % (node.role, value))
        on = want in TRUE_WORDS
        is_on = S.CHECKED in node.states or S.PRESSED in node.states
        if on == is_on:
            out.update({'method': 'none', 'value': 'true' if on else 'false', 'effect': {'observed': True, 'events': [], 'waited_ms': 0}})
            return out
        idx, name = pick_action(acc, ['toggle', 'click', 'press', 'activate', 'Toggle', 'Press'])
        if idx is None or not safe(lambda: Atspi.Action.do_action(acc, idx), False):
            raise AxFail('FAILED', 'could not toggle %s "%s"' % (node.role, node.name))
        out.update({'method': 'action:%s' % name, 'value': 'true' if on else 'false', 'effect': hub.wait_effect(seq, bus, wait_ms(params))})
        return out
    if 'Value' in ifaces and node.role in ('slider', 'spinbutton', 'scrollbar'):
        try:
            number = float(value)
        except ValueError:
            raise AxFail('INVALID', '%s takes a number, not %r' % (node.role, value))
        lo = safe(lambda: Atspi.Value.get_minimum_value(acc))
        hi = safe(lambda: Atspi.Value.get_maximum_value(acc))
        if lo is not None and hi is not None and hi > lo and not (lo <= number <= hi):
            raise AxFail('INVALID', '%g is outside %s "%s"’s range %g–%g' % (number, node.role, node.name, lo, hi))
        if not safe(lambda: Atspi.Value.set_current_value(acc, number), False):
            raise AxFail('FAILED', '%s "%s" refused the value %g' % (node.role, node.name, number))
        effect = hub.wait_effect(seq, bus, wait_ms(params))
        now = safe(lambda: Atspi.Value.get_current_value(acc))
        out.update({'method': 'value', 'value': None if now is None else '%g' % now, 'effect': effect})
        return out
    if 'EditableText' in ifaces:
        if S.EDITABLE not in node.states or S.READ_ONLY in node.states:
            raise AxFail('DISABLED', '%s "%s" is read-only' % (node.role, node.name))
        if not safe(lambda: Atspi.EditableText.set_text_contents(acc, value), False):
            raise AxFail('FAILED', '%s "%s" refused the text' % (node.role, node.name))

        def landed():
            t = safe(lambda: desktop.text_of(acc))
            return t == value

        ok, _ = hub.wait_until(landed, wait_ms(params, 1000)) if not secret else (True, 0)
        effect = hub.wait_effect(seq, bus, 0)
        effect['observed'] = bool(ok) or effect['observed']
        out.update({'method': 'editable_text', 'value': None if secret else desktop.clip(value), 'effect': effect})
        if secret:
            out['secure'] = True
        if not ok:
            raise AxFail('FAILED', 'the text of %s "%s" did not become the value that was set' % (node.role, node.name))
        return out
    if node.role == 'combobox':
        return _choose_in_combo(node, value, hub, params, out)
    raise AxFail('UNSUPPORTED', '%s "%s" has no value to set (no text, number or check state)' % (node.role, node.name))


def _choose_in_combo(node, value, hub, params, out):
    items = desktop.walk_matches(node.acc, lambda a: safe(lambda: a.get_role()) in (Atspi.Role.MENU_ITEM, Atspi.Role.LIST_ITEM), 500)
    named = [a for a in items if desktop.name_of(a) == desktop.norm(value)]
    if not named:
        raise AxFail('NOT_FOUND', 'combobox "%s" has no item called %r' % (node.name, value))
    if len(named) > 1:
        raise AxFail('AMBIGUOUS', 'combobox "%s" has %d items called %r' % (node.name, len(named), value))
    item = named[0]
    parent = safe(lambda: item.get_parent())
    seq = hub.seq
    index = safe(lambda: item.get_index_in_parent())
    done = False
    if parent is not None and index is not None and 'Selection' in desktop.interfaces_of(parent):
        done = bool(safe(lambda: Atspi.Selection.select_child(parent, index), False))
    if not done:
        idx, _ = pick_action(item, CLICK_ACTIONS)
        done = idx is not None and bool(safe(lambda: Atspi.Action.do_action(item, idx), False))
    if not done:
        raise AxFail('FAILED', 'could not choose %r in combobox "%s"' % (value, node.name))
    effect = hub.wait_effect(seq, _bus(node), wait_ms(params))
    out.update({'method': 'select', 'value': desktop.norm(value), 'effect': effect})
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


def _window_active(node):
    w = window_of(node.acc)
    return S.ACTIVE in safe(lambda: _fresh_states(w), set())


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


def _prepare_keyboard(params, own_pid, hub):
    """With a target: focus it and make sure its window is the active one, so keystrokes cannot land in
    another app. Returns (node, how, bus) or (None, None, None)."""
    if not params.get('target'):
        return None, None, None
    node, how = desktop.resolve(params['target'], own_pid, 'act')
    if not _window_active(node):
        raise AxFail('NOT_VISIBLE', 'the window of %s "%s" is not the active window: keystrokes would go to another app' % (node.role, node.name),
                     hint='focus the app first (accessibility focus with app)')
    if not _focus_node(node, hub):
        raise AxFail('FAILED', '%s "%s" did not take the keyboard focus; no keys were sent' % (node.role, node.name))
    return node, how, _bus(node)


def key(params, hub, own_pid):
    combos = [parse_combo(k) for k in (params.get('keys') if isinstance(params.get('keys'), list) else [params.get('keys')])]
    node, how, bus = _prepare_keyboard(params, own_pid, hub)
    seq = hub.seq
    for mods, sym in combos:
        send_combo(mods, sym)
    out = {'method': 'keys', 'effect': hub.wait_effect(seq, bus, wait_ms(params, 400))}
    if node is not None:
        out['acted_on'] = desktop.acted_on(node, how)
    return out


def type_text(params, hub, own_pid):
    text = params.get('text')
    if not isinstance(text, str) or text == '':
        raise AxFail('INVALID', 'text must be a non-empty string')
    if params.get('target'):
        node, how = desktop.resolve(params['target'], own_pid, 'act')
        ifaces = desktop.interfaces_of(node.acc)
        if 'EditableText' in ifaces and S.EDITABLE in node.states:
            # Inserted at the caret through the toolkit: no keyboard focus involved, nothing lands elsewhere.
            seq = hub.seq
            caret = safe(lambda: Atspi.Text.get_caret_offset(node.acc), -1)
            if caret is None or caret < 0:
                caret = safe(lambda: Atspi.Text.get_character_count(node.acc), 0)
            ok = safe(lambda: Atspi.EditableText.insert_text(node.acc, caret, text, len(text)), False)
            if not ok:
                raise AxFail('FAILED', '%s "%s" refused the text' % (node.role, node.name))
            return {'acted_on': desktop.acted_on(node, how), 'method': 'insert_text', 'effect': hub.wait_effect(seq, _bus(node), wait_ms(params, 400))}
        node, how, bus = _prepare_keyboard(params, own_pid, hub)
    else:
        node, how, bus = None, None, None
    seq = hub.seq
    for ch in text:
        if ch == '\n':
            send_combo(0, keysym('Return'))
        elif ch == '\t':
            send_combo(0, keysym('Tab'))
        else:
            send_combo(0, keysym(ch))
    out = {'method': 'keys', 'effect': hub.wait_effect(seq, bus, wait_ms(params, 400))}
    if node is not None:
        out['acted_on'] = desktop.acted_on(node, how)
    return out


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
            page = safe(lambda: bounds_of(pane), None)
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
        b = bounds_of(acc)
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
        pb = bounds_of(pane)
        for _ in range(4):
            b = bounds_of(acc)
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
