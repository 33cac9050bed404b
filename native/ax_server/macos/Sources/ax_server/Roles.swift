// macOS AX roles turned into the protocol's vocabulary (docs/ax-protocol.md, Roles).

let roleMap: [String: String] = [
    "AXButton": "button",
    "AXMenuButton": "button",
    "AXPopUpButton": "combobox",
    "AXComboBox": "combobox",
    "AXCheckBox": "checkbox",
    "AXRadioButton": "radio",
    "AXTextField": "textfield",
    "AXSearchField": "textfield",
    "AXSecureTextField": "textfield",
    "AXTextArea": "textarea",
    "AXSlider": "slider",
    "AXIncrementor": "spinbutton",
    "AXStepper": "spinbutton",
    "AXMenuItem": "menuitem",
    "AXMenuBarItem": "menuitem",
    "AXMenu": "menu",
    "AXMenuBar": "menubar",
    "AXLink": "link",
    "AXTab": "tab",
    "AXTabGroup": "tablist",
    "AXRow": "row",
    "AXOutlineRow": "row",
    "AXCell": "cell",
    "AXColumnHeader": "header",
    "AXList": "list",
    "AXTable": "table",
    "AXOutline": "table",
    "AXBrowser": "table",
    "AXWindow": "window",
    "AXSheet": "dialog",
    "AXDrawer": "dialog",
    "AXStaticText": "text",
    "AXHeading": "heading",
    "AXImage": "image",
    "AXScrollBar": "scrollbar",
    "AXProgressIndicator": "progressbar",
    "AXBusyIndicator": "progressbar",
    "AXLevelIndicator": "progressbar",
    "AXToolbar": "toolbar",
    "AXSplitter": "separator",
    "AXHelpTag": "tooltip",
    "AXWebArea": "document",
    "AXApplication": "application",
    "AXGroup": "group",
    "AXScrollArea": "group",
    "AXSplitGroup": "group",
    "AXLayoutArea": "group",
    "AXLayoutItem": "group",
    "AXGenericElement": "group",
    "AXRadioGroup": "group",
    "AXDisclosureTriangle": "button",
    "AXColorWell": "button",
    "AXSwitch": "switch",
]

/// Subroles that change the protocol role (a dialog window, a switch, a toggle).
let subroleMap: [String: String] = [
    "AXDialog": "dialog",
    "AXSystemDialog": "dialog",
    "AXSwitch": "switch",
    "AXToggle": "checkbox",
]

let interactiveRoles: Set<String> = ["button", "checkbox", "radio", "switch", "textfield", "textarea", "slider", "spinbutton", "combobox", "menuitem", "link", "tab", "row", "calendar"]

func normalizeRole(_ raw: String, subrole: String?) -> String {
    if let s = subrole, let r = subroleMap[s] { return r }
    return roleMap[raw] ?? "unknown"
}

/// The raw AX roles that normalise to `role` (for find).
func rawRoles(for role: String) -> [String] {
    roleMap.filter { $0.value == role }.map { $0.key }
}
