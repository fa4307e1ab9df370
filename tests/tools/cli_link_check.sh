#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Usage: cli_link_check.sh PATH/TO/tpuscope-cli [PATH/TO/link.txt]
# The CLI links the Qt-free core plus QtGui for `card`; QtWidgets or QCustomPlot in its
# dependencies means a widget library crept into its link line (issue 16).
set -eu
cli="$1"
deps=$(ldd "$cli") || { echo "ldd failed on $cli" >&2; exit 1; }
# Not vacuous: the card really is in (QtGui), and ldd really listed libraries.
echo "$deps" | grep -q 'libQt6Gui' || { echo "$cli does not link QtGui: is the card missing?" >&2; echo "$deps" >&2; exit 1; }
bad=$(echo "$deps" | grep -i -E 'widgets|qcustomplot' || true)
if [ -n "$bad" ]; then
    echo "$cli links libraries it must not:" >&2
    echo "$bad" >&2
    exit 1
fi
# ld --as-needed drops unused shared libraries, so ldd alone would not see a widget library on the
# link line whose code went unused: with the Makefile generator, read the link command too.
link="${2:-}"
if [ -n "$link" ] && [ -f "$link" ]; then
    onLine=$(tr ' ' '\n' < "$link" | grep -i -E 'tpuscope_widgets|Qt6Widgets|qcustomplot' || true)
    if [ -n "$onLine" ]; then
        echo "the link line of tpuscope-cli names:" >&2
        echo "$onLine" >&2
        exit 1
    fi
fi
echo "tpuscope-cli: no QtWidgets, no QCustomPlot"
