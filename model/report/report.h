// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "../analysis/opbreakdown.h"
#include "../analysis/summary.h"

#include <string>
#include <vector>

namespace tpuscope::model {

enum class TableFormat { Text, Csv, Tsv, Json, Markdown };
/// Parses "table"/"text", "csv", "tsv", "json", "md"/"markdown"; returns false when unknown.
bool parseTableFormat(std::string_view name, TableFormat& out);

/// Human-readable durations and quantities: "1.23 ms", "4.5 GFLOP", "12.5%".
std::string formatDurationPs(double ps);
std::string formatPercent(double fraction, int decimals = 1);
std::string formatCount(double value, std::string_view unit = {}); // SI prefixes: k, M, G, T, P
std::string formatBytes(double bytes);

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

std::string opsReport(const Profile& profile, const OpBreakdown& breakdown, TableFormat format, size_t top = 0);
std::string summaryReport(const Profile& profile, const ProfileSummary& summary, bool json);

} // namespace tpuscope::model
