"""Direct calls on the accessibility bus, for the one question libatspi cannot answer without a reference
from the tree: is the object (bus name, path) still alive although it is not in the tree any more?"""

from gi.repository import Gio, GLib

_conn = {}


def _a11y_bus():
    if 'c' not in _conn:
        try:
            session = Gio.bus_get_sync(Gio.BusType.SESSION, None)
            addr = session.call_sync('org.a11y.Bus', '/org/a11y/bus', 'org.a11y.Bus', 'GetAddress', None,
                                     GLib.VariantType('(s)'), Gio.DBusCallFlags.NONE, 2000, None).unpack()[0]
            flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
            _conn['c'] = Gio.DBusConnection.new_for_address_sync(addr, flags, None, None)
        except GLib.Error:
            _conn['c'] = None
    return _conn['c']


def object_state(bus, path):
    """The object's state bitfield pair, or None when it does not exist (or the bus cannot be reached)."""
    conn = _a11y_bus()
    if conn is None or not bus or not path:
        return None
    try:
        r = conn.call_sync(bus, path, 'org.a11y.atspi.Accessible', 'GetState', None, None, Gio.DBusCallFlags.NONE, 1000, None)
        return r.unpack()[0]
    except GLib.Error:
        return None


def bus_reachable():
    return _a11y_bus() is not None


def bus_enabled():
    """org.a11y.Status.IsEnabled on the session bus (None when unknown)."""
    try:
        session = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        r = session.call_sync('org.a11y.Bus', '/org/a11y/bus', 'org.freedesktop.DBus.Properties', 'Get',
                              GLib.Variant('(ss)', ('org.a11y.Status', 'IsEnabled')), None, Gio.DBusCallFlags.NONE, 2000, None)
        return bool(r.unpack()[0])
    except GLib.Error:
        return None


def enable_accessibility():
    """Turns on org.a11y.Status.IsEnabled when it is off, as a screen reader does: Qt, Chromium and
    Electron apps expose their tree only while it is on (GTK apps with atk-bridge always do), and a
    running app picks the change up at once. True when it is on afterwards, None when unknown."""
    if bus_enabled() is True:
        return True
    try:
        session = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        session.call_sync('org.a11y.Bus', '/org/a11y/bus', 'org.freedesktop.DBus.Properties', 'Set',
                          GLib.Variant('(ssv)', ('org.a11y.Status', 'IsEnabled', GLib.Variant('b', True))),
                          None, Gio.DBusCallFlags.NONE, 2000, None)
    except GLib.Error:
        return None
    return bus_enabled()
