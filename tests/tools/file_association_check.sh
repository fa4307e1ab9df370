#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Double-clicking a profile in a file manager opens it in tpuscope: checked the way a file manager decides.
# Installs the build into a temporary XDG data prefix, builds its MIME and desktop databases, then asks
# xdg-mime (and GIO, which GNOME's file manager uses, when present) for each sample file's type and the
# type's default application, and runs the desktop entry's Exec line on each file.
# Usage: file_association_check.sh BUILD_DIR SOURCE_DIR. Exits 77 (ctest: skipped) when the tools are missing.
set -eu
build=$1
source=$2

for tool in xdg-mime update-mime-database update-desktop-database; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "SKIPPED file association check: $tool is not installed (apt-get install xdg-utils shared-mime-info desktop-file-utils)"
    exit 77
  fi
done
# Without a desktop session xdg-mime asks File::MimeInfo's mimetype (a Recommends of xdg-utils); its last
# resort, file(1), does not read the shared-mime-info database at all.
if [ -z "${XDG_CURRENT_DESKTOP:-}" ] && ! command -v mimetype >/dev/null 2>&1; then
  echo "SKIPPED file association check: mimetype is not installed (apt-get install libfile-mimeinfo-perl)"
  exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/tpuscope-assoc.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
update-mime-database "$prefix/share/mime"
update-desktop-database "$prefix/share/applications" >/dev/null 2>&1
# Only our prefix and the system's types (for application/gzip, whose magic competes); no user settings.
export XDG_DATA_HOME="$prefix/share" XDG_DATA_DIRS="$prefix/share:/usr/share"
export XDG_CONFIG_HOME="$work/config" XDG_CONFIG_DIRS="$work/config-dirs"

# Real content, so the type is not decided by a name alone: the demo XSpace, gzip'd, a Chrome trace and
# a share file written by tpuscope-cli.
files=$work/files
mkdir -p "$files"
cp "$source/resources/demo.xplane.pb" "$files/demo.xplane.pb"
gzip -c "$source/resources/demo.xplane.pb" >"$files/demo.xplane.pb.gz"
printf '{"traceEvents":[]}\n' | gzip -c >"$files/tiny.trace.json.gz"
"$prefix/bin/tpuscope-cli" share "$source/resources/demo.xplane.pb" -o "$files/demo.tpuscope" >/dev/null 2>&1

status=0
check_type() { # FILE EXPECTED_TYPE
  got=$(xdg-mime query filetype "$files/$1")
  if [ "$got" = "$2" ]; then echo "xdg-mime: $1 is $got"; else echo "FAIL: xdg-mime says $1 is '$got', not $2"; status=1; fi
  if command -v gio >/dev/null 2>&1; then
    got=$(gio info -a standard::content-type "$files/$1" | sed -n 's/^ *standard::content-type: //p')
    if [ "$got" = "$2" ]; then echo "gio: $1 is $got"; else echo "FAIL: gio says $1 is '$got', not $2"; status=1; fi
  fi
  app=$(xdg-mime query default "$2")
  if [ "$app" = tpuscope.desktop ]; then echo "default for $2: $app"; else echo "FAIL: default for $2 is '$app'"; status=1; fi
}
check_type demo.xplane.pb application/x-tpuscope-xplane
check_type demo.xplane.pb.gz application/x-tpuscope-xplane-gzip
check_type tiny.trace.json.gz application/x-tpuscope-trace-json-gzip
check_type demo.tpuscope application/x-tpuscope-share
# The share file is recognised by its header too, whatever its name.
cp "$files/demo.tpuscope" "$files/renamed.bin"
check_type renamed.bin application/x-tpuscope-share
[ $status -eq 0 ] || exit 1

# The launcher passes the files as arguments (%F or %f) to the installed program, which opens them.
exec_line=$(sed -n 's/^Exec=//p' "$prefix/share/applications/tpuscope.desktop")
case "$exec_line" in
  "tpuscope %F" | "tpuscope %f") ;;
  *) echo "FAIL: Exec=$exec_line does not pass files to tpuscope"; exit 1 ;;
esac
program=$prefix/bin/${exec_line%% *}
for f in demo.xplane.pb demo.xplane.pb.gz demo.tpuscope; do
  # As the launcher runs it, plus --screenshot so the program exits once the file is shown.
  if ! QT_QPA_PLATFORM=offscreen "$program" "$files/$f" --screenshot "$work/$f.png" >"$work/out.txt" 2>&1 \
    || [ ! -s "$work/$f.png" ]; then
    echo "FAIL: $program $f did not open it:"
    cat "$work/out.txt"
    exit 1
  fi
  echo "opened: $program $f"
done
