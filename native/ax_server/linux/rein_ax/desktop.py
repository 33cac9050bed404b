"""Reading the AT-SPI tree: apps, elements, snapshots, find, and resolving a target (docs/ax-protocol.md, Refs)."""

import re
import time

from gi.repository import Atspi, GLib

from . import roles
from .errors import AxFail, SNAPSHOT_HINT

S = Atspi.StateType
OFFSCREEN = -2147483648
VALUE_MAX = 200
SCREEN = Atspi.CoordType.SCREEN


def norm(text):
    """Names are compared with their whitespace collapsed, nothing else: "Save" and "Save As" differ."""
    return ' '.join((text or '').split())


def clip(text, limit=VALUE_MAX):
    return text if len(text) <= limit else text[:limit] + '…'


def drain_events():
    """Lets libatspi apply the events that arrived (its cache follows them) before anything is read."""
    ctx = GLib.MainContext.default()
    n = 0
    while ctx.pending() and n < 10000:
        ctx.iteration(False)
        n += 1
    _origins.clear()


# ---------------------------------------------------------------------------------------------- elements

def ident(acc):
    return '%s|%s' % (acc.app.bus_name if acc.app is not None else '', acc.path)


def parse_ident(value):
    if not isinstance(value, str) or '|' not in value:
        return None, None
    bus, path = value.split('|', 1)
    return bus, path


_toolkits = {}


def app_of(acc):
    """The element's application object (the app root on the bus)."""
    return safe(lambda: acc.get_application())


def toolkit_of(acc):
    """(toolkit name upper-cased, version) of the element's app, asked of the application object — GTK 4
    answers None when an element other than the app root is asked first — and cached per app: its unique
    bus name, which the bus never gives to another connection."""
    bus = acc.app.bus_name if acc.app is not None else ''
    hit = _toolkits.get(bus)
    if hit is None:
        app = app_of(acc) or acc
        name = safe(lambda: app.get_toolkit_name(), '') or ''
        version = safe(lambda: app.get_toolkit_version(), '') or ''
        hit = (name.upper(), version)
        if name and bus:
            # An app that did not answer yet is asked again next time, not remembered as "no toolkit".
            _toolkits[bus] = hit
    return hit


def _is_gtk4(acc):
    name, version = toolkit_of(acc)
    return name == 'GTK' and version.startswith('4.')


def is_qt(acc):
    return toolkit_of(acc)[0] == 'QT'


def is_gecko(acc):
    return toolkit_of(acc)[0] == 'GECKO'


def states_known(acc, states):
    """Whether an element's state set can be trusted when it lacks showing/enabled. GTK 4.8 leaves many
    nodes without any states: there no states says nothing. Everywhere else (Qt's disabled items in a
    closed menu have an empty set) no states means not showing and not enabled."""
    return roles._has_any_state(states) or not _is_gtk4(acc)


_WIDGET_CLASS = re.compile(r'^(Gtk|Adw|Gsk|Gdk)[A-Z][A-Za-z]*$')
# An app's own widget class (EditorPage, EditorSourceView): CamelCase with a widget-like last part.
_APP_CLASS = re.compile(r'^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)*(View|Page|Bar|Box|Button|Label|Widget|Window|Grid|Stack|Row|'
                        r'Child|Gutter|Overlay|Icon|Image|Area|Entry|Popover|Switcher|Paned|Revealer|Frame|Gizmo|Tab|'
                        r'Indicator|Sidebar|Panel|Item|Bin|Container|Map|Toolbar|Statusbar)$')


def _is_top_level(acc):
    parent = safe(lambda: acc.get_parent())
    return parent is not None and safe(lambda: parent.get_role()) == Atspi.Role.APPLICATION


def name_of(acc):
    """The element's name, whitespace collapsed. GTK 4.8 names an unnamed widget after its class
    (`GtkMenuButton`, `AdwGizmo`, an app's `EditorSourceView`) and a button after its label twice (`4 4`,
    `_Retry Retry` with the mnemonic): such names are cleaned up, so "4" finds the button and a class
    name is not taken for a label."""
    name = norm(safe(lambda: acc.get_name(), ''))
    if name and _is_gtk4(acc):
        if _WIDGET_CLASS.match(name) or (_APP_CLASS.match(name) and len(re.findall('[A-Z]', name)) >= 2):
            return ''
        half = name.split(' ')
        n = len(half) // 2
        if len(half) % 2 == 0 and [w.replace('_', '') for w in half[:n]] == [w.replace('_', '') for w in half[n:]]:
            return ' '.join(half[n:])
    return name


