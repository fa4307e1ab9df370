// SPDX-License-Identifier: GPL-3.0-or-later
// tpuscope-cli fusion: one fusion's drill-down (HLO, layouts, padding, rates).
#include "cli.h"

#include "analysis/profileanalysis.h"

#include "analysis/advice.h"
#include "analysis/opbreakdown.h"
#include "analysis/padding.h"
#include "loader/loader.h"
#include "report/jsonwriter.h"
#include "report/report.h"

#include <algorithm>
#include <cstdio>

namespace tpuscope::cli {

using namespace tpuscope::model;

namespace {

size_t editDistance(std::string_view a, std::string_view b)
{
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = up;
        }
    }
    return row[b.size()];
}

std::string dimsText(const layout::PaddingInfo& p)
{
    std::string out;
    for (const layout::DimPadding& d : p.dims) {
        char buffer[160];
        std::snprintf(buffer, sizeof buffer, "%s%s %lld->%lld%s", out.empty() ? "" : ", ",
            layout::semanticsName(d.semantics), static_cast<long long>(d.size), static_cast<long long>(d.padded),
            d.tile > 0 ? (" (tile " + std::to_string(d.tile) + ")").c_str() : "");
        out += buffer;
    }
    return out;
}

void writePaddingJson(JsonWriter& w, const layout::PaddingInfo& p)
{
    w.beginObject();
    w.field("valid", p.valid);
    if (!p.valid)
        w.field("error", p.error);
    w.field("efficiency", p.efficiency).field("tile", p.tileText).field("used", p.usedOfTileText());
    w.field("logical_bytes", p.logicalBytes).field("padded_bytes", p.paddedBytes).field("memory_space", p.memorySpace);
    w.key("dimensions").beginArray();
    for (const layout::DimPadding& d : p.dims) {
        w.beginObject();
        w.field("logical_dim", d.logicalDim).field("size", d.size).field("padded", d.padded).field("tile", d.tile);
        w.field("semantics", layout::semanticsName(d.semantics));
        w.endObject();
    }
    w.endArray();
    w.endObject();
}

} // namespace

