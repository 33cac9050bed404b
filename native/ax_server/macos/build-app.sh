#!/usr/bin/env bash
# Builds "Rein AX.app" (the accessibility helper) for Rein's packaging step — on a Mac only; it was NOT
# run where Rein is developed. The app goes into Rein.app/Contents/Helpers/, is signed with the same
# identity as Rein (hardened runtime) and registered with LaunchServices, so macOS attributes the
# Accessibility and Screen Recording grants to "Rein AX", not to Rein, Electron or node.
#
#   REIN_SIGN_IDENTITY="Developer ID Application: …" native/ax_server/macos/build-app.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")"
out="${1:-build}"
identity="${REIN_SIGN_IDENTITY:--}"   # "-" = ad-hoc (grants do not survive a rebuild)
swift build -c release --arch arm64 --arch x86_64
bin="$(swift build -c release --arch arm64 --arch x86_64 --show-bin-path)/ax_server"
app="$out/Rein AX.app"
rm -rf "$app"
mkdir -p "$app/Contents/MacOS"
cp Resources/Info.plist "$app/Contents/Info.plist"
cp "$bin" "$app/Contents/MacOS/ax_server"
codesign --force --options runtime --timestamp=none --sign "$identity" "$app"
/System/Library/Frameworks/CoreServices.framework/Frameworks/LaunchServices.framework/Support/lsregister -f -R -trusted "$app" || true
echo "built $app"