def states_of(acc):
    st = set(acc.get_state_set().get_states())
    # GTK 4 (4.8 at least) sets `showing` on windows only; below them a mapped widget is `visible` with a
    # size on screen. Judge those by that, so they are not all taken for hidden.
    if S.SHOWING not in st and S.VISIBLE in st and _is_gtk4(acc):
        if extents(acc) is not None:
            st.add(S.SHOWING)
        elif 'Component' not in interfaces_of(acc):
            # A GtkStackPage has no geometry of its own: it is passed through, and its child, shown only
            # while it is the visible page (the others have no size), is judged on its own.
            st.add(S.SHOWING)
    return st


def extents(acc):
    """The element's extents as the toolkit reports them: screen coordinates, except on GTK 4.8, whose
    "screen" extents are relative to the element's window ("Screen coordinates not supported")."""
    try:
        r = Atspi.Component.get_extents(acc, SCREEN)
    except GLib.Error:
        return None
    if r.x <= OFFSCREEN or r.y <= OFFSCREEN or r.width <= 0 or r.height <= 0:
        return None
    return [r.x, r.y, r.width, r.height]


# The screen origin of a GTK 4 window's coordinates, per window, for the current request (cleared by
# drain_events at the start of every read or action, since windows move).
_origins = {}


def top_window(acc):
    """The element's top-level window (the child of the application)."""
    cur = acc
    for _ in range(200):
        parent = safe(lambda: cur.get_parent())
        if parent is None or safe(lambda: parent.get_role()) == Atspi.Role.APPLICATION:
            return cur
        cur = parent
    return cur


def window_origin(win):
    """Where a GTK 4 window's (0, 0) is on the screen, from the X server (xwin): its X window, matched by
    pid and title, plus the margin of its client-side decorations. None when that cannot be known."""
    key = ident(win)
    if key in _origins:
        return _origins[key]
    from . import xwin
    origin = None
    size = extents(win)
    pid = safe(lambda: win.get_process_id())
    if size is not None and pid:
        w = xwin.window_for(pid, norm(safe(lambda: win.get_name(), '')), (size[2], size[3]))
        if w is not None:
            off = xwin.frame_offset(w, (size[2], size[3]))
            if off is not None:
                origin = (w['bounds'][0] + off[0] - size[0], w['bounds'][1] + off[1] - size[1])
    _origins[key] = origin
    return origin


def bounds_of(acc, win=None):
    """The element's bounds in screen coordinates, or None (off-screen, no extents, or — GTK 4 — a window
    whose place on the screen cannot be known: then no point on the screen is known to show it)."""
    b = extents(acc)
    if b is None or not _is_gtk4(acc):
        return b
    origin = window_origin(win if win is not None else top_window(acc))
    if origin is None:
        return None
    return [b[0] + origin[0], b[1] + origin[1], b[2], b[3]]


def interfaces_of(acc):
    try:
        return set(acc.get_interfaces())
    except GLib.Error:
        return set()


def safe(fn, default=None):
    try:
        return fn()
    except GLib.Error:
        return default


# Gecko counts text in UTF-16 units and gives a character outside the BMP (🙂) as the character plus a
# U+FEFF filler for its second unit: "abc 🙂" has 6 characters and reads "abc 🙂\ufeff".
_GECKO_FILLER = re.compile('([\U00010000-\U0010FFFF])\ufeff')


def text_of(acc):
    n = Atspi.Text.get_character_count(acc)
    text = Atspi.Text.get_text(acc, 0, n)
    if text and '\ufeff' in text and is_gecko(acc):
        text = _GECKO_FILLER.sub(r'\1', text)
    return text


def text_units(acc, text):
    """How many characters the toolkit counts in `text` (Text.GetCharacterCount): UTF-16 units on Gecko,
    code points elsewhere."""
    if is_gecko(acc):
        return len(text.encode('utf-16-le')) // 2
    return len(text)


