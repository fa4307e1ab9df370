// SPDX-License-Identifier: GPL-3.0-or-later
#include "glossary.h"

#include "report.h"

namespace tpuscope::model {

const std::vector<GlossaryEntry>& glossary()
{
    static const std::vector<GlossaryEntry> entries = {
        {"flops-utilization", "FLOPS utilization",
            "How much of the TensorCore's peak FLOP rate an op attained; unknown (–) when the op records no cost data "
            "or the TPU generation is unknown.",
            "FLOPs ÷ self time ÷ per-core peak FLOP/s, time summed over cores, capped at 100 % as xprof caps it; the "
            "uncapped value is shown beside it",
            "xprof op_profile: Metrics.flops (plugin/xprof/protobuf/op_profile.proto)"},
        {"hbm-utilization", "HBM utilization",
            "How much of the per-core HBM bandwidth an op attained; host transfers are not rated against it.",
            "HBM bytes (memory_access_breakdown, else bytes accessed less VMEM arrays) ÷ self time ÷ per-core peak "
            "B/s, capped at 100 %",
            "xprof op_profile: Metrics.bandwidth_utils (plugin/xprof/protobuf/op_profile.proto)"},
        {"over-peak", "Over peak",
            "An op whose cost estimate claims more than the device can do: the estimate (often a custom kernel's own) "
            "or the chosen device is wrong.",
            "uncapped utilization > 100 %; headlines cap such ops at 100 % and say how many points come from them",
            "ours"},
        {"cost-coverage", "Cost coverage",
            "The share of op time whose ops record FLOPs or bytes; headlines describe only that share, with a warning "
            "below 80 %.",
            "time of ops with cost data ÷ total op time", "ours"},
        {"roofline-efficiency", "Roofline efficiency",
            "How close an op runs to the roofline at its arithmetic intensity: the one measure of low utilization.",
            "attained FLOP/s ÷ min(peak FLOP/s, intensity × peak HBM B/s) = max(FLOPS util, HBM util), capped at 1",
            "xprof Roofline Model tool: roofline_efficiency (plugin/xprof/protobuf/roofline_model.proto)"},
        {"bound-by", "Bound by",
            "The roof an op sits under: compute when its intensity is above the ridge point, HBM below it, the host "
            "link for host transfers, ICI for collectives, unknown for on-chip copies and ops without cost data.",
            "compute if FLOPS util ≥ HBM util, else HBM; host for S(5) transfers; ICI for collectives; unknown for "
            "VMEM (S(1)) copies",
            "xprof Roofline Model tool: bound_by (plugin/xprof/protobuf/roofline_model.proto)"},
        {"low-utilization", "Low utilization",
            "An op of any kind with cost data that runs far from its roofline; bandwidth-bound ops near the HBM roof "
            "are not low.",
            "roofline efficiency below the \"Low utilization below\" setting (default 25 %), for ops with ≥ 1 % of "
            "op time",
            "ours"},
        {"wasted-time", "Wasted time",
            "The share of op time not spent near a roofline; unknown when the op's roofline position is.",
            "time fraction × (1 − roofline efficiency)", "xprof wasted time, with the roofline efficiency"},
        {"arithmetic-intensity", "Arithmetic intensity",
            "FLOPs per byte an op moves, here per HBM byte, which places it on the roofline.",
            "FLOPs ÷ HBM bytes (FLOP per HBM byte)",
            "xprof Roofline Model tool: hbm_operational_intensity (roofline_model.proto)"},
        {"host-link", "Host link",
            "Transfers to or from host memory (S(5)) cross the host link, so they are rated in GB/s there, not "
            "against HBM.",
            "per direction: bytes ÷ time the link carried any transfer of that direction (union of the transfers' "
            "intervals)",
            "ours; memory space S(5) of the XLA HLO layout"},
        {"transfer-rate", "Transfer rate",
            "An async pair's bytes over its start→done span, which includes the time it queued behind other "
            "transfers.",
            "pair bytes ÷ Σ (done end − start begin)", "ours"},
        {"ici-utilization", "ICI utilization",
            "How much of the inter-chip interconnect a collective used; collectives are never rated against HBM.",
            "data each device moves ÷ the op's (pair's) time ÷ the generation's ICI bandwidth per core and direction",
            "ours; ICI bandwidths from the generation table"},
        {"cores", "Cores", "The TPU cores every per-core figure divides by, the same in every view and command.",
            "TPU core planes; for an op_profile, --cores N or the replica groups' lower bound, stated in every report",
            "ours"},
        {"combined-gain", "Combined gain",
            "What all advice fixes together could save, counting each op once, never more than the step; a batch "
            "fix's throughput gain is never in it.",
            "Σ over ops of min(Σ item gains on the op, its time beyond its useful work at the roofline bound)", "ours"},
        {"gain", "Gain",
            "An advice item's time saved at the same batch, per step and core (gain_ps_per_step); where the file "
            "records no steps (an op_profile), a share of op time and a time per core over the capture "
            "(gain_op_time_fraction, gain_ps_over_capture), never per step.",
            "per step: Σ evidence ops' saveable time ÷ cores ÷ steps; without steps: the same ÷ total op time", "ours"},
        {"throughput-factor", "Throughput factor",
            "What a batch-size fix gains: examples per second at the suggested batch over now (numbers."
            "throughput_factor). A larger batch makes the step longer and each example cheaper, so it is no time "
            "saved per step.",
            "k · T ÷ (k · (T − E) + Σ t_i · max(1, u_i · k)), k = suggested ÷ current per-core batch, T the step, "
            "E the evidence ops' time t_i at roofline efficiency u_i",
            "ours"},
        {"cost-source", "Cost source",
            "Where an op's FLOPs and bytes come from (cost_source): the file's cost records (file), the operand and "
            "result shapes in the HLO text of a custom matmul kernel that records none (shapes, an estimate), or "
            "nowhere (none: its utilization is unknown).",
            "shapes: 2 · batch · M · N · K FLOPs for X[M,K] · W[K,N]; bytes: every operand and result outside VMEM "
            "once",
            "ours"},
        {"layer-group", "Layer group",
            "Ops repeated in every layer (64 copies of one attention kernel) as one group with their total: ops --by "
            "group, the op table's \"By layer group\", and the advice evidence, which ranks groups by time.",
            "same program, same name stem (\".N\" numbers as \".*\") and same HLO up to instruction names, else the "
            "same framework op",
            "ours"},
        {"async-pair", "Async pair",
            "A start/done op pair (copy-start/copy-done, async collectives) is one transfer: its bytes count once, "
            "over the span from start to done.",
            "pair bytes = the larger record of the two halves; rate time = Σ (done end − start begin)", "ours"},
        {"device-consistency", "Device consistency",
            "Whether the device's peaks and HBM hold what the profile's ordinary ops did; if not, every utilization "
            "is wrong.",
            "fastest ops ≥ 20 µs (custom kernels excluded) within 10 % of the peaks; footprint within one device's "
            "HBM",
            "ours; HBM capacity per TPU generation from Google Cloud's TPU documentation"},
        {"padding-efficiency", "Padding efficiency", "The share of an array's TPU tiles that holds data.",
            "logical elements ÷ elements after tiling; from op_profile layout hints Π size ÷ (⌈size ÷ alignment⌉ · "
            "alignment)",
            "XLA tiled layout (xla/layout.h: Tile; HLO layouts such as {1,0:T(8,128)})"},
        {"per-core-batch", "Per-core batch", "The batch each TensorCore sees: the global batch divided by the cores.",
            "size of the batch dimension of the top ops' layouts", "Cloud TPU performance guide"},
        {"steps", "Steps",
            "The unit step times are given in: the device Steps line, else the runs of the program with the most "
            "device time, else host step markers.",
            "runs per core of the dominant program", "xprof overview (steps)"},
        {"warm-up", "Warm-up",
            "Idle time before the first run of the dominant program: compilation and start-up, never input-pipeline "
            "evidence.",
            "first run start − profile start", "ours"},
        {"steady-state-idle", "Steady-state idle",
            "Idle time between runs of the dominant program: the only idle time that can mean an input-bound "
            "program.",
            "Σ gaps between runs ÷ steady-state step time", "xprof input-pipeline analysis"},
        {"tail", "Tail", "Idle time after the last run of the dominant program.", "profile end − last run end", "ours"},
        {"collective-wait", "Collective wait",
            "Time a core spends in a collective beyond what the transfer takes: waiting for the last participant to "
            "arrive (hosts table).",
            "per collective instance of a step: duration − the shortest duration of that instance over the cores "
            "that ran it",
            "ours (issue 23)"},
        {"synchronizing-collective", "Synchronizing collective",
            "The collective a step ends with (the gradient all-reduce of data-parallel training): no core leaves it "
            "before every host has arrived, so it shows which host holds the step back.",
            "the collective most cores run last in their steps", "ours"},
        {"late-steps", "Late steps",
            "Steps in which a host reaches the step's synchronizing collective last and late: the straggler (late in "
            "most steps) or an intermittent straggler (in fewer, at a measurable cost per step on average).",
            "arrival (latest start over the host's cores, clocks aligned) ≥ the other hosts' median + 2 % of the "
            "average step, and within that margin of the last host",
            "ours"},
        {"clock-offset", "Clock offset",
            "How far a host's clock is from the first host's; subtracted before arrivals are compared, so it never "
            "creates or hides a straggler.",
            "median over steps of (the host's synchronizing-collective end − the first host's); else of the steps' "
            "last op ends",
            "ours"},
        {"hbm-peak", "HBM peak",
            "The most HBM a program's buffers take at once in the compiler's heap simulation, plus its indefinite "
            "allocations.",
            "simulated heap peak + indefinite allocations",
            "xprof Memory Viewer (plugin/xprof/protobuf/memory_viewer_preprocess.proto)"},
        {"padding-at-peak", "Padding at peak", "How much of the HBM peak is tile padding rather than data.",
            "Σ (padded − unpadded) bytes of the buffers alive at the peak ÷ peak", "ours"},
        {"matched-by", "Matched by",
            "How a compared op was found in the other profile: the same name, program and HLO; else the same HLO "
            "fingerprint; else the same framework op and source line (a recompile renumbers its fusions).",
            "name, then fingerprint (with sizes, then without), then framework op + source line; each key unique on "
            "both sides",
            "ours"},
        {"hlo-fingerprint", "HLO fingerprint",
            "What an op computes with every name left out: its fused computation's opcodes, element types and "
            "structure; layouts are left out, dimension sizes optionally.",
            "hash of the instructions walked from the root, operands by position", "ours"},
        {"within-noise", "Within noise",
            "A change the step-to-step variation explains: not significant by the Mann-Whitney U test or its "
            "bootstrap interval includes no change; never called a regression.",
            "p ≥ 0.05 or the 95% bootstrap interval of the median change contains 0 (warm-up steps left out)",
            "Mann & Whitney (1947); Efron (1979), the bootstrap"},
        {"examples-per-second", "Examples per second",
            "Training throughput: what a change of the global batch is judged by, since it lengthens each step.",
            "global batch ÷ step time (inferred per-core batch × cores)", "ours"},
    };
    return entries;
}

const GlossaryEntry* glossaryEntry(std::string_view key)
{
    for (const GlossaryEntry& e : glossary())
        if (key == e.key)
            return &e;
    return nullptr;
}

std::string glossaryTooltip(std::string_view key)
{
    const GlossaryEntry* e = glossaryEntry(key);
    return e ? std::string(e->sentence) + " (" + e->formula + ")" : std::string();
}

std::string glossaryMarkdown()
{
    Table table;
    table.header = {"Term", "Meaning", "Formula", "Source"};
    table.rightAligned = {false, false, false, false};
    for (const GlossaryEntry& e : glossary())
        table.rows.push_back({e.term, e.sentence, e.formula, e.source});
    return renderTable(table, TableFormat::Markdown);
}

} // namespace tpuscope::model
