"""AT-SPI roles and states turned into the protocol's small vocabulary (docs/ax-protocol.md, Roles)."""

from gi.repository import Atspi

R = Atspi.Role

# Raw AT-SPI role names -> protocol role. Text roles are decided by their states (editable, multi-line).
# Names, not enum members, so a role this libatspi lacks is skipped instead of failing at import.
_ROLE_NAMES = {
    'button': ['PUSH_BUTTON', 'TOGGLE_BUTTON', 'PUSH_BUTTON_MENU'],
    'checkbox': ['CHECK_BOX'],
    'radio': ['RADIO_BUTTON'],
    'switch': ['SWITCH'],
    'textfield': ['PASSWORD_TEXT'],
    'slider': ['SLIDER'],
    'spinbutton': ['SPIN_BUTTON'],
    'combobox': ['COMBO_BOX'],
    'menuitem': ['MENU_ITEM', 'CHECK_MENU_ITEM', 'RADIO_MENU_ITEM', 'TEAROFF_MENU_ITEM'],
    'menu': ['MENU', 'POPUP_MENU'],
    'menubar': ['MENU_BAR'],
    'link': ['LINK'],
    'tab': ['PAGE_TAB'],
    'tablist': ['PAGE_TAB_LIST'],
    'row': ['TABLE_ROW', 'LIST_ITEM', 'TREE_ITEM'],
    'cell': ['TABLE_CELL'],
    'header': ['TABLE_COLUMN_HEADER', 'TABLE_ROW_HEADER', 'COLUMN_HEADER', 'ROW_HEADER'],
    'list': ['LIST', 'LIST_BOX'],
    'table': ['TABLE', 'TREE_TABLE', 'TREE'],
    'calendar': ['CALENDAR'],
    'window': ['FRAME', 'WINDOW'],
    'dialog': ['DIALOG', 'ALERT', 'FILE_CHOOSER', 'COLOR_CHOOSER', 'FONT_CHOOSER'],
    'text': ['LABEL', 'STATIC', 'CAPTION'],
    'heading': ['HEADING'],
    'image': ['IMAGE', 'ICON'],
    'scrollbar': ['SCROLL_BAR'],
    'progressbar': ['PROGRESS_BAR', 'LEVEL_BAR'],
    'toolbar': ['TOOL_BAR'],
    'statusbar': ['STATUS_BAR'],
    'separator': ['SEPARATOR'],
    'tooltip': ['TOOL_TIP'],
    'document': ['DOCUMENT_FRAME', 'DOCUMENT_TEXT', 'DOCUMENT_WEB'],
    'application': ['APPLICATION'],
    'group': ['PANEL', 'FILLER', 'SECTION', 'GROUPING', 'SCROLL_PANE', 'VIEWPORT', 'LAYERED_PANE', 'SPLIT_PANE',
              'INTERNAL_FRAME', 'ROOT_PANE', 'GLASS_PANE', 'OPTION_PANE', 'DESKTOP_FRAME', 'FORM', 'BLOCK_QUOTE',
              'PARAGRAPH', 'ARTICLE', 'LANDMARK', 'EMBEDDED', 'REDUNDANT_OBJECT', 'CANVAS', 'DRAWING_AREA',
              'DIRECTORY_PANE', 'AUTOCOMPLETE', 'EDITBAR', 'HTML_CONTAINER', 'FOOTER', 'HEADER',
              'DESCRIPTION_LIST', 'CONTENT_INSERTION', 'CONTENT_DELETION'],
}
_ROLE_MAP = {}
for _role, _names in _ROLE_NAMES.items():
    for _name in _names:
        if hasattr(R, _name):
            _ROLE_MAP[getattr(R, _name)] = _role
_TEXT_RAW = [getattr(R, n) for n in ('TEXT', 'ENTRY', 'TERMINAL') if hasattr(R, n)]

# Elements a person operates; `filter: interactive` keeps these and what contains them.
INTERACTIVE = {'button', 'checkbox', 'radio', 'switch', 'textfield', 'textarea', 'slider', 'spinbutton', 'combobox',
               'menuitem', 'link', 'tab', 'row', 'cell', 'calendar'}

# Roles whose text content is their value.
TEXT_VALUE_ROLES = {'textfield', 'textarea', 'combobox', 'spinbutton', 'document'}
# Roles whose text get_value reads.
TEXT_READ_ROLES = TEXT_VALUE_ROLES | {'text', 'cell', 'heading'}
# Containers of text that become a text area when editable: LibreOffice's paragraphs, a web page's
# contenteditable sections.
_EDITABLE_BLOCKS = [getattr(R, n) for n in ('PARAGRAPH', 'SECTION', 'HEADING', 'BLOCK_QUOTE') if hasattr(R, n)]
NUMBER_VALUE_ROLES = {'slider', 'spinbutton', 'progressbar', 'scrollbar'}
# Roles that report a value in snapshots and find (desktop.value_of).
VALUE_ROLES = TEXT_VALUE_ROLES | NUMBER_VALUE_ROLES

S = Atspi.StateType


def normalize_role(raw, states):
    """The protocol role of an AT-SPI role with its state set (a set of Atspi.StateType)."""
    if raw in _EDITABLE_BLOCKS and S.EDITABLE in states:
        return 'textarea'
    if raw in _TEXT_RAW:
        if S.EDITABLE in states:
            return 'textarea' if S.MULTI_LINE in states else 'textfield'
        return 'text'
    return _ROLE_MAP.get(raw, 'unknown')


def raw_role_name(raw):
    try:
        return raw.value_nick
    except AttributeError:
        return str(raw)


def raw_roles_for(role):
    """The AT-SPI roles that normalise to `role` (for Collection.GetMatches)."""
    mapped = [raw for raw, r in _ROLE_MAP.items() if r == role]
    if role == 'textarea':
        return _TEXT_RAW + mapped + [r for r in _EDITABLE_BLOCKS if r not in mapped]
    if role in ('textfield', 'text'):
        return _TEXT_RAW + mapped
    return mapped


def is_secret(raw, states):
    return raw == R.PASSWORD_TEXT


def public_states(role, states, known=None):
    """The protocol's state words for an element (docs/ax-protocol.md, States). `known` says whether a
    missing showing/enabled state means hidden/disabled (not on GTK 4.8, which leaves many nodes without
    states; desktop.states_known)."""
    known = _has_any_state(states) if known is None else known
    out = []
    if not (S.SENSITIVE in states or S.ENABLED in states) and known:
        out.append('disabled')
    if S.FOCUSED in states:
        out.append('focused')
    if S.CHECKED in states:
        out.append('checked')
    if S.INDETERMINATE in states:
        out.append('mixed')
    if S.PRESSED in states:
        out.append('pressed')
    if S.SELECTED in states and role in ('row', 'tab', 'menuitem', 'cell', 'radio'):
        out.append('selected')
    if S.EXPANDABLE in states:
        out.append('expanded' if S.EXPANDED in states else 'collapsed')
    if S.MODAL in states:
        out.append('modal')
    if role in ('textfield', 'textarea') and (S.READ_ONLY in states or S.EDITABLE not in states):
        out.append('readonly')
    if not (S.SHOWING in states and S.VISIBLE in states) and known:
        out.append('hidden')
    return out


def _has_any_state(states):
    # GTK 4.8 leaves many nodes without showing/enabled at all: no states says nothing either way.
    return bool(states & {S.SHOWING, S.VISIBLE, S.ENABLED, S.SENSITIVE})
