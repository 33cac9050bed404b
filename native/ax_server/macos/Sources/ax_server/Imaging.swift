// Screenshots through /usr/sbin/screencapture (a child of this helper, so the Screen Recording grant is
// the helper app's; available on every macOS from 13 on), drawn on with CoreGraphics and encoded as PNG
// without alpha.
import AppKit
import Foundation
import ImageIO
import UniformTypeIdentifiers

func screenInfo() -> JSON? {
    guard let s = NSScreen.screens.first else { return nil }
    return ["width": Int(s.frame.width), "height": Int(s.frame.height), "scale": Double(s.backingScaleFactor)]
}

/// The main screen (or a region of it, in points) as a CGImage in pixels, and the region it covers.
func capture(_ region: [Int]?) throws -> (CGImage, [Int]) {
    let file = NSTemporaryDirectory() + "rein-ax-\(getpid())-\(UInt32.random(in: 0 ..< UInt32.max)).png"
    defer { try? FileManager.default.removeItem(atPath: file) }
    var args = ["-x", "-t", "png"]
    var reg = region ?? [0, 0, Int(NSScreen.screens.first?.frame.width ?? 0), Int(NSScreen.screens.first?.frame.height ?? 0)]
    if let r = region { args += ["-R", "\(r[0]),\(r[1]),\(r[2]),\(r[3])"] }
    args.append(file)
    let proc = Process()
    proc.executableURL = URL(fileURLWithPath: "/usr/sbin/screencapture")
    proc.arguments = args
    try proc.run()
    proc.waitUntilExit()
    guard proc.terminationStatus == 0,
          let src = CGImageSourceCreateWithURL(URL(fileURLWithPath: file) as CFURL, nil),
          let img = CGImageSourceCreateImageAtIndex(src, 0, nil) else {
        throw AxFail(code: .permission, message: "the screen could not be captured (is Screen Recording allowed for Rein AX?)",
                     hint: "System Settings → Privacy & Security → Screen Recording")
    }
    if region == nil { reg = [0, 0, reg[2], reg[3]] }
    return (img, reg)
}

/// A context without alpha, the image drawn in, scaled to at most maxWidth pixels (0: as it is).
func flatContext(_ img: CGImage, maxWidth: Int) -> (CGContext, Double)? {
    var w = img.width
    var h = img.height
    var factor = 1.0
    if maxWidth > 0 && w > maxWidth {
        factor = Double(maxWidth) / Double(w)
        w = maxWidth
        h = max(1, Int((Double(img.height) * factor).rounded()))
    }
    guard let ctx = CGContext(data: nil, width: w, height: h, bitsPerComponent: 8, bytesPerRow: 0, space: CGColorSpaceCreateDeviceRGB(),
                              bitmapInfo: CGImageAlphaInfo.noneSkipLast.rawValue) else { return nil }
    ctx.setFillColor(CGColor(red: 1, green: 1, blue: 1, alpha: 1))
    ctx.fill(CGRect(x: 0, y: 0, width: w, height: h))
    ctx.interpolationQuality = .high
    ctx.draw(img, in: CGRect(x: 0, y: 0, width: w, height: h))
    return (ctx, factor)
}

func pngBase64(_ ctx: CGContext) throws -> String {
    guard let img = ctx.makeImage() else { throw AxFail(code: .failed, message: "the screenshot could not be encoded") }
    let data = NSMutableData()
    guard let dest = CGImageDestinationCreateWithData(data, UTType.png.identifier as CFString, 1, nil) else {
        throw AxFail(code: .failed, message: "the screenshot could not be encoded")
    }
    CGImageDestinationAddImage(dest, img, nil)
    guard CGImageDestinationFinalize(dest) else { throw AxFail(code: .failed, message: "the screenshot could not be encoded") }
    return (data as Data).base64EncodedString()
}

func screenshot(_ p: Params) throws -> JSON {
    let region = (p["region"] as? [NSNumber])?.map { $0.intValue }
    let (img, reg) = try capture(region)
    guard let made = flatContext(img, maxWidth: p.int("max_width") ?? 1280) else { throw AxFail(code: .failed, message: "no drawing context") }
    let ctx = made.0
    return ["png": try pngBase64(ctx), "image": ["width": ctx.width, "height": ctx.height], "region": reg,
            "scale": Double(ctx.width) / Double(max(1, reg[2])), "screen": screenInfo() ?? NSNull()]
}

/// Boxes and numbered tags for elements (bounds in points) on a screenshot of the main screen.
func annotateImage(_ items: [(Int, [Int])], maxWidth: Int) throws -> JSON {
    let (img, reg) = try capture(nil)
    guard let made = flatContext(img, maxWidth: maxWidth) else { throw AxFail(code: .failed, message: "no drawing context") }
    let (ctx, factor) = made
    // Pixels per point in the output image; CoreGraphics' origin is bottom-left.
    let scale = Double(img.width) / Double(max(1, reg[2])) * factor
    let height = Double(ctx.height)
    for (label, b) in items {
        let rect = CGRect(x: Double(b[0]) * scale, y: height - Double(b[1] + b[3]) * scale, width: Double(b[2]) * scale, height: Double(b[3]) * scale)
        ctx.setStrokeColor(CGColor(red: 0.91, green: 0.125, blue: 0.165, alpha: 1))
        ctx.setLineWidth(2 * max(1, scale))
        ctx.stroke(rect.insetBy(dx: scale, dy: scale))
        let text = "\(label)" as NSString
        let font = NSFont.boldSystemFont(ofSize: 11 * max(1, scale))
        let attrs: [NSAttributedString.Key: Any] = [.font: font, .foregroundColor: NSColor.white]
        let size = text.size(withAttributes: attrs)
        let tag = CGRect(x: rect.minX, y: min(height - size.height - 2, rect.maxY), width: size.width + 4, height: size.height + 2)
        ctx.setFillColor(CGColor(red: 0.91, green: 0.125, blue: 0.165, alpha: 1))
        ctx.fill(tag)
        NSGraphicsContext.saveGraphicsState()
        NSGraphicsContext.current = NSGraphicsContext(cgContext: ctx, flipped: false)
        text.draw(at: CGPoint(x: tag.minX + 2, y: tag.minY + 1), withAttributes: attrs)
        NSGraphicsContext.restoreGraphicsState()
    }
    return ["png": try pngBase64(ctx), "image": ["width": ctx.width, "height": ctx.height], "region": reg, "scale": scale, "screen": screenInfo() ?? NSNull()]
}