def value_of(acc, role, raw, states, ifaces=None):
    """The element's value as the protocol reports it: text, a number, or None; secure text never."""
    if roles.is_secret(raw, states) or role not in roles.VALUE_ROLES:
        return None
    # Asked only of roles with a value: GTK 3's tree cells are transient, so libatspi never caches their
    # interfaces, and every snapshot paid a round trip (0.4 ms) per cell for nothing.
    ifaces = interfaces_of(acc) if ifaces is None else ifaces
    if role in roles.NUMBER_VALUE_ROLES and 'Value' in ifaces:
        v = safe(lambda: Atspi.Value.get_current_value(acc))
        if v is not None:
            return ('%g' % v)
    if role in roles.TEXT_VALUE_ROLES and 'Text' in ifaces:
        t = safe(lambda: text_of(acc))
        if t is not None:
            return clip(t)
    return None


# Rows and cells rarely have a name of their own (GTK list rows): they are named by the text they show,
# on both sides of every comparison, so a row can be told from its neighbours and re-matched.
DERIVED_NAME_ROLES = ('row', 'cell')


def derived_name(acc, depth=0, parts=None):
    parts = [] if parts is None else parts
    if depth > 3 or len(parts) >= 3:
        return ' '.join(parts)
    for c in children(acc):
        raw = safe(lambda: c.get_role())
        if raw in (Atspi.Role.LABEL, Atspi.Role.STATIC, Atspi.Role.TEXT, Atspi.Role.TABLE_CELL):
            n = name_of(c)
            if not n and raw == Atspi.Role.TEXT:
                n = norm(safe(lambda: text_of(c), '') or '')
            if n and (not parts or parts[-1] != clip(n, 80)):
                parts.append(clip(n, 80))
        if len(parts) >= 3:
            break
        derived_name(c, depth + 1, parts)
    return ' '.join(parts)


class Node:
    """One element read once: what a snapshot, find or action reports about it."""

    __slots__ = ('acc', 'raw', 'states', 'known', 'role', 'name', 'id')

    def __init__(self, acc, top_level=None):
        """`top_level`: whether the element is a child of the application, when the caller knows (a
        snapshot does); else it is asked of the bus."""
        self.acc = acc
        self.raw = acc.get_role()
        self.states = states_of(acc)
        self.known = states_known(acc, self.states)
        self.role = roles.normalize_role(self.raw, self.states)
        if self.role == 'group' and (_is_top_level(acc) if top_level is None else top_level):
            # Qt exposes a top-level widget as a filler or panel: to a person it is the window.
            self.role = 'window'
        self.name = name_of(acc)
        if self.name and self.role == 'combobox' and self.raw == Atspi.Role.COMBO_BOX and 'Selection' in interfaces_of(acc):
            # GTK 3 names an unlabelled combo after its chosen item: that is its value, not its name (a
            # name that changed with every choice would make its ref stale).
            chosen = safe(lambda: Atspi.Selection.get_selected_child(acc, 0))
            if chosen is not None and name_of(chosen) == self.name:
                self.name = ''
        if not self.name and self.role in DERIVED_NAME_ROLES:
            self.name = derived_name(acc)
        self.id = ident(acc)

    @property
    def showing(self):
        return S.SHOWING in self.states or not self.known

    @property
    def enabled(self):
        return S.SENSITIVE in self.states or S.ENABLED in self.states or not self.known

    def describe(self, full=True, win=None):
        out = {'id': self.id, 'role': self.role, 'name': self.name}
        if self.role == 'unknown' or full:
            out['raw_role'] = roles.raw_role_name(self.raw)
        st = roles.public_states(self.role, self.states, self.known)
        if st:
            out['states'] = st
        b = bounds_of(self.acc, win) if self.showing else None
        out['bounds'] = b
        if roles.is_secret(self.raw, self.states):
            out['secure'] = True
        if full or self.role in roles.INTERACTIVE:
            v = value_of(self.acc, self.role, self.raw, self.states)
            if v is not None:
                out['value'] = v
            d = norm(safe(lambda: self.acc.get_description(), ''))
            if d and d != self.name and d != out.get('value'):
                out['description'] = clip(d)
            i = safe(lambda: self.acc.get_accessible_id(), '')
            if i:
                out['identifier'] = i
        return out


