"""The X server's view of the windows, through libX11 (ctypes): which app's window is on top at a point,
which app holds the keyboard focus, where a window is on the screen, and focusing one.

AT-SPI cannot answer these across apps: each app knows only its own windows, GTK 4.8 reports bounds
relative to its window, and keys synthesised through XTest go wherever the X input focus is. So the
helper asks the X server before it clicks at a point or sends keys. Everything here returns None when
there is no X display (Wayland without XWayland, or no libX11): callers then refuse what they cannot check.
"""

import ctypes
import ctypes.util
import os

_state = {}

# X protocol constants.
_ANY_PROPERTY_TYPE = 0
_IS_VIEWABLE = 2
_POINTER_ROOT = 1
_REVERT_TO_PARENT = 2
_CLIENT_MESSAGE = 33
_SUBSTRUCTURE_MASK = (1 << 19) | (1 << 20)


class _XWindowAttributes(ctypes.Structure):
    _fields_ = [('x', ctypes.c_int), ('y', ctypes.c_int), ('width', ctypes.c_int), ('height', ctypes.c_int),
                ('border_width', ctypes.c_int), ('depth', ctypes.c_int), ('visual', ctypes.c_void_p),
                ('root', ctypes.c_ulong), ('class_', ctypes.c_int), ('bit_gravity', ctypes.c_int),
                ('win_gravity', ctypes.c_int), ('backing_store', ctypes.c_int), ('backing_planes', ctypes.c_ulong),
                ('backing_pixel', ctypes.c_ulong), ('save_under', ctypes.c_int), ('colormap', ctypes.c_ulong),
                ('map_installed', ctypes.c_int), ('map_state', ctypes.c_int), ('all_event_masks', ctypes.c_long),
                ('your_event_mask', ctypes.c_long), ('do_not_propagate_mask', ctypes.c_long),
                ('override_redirect', ctypes.c_int), ('screen', ctypes.c_void_p)]


class _XClientMessageEvent(ctypes.Structure):
    _fields_ = [('type', ctypes.c_int), ('serial', ctypes.c_ulong), ('send_event', ctypes.c_int),
                ('display', ctypes.c_void_p), ('window', ctypes.c_ulong), ('message_type', ctypes.c_ulong),
                ('format', ctypes.c_int), ('data', ctypes.c_long * 5)]


class _XEvent(ctypes.Union):
    _fields_ = [('xclient', _XClientMessageEvent), ('pad', ctypes.c_long * 24)]


def _x():
    """(libX11, Display*) or None."""
    if 'x' in _state:
        return _state['x']
    _state['x'] = None
    if not os.environ.get('DISPLAY'):
        return None
    path = ctypes.util.find_library('X11') or 'libX11.so.6'
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        return None
    lib.XOpenDisplay.restype = ctypes.c_void_p
    lib.XOpenDisplay.argtypes = [ctypes.c_char_p]
    lib.XDefaultRootWindow.restype = ctypes.c_ulong
    lib.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
    lib.XInternAtom.restype = ctypes.c_ulong
    lib.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    lib.XGetWindowProperty.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_long, ctypes.c_long,
                                       ctypes.c_int, ctypes.c_ulong, ctypes.POINTER(ctypes.c_ulong), ctypes.POINTER(ctypes.c_int),
                                       ctypes.POINTER(ctypes.c_ulong), ctypes.POINTER(ctypes.c_ulong), ctypes.POINTER(ctypes.c_void_p)]
    lib.XQueryTree.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(ctypes.c_ulong), ctypes.POINTER(ctypes.c_ulong),
                               ctypes.POINTER(ctypes.POINTER(ctypes.c_ulong)), ctypes.POINTER(ctypes.c_uint)]
    lib.XGetWindowAttributes.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(_XWindowAttributes)]
    lib.XTranslateCoordinates.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_int, ctypes.c_int,
                                          ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_ulong)]
    lib.XGetInputFocus.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_ulong), ctypes.POINTER(ctypes.c_int)]
    lib.XQueryPointer.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(ctypes.c_ulong), ctypes.POINTER(ctypes.c_ulong),
                                  ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int),
                                  ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_uint)]
    lib.XSetInputFocus.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_ulong]
    lib.XRaiseWindow.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
    lib.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long, ctypes.POINTER(_XEvent)]
    lib.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.XFree.argtypes = [ctypes.c_void_p]
    # A window that vanishes between two calls raises BadWindow: the default handler would exit the process.
    handler_type = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
    _state['handler'] = handler_type(lambda d, e: 0)
    lib.XSetErrorHandler.argtypes = [handler_type]
    lib.XSetErrorHandler(_state['handler'])
    dpy = lib.XOpenDisplay(None)
    if not dpy:
        return None
    _state['x'] = (lib, dpy)
    return _state['x']


