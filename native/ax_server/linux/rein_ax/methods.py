"""The protocol's methods (docs/ax-protocol.md), each a function of its params."""

import os
import sys

from . import actions, desktop, imaging, rawbus
from .desktop import S, AxFail, safe
from .events import EventHub

PROTOCOL_VERSION = 1
HELPER_VERSION = '0.1.0'


class Methods:
    def __init__(self):
        self.hub = EventHub()
        self.pid = os.getpid()
        self.table = {
            'hello': self.hello,
            'ping': lambda p: {'ok': True},
            'list_apps': lambda p: {'apps': desktop.list_apps(self.pid)},
            'snapshot': lambda p: desktop.snapshot(p, self.pid),
            'find': lambda p: desktop.find(p, self.pid),
            'click': lambda p: actions.click(p, self.hub, self.pid),
            'press': lambda p: actions.click(p, self.hub, self.pid, press_only=True),
            'set_value': lambda p: actions.set_value(p, self.hub, self.pid),
            'get_value': lambda p: actions.get_value(p, self.pid),
            'focus': lambda p: actions.focus(p, self.hub, self.pid),
            'scroll': lambda p: actions.scroll(p, self.hub, self.pid),
            'key': lambda p: actions.key(p, self.hub, self.pid),
            'type_text': lambda p: actions.type_text(p, self.hub, self.pid),
            'mouse': lambda p: actions.mouse(p, self.hub),
            'wait_for': self.wait_for,
            'annotate': self.annotate,
            'screenshot': lambda p: imaging.screenshot(p),
            'check_permissions': self.check_permissions,
        }

    def start(self):
        # Before anything listens: toolkits that wait for the switch (Qt, Chromium) register now.
        rawbus.enable_accessibility()
        self.hub.start()

    def hello(self, params):
        return {
            'protocol': PROTOCOL_VERSION,
            'helper': {'name': 'ax_server-linux', 'version': HELPER_VERSION, 'platform': 'linux', 'pid': self.pid,
                       'python': sys.version.split()[0]},
            'capabilities': sorted(k for k in self.table if k != 'hello') + ['events', 'collection'],
            'screen': imaging.screen_info(),
        }

    def check_permissions(self, params):
        reachable = rawbus.bus_reachable()
        enabled = rawbus.bus_enabled()
        display = os.environ.get('DISPLAY', '')
        screen = imaging.screen_info() if display else None
        return {
            'accessibility': 'granted' if reachable else 'denied',
            'screen_recording': 'granted' if screen else 'denied',
            'automation': 'not_applicable',
            'details': {
                'a11y_bus': reachable,
                'a11y_enabled': enabled,
                'display': display or None,
                'apps': len(desktop.desktop_apps()) if reachable else 0,
                'hint': None if reachable and screen else
                'start an X display (DISPLAY) and a D-Bus session with at-spi2-core; apps need GTK_MODULES=gail:atk-bridge or their toolkit\'s AT-SPI bridge',
            },
        }

    def annotate(self, params):
        p = dict(params)
        p.setdefault('filter', 'interactive')
        snap = desktop.snapshot(p, self.pid)
        limit = max(1, min(int(params.get('max_labels') or 50), 200))
        labels = []
        drawn = []
        for i, el in enumerate(snap['elements']):
            if len(labels) >= limit:
                break
            if not el.get('bounds') or el['role'] in ('window', 'dialog', 'group', 'application'):
                continue
            label = len(labels) + 1
            labels.append({'label': label, 'index': i})
            drawn.append({'label': label, 'bounds': el['bounds']})
        pic = imaging.annotate(drawn, params)
        snap.update(pic)
        snap['labels'] = labels
        return snap

    def wait_for(self, params):
        condition = params.get('condition')
        timeout = max(0, min(int(params.get('timeout_ms') or 10000), 120000))
        query = params.get('query') or {}
        target = params.get('target')
        want = params.get('value')
        exact = bool(params.get('exact'))

        def find_now():
            q = {k: v for k, v in query.items() if v is not None}
            q.update({k: params[k] for k in ('app', 'pid') if params.get(k) is not None})
            q['max_results'] = 2
            return desktop.find(q, self.pid)['elements']

        if condition in ('exists', 'gone') and not target:
            if not any(query.get(k) for k in ('role', 'name', 'value', 'identifier')):
                raise AxFail('INVALID', '%s needs a query (role, name, value or identifier)' % condition)
            check = (lambda: (find_now() or [None])[0]) if condition == 'exists' else (lambda: {'gone': True} if not find_now() else None)
        elif condition == 'gone':
            def check():
                try:
                    desktop.resolve(target, self.pid, 'act')
                    return None
                except AxFail as e:
                    if e.code in ('STALE_REF', 'NOT_VISIBLE', 'APP_GONE'):
                        return {'gone': True, 'why': e.code}
                    raise
        elif condition in ('value', 'enabled', 'focused', 'checked', 'unchecked'):
            if not target:
                raise AxFail('INVALID', '%s needs a target' % condition)
            if condition == 'value' and not isinstance(want, str):
                raise AxFail('INVALID', 'value needs the value to wait for')

            def check():
                node, how = desktop.resolve(target, self.pid, 'read')
                safe(lambda: node.acc.clear_cache())
                node = desktop.Node(node.acc)
                if condition == 'enabled':
                    return desktop.acted_on(node, how) if node.enabled else None
                if condition == 'focused':
                    return desktop.acted_on(node, how) if S.FOCUSED in node.states else None
                if condition in ('checked', 'unchecked'):
                    on = S.CHECKED in node.states or S.PRESSED in node.states
                    return desktop.acted_on(node, how) if on == (condition == 'checked') else None
                v = actions.get_value({'target': target}, self.pid).get('value') or ''
                ok = (desktop.norm(v) == desktop.norm(want)) if exact else (desktop.norm(want).lower() in desktop.norm(v).lower())
                return {'value': desktop.clip(v)} if ok else None
        elif condition == 'window':
            if not isinstance(want, str):
                raise AxFail('INVALID', 'window needs the title (or part of it) in value')

            def check():
                for app in desktop.list_apps(self.pid):
                    if params.get('pid') and app['pid'] != params['pid']:
                        continue
                    if params.get('app') and str(params['app']).lower() not in app['name'].lower() and str(params['app']) != str(app['pid']):
                        continue
                    for w in app['windows']:
                        if desktop.norm(want).lower() in w['name'].lower():
                            return {'window': w['name'], 'app': app['name'], 'pid': app['pid']}
                return None
        else:
            raise AxFail('INVALID', 'unknown condition %r (exists, gone, value, enabled, focused, checked, unchecked, window)' % condition)

        value, waited = self.hub.wait_until(check, timeout)
        if not value:
            raise AxFail('TIMEOUT', 'waited %d ms and the condition %s did not hold' % (timeout, condition), waited_ms=waited)
        out = {'met': True, 'waited_ms': waited}
        if isinstance(value, dict):
            if 'id' in value and 'role' in value:
                out['element'] = value
            else:
                out.update(value)
        return out