int runFusion(const Arguments& args, std::ostream& out, std::ostream& err)
{
    if (args.positional.size() < 2) {
        err << "tpuscope-cli fusion: usage: " << usageLine(kFusionCommand) << "\n";
        return 2;
    }
    const std::string format = args.format.empty() ? "text" : args.format; // text or json: the parser took no other
    ProfilePtr profile;
    if (int rc = loadFirstFile(args, err, profile))
        return rc;
    const std::string& name = args.positional[1];
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(profile);
    const OpBreakdown& breakdown = analysis->breakdown;
    // Ops of different programs may share a name (every program has its `fusion`): each is its own
    // row, --program picks one, and without it the busiest is shown and the others are named.
    const OpRow* row = nullptr;
    std::vector<std::string> otherPrograms;
    for (const OpRow& r : breakdown.rows) {
        if (r.name != name || (!args.program.empty() && r.program != args.program))
            continue;
        if (!row)
            row = &r; // rows are sorted by time: the first match is the busiest program's op
        else
            otherPrograms.push_back(r.program.empty() ? "(no program)" : r.program);
    }
    OpId opId = row ? row->op : kNone;
    if (opId == kNone) {
        for (OpId i = 0; i < profile->ops.size(); ++i) {
            const OpInfo& op = profile->ops[i];
            const bool inProgram
                = args.program.empty() || (op.program != kNone && profile->programs[op.program].name == args.program);
            if (profile->str(op.name) == name && inProgram) {
                opId = i;
                break;
            }
        }
    }
    if (opId == kNone && !args.program.empty()) {
        std::vector<std::string> programs;
        for (const OpRow& r : breakdown.rows)
            if (r.name == name)
                programs.push_back(r.program.empty() ? "(no program)" : r.program);
        if (!programs.empty()) {
            err << "tpuscope-cli fusion: no op named '" << name << "' in program '" << args.program << "'; it is in:";
            for (size_t i = 0; i < programs.size(); ++i)
                err << (i ? ", " : " ") << programs[i];
            err << "\n";
            return 1;
        }
    }
    if (opId == kNone) {
        std::vector<std::pair<size_t, std::string>> close;
        for (const OpRow& r : breakdown.rows) {
            size_t d = editDistance(r.name, name);
            if (r.name.find(name) != std::string::npos || name.find(r.name) != std::string::npos)
                d = std::min<size_t>(d, 1);
            close.emplace_back(d, r.name);
        }
        std::stable_sort(close.begin(), close.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        err << "tpuscope-cli fusion: no op named '" << name << "' in " << args.positional.front();
        if (!close.empty()) {
            err << "; close names:";
            for (size_t i = 0; i < close.size() && i < 6; ++i)
                err << (i ? ", " : " ") << close[i].second;
        }
        err << "\n";
        return 1;
    }
    const OpInfo& info = profile->ops[opId];
    const OpPadding padding = resolveOpPadding(*profile, opId);
    const std::string program = info.program != kNone ? profile->programs[info.program].name : std::string();
    std::string hloText = profile->str(info.longName);
    if (padding.instruction && padding.module && hloText.find(" = ") == std::string::npos)
        hloText = instructionSummary(*padding.module, *padding.instruction);
    std::string provenance = profile->str(info.tfOp);
    const hlo::Computation* fused = nullptr;
    if (padding.instruction && padding.module && padding.instruction->opcode == "fusion"
        && !padding.instruction->calledComputationIds.empty())
        fused = padding.module->computation(padding.instruction->calledComputationIds.front());

    struct FusedRow
    {
        const hlo::Instruction* inst;
        layout::PaddingInfo padding;
        bool root, core;
    };
    std::vector<FusedRow> fusedRows;
    if (fused) {
        for (const hlo::Instruction& inst : fused->instructions) {
            FusedRow r {&inst, {}, inst.id == fused->rootId, padding.computeCore == &inst};
            if (!inst.shape.isTuple()) {
                // The root carries the fusion's output semantics, the core's activation parameter its
                // operand semantics; other fused instructions are labelled on their own.
                std::vector<layout::DimSemantics> semantics;
                if (r.root)
                    semantics = layout::inferOutputSemantics(*padding.module, *padding.instruction);
                else if (padding.computeCore && !padding.computeCore->operandIds.empty()
                    && padding.computeCore->operandIds[0] == inst.id)
                    semantics = layout::inferOperandSemantics(*padding.module, *padding.computeCore, 0);
                else
                    semantics = layout::inferOutputSemantics(*padding.module, inst);
                r.padding = layout::computePadding(inst.shape, semantics);
            }
            fusedRows.push_back(std::move(r));
        }
    }

    if (format == "json") {
        JsonWriter w;
        w.beginReport();
        w.field("name", profile->str(info.name)).field("op_id", static_cast<int64_t>(opId));
        w.field("hlo", hloText).field("category", profile->str(info.category)).field("program", program);
        w.field("tf_op", profile->str(info.tfOp)).field("source", profile->str(info.source));
        w.key("other_programs").beginArray();
        for (const std::string& other : otherPrograms)
            w.value(other);
        w.endArray();
        if (row) {
            w.field("occurrences", row->occurrences).field("time_ps", row->totalTimePs);
            w.field("time_fraction", row->timeFraction).field("flops", row->flops);
            w.field("bytes_accessed", row->bytesAccessed).field("flops_utilization", row->flopsUtilization);
            w.field("hbm_utilization", row->hbmUtilization);
        }
        w.field("shape_source", shapeSourceName(padding.source));
        if (!padding.error.empty())
            w.field("shape_error", padding.error);
        if (padding.computeCore)
            w.field("compute_core", padding.computeCore->name);
        if (padding.batchSize > 0)
            w.field("batch", padding.batchSize);
        w.key("arrays").beginArray();
        for (const ArrayPadding& a : padding.arrays) {
            w.beginObject();
            w.field("role", a.role).field("shape", arrayShapeText(a));
            if (!a.assumption.empty())
                w.field("tiling", a.assumption);
            w.key("padding");
            writePaddingJson(w, a.padding);
            w.endObject();
        }
        w.endArray();
        if (const std::optional<UpdateWrite>& u = padding.update) {
            w.key("update").beginObject();
            w.field("role", u->role())
                .field("opcode", u->opcode)
                .field("operand", static_cast<int64_t>(u->operandIndex));
            w.field("shape", hlo::shapeToString(u->update)).field("target", hlo::shapeToString(u->target));
            w.field("strided", u->strided).field("tile_fill", u->fill);
            if (u->strided)
                w.field("stacked_dim", u->dim).field("tile_extent", u->tileExtent);
            w.field("text", updateWriteText(*u));
            w.key("padding");
            writePaddingJson(w, u->updatePadding);
            w.endObject();
        } else {
            w.key("update").null();
        }
        if (fused) {
            w.field("fused_computation", fused->name);
            w.key("fused_instructions").beginArray();
            for (const FusedRow& r : fusedRows) {
                w.beginObject();
                w.field("name", r.inst->name).field("opcode", r.inst->opcode);
                w.field("shape", hlo::shapeToString(r.inst->shape));
                w.field("layout", r.inst->shape.hasLayout ? hlo::layoutToString(r.inst->shape.layout) : "");
                w.field("root", r.root).field("compute_core", r.core);
                w.field("hlo", instructionSummary(*padding.module, *r.inst));
                if (!r.inst->shape.isTuple()) {
                    w.key("padding");
                    writePaddingJson(w, r.padding);
                }
                w.endObject();
            }
            w.endArray();
        }
        w.endObject();
        out << w.str() << "\n";
        return 0;
    }

    out << profile->str(info.name) << "  (" << profile->str(info.category) << (program.empty() ? "" : ", program ")
        << program << ")\n";
    if (!otherPrograms.empty()) {
        out << "Also named " << profile->str(info.name) << " in:";
        for (size_t i = 0; i < otherPrograms.size(); ++i)
            out << (i ? ", " : " ") << otherPrograms[i];
        out << " (other ops; --program NAME shows one)\n";
    }
    out << "HLO:         " << (hloText.empty() ? "(not recorded)" : hloText) << "\n";
    if (!provenance.empty() || info.source)
        out << "Provenance:  " << provenance << (info.source ? "  " + profile->str(info.source) : "") << "\n";
    if (row) {
        out << "Time:        " << formatDurationPs(row->totalTimePs) << " (" << formatPercent(row->timeFraction)
            << " of op time), " << row->occurrences << " occurrences, "
            << formatDurationPs(row->totalTimePs / std::max<int64_t>(1, row->occurrences)) << " each\n";
        out << "Costs:       " << formatCount(row->flops, "FLOP") << ", " << formatBytes(row->bytesAccessed)
            << " accessed; FLOPS util " << flopsUtilizationText(*row) << ", HBM util " << hbmUtilizationText(*row)
            << ", roofline efficiency " << rooflineEfficiencyText(*row) << " (bound by " << boundByText(row->boundBy)
            << ")";
        if (const std::string rate = transferRateText(*row); rate != kUnknownText)
            out << "; transfer rate " << rate;
        out << "\n";
        if (const std::string why = utilizationCaveat(*row, profile->device); !why.empty())
            out << "             " << why << "\n";
    }
    out << "Shape from:  " << shapeSourceName(padding.source);
    if (padding.computeCore)
        out << "; built around " << padding.computeCore->name << " (" << padding.computeCore->opcode << ")";
    if (padding.batchSize > 0)
        out << "; batch " << padding.batchSize;
    out << "\n";
    if (!padding.error.empty())
        out << "             " << padding.error << "\n";
    for (const ArrayPadding& a : padding.arrays) {
        out << "\n" << a.role << ": " << arrayShapeText(a) << "\n";
        if (!a.assumption.empty())
            out << "  tiling: " << a.assumption << "\n";
        // The same phrase as the Details panel's (paddingText), so both read alike.
        out << "  padding: " << paddingText(a.padding);
        if (!a.padding.valid) {
            out << "\n";
            continue;
        }
        if (a.padding.paddedBytes > 0)
            out << " (" << formatBytes(static_cast<double>(a.padding.logicalBytes)) << " of data in "
                << formatBytes(static_cast<double>(a.padding.paddedBytes)) << ")";
        out << "\n";
        if (!a.padding.dims.empty()) // a scalar has none
            out << "  dims (most-minor first): " << dimsText(a.padding) << "\n";
    }
    if (const std::optional<UpdateWrite>& u = padding.update) {
        // The strided-update advice's evidence, in its words (updateWriteText), as the Details panel shows it.
        out << "\n" << u->role() << ": " << hlo::shapeToString(u->update) << "\n";
        out << "  " << padding.name << " " << updateWriteText(*u) << "\n";
        out << "  padding: " << paddingText(u->updatePadding) << "\n";
    }
    if (fused) {
        out << "\nFused computation " << fused->name << " (" << fusedRows.size() << " instructions):\n";
        Table table;
        table.header = {"", "Instruction", "Opcode", "Shape", "Used of tile", "Efficiency", "Dims (minor first)"};
        table.rightAligned = {false, false, false, false, false, true, false};
        for (const FusedRow& r : fusedRows) {
            std::string mark = r.root ? "ROOT" : "";
            if (r.core)
                mark += mark.empty() ? "CORE" : "+CORE";
            table.rows.push_back({mark, r.inst->name, r.inst->opcode, hlo::shapeToString(r.inst->shape),
                r.padding.valid ? r.padding.usedOfTileText() : "",
                r.padding.valid ? formatPercent(r.padding.efficiency, 2) : "",
                r.padding.valid ? dimsText(r.padding) : ""});
        }
        out << renderTable(table, TableFormat::Text);
        out << "CORE = the convolution/dot the fusion is built around; ROOT = the fusion's output.\n";
    }
    return 0;
}

namespace {
constexpr FormatName kFusionFormats[] = {kTextFormat, kJsonFormat};
constexpr Option kFusionOptions[] = {
    {"--program", "NAME", "the op's program, where several programs have an op of that name", setProgram},
};
constexpr OptionGroup kFusionOwn {"", kFusionOptions};
constexpr const OptionGroup* kFusionGroups[] = {&kFusionOwn, &kTextTableOptions, &kLoadOptions};
} // namespace

constinit const Command kFusionCommand {
    .name = "fusion",
    .operands = "FILE NAME",
    .about = "One fusion's drill-down: HLO, tiled layouts, padding per dimension, rates.",
    .formats = kFusionFormats,
    .groups = kFusionGroups,
    .run = runFusion,
};

} // namespace tpuscope::cli
