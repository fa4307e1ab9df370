// SPDX-License-Identifier: GPL-3.0-or-later
// tpuscope-cli thresholds: the advice rules' thresholds and their sources.
#include "cli.h"

#include "analysis/advice.h"
#include "report/jsonwriter.h"
#include "report/report.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace tpuscope::cli {

using namespace tpuscope::model;

int runThresholds(const Arguments& args, std::ostream& out, std::ostream& err)
{
    TableFormat format = TableFormat::Text;
    if (!args.format.empty())
        parseTableFormat(args.format, format); // one of kTableFormats: the parser took no other
    if (format == TableFormat::Json) {
        JsonWriter w;
        w.beginReport().key("thresholds").beginArray();
        for (const auto& t : adviceThresholds()) {
            w.beginObject();
            w.field("rule", t.rule).field("name", t.name).field("value", t.value).field("unit", t.unit);
            w.field("meaning", t.meaning).field("source", t.source);
            w.endObject();
        }
        w.endArray().endObject();
        out << w.str() << "\n";
        return 0;
    }
    Table table;
    table.header = {"Rule", "Threshold", "Value", "Unit", "Meaning", "Source"};
    table.rightAligned = {false, false, true, false, false, false};
    table.elideWideCells = false; // meanings and sources are prose: cut, they would lose their point
    for (const auto& t : adviceThresholds()) {
        char value[32];
        // %g writes 16 MiB as 1.67772e+07; whole counts (bytes, ps, items) are written in full.
        const bool whole = t.value == static_cast<double>(static_cast<int64_t>(t.value)) && std::abs(t.value) < 1e15;
        if (whole)
            std::snprintf(value, sizeof value, "%lld", static_cast<long long>(t.value));
        else
            std::snprintf(value, sizeof value, "%g", t.value);
        table.rows.push_back({t.rule, t.name, value, t.unit, t.meaning, t.source});
    }
    // The Markdown form is exactly the README's block between its thresholds markers (a ctest
    // compares the two): regenerate that block with `tpuscope-cli thresholds --format md`.
    out << renderTable(table, format);
    return 0;
}

// No --wide: the table never elides (elideWideCells above).
constinit const Command kThresholdsCommand {
    .name = "thresholds",
    .about = "The advice rules' thresholds and their sources.",
    .formats = kTableFormats,
    .run = runThresholds,
};

} // namespace tpuscope::cli