def available():
    return _x() is not None


def _atom(name):
    lib, dpy = _x()
    key = 'atom:' + name
    if key not in _state:
        _state[key] = lib.XInternAtom(dpy, name.encode(), False)
    return _state[key]


def _prop(win, name, fmt_items=64):
    """The property's items: a list of ints (format 32) or bytes (format 8); None when absent."""
    lib, dpy = _x()
    actual = ctypes.c_ulong()
    fmt = ctypes.c_int()
    n = ctypes.c_ulong()
    after = ctypes.c_ulong()
    data = ctypes.c_void_p()
    rc = lib.XGetWindowProperty(dpy, win, _atom(name), 0, fmt_items * 1024, False, _ANY_PROPERTY_TYPE,
                                ctypes.byref(actual), ctypes.byref(fmt), ctypes.byref(n), ctypes.byref(after), ctypes.byref(data))
    if rc != 0 or not data.value:
        return None
    try:
        if actual.value == 0:
            return None
        if fmt.value == 32:
            # Format 32 items are C longs in Xlib's memory.
            arr = ctypes.cast(data, ctypes.POINTER(ctypes.c_long))
            return [arr[i] & 0xffffffff for i in range(n.value)]
        if fmt.value == 8:
            return ctypes.string_at(data, n.value)
        return None
    finally:
        lib.XFree(data)


def _children(win):
    lib, dpy = _x()
    root = ctypes.c_ulong()
    parent = ctypes.c_ulong()
    kids = ctypes.POINTER(ctypes.c_ulong)()
    n = ctypes.c_uint()
    if not lib.XQueryTree(dpy, win, ctypes.byref(root), ctypes.byref(parent), ctypes.byref(kids), ctypes.byref(n)):
        return [], 0
    out = [kids[i] for i in range(n.value)]
    if kids:
        lib.XFree(kids)
    return out, parent.value


def _pid(win, depth=2):
    """_NET_WM_PID of the window, or of a window inside it (a window manager's frame holds the client)."""
    v = _prop(win, '_NET_WM_PID')
    if v:
        return v[0]
    if depth > 0:
        for c in _children(win)[0]:
            p = _pid(c, depth - 1)
            if p:
                return p
    return None


def _client(win, depth=2):
    """The client window (the one with _NET_WM_PID) at or inside `win`."""
    if _prop(win, '_NET_WM_PID'):
        return win
    if depth > 0:
        for c in _children(win)[0]:
            w = _client(c, depth - 1)
            if w:
                return w
    return None


def _geometry(win):
    """[x, y, w, h] on the screen and whether it is viewable."""
    lib, dpy = _x()
    attrs = _XWindowAttributes()
    if not lib.XGetWindowAttributes(dpy, win, ctypes.byref(attrs)):
        return None, False
    x = ctypes.c_int()
    y = ctypes.c_int()
    child = ctypes.c_ulong()
    root = lib.XDefaultRootWindow(dpy)
    if not lib.XTranslateCoordinates(dpy, win, root, 0, 0, ctypes.byref(x), ctypes.byref(y), ctypes.byref(child)):
        return None, False
    return [x.value, y.value, attrs.width, attrs.height], attrs.map_state == _IS_VIEWABLE


def _name(win):
    v = _prop(win, '_NET_WM_NAME') or _prop(win, 'WM_NAME')
    if isinstance(v, bytes):
        return ' '.join(v.decode('utf-8', 'replace').split())
    return ''


