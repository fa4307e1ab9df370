// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "../analysis/opbreakdown.h"
#include "../analysis/summary.h"
#include "../core/format.h"

#include <optional>
#include <string>
#include <vector>

namespace tpuscope::model {

enum class TableFormat { Text, Csv, Tsv, Json, Markdown };
/// Parses "table"/"text", "csv", "tsv", "json", "md"/"markdown"; returns false when unknown.
bool parseTableFormat(std::string_view name, TableFormat& out);

/// "compute", "HBM", "host link", "–".
std::string boundByText(BoundBy bound);
/// Why a row's utilizations are unknown or not rated against HBM, in one sentence; empty when
/// both are known (tooltips, CLI notes).
std::string utilizationCaveat(const OpRow& row, const DeviceInfo& device);
/// "52.1%", "52.1% (7.6 points from 2 over-peak ops)", or "–" when no op has a known utilization.
std::string headlineUtilizationText(const HeadlineUtilization& headline);

/// A generic table: the same rows render as aligned text, CSV/TSV or a Markdown table.
struct Table
{
    std::vector<std::string> header;
    std::vector<bool> rightAligned;
    std::vector<std::vector<std::string>> rows;
};
std::string renderTable(const Table& table, TableFormat format);
/// Escapes one Markdown table cell (pipes, newlines).
std::string markdownCell(std::string_view text);

class JsonWriter;
/// The rate fields of an op row in JSON (`null` where unknown); shared by every JSON writer.
void writeRates(JsonWriter& json, const OpRow& row);

std::string opsReport(const Profile& profile, const OpBreakdown& breakdown, TableFormat format, size_t top = 0);
std::string summaryReport(const Profile& profile, const ProfileSummary& summary, bool json);

} // namespace tpuscope::model
