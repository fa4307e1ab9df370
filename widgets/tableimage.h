// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A table as a PNG for a forum post or a bug report: the rows of a model::Table drawn with
// QPainter on a QImage under a few header lines (file, device, grouping, filter, date). QtGui
// only, like the share card, so it renders offscreen and in tpuscope-cli.

#include "report/report.h"

#include <QByteArray>
#include <QImage>
#include <QString>
#include <QStringList>

#include <string>
#include <vector>

namespace tpuscope::widgets {

struct TableImageOptions
{
    int maxNameWidth = 560; // px; longer first-column cells are elided in the middle
    size_t maxRows = 400; // more rows are left out with a note in the last line
    std::vector<size_t> boldRows; // indices into table.rows drawn bold (group rows)
};

/// The text width of each column as renderTableImage lays it out: the widest cell (bold for
/// `options.boldRows`), the first column capped at `options.maxNameWidth`. A cell narrower than
/// its column is drawn whole.
std::vector<int> tableImageColumnWidths(const model::Table& table, const TableImageOptions& options = {});

/// Renders `header` lines (the first one as a title) over the table. Needs a QGuiApplication.
QImage renderTableImage(const model::Table& table, const QStringList& header, const TableImageOptions& options = {});

/// PNG bytes of `image` (empty when encoding fails), for writing through model::saveFileAtomically.
QByteArray encodePng(const QImage& image);

/// Writes `image` as a PNG to `path` with the core's atomic-save helper: a unique temporary file
/// opened with O_EXCL|O_NOFOLLOW in the target folder, renamed at the end, never over one of
/// `inputs`. False with the reason in `error`.
bool savePngAtomically(
    const QImage& image, const QString& path, QString& error, const std::vector<std::string>& inputs = {});

} // namespace tpuscope::widgets