def ancestry(acc):
    """The named ancestors from the window down to the parent (each {role, name}); unnamed containers are left out."""
    chain = []
    cur = safe(lambda: acc.get_parent())
    guard = 0
    while cur is not None and guard < 200:
        guard += 1
        raw = safe(lambda: cur.get_role())
        if raw is None or raw == Atspi.Role.APPLICATION:
            break
        st = safe(lambda: states_of(cur), set())
        role = roles.normalize_role(raw, st)
        name = name_of(cur)
        if name or role in ('window', 'dialog'):
            chain.append({'role': role, 'name': name})
        cur = safe(lambda: cur.get_parent())
    chain.reverse()
    return chain


def ancestry_matches(stored, actual):
    """Every stored ancestor appears in the actual chain, in order (an inserted group or panel is fine)."""
    i = 0
    for a in actual:
        if i < len(stored) and a.get('role') == stored[i].get('role') and a.get('name') == stored[i].get('name'):
            i += 1
    return i == len(stored)


# ---------------------------------------------------------------------------------------------- apps

def desktop_apps():
    d = Atspi.get_desktop(0)
    out = []
    for i in range(safe(lambda: d.get_child_count(), 0)):
        app = safe(lambda: d.get_child_at_index(i))
        if app is None:
            continue
        pid = safe(lambda: app.get_process_id(), 0)
        out.append((app, pid))
    return out


def app_info(app, pid, windows=True):
    info = {'name': safe(lambda: app.get_name(), '') or '', 'pid': pid,
            'bus': app.app.bus_name if app.app is not None else '',
            'toolkit': '%s %s' % (safe(lambda: app.get_toolkit_name(), '') or '', safe(lambda: app.get_toolkit_version(), '') or '')}
    info['toolkit'] = info['toolkit'].strip()
    if windows:
        wins = []
        active = False
        for w in children(app):
            st = safe(lambda: states_of(w), set())
            if S.SHOWING not in st and states_known(w, st):
                continue
            is_active = S.ACTIVE in st
            active = active or is_active
            wins.append({'id': ident(w), 'name': norm(safe(lambda: w.get_name(), '')), 'bounds': bounds_of(w, w), 'active': is_active})
        info['windows'] = wins
        info['active'] = active
    return info


def children(acc):
    n = safe(lambda: acc.get_child_count(), 0) or 0
    out = []
    for i in range(n):
        c = safe(lambda: acc.get_child_at_index(i))
        if c is not None:
            out.append(c)
    return out


def list_apps(own_pid):
    apps = []
    for app, pid in desktop_apps():
        if pid == own_pid:
            continue
        apps.append(app_info(app, pid))
    return apps


def find_app(params, own_pid):
    """The app a call names (`pid`, or `app` = name or pid); the one with the active window when none is named."""
    pid = params.get('pid')
    name = params.get('app')
    apps = [(a, p) for a, p in desktop_apps() if p != own_pid]
    if isinstance(name, str) and name.strip().isdigit() and pid is None:
        pid = int(name.strip())
        name = None
    if pid is not None:
        for a, p in apps:
            if p == pid:
                return a, p
        raise AxFail('APP_GONE', 'no application with pid %d is on the accessibility bus' % pid, hint='list the apps and pick one that is running')
    if isinstance(name, str) and name.strip():
        want = name.strip().lower()
        exact = [(a, p) for a, p in apps if (safe(lambda: a.get_name(), '') or '').lower() == want]
        if len(exact) == 1:
            return exact[0]
        if len(exact) > 1:
            raise AxFail('AMBIGUOUS', '%d applications are called %r; name one by pid (%s)' % (len(exact), name, ', '.join(str(p) for _, p in exact)))
        part = [(a, p) for a, p in apps if want in (safe(lambda: a.get_name(), '') or '').lower()]
        if len(part) == 1:
            return part[0]
        if len(part) > 1:
            raise AxFail('AMBIGUOUS', 'several applications match %r: %s' % (name, ', '.join('%s (pid %d)' % (a.get_name(), p) for a, p in part)))
        raise AxFail('NOT_FOUND', 'no application called %r is on the accessibility bus' % name, hint='list the apps to see their names')
    with_windows = []
    for a, p in apps:
        info = app_info(a, p)
        if info['active']:
            return a, p
        if info['windows']:
            with_windows.append((a, p))
    if len(with_windows) == 1:
        return with_windows[0]
    if not with_windows:
        raise AxFail('NOT_FOUND', 'no application with a window is on the accessibility bus', hint='start the app, or check that accessibility is on')
    raise AxFail('AMBIGUOUS', 'no window is active and %d apps have windows; name the app' % len(with_windows))


