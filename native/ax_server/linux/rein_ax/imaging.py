"""Screenshots (GDK, from the X root window) and annotated screenshots: a box around each element and its
label number in a 5×7 bitmap font, drawn with GdkPixbuf fills only (no cairo needed)."""

import base64

from .errors import AxFail

# 5×7 glyphs, one string of five bits per row.
_DIGITS = {
    '0': ['01110', '10001', '10011', '10101', '11001', '10001', '01110'],
    '1': ['00100', '01100', '00100', '00100', '00100', '00100', '01110'],
    '2': ['01110', '10001', '00001', '00010', '00100', '01000', '11111'],
    '3': ['11110', '00001', '00001', '01110', '00001', '00001', '11110'],
    '4': ['00010', '00110', '01010', '10010', '11111', '00010', '00010'],
    '5': ['11111', '10000', '11110', '00001', '00001', '10001', '01110'],
    '6': ['00110', '01000', '10000', '11110', '10001', '10001', '01110'],
    '7': ['11111', '00001', '00010', '00100', '01000', '01000', '01000'],
    '8': ['01110', '10001', '10001', '01110', '10001', '10001', '01110'],
    '9': ['01110', '10001', '10001', '01111', '00001', '00010', '01100'],
}
BOX_RGBA = 0xE8202AFF
LABEL_BG = 0xE8202AFF
LABEL_FG = 0xFFFFFFFF
SCALE = 2  # each font pixel is 2×2 screen pixels


def _gdk():
    import gi
    gi.require_version('Gdk', '3.0')
    gi.require_version('GdkPixbuf', '2.0')
    from gi.repository import Gdk, GdkPixbuf
    ok = Gdk.init_check([])
    if isinstance(ok, tuple):
        ok = ok[0]
    if not ok or Gdk.get_default_root_window() is None:
        raise AxFail('PERMISSION', 'no display to capture (DISPLAY is not set or the X server refused the connection)')
    return Gdk, GdkPixbuf


def screen_info():
    try:
        Gdk, _ = _gdk()
    except AxFail:
        return None
    root = Gdk.get_default_root_window()
    display = Gdk.Display.get_default()
    mon = display.get_primary_monitor() or display.get_monitor(0)
    return {'width': root.get_width(), 'height': root.get_height(), 'scale': mon.get_scale_factor() if mon else 1}


def capture(region=None):
    """The screen (or a region of it) as an RGB pixbuf without alpha, and the region it covers."""
    Gdk, GdkPixbuf = _gdk()
    root = Gdk.get_default_root_window()
    sw, sh = root.get_width(), root.get_height()
    x, y, w, h = region or (0, 0, sw, sh)
    x, y = max(0, x), max(0, y)
    w, h = min(w, sw - x), min(h, sh - y)
    if w <= 0 or h <= 0:
        raise AxFail('NOT_VISIBLE', 'the region to capture is off-screen')
    pb = Gdk.pixbuf_get_from_window(root, x, y, w, h)
    if pb is None:
        raise AxFail('FAILED', 'the screen could not be captured')
    if pb.get_has_alpha():
        flat = GdkPixbuf.Pixbuf.new(GdkPixbuf.Colorspace.RGB, False, 8, w, h)
        flat.fill(0xFFFFFFFF)
        pb.composite(flat, 0, 0, w, h, 0, 0, 1, 1, GdkPixbuf.InterpType.NEAREST, 255)
        pb = flat
    return pb, [x, y, w, h]


def scaled(pb, max_width):
    _, GdkPixbuf = _gdk()
    w, h = pb.get_width(), pb.get_height()
    if max_width and w > max_width:
        nh = max(1, round(h * max_width / w))
        return pb.scale_simple(max_width, nh, GdkPixbuf.InterpType.BILINEAR), max_width / w
    return pb, 1.0


def png_base64(pb):
    ok, buf = pb.save_to_bufferv('png', [], [])
    if not ok:
        raise AxFail('FAILED', 'the screenshot could not be encoded')
    return base64.b64encode(buf).decode('ascii')


def _fill(pb, x, y, w, h, rgba):
    W, H = pb.get_width(), pb.get_height()
    x0, y0 = max(0, int(x)), max(0, int(y))
    x1, y1 = min(W, int(x + w)), min(H, int(y + h))
    if x1 > x0 and y1 > y0:
        pb.new_subpixbuf(x0, y0, x1 - x0, y1 - y0).fill(rgba)


def draw_box(pb, x, y, w, h, thickness=2):
    _fill(pb, x, y, w, thickness, BOX_RGBA)
    _fill(pb, x, y + h - thickness, w, thickness, BOX_RGBA)
    _fill(pb, x, y, thickness, h, BOX_RGBA)
    _fill(pb, x + w - thickness, y, thickness, h, BOX_RGBA)


def draw_label(pb, x, y, text):
    """A red tag with white digits, its top-left corner at (x, y), kept inside the image."""
    glyph_w, glyph_h, gap, pad = 5 * SCALE, 7 * SCALE, SCALE, 2
    width = pad * 2 + len(text) * glyph_w + (len(text) - 1) * gap
    height = pad * 2 + glyph_h
    x = max(0, min(int(x), pb.get_width() - width))
    y = max(0, min(int(y), pb.get_height() - height))
    _fill(pb, x, y, width, height, LABEL_BG)
    cx = x + pad
    for ch in text:
        rows = _DIGITS.get(ch)
        if rows:
            for r, bits in enumerate(rows):
                for c, bit in enumerate(bits):
                    if bit == '1':
                        _fill(pb, cx + c * SCALE, y + pad + r * SCALE, SCALE, SCALE, LABEL_FG)
        cx += glyph_w + gap
    return [x, y, width, height]


def screenshot(params):
    region = params.get('region')
    pb, reg = capture(tuple(region) if region else None)
    out_pb, factor = scaled(pb, int(params.get('max_width') or 1280))
    return {'png': png_base64(out_pb), 'image': {'width': out_pb.get_width(), 'height': out_pb.get_height()},
            'region': reg, 'scale': factor, 'screen': screen_info()}


def annotate(elements, params):
    """Boxes and labels for `elements` (each with bounds and a label) on a screenshot of the screen."""
    pb, reg = capture(None)
    boxes = []
    for el in elements:
        b = el.get('bounds')
        if not b:
            continue
        x, y, w, h = b[0] - reg[0], b[1] - reg[1], b[2], b[3]
        draw_box(pb, x, y, w, h)
        tag = draw_label(pb, x, y - 7 * SCALE - 4 if y >= 7 * SCALE + 4 else y, str(el['label']))
        boxes.append({'label': el['label'], 'box': [x, y, w, h], 'tag': tag})
    out_pb, factor = scaled(pb, int(params.get('max_width') or 0))
    return {'png': png_base64(out_pb), 'image': {'width': out_pb.get_width(), 'height': out_pb.get_height()},
            'region': reg, 'scale': factor, 'screen': screen_info(), 'boxes': boxes}
