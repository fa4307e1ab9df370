// SPDX-License-Identifier: GPL-3.0-or-later
#include "gatereport.h"

#include "jsonwriter.h"

namespace tpuscope::model {

namespace {

std::string headline(const GateVerdict& v)
{
    switch (v.outcome) {
    case GateOutcome::Pass:
        return "PASS: within budget";
    case GateOutcome::Regression: {
        const size_t n = v.regressions();
        return "FAIL: " + std::to_string(n) + (n == 1 ? " regression" : " regressions") + " beyond budget";
    }
    case GateOutcome::ConfigMismatch:
        return "NOT GATED: the configurations differ (--allow-config-change gates them anyway)";
    }
    return "";
}

std::string checkState(const GateCheck& c)
{
    if (c.regression())
        return "REGRESSION";
    if (c.overBudget())
        return "over budget, within noise";
    if (c.significant && c.worseBy < 0)
        return "ok (better)";
    return "ok";
}

Table checksTable(const GateVerdict& v)
{
    Table t;
    t.header = {"Check", "Change", "Budget", "Result", "Confidence"};
    t.rightAligned = {false, true, true, false, false};
    t.elideWideCells = false;
    for (const GateCheck& c : v.checks)
        t.rows.push_back({c.what, formatSignedPercent(c.change, 2), formatPercent(c.budget) + " worse", checkState(c),
            c.confidence});
    return t;
}

std::string gateJson(const GateVerdict& v, const ProfileDiff& diff, const std::string& before, const std::string& after)
{
    JsonWriter w;
    w.beginReport();
    w.field("verdict", gateOutcomeName(v.outcome)).field("exit_code", v.exitCode());
    w.field("regressions", static_cast<uint64_t>(v.regressions())).field("summary", headline(v));
    w.field("before", before).field("after", after);
    w.key("budgets").beginObject();
    w.field("max_step_regression", v.budgets.maxStepRegression);
    w.field("max_hbm_peak_regression", v.budgets.maxHbmPeakRegression);
    w.field("max_op_regression", v.budgets.maxOpRegression);
    w.field("allow_config_change", v.budgets.allowConfigChange);
    w.endObject();
    const auto strings = [&](const char* key, const std::vector<std::string>& values) {
        w.key(key).beginArray();
        for (const std::string& s : values)
            w.value(s);
        w.endArray();
    };
    strings("mismatch", v.mismatch);
    w.key("config_differences").beginArray();
    for (const ConfigDifference& d : diff.config) {
        w.beginObject();
        w.field("what", d.what).field("before", d.before).field("after", d.after);
        w.endObject();
    }
    w.endArray();
    w.key("checks").beginArray();
    for (const GateCheck& c : v.checks) {
        w.beginObject();
        w.field("kind", gateCheckKindName(c.kind)).field("what", c.what).field("change", c.change);
        w.field("worse_by", c.worseBy);
        w.field("budget", c.budget).field("over_budget", c.overBudget()).field("significant", c.significant);
        w.field("regression", c.regression()).field("confidence", c.confidence);
        w.field("p_value", c.test && c.test->tested ? std::optional<double>(c.test->pValue) : std::nullopt);
        w.field("interval_low", c.test && c.test->tested ? std::optional<double>(c.test->intervalLow) : std::nullopt);
        w.field("interval_high", c.test && c.test->tested ? std::optional<double>(c.test->intervalHigh) : std::nullopt);
        w.endObject();
    }
    w.endArray();
    strings("notes", v.notes);
    strings("warnings", diff.warnings());
    w.endObject();
    return w.str() + "\n";
}

} // namespace

std::string gateReport(const GateVerdict& verdict, const ProfileDiff& diff, TableFormat format,
    const std::string& beforeLabel, const std::string& afterLabel)
{
    if (format == TableFormat::Json)
        return gateJson(verdict, diff, beforeLabel, afterLabel);
    const bool md = format == TableFormat::Markdown;
    const auto line = [&](const std::string& text) { return (md ? markdownCell(text) : text) + (md ? "\n\n" : "\n"); };
    std::string out = md ? "### tpuscope gate: " + markdownCell(headline(verdict)) + "\n\n"
                         : "tpuscope gate: " + headline(verdict) + "\n";
    out += line("Before: " + beforeLabel + " · after: " + afterLabel);
    for (const std::string& m : verdict.mismatch)
        out += line("Mismatch: " + m);
    for (const ConfigDifference& d : diff.config)
        if (verdict.budgets.allowConfigChange)
            out += line("Allowed change: " + d.what + " (before " + d.before + ", after " + d.after + ")");
    if (!md) // each Markdown line ends its paragraph already
        out += "\n";
    out += renderTable(checksTable(verdict), md ? TableFormat::Markdown : TableFormat::Text);
    std::string tail;
    for (const std::string& note : verdict.notes)
        tail += line("Note: " + note);
    for (const std::string& warning : diff.warnings())
        tail += line("Warning: " + warning);
    return tail.empty() ? out : out + "\n" + tail;
}

} // namespace tpuscope::model