def app_root_for(target, own_pid):
    """The running app a target belongs to, by pid and (on AT-SPI) bus name: a restarted app is another app."""
    app = target.get('app') or {}
    pid = app.get('pid')
    bus, _ = parse_ident(target.get('id'))
    for a, p in desktop_apps():
        if p == pid and p != own_pid:
            if bus and a.app is not None and a.app.bus_name != bus:
                raise AxFail('APP_GONE', '%s (pid %d) is no longer the same process on the accessibility bus' % (app.get('name', 'the app'), pid),
                             hint=SNAPSHOT_HINT)
            return a
    raise AxFail('APP_GONE', '%s (pid %s) is not running any more' % (app.get('name') or 'the app', pid), hint=SNAPSHOT_HINT)


# ---------------------------------------------------------------------------------------------- collection

def match_rule(raw_roles=None, states=None):
    ss = Atspi.StateSet.new(states or [])
    return Atspi.MatchRule.new(ss, Atspi.CollectionMatchType.ALL, {}, Atspi.CollectionMatchType.ALL,
                               raw_roles or [], Atspi.CollectionMatchType.ANY, [], Atspi.CollectionMatchType.ALL, False)


def collection_matches(root, raw_roles=None, states=None, count=0):
    """Collection.GetMatches on the app: one D-Bus call for every match (0.5–3 ms on GTK3)."""
    try:
        return list(Atspi.Collection.get_matches(root, match_rule(raw_roles, states), Atspi.CollectionSortOrder.CANONICAL, count, True))
    except GLib.Error:
        return None


def walk_matches(root, pred, limit=20000):
    """The same without Collection (a toolkit that lacks it): a walk of the children."""
    out = []
    stack = [root]
    seen = 0
    while stack and seen < limit:
        cur = stack.pop()
        for c in reversed(children(cur)):
            seen += 1
            if pred(c):
                out.append(c)
            stack.append(c)
    out.reverse()
    return out


def find(params, own_pid):
    root, pid = find_app(params, own_pid)
    role = params.get('role')
    name = params.get('name')
    value = params.get('value')
    identifier = params.get('identifier')
    exact = bool(params.get('exact'))
    include_hidden = bool(params.get('include_hidden'))
    limit = int(params.get('max_results') or 50)
    raw = roles.raw_roles_for(role) if role else []
    if role and not raw:
        raise AxFail('INVALID', 'unknown role %r' % role)
    # No state in the rule: GTK 4 leaves 'showing' off many nodes; visibility is judged per node below.
    found = collection_matches(root, raw)
    if found is None:
        found = walk_matches(root, lambda a: (not raw or safe(lambda: a.get_role()) in raw))

    def text_ok(want, have):
        if want is None:
            return True
        if exact:
            return norm(have) == norm(want)
        return norm(want).lower() in norm(have).lower()

    out = []
    for acc in found:
        try:
            node = Node(acc)
        except GLib.Error:
            continue
        if role and node.role != role:
            continue
        if not include_hidden and not node.showing:
            continue
        if not text_ok(name, node.name):
            continue
        desc = node.describe(full=True)
        if value is not None and not text_ok(value, desc.get('value') or ''):
            continue
        if identifier is not None and desc.get('identifier') != identifier:
            continue
        desc['ancestry'] = ancestry(acc)
        out.append(desc)
        if len(out) >= limit:
            break
    return {'app': app_info(root, pid, windows=False), 'elements': out, 'truncated': len(out) >= limit}


# ---------------------------------------------------------------------------------------------- snapshots

