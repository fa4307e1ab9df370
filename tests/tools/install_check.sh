#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs the build into a temporary prefix and checks that every installed file is there, and that the
# desktop entry and the MIME XML validate. Usage: install_check.sh BUILD_DIR [gui|nogui]
set -eu
build=$1
gui=${2:-gui}
prefix=$(mktemp -d "${TMPDIR:-/tmp}/tpuscope-install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT

cmake --install "$build" --prefix "$prefix" >/dev/null

status=0
expect() {
  if [ -f "$prefix/$1" ]; then echo "installed: $1"; else echo "MISSING: $1"; status=1; fi
}
expect bin/tpuscope-cli
expect share/man/man1/tpuscope.1
expect share/man/man1/tpuscope-cli.1
expect share/doc/tpuscope/copyright
# The JSON Schemas of the CLI's JSON outputs, one per command that writes JSON.
for schema in advise diff fusion gate hosts memory ops steps summary thresholds; do
  expect share/tpuscope/schema/$schema.schema.json
done
if [ "$gui" = gui ]; then
  expect bin/tpuscope
  expect share/applications/tpuscope.desktop
  expect share/icons/hicolor/scalable/apps/tpuscope.svg
  expect share/mime/packages/tpuscope.xml
  for size in 16 24 32 48 64 128 256; do
    expect share/icons/hicolor/${size}x${size}/apps/tpuscope.png
  done
fi
[ -x "$prefix/bin/tpuscope-cli" ] || { echo "bin/tpuscope-cli is not executable"; status=1; }
# The man pages carry the version, not the template's placeholder.
if grep -q '@PROJECT_VERSION@' "$prefix/share/man/man1/tpuscope.1" "$prefix/share/man/man1/tpuscope-cli.1"; then
  echo "man page still has @PROJECT_VERSION@"; status=1
fi
[ $status -eq 0 ] || exit 1
[ "$gui" = gui ] || exit 0

# Each PNG is a PNG of its directory's size: the signature, then IHDR's width and height (big-endian).
for size in 16 24 32 48 64 128 256; do
  png=$prefix/share/icons/hicolor/${size}x${size}/apps/tpuscope.png
  signature=$(od -An -tx1 -N8 "$png" | tr -d ' \n')
  dims=$(od -An -tu1 -j16 -N8 "$png" | awk '{ print $1*16777216 + $2*65536 + $3*256 + $4 "x" $5*16777216 + $6*65536 + $7*256 + $8 }')
  if [ "$signature" != 89504e470d0a1a0a ] || [ "$dims" != "${size}x${size}" ]; then
    echo "icon ${size}x${size}/apps/tpuscope.png is not a ${size}x${size} PNG (signature $signature, size $dims)"
    exit 1
  fi
done
echo "PNG icons: 7 sizes, each its directory's size"

# The menu entry must name the icon and the MIME types that are installed.
desktop=$prefix/share/applications/tpuscope.desktop
mime=$prefix/share/mime/packages/tpuscope.xml
grep -qx 'Icon=tpuscope' "$desktop" || { echo "desktop entry does not name the tpuscope icon"; exit 1; }
for type in $(sed -n 's/^MimeType=//p' "$desktop" | tr ';' ' '); do
  grep -q "type=\"$type\"" "$mime" || { echo "desktop entry names $type, which the MIME XML does not define"; exit 1; }
done

if command -v desktop-file-validate >/dev/null 2>&1; then
  # A validator's complaint fails the test (an && list would not stop the script under set -e).
  if ! desktop-file-validate "$desktop"; then
    echo "FAIL: desktop-file-validate"
    exit 1
  fi
  echo "desktop-file-validate: ok"
else
  echo "SKIPPED desktop-file-validate: not installed (apt-get install desktop-file-utils)"
fi
if command -v xmllint >/dev/null 2>&1; then
  if ! xmllint --noout "$mime" "$prefix/share/icons/hicolor/scalable/apps/tpuscope.svg"; then
    echo "FAIL: xmllint"
    exit 1
  fi
  echo "xmllint: ok"
else
  echo "SKIPPED xmllint: not installed (apt-get install libxml2-utils)"
fi
