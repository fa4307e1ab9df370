// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The advice engine: independent rules over a loaded profile. Each rule states its evidence, the
// numbers it used, its threshold (with the public source it follows) and an honest upper bound of
// what fixing it could gain.

#include "../core/profile.h"
#include "opbreakdown.h"
#include "padding.h"

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpuscope::model {

enum class Severity : uint8_t { Info, Warning, Critical };
const char* severityName(Severity severity);

/// Which rule made an item: views and the engine compare these, never rule-name strings. The
/// registry (advicerules.h) gives each its stable name ("per-core-batch", ...), the one in `Advice::rule`
/// and the JSON.
enum class AdviceRuleId : uint8_t {
    PerCoreBatch,
    Padding,
    LowUtilizationFusion,
    HbmBound,
    DataFormatting,
    Collectives,
    InputBound,
    CaptureCoverage,
    DeviceConsistency,
    StridedUpdate,
    HostOffload,
    MemoryPadding,
    Straggler,
    UncostedKernels,
    Count
};
/// The stable name of a rule ("per-core-batch"); nullptr for Count.
const char* adviceRuleName(AdviceRuleId id);

/// A JSON-able value: number, text, list or object (for Advice::numbers).
struct AdviceValue
{
    enum class Kind : uint8_t { Number, Text, List, Object };
    Kind kind = Kind::Number;
    double number = 0;
    std::string text;
    std::vector<AdviceValue> items;
    std::vector<std::pair<std::string, AdviceValue>> fields;

    AdviceValue() = default;
    AdviceValue(double n)
        : number(n)
    {
    }
    AdviceValue(int64_t n)
        : number(static_cast<double>(n))
    {
    }
    AdviceValue(int n)
        : number(n)
    {
    }
    AdviceValue(std::string s)
        : kind(Kind::Text)
        , text(std::move(s))
    {
    }
    AdviceValue(const char* s)
        : kind(Kind::Text)
        , text(s)
    {
    }
    static AdviceValue list() { return withKind(Kind::List); }
    static AdviceValue object() { return withKind(Kind::Object); }
    AdviceValue& set(std::string name, AdviceValue value)
    {
        kind = Kind::Object;
        fields.emplace_back(std::move(name), std::move(value));
        return *this;
    }
    AdviceValue& append(AdviceValue value)
    {
        kind = Kind::List;
        items.push_back(std::move(value));
        return *this;
    }
    const AdviceValue* find(std::string_view name) const;

private:
    static AdviceValue withKind(Kind k)
    {
        AdviceValue v;
        v.kind = k;
        return v;
    }
};

/// One op an advice item rests on, with whose code it is (attribution.h).
struct AdviceEvidence
{
    OpId op = kNone;
    std::string name; // HLO op name
    std::string frameworkOp; // empty when the file records none
    std::string source; // "file.py:87"; empty when unknown
    double timeFraction = 0; // of all op time
    /// The op's layer group (opgroups.h) when it has other members: an op repeated per layer is
    /// evidence with the group's total (rules that pick evidence by time rank groups by their total).
    std::string group; // "all-reduce.*"; empty for an op alone in its group
    int64_t groupOps = 1;
    double groupTimeFraction = 0; // the group's total share of op time (the op's own when alone)
};

/// What to do about an item, as data: the sentence that says it, and the targets a view acts on
/// (the overview shows `action`; the advice panel starts its what-if at `globalBatch`; the device
/// chooser offers `devices`). Written to the advice JSON and the share file as "fix".
struct AdviceFix
{
    std::string action; // one imperative sentence; empty when the item names no action of its own
    int64_t perCoreBatch = 0; // suggested per-core batch (0 = none)
    int64_t globalBatch = 0; // suggested global batch (0 = none, or the cores are not recorded)
    std::vector<std::string> devices; // TPU generation keys the data fit (tpuGenerations()), when it suggests one
    bool empty() const { return action.empty() && perCoreBatch == 0 && globalBatch == 0 && devices.empty(); }
};

struct Advice
{
    AdviceRuleId id = AdviceRuleId::Count; // set by the engine from the rule that made the item
    std::string rule; // its stable name: "per-core-batch", "padding", ... (adviceRuleName(id))
    Severity severity = Severity::Info;
    std::string title; // one line
    std::string detail; // plain words, may be several sentences
    std::vector<OpId> ops;
    std::vector<std::string> opNames;
    std::vector<AdviceEvidence> evidence; // same order as ops
    AdviceValue numbers = AdviceValue::object();
    std::string threshold; // the condition that fired, with its source
    /// Estimated upper bound of time saved per core at the same batch: per step where the report has
    /// steps, else over the whole capture (AdviceReport::gainsPerStep); 0 = no time gain (not
    /// estimated, or a throughput gain).
    double gainPs = 0;
    /// Where the report has no steps: gainPs as a share of the op time (0 otherwise).
    double gainOpTimeFraction = 0;
    /// A batch-size fix: examples per second at the suggested batch over now (numbers.throughput_factor),
    /// 0 for items whose gain is time. Never added into the combined gain: a larger batch makes the
    /// step longer and each example cheaper.
    double throughputFactor = 0;
    std::string gain; // the estimate in words, with why it is an upper bound
    /// Where the gain comes from, per evidence op (per step per core); empty for a gain on time that
    /// no op holds (idle time, the step's waits as a whole).
    std::vector<std::pair<OpId, double>> gainByOp;
    /// Items whose gains come from the same ops' time: they do not add up.
    std::vector<std::string> overlapsWith;
    AdviceFix fix;
};

/// A named threshold with the public source it follows. Each rule's entry in the registry
/// (advicerules.h) holds its thresholds, and the rule reads their values from there, so this list,
/// `tpuscope-cli thresholds` and the README table cannot leave one out.
struct AdviceThreshold
{
    const char* rule; // the rule's stable name, or "all" for thresholds several rules and views share
    const char* name;
    double value;
    const char* unit; // "share" (0..1), "points", "bytes", "ps", "runs", "items"
    const char* meaning;
    const char* source;
};
/// Every threshold of every rule, in the registry's order, the shared ones first.
const std::vector<AdviceThreshold>& adviceThresholds();

struct AdviceReport
{
    std::vector<Advice> advice; // by severity, then estimated gain
    BatchInference batch;
    int cores = 0; // cores the per-core numbers divide by (an op_profile's from its replica groups)
    int64_t steps = 0; // steps the per-step numbers divide by (0 = per profile)
    double stepPs = 0; // average step time
    /// What all the items' time gains together could save per core (per step where there are steps,
    /// else over the capture): per op at most what the op can save, never more than the step (the op
    /// time). 0 when no item estimates a time gain; throughput gains are never in it.
    double combinedGainPs = 0;
    double combinedGainOpTimeFraction = 0; // without steps: combinedGainPs as a share of op time
    std::string combinedGain; // the figure in words, with how it was bounded
    std::vector<std::string> notes; // what could not be checked, and why

    /// The first item of a rule, or nullptr when it did not fire.
    const Advice* find(AdviceRuleId id) const;
    /// Gains are time per step (JSON gain_ps_per_step); without steps they are a share of op time and
    /// a time over the capture (gain_op_time_fraction, gain_ps_over_capture), never "per step".
    bool gainsPerStep() const { return steps > 0; }
};

AdviceReport computeAdvice(const Profile& profile);
/// Same, reusing an op-level breakdown of all cores.
AdviceReport computeAdvice(const Profile& profile, const OpBreakdown& breakdown);
struct StepAnalysis;
/// Same, reusing the steps too (the GUI's single analysis pass).
AdviceReport computeAdvice(const Profile& profile, const OpBreakdown& breakdown, const StepAnalysis& steps);
struct MemoryReport;
/// Same, reusing the memory view too (buildProfileAnalysis: everything computed once).
AdviceReport computeAdvice(
    const Profile& profile, const OpBreakdown& breakdown, const StepAnalysis& steps, const MemoryReport& memory);
struct DeviceConsistency;
struct HostAnalysis;
/// Same, with the op model, the host link, the device check and the hosts too (buildProfileAnalysis);
/// without `hosts`, a profile of several hosts has them analysed here.
AdviceReport computeAdvice(const Profile& profile, const OpBreakdown& breakdown, const StepAnalysis& steps,
    const MemoryReport& memory, const OpModel& model, const HostLinkStats& hostLink,
    const DeviceConsistency* deviceCheck = nullptr, const HostAnalysis* hosts = nullptr);

/// One op's padding-bound finding in the advice's words ("fusion.3 is padding-bound: its FLOPS
/// utilization ..."), tested on its least-filled array as the low-utilization rule tests it; empty
/// when the op is not padding-bound. For a view of one op, so that it says what the advice says.
std::string paddingBoundFinding(const OpRow& row, const OpPadding& padding);

} // namespace tpuscope::model
