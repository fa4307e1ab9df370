// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStyleOptionHeader>

class QHeaderView;

namespace tpuscope::widgets {

/// The arrow a sorted column shows: pointing down for largest (or last) first, up for smallest
/// first, as file managers and spreadsheets do. QHeaderView hands styles the reverse (descending
/// is "SortUp"), so an op table sorted largest-first showed an arrow pointing up.
QStyleOptionHeader::SortIndicator sortArrowFor(Qt::SortOrder order);

/// Makes `header` draw sortArrowFor(its order); idempotent. Every sortable table calls it.
void useConventionalSortArrows(QHeaderView* header);

} // namespace tpuscope::widgets
