// SPDX-License-Identifier: GPL-3.0-or-later
#include "forumpost.h"

#include "../report/advicenumbers.h"
#include "../report/report.h"

#include "../analysis/opbreakdown.h"
#include "../analysis/steps.h"
#include "../analysis/summary.h"
#include "../core/jsondom.h"
#include "../core/neutraltext.h"
#include "../loader/loader.h"

#include <string_view>

namespace tpuscope::model {

namespace {

/// Inline code that survives any content (backticks inside get a longer fence).
std::string redactionText(const ShareRedaction& r)
{
    if (!r.any())
        return "none";
    std::string text;
    auto add = [&](const char* what) { text += (text.empty() ? "" : ", ") + std::string(what); };
    if (r.paths)
        add("source paths");
    if (r.names)
        add("framework op names");
    if (r.hashNames)
        add("HLO names hashed");
    return text;
}

std::string headline(const Profile& profile, const ProfileSummary& summary, const std::string& fileName)
{
    std::string out = "### tpuscope: " + (fileName.empty() ? std::string("profile (file name redacted)") : fileName);
    out += "\n\n";
    const DeviceInfo& device = profile.device;
    out += "**" + (device.type.empty() ? std::string("Unknown device") : neutralForMarkdown(device.type)) + "**, "
        + coresCountText(device, device.cores);
    if (summary.spanPs > 0)
        out += " · span " + formatDurationPs(static_cast<double>(summary.spanPs));
    out += " · op time " + formatDurationPs(summary.totalOpTimePs);
    if (summary.steps.count > 0)
        out += " · " + std::to_string(summary.steps.count) + (summary.steps.count == 1 ? " step of " : " steps of ")
            + formatDurationPs(summary.steps.averagePs);
    out += "\n\n";
    out += "- FLOPS utilization: " + headlineUtilizationText(summary.flops) + "\n";
    out += "- HBM utilization: " + headlineUtilizationText(summary.hbm) + "\n";
    out += "- Cost coverage: " + costCoverageText(summary.costCoverage) + "\n";
    return out;
}

std::string opsTable(const OpBreakdown& breakdown, size_t top)
{
    Table table;
    table.header = {"#", "Op", "Category", "Time %", "Total time", "FLOPS util", "HBM util", "Bound by"};
    table.rightAligned = {true, false, false, true, true, true, true, false};
    for (size_t i = 0; i < breakdown.rows.size() && i < top; ++i) {
        const OpRow& row = breakdown.rows[i];
        table.rows.push_back({std::to_string(i + 1), elideMiddle(row.name, kForumNameWidth), row.category,
            formatPercent(row.timeFraction), formatDurationPs(row.totalTimePs), flopsUtilizationText(row),
            hbmUtilizationText(row), boundByText(row.boundBy)});
    }
    return renderTable(table, TableFormat::Markdown);
}

std::string numbersText(const json::Value& numbers)
{
    std::string out;
    for (const auto& [key, value] : numbers.object()) {
        if (!value.isNumber() && !value.isString())
            continue; // lists and nested objects: the share block has them
        const std::string text
            = value.isNumber() ? formatAdviceNumber(key, value.number()) : neutralForMarkdown(value.string());
        out += (out.empty() ? "" : " · ") + adviceNumberLabel(key) + " " + text;
    }
    return out;
}

/// The item's gain in the unit the share file records it in: time per step, or without steps a share
/// of op time over the capture, or a batch fix's throughput; never one said as another.
std::string gainLine(const json::Value& a)
{
    if (const double gain = a["gain_ps_per_step"].number(); gain > 0)
        return "   - Estimated gain: up to " + formatDurationPs(gain) + " per step per core (an upper bound)\n";
    if (const double gain = a["gain_ps_over_capture"].number(); gain > 0)
        return "   - Estimated gain: up to " + formatPercent(a["gain_op_time_fraction"].number()) + " of op time ("
            + formatDurationPs(gain) + " per core over the capture, which records no steps; an upper bound)\n";
    if (const double factor = a["numbers"]["throughput_factor"].number(); factor > 1)
        return "   - Estimated gain: up to " + formatAdviceNumber("throughput_factor", factor)
            + " the examples per second at the suggested batch (throughput, not time per step; an upper bound)\n";
    return {};
}

std::string adviceItem(size_t index, const json::Value& a)
{
    std::string out = std::to_string(index) + ". **[" + neutralForMarkdown(a["severity"].string()) + "] "
        + neutralForMarkdown(a["title"].string()) + "** (rule " + neutralMarkdownCode(a["rule"].string()) + ")\n";
    if (const std::string numbers = numbersText(a["numbers"]); !numbers.empty())
        out += "   - Numbers: " + numbers + "\n";
    const json::Value& evidence = a["evidence"];
    if (evidence.size() > 0) {
        out += "   - Evidence:";
        constexpr size_t kMaxEvidence = 3;
        for (size_t i = 0; i < evidence.size() && i < kMaxEvidence; ++i) {
            const json::Value& e = evidence.at(i);
            out += std::string(i ? ";" : "") + " " + neutralMarkdownCode(elideMiddle(e["op"].string(), kForumNameWidth))
                + " " + formatPercent(e["time_fraction"].number());
            // Whose code it is: the layer (framework op) and source line, when the redaction keeps them.
            if (const std::string& layer = e["framework_op"].string(); !layer.empty())
                out += ", layer " + neutralMarkdownCode(elideMiddle(layer, 2 * kForumNameWidth));
            if (const std::string& source = e["source"].string(); !source.empty())
                out += ", source " + neutralMarkdownCode(source);
        }
        if (evidence.size() > kMaxEvidence)
            out += " and " + std::to_string(evidence.size() - kMaxEvidence) + " more";
        out += "\n";
    }
    out += gainLine(a);
    return out;
}

std::string assemble(const std::string& head, const std::string& ops, size_t opsShown, size_t opsTotal,
    const std::vector<std::string>& advice, size_t adviceTotal, const std::string& footer)
{
    std::string out = head + "\n";
    if (opsShown > 0) {
        out += "**Top " + std::to_string(opsShown) + " of " + std::to_string(opsTotal) + " ops** by time:\n\n" + ops
            + "\n";
    }
    if (!advice.empty()) {
        out += "**Advice** (" + std::to_string(advice.size()) + " of " + std::to_string(adviceTotal) + "):\n\n";
        for (const std::string& item : advice)
            out += item;
        out += "\n";
    } else if (adviceTotal == 0) {
        out += "No advice rule fired.\n\n";
    }
    return out + footer;
}

} // namespace

ForumPost buildForumPost(const ProfileAnalysis& analysis, const ForumPostOptions& options)
{
    ForumPost post;
    ShareOptions shareOptions;
    shareOptions.redaction = options.redaction;
    const ShareResult share = buildShareFile(analysis, shareOptions);
    if (!share.ok()) {
        post.error = share.error;
        return post;
    }
    // The post is the share file read back: the same redaction, the same numbers.
    LoadResult shared = loadProfileFromBytes(share.bytes, "forum.tpuscope");
    json::Value doc;
    json::ParseError parseError;
    if (!shared.ok() || !json::parse(share.json, doc, parseError)) {
        post.error = shared.ok() ? parseError.describe() : shared.error;
        return post;
    }
    const Profile& redacted = *shared.profile;
    // The small share profile's own numbers (its op names are the redacted ones): one breakdown.
    const OpBreakdown breakdown = computeOpBreakdown(redacted);
    const ProfileSummary summary = computeSummary(redacted, breakdown, computeSteps(redacted));
    const size_t opsTotal = static_cast<size_t>(doc["totals"]["ops"].number(double(breakdown.rows.size())));
    const std::string head = headline(redacted, summary, doc["source"]["file"].string());

    const json::Value& adviceList = doc["advice"];
    std::vector<std::string> advice;
    for (size_t i = 0; i < adviceList.size() && i < options.maxAdvice; ++i)
        advice.push_back(adviceItem(i + 1, adviceList.at(i)));

    std::string footer = "<sub>Made with tpuscope · redacted: " + redactionText(options.redaction) + "</sub>\n";

    // Fit the readable part: fewer ops, then fewer advice items, until it is under the limit.
    size_t opsShown = std::min(options.topOps, breakdown.rows.size());
    std::string text;
    for (;;) {
        text = assemble(head, opsTable(breakdown, opsShown), opsShown, opsTotal, advice, adviceList.size(), footer);
        if (text.size() <= options.readableLimit)
            break;
        if (opsShown > 3)
            --opsShown;
        else if (advice.size() > 1)
            advice.pop_back();
        else
            break; // a headline, three ops and one advice item: short enough for any forum
    }
    post.opsShown = opsShown;
    post.adviceShown = advice.size();

    if (options.includeShareBlock) {
        const std::string block = "\n<details><summary>tpuscope share block (copy all of this post into tpuscope: "
                                  "File → Open Share Text from Clipboard)</summary>\n\n"
            + shareFileToText(share.bytes) + "\n</details>\n";
        if (text.size() + block.size() <= options.shareLimit) {
            text += block;
            post.shareBlockIncluded = true;
        } else {
            post.shareBlockOmitted = true;
            text += "\n> The share block (" + formatBytes(double(block.size())) + ") is over the "
                + formatBytes(double(options.shareLimit)) + " a post holds: attach the share file (File → Share → "
                + "Save Share File) instead.\n";
        }
    }
    post.markdown = std::move(text);
    return post;
}

} // namespace tpuscope::model