def snapshot(params, own_pid):
    started = time.monotonic()
    drain_events()
    root, pid = find_app(params, own_pid)
    interactive = params.get('filter') == 'interactive'
    max_nodes = max(1, min(int(params.get('max_nodes') or 400), 5000))
    max_depth = max(1, min(int(params.get('max_depth') or 64), 200))
    include_hidden = bool(params.get('include_hidden'))
    window_name = params.get('window')
    out = []
    visited = [0]
    truncated = [False]
    visit_cap = max(max_nodes * 20, 5000)
    current = [None]  # the window being read: GTK 4's bounds are relative to it

    def emit(node, parent, depth):
        if len(out) >= max_nodes:
            truncated[0] = True
            return None
        d = node.describe(full=False, win=current[0])
        d['parent'] = parent
        d['depth'] = depth
        out.append(d)
        return len(out) - 1

    def visit(acc, parent, depth, top_level=False):
        """Pre-order; an unnamed group is not emitted, its children take its place, and a text that only
        repeats its parent's name (a row's label, a frame's title) is left out."""
        if truncated[0] and len(out) >= max_nodes:
            return
        visited[0] += 1
        if visited[0] > visit_cap:
            truncated[0] = True
            return
        try:
            node = Node(acc, top_level)
        except GLib.Error:
            return
        if not include_hidden and not node.showing:
            return
        here = parent
        if node.role == 'cell' and parent >= 0 and out[parent]['role'] == 'cell':
            # GTK 3 puts a tree row's renderers as cells inside its cell: the outer one is what a person sees.
            return
        if interactive:
            keep = node.role in roles.INTERACTIVE or node.role in ('window', 'dialog')
            if keep:
                here = emit(node, parent, depth)
                if here is None:
                    return
            elif node.name and node.role not in ('text', 'image'):
                # A named container is kept only if something interactive is found inside it.
                mark = len(out)
                here = emit(node, parent, depth)
                if here is None:
                    return
                if depth < max_depth:
                    for c in children(acc):
                        visit(c, here, depth + 1)
                if len(out) == mark + 1:
                    out.pop()
                return
        else:
            if node.role == 'text' and parent >= 0 and out[parent]['name'] == node.name and node.name:
                return
            if not (node.role == 'group' and not node.name):
                here = emit(node, parent, depth)
                if here is None:
                    return
        if depth >= max_depth:
            return
        next_depth = depth + 1 if here != parent else depth
        for c in children(acc):
            visit(c, here, next_depth)

    windows = []
    for w in children(root):
        st = safe(lambda: states_of(w), set())
        if not include_hidden and S.SHOWING not in st and states_known(w, st):
            continue
        wname = norm(safe(lambda: w.get_name(), ''))
        if window_name and norm(window_name).lower() not in wname.lower():
            continue
        windows.append({'id': ident(w), 'name': wname})
        current[0] = w
        visit(w, -1, 0, True)
    if window_name and not windows:
        raise AxFail('NOT_FOUND', 'no window of this app is called %r' % window_name)
    if interactive:
        # Re-number the depth after dropped containers.
        for d in out:
            d['depth'] = 0 if d['parent'] < 0 else out[d['parent']]['depth'] + 1
    return {
        'app': app_info(root, pid, windows=False),
        'windows': windows,
        'elements': out,
        'truncated': truncated[0],
        'visited': visited[0],
        'took_ms': round((time.monotonic() - started) * 1000, 1),
    }


# ---------------------------------------------------------------------------------------------- resolving

