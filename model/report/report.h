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
/// "4 TPU cores", with how the count was chosen where the file does not record it.
std::string coresCountText(const DeviceInfo& device, int cores);
/// The cores a breakdown's per-core numbers divide by, with how the count was chosen where the file
/// does not record it: "4 TPU cores (not recorded; at least 4 from the replica groups)".
std::string coresText(const DeviceInfo& device, const OpBreakdown& breakdown);
/// Our transfer measure of a row, "–" when it has none: the host link's rate in its direction(s)
/// ("27.1 GB/s to device (link)"), a collective's ICI rate ("84 GB/s ICI (28%)") or an async copy
/// pair's rate over its span ("123 GB/s pair").
std::string transferRateText(const OpRow& row);
/// xprof's FLOPS and HBM utilization as every table shows them: for an op on the roofline the capped
/// figure with the uncapped one beside it when over peak ("100% (328% uncapped)"); for an op rated
/// elsewhere (host link, ICI, on-chip) xprof's capped figure only, since its rate is not HBM's.
std::string flopsUtilizationText(const OpRow& row);
std::string hbmUtilizationText(const OpRow& row);
/// The roofline efficiency as every table shows it: a percent, "–", or "–, cost estimate above peak".
std::string rooflineEfficiencyText(const OpRow& row);
/// The rate transferRateText shows first (GB/s), for sorting; empty when it shows none.
std::optional<double> transferRateGbps(const OpRow& row);
/// Why a row's utilizations are unknown or not rated against HBM, in one sentence; empty when
/// both are known (tooltips, CLI notes).
std::string utilizationCaveat(const OpRow& row, const DeviceInfo& device);
/// "52.1%", "52.1% (7.6 points from 2 over-peak ops)", or "–" when no op has a known utilization.
std::string headlineUtilizationText(const HeadlineUtilization& headline);
/// "1 low-utilization op", "3 low-utilization ops" (countLowUtilizationOps), "–" when unknown: the
/// overview's link, the op table's count, `tpuscope-cli ops` and `summary` say the same.
std::string lowUtilizationOpsText(std::optional<int> count);
/// What makes an op low-utilization at `threshold`, in one clause ("each below 25% of its roofline
/// bound with >= 1% of op time").
std::string lowUtilizationRuleText(double threshold = kDefaultLowUtilizationThreshold);

/// A generic table: the same rows render as aligned text, CSV/TSV or a Markdown table.
struct Table
{
    std::vector<std::string> header;
    std::vector<bool> rightAligned;
    std::vector<std::vector<std::string>> rows;
    /// Text format only: left-aligned cells (names) wider than textCellWidth() are elided in the
    /// middle. Off for tables of prose (meanings, sources).
    bool elideWideCells = true;
};
std::string renderTable(const Table& table, TableFormat format);
/// Widest left-aligned cell of a Text table before it is elided in the middle (0 = never, the
/// default). tpuscope-cli sets it once at start (60, or more on a wide terminal; --wide: 0).
void setTextCellWidth(size_t width);
size_t textCellWidth();
/// `text` cut to at most `width` code points by replacing its middle with "…" (op names differ at
/// the end: fusion.12 vs fusion.13); unchanged when it fits or `width` is 0.
std::string elideMiddle(std::string_view text, size_t width);
/// One Markdown table cell: neutralForMarkdown (pipes, newlines, links, tags, headings escaped).
std::string markdownCell(std::string_view text);

class JsonWriter;
/// The rate fields of an op row in JSON (`null` where unknown); shared by every JSON writer.
void writeRates(JsonWriter& json, const OpRow& row);

std::string opsReport(const Profile& profile, const OpBreakdown& breakdown, TableFormat format, size_t top = 0);
std::string summaryReport(const Profile& profile, const ProfileSummary& summary, bool json);

} // namespace tpuscope::model