def windows():
    """The viewable top-level windows, bottom to top: [{xid, pid, name, bounds}] (the client's own geometry)."""
    if _x() is None:
        return None
    lib, dpy = _x()
    root = lib.XDefaultRootWindow(dpy)
    stacking = _prop(root, '_NET_CLIENT_LIST_STACKING')
    out = []
    if stacking:
        # A window manager keeps the stacking order of the clients it manages.
        tops = list(stacking)
    else:
        tops = _children(root)[0]
    for top in tops:
        geo, viewable = _geometry(top)
        if geo is None or not viewable or geo[2] <= 1 or geo[3] <= 1:
            continue
        client = _client(top) or top
        cgeo, _ = _geometry(client)
        out.append({'xid': client, 'frame': top, 'pid': _pid(client) or _pid(top), 'name': _name(client),
                    'bounds': cgeo or geo, 'outer': geo})
    return out


def topmost_at(x, y):
    """The top-level window on top at the screen point (None when there is no X display or no window)."""
    wins = windows()
    if wins is None:
        return None
    for w in reversed(wins):
        b = w['outer']
        if b[0] <= x < b[0] + b[2] and b[1] <= y < b[1] + b[3]:
            return w
    return {}


def focus_pid():
    """The pid of the app whose window holds the X keyboard focus (where synthesised keys go), or None."""
    if _x() is None:
        return None
    lib, dpy = _x()
    focus = ctypes.c_ulong()
    revert = ctypes.c_int()
    lib.XGetInputFocus(dpy, ctypes.byref(focus), ctypes.byref(revert))
    win = focus.value
    root = lib.XDefaultRootWindow(dpy)
    if win in (0, _POINTER_ROOT) or win == root:
        # Focus follows the pointer: keys go to the top-level window under it.
        r = ctypes.c_ulong()
        child = ctypes.c_ulong()
        rx, ry, wx, wy = ctypes.c_int(), ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        mask = ctypes.c_uint()
        lib.XQueryPointer(dpy, root, ctypes.byref(r), ctypes.byref(child), ctypes.byref(rx), ctypes.byref(ry),
                          ctypes.byref(wx), ctypes.byref(wy), ctypes.byref(mask))
        if not child.value:
            return None
        return _pid(child.value)
    for _ in range(50):
        p = _prop(win, '_NET_WM_PID')
        if p:
            return p[0]
        kids, parent = _children(win)
        if not parent or parent == root:
            return _pid(win)
        win = parent
    return None


def window_for(pid, name, size=None):
    """The X window of the app's accessible window: same pid, and the same title when several match."""
    wins = windows()
    if not wins:
        return None
    mine = [w for w in wins if w['pid'] == pid]
    if len(mine) > 1 and name:
        named = [w for w in mine if w['name'] == name]
        if named:
            mine = named
    if len(mine) > 1 and size:
        sized = [w for w in mine if w['bounds'][2] >= size[0] and w['bounds'][3] >= size[1]]
        mine = sized or mine
    return mine[-1] if len(mine) == 1 else None


def frame_offset(w, size):
    """Where the toolkit's window (size w×h) starts inside its X window: client-side decorations put a
    shadow around it. From _GTK_FRAME_EXTENTS when the app set it, else from an even margin on all sides;
    None when it cannot be known (the bounds are then unreliable)."""
    ext = _prop(w['xid'], '_GTK_FRAME_EXTENTS')
    if ext and len(ext) == 4:
        return ext[0], ext[2]
    dw = w['bounds'][2] - size[0]
    dh = w['bounds'][3] - size[1]
    if dw == dh and dw >= 0 and dw % 2 == 0:
        return dw // 2, dh // 2
    return None


def activate(xid):
    """Raises the window and gives it the keyboard focus (through the window manager when there is one)."""
    if _x() is None:
        return False
    lib, dpy = _x()
    root = lib.XDefaultRootWindow(dpy)
    if _prop(root, '_NET_SUPPORTING_WM_CHECK'):
        ev = _XEvent()
        ev.xclient.type = _CLIENT_MESSAGE
        ev.xclient.window = xid
        ev.xclient.message_type = _atom('_NET_ACTIVE_WINDOW')
        ev.xclient.format = 32
        ev.xclient.data[0] = 2  # a pager's request: honoured without focus-stealing prevention
        lib.XSendEvent(dpy, root, False, _SUBSTRUCTURE_MASK, ctypes.byref(ev))
    else:
        lib.XRaiseWindow(dpy, xid)
        lib.XSetInputFocus(dpy, xid, _REVERT_TO_PARENT, 0)
    lib.XSync(dpy, False)
    return True