def _object_exists(bus, path):
    """Asks the app directly whether (bus, path) is still alive: an element taken out of the tree (a hidden
    stack page) still answers; a destroyed one is an UnknownObject. None when the bus cannot be asked."""
    from . import rawbus
    state = rawbus.object_state(bus, path)
    if state is None:
        return None
    # A destroyed widget's accessible may still answer for a while — with no states at all, or as
    # `defunct`: that is gone too.
    bit = int(S.DEFUNCT)
    words = list(state)
    if not any(words) or (len(words) > bit // 32 and words[bit // 32] & (1 << (bit % 32))):
        return None
    return state


def resolve(target, own_pid, purpose='act'):
    """The element a target names, by identity first, then by a unique re-match (role + name + ancestry).

    Refuses — never acts on a different element — when the element changed its role or name, is hidden or
    off-screen, disabled (for actions), or when the re-match finds none or several. Returns (Node, how)."""
    if not isinstance(target, dict) or not target.get('id'):
        raise AxFail('INVALID', 'target needs id, role, name and app')
    drain_events()
    root = app_root_for(target, own_pid)
    want_role = target.get('role')
    want_name = norm(target.get('name'))
    want_ident = target.get('identifier')
    bus, path = parse_ident(target.get('id'))
    label = '%s "%s"' % (want_role, want_name)

    everything = collection_matches(root)
    if everything is None:
        everything = walk_matches(root, lambda a: True)
    node = None
    how = 'identity'
    for acc in everything:
        if acc.path == path and (acc.app is None or acc.app.bus_name == bus):
            safe(lambda: acc.clear_cache())
            try:
                node = Node(acc)
            except GLib.Error:
                node = None
            break
    if node is not None:
        if node.role != want_role or node.name != want_name:
            raise AxFail('STALE_REF', 'the element changed: it was %s and is now %s "%s"' % (label, node.role, node.name),
                         hint=SNAPSHOT_HINT, now={'role': node.role, 'name': node.name})
    else:
        alive = _object_exists(bus, path)
        if alive is not None:
            # Still alive but out of the tree: a hidden page, a closed popover.
            raise AxFail('NOT_VISIBLE', '%s is hidden (it is no longer part of the window)' % label, hint=SNAPSHOT_HINT)
        how = 'rematch'
        raw = roles.raw_roles_for(want_role)
        candidates = []
        for acc in everything:
            r = safe(lambda: acc.get_role())
            if r is None or (raw and r not in raw):
                continue
            try:
                n = Node(acc)
            except GLib.Error:
                continue
            if n.role != want_role or n.name != want_name:
                continue
            if want_ident and safe(lambda: acc.get_accessible_id(), '') != want_ident:
                continue
            if not ancestry_matches(target.get('ancestry') or [], ancestry(acc)):
                continue
            candidates.append(n)
        if not candidates:
            raise AxFail('STALE_REF', '%s is gone and no element with the same role, name and place replaces it' % label, hint=SNAPSHOT_HINT)
        if len(candidates) > 1:
            raise AxFail('AMBIGUOUS', '%s is gone and %d elements now match it; refusing to guess' % (label, len(candidates)), hint=SNAPSHOT_HINT)
        node = candidates[0]

    if purpose in ('act', 'scroll', 'read'):
        if purpose == 'act':
            if not node.showing or (S.VISIBLE not in node.states and node.known):
                raise AxFail('NOT_VISIBLE', '%s is hidden' % label, hint='make it visible first (open its page or menu), then take a new snapshot')
            b = extents(node.acc)
            if b is None or not on_screen(node.acc, b):
                raise AxFail('NOT_VISIBLE', '%s is off-screen' % label, hint='scroll it into view (accessibility scroll with into_view) first')
            if not node.enabled:
                raise AxFail('DISABLED', '%s is disabled' % label, hint='wait until it is enabled (wait_for enabled) or do what enables it first')
        elif purpose == 'scroll' and not node.enabled:
            raise AxFail('DISABLED', '%s is disabled' % label)
    return node, how


_screen_cache = {}


def screen_size():
    if 'size' not in _screen_cache:
        try:
            import gi
            gi.require_version('Gdk', '3.0')
            from gi.repository import Gdk
            Gdk.init_check([])
            root = Gdk.get_default_root_window()
            _screen_cache['size'] = (root.get_width(), root.get_height()) if root is not None else None
        except Exception:  # noqa: BLE001 (no display: nothing is off-screen by our measure)
            _screen_cache['size'] = None
    return _screen_cache['size']


def _intersects(b, r):
    return b[0] < r[0] + r[2] and b[0] + b[2] > r[0] and b[1] < r[1] + r[3] and b[1] + b[3] > r[1]


def on_screen(acc, b):
    """Some of the element is on the screen, inside its window and inside every scrolled view around it."""
    size = screen_size()
    if size and not _intersects(b, (0, 0, size[0], size[1])):
        return False
    cur = safe(lambda: acc.get_parent())
    guard = 0
    while cur is not None and guard < 100:
        guard += 1
        raw = safe(lambda: cur.get_role())
        if raw is None or raw == Atspi.Role.APPLICATION:
            break
        if raw in (Atspi.Role.VIEWPORT, Atspi.Role.SCROLL_PANE, Atspi.Role.FRAME, Atspi.Role.WINDOW, Atspi.Role.DIALOG):
            pb = extents(cur)
            if pb is not None and not _intersects(b, pb):
                return False
        cur = safe(lambda: cur.get_parent())
    return True


def acted_on(node, how):
    return {'id': node.id, 'role': node.role, 'name': node.name, 'bounds': bounds_of(node.acc), 'resolved_by': how}
