// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 27 point 6: redaction covers every string field. A profile whose every string carries a
// corpus of paths, user names and host names (HLO text with metadata, backend_config and
// frontend_attributes, source stacks, framework ops, categories, plane, line and program names,
// the file name, warnings) is shared with the redaction on; every output made from it — the share
// file's JSON and text form, the forum post, the share file reopened and shared again, and the
// reports of the reopened file — is searched for every corpus string.
#include "analysis/opbreakdown.h"
#include "analysis/profileanalysis.h"
#include "analysistestutil.h"
#include "core/jsondom.h"
#include "loader/loader.h"
#include "report/advicereport.h"
#include "share/forumpost.h"
#include "report/memoryreport.h"
#include "report/report.h"
#include "report/stepsreport.h"
#include "share/sharefile.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

const std::string kAlicePath = "/home/alice.smith/secret_project/train.py";
const std::string kBobPath = "/usr/local/google/home/bob/x.py";
const std::string kCarolPath = "experimental/users/carol/model.py";
const std::string kBucketPath = "gs://alice-smith-bucket/runs/2024_05_01";
const std::string kUser = "alice.smith";
const std::string kHost = "tpu-vm-alice-7f3c.us-central2-b.c.secret-proj.internal";

/// What must not survive a paths redaction: the paths and the pieces of them that name someone.
const std::vector<std::string>& corpusPaths()
{
    static const std::vector<std::string> paths = {kAlicePath, kBobPath, kCarolPath, kBucketPath, "/home/alice.smith",
        "secret_project", "home/bob", "users/carol", "alice-smith-bucket", "train.py", "model.py"};
    return paths;
}

/// What must not survive any redaction: the host, its short name and its project.
const std::vector<std::string>& corpusHosts()
{
    static const std::vector<std::string> hosts = {kHost, "tpu-vm-alice-7f3c", "secret-proj"};
    return hosts;
}

/// What must not survive "all": everything above and the user names themselves.
std::vector<std::string> corpusAll()
{
    std::vector<std::string> all = corpusPaths();
    all.insert(all.end(), corpusHosts().begin(), corpusHosts().end());
    all.insert(all.end(), {kUser, "carol"});
    return all;
}

/// The demo profile with the corpus in every string a share file or a report can carry.
ProfilePtr corpusProfile()
{
    auto p = std::make_shared<Profile>(*demoProfile());
    const std::string stack = kAlicePath + ":42 train_step\n" + kBobPath + ":7 loss\n" + kCarolPath + ":3 in "
        + kBucketPath + " on " + kHost;
    p->hosts.assign(std::max<size_t>(1, p->hosts.size()), kHost);
    p->load.path = "/home/alice.smith/profiles/plugins/profile/2024_05_01/" + kHost + ".xplane.pb";
    p->load.warnings.push_back("profiler warning: could not read " + kAlicePath + " on " + kHost);
    p->load.limitations.push_back("captured by " + kUser + " from " + kBucketPath);
    for (DeviceInfo* device : {&p->device, &p->fileDevice}) {
        device->type += " on " + kHost;
        device->peakNote += " (as set in " + kCarolPath + ")";
        device->coresNote = "cores as configured in " + kBobPath;
    }
    for (Plane& plane : p->planes)
        plane.name = p->strings.intern(p->str(plane.name) + " " + kHost);
    for (Track& track : p->tracks)
        if (track.kind == TrackKind::Steps)
            track.name = p->strings.intern("Steps of " + kUser + " on " + kHost);
    for (StepMarker& marker : p->stepMarkers)
        marker.name = p->strings.intern("train_step " + kAlicePath);

    bool firstKept = true;
    for (OpId id = 0; id < p->ops.size(); ++id) {
        OpInfo& op = p->ops[id];
        if (!op.isXlaOp)
            continue;
        op.tfOp = p->strings.intern("jit(train_step)/" + kUser + "/" + p->str(op.name) + ":dot_general");
        op.source = p->strings.intern(stack);
        op.deduplicatedName = p->strings.intern(p->str(op.name) + "." + kUser);
        if (const std::string text = p->str(op.longName); !text.empty())
            op.longName = p->strings.intern(text + ", frontend_attributes={_xla_stream_annotation=\"" + kCarolPath
                + "\", owner=\"" + kUser + "\"}, metadata={op_type=\"dot_general\" op_name=\"jit(train_step)/" + kUser
                + "/dot_general\" source_file=\"" + kAlicePath + "\" source_line=42 stack_frame_id=3}"
                + (id % 2 ? ", backend_config={\"flag_configs\":[],\"origin\":\"" + kBobPath + "\",\"host\":\"" + kHost
                            + "\"}"
                          : ", backend_config=\"{\\\"origin\\\":\\\"" + kBobPath + "\\\"}\""));
        if (firstKept && !p->str(op.shapeWithLayout).empty()) {
            firstKept = false;
            p->layoutHints[id] = {{128, 8, "feature of " + kAlicePath}, {8, 8, "batch on " + kHost}};
        }
    }
    // A category a producer wrote with a path and a host in it: on the largest op (kept) and on a
    // tiny one of its own (summed into the "other" rows).
    const OpId largest = computeOpBreakdown(*p).rows.front().op;
    OpInfo tiny = p->ops[largest];
    tiny.name = p->strings.intern("fusion.999");
    const std::string category = " " + kBobPath + " " + kHost;
    tiny.category = p->strings.intern(p->str(tiny.category) + " (tiny)" + category);
    p->ops[largest].category = p->strings.intern(p->str(p->ops[largest].category) + category);
    p->ops.push_back(tiny);
    for (Track& track : p->tracks)
        if (track.kind == TrackKind::XlaOps) {
            track.aggregated.push_back({static_cast<OpId>(p->ops.size() - 1), 1, 1000});
            break;
        }

    for (Program& program : p->programs) {
        program.name += "_" + kUser;
        if (!program.hlo)
            continue;
        auto module = std::make_shared<hlo::Module>(*program.hlo);
        module->name += "_" + kUser;
        for (hlo::Computation& c : module->computations)
            for (hlo::Instruction& in : c.instructions) {
                in.opType = "dot_general";
                in.opName = "jit(train_step)/" + kUser + "/" + in.name;
                in.sourceFile = in.id % 2 ? kBobPath : kCarolPath;
                in.sourceLine = 7;
                if (in.opcode == "custom-call")
                    in.customCallTarget = "kernel_of_" + kUser;
            }
        module->buildIndex();
        program.hlo = std::move(module);
    }
    return p;
}

/// `text` as a reader sees it: Markdown escapes and HTML entities undone, so that an escaped
/// "secret\_project" counts as "secret_project".
std::string unescaped(std::string_view text)
{
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size() && std::ispunct(static_cast<unsigned char>(text[i + 1]))) {
            out += text[++i];
            continue;
        }
        bool entity = false;
        for (auto [from, to] : {std::pair {"&amp;", '&'}, std::pair {"&lt;", '<'}, std::pair {"&gt;", '>'},
                 std::pair {"&quot;", '"'}, std::pair {"&#39;", '\''}})
            if (text.substr(i).starts_with(from)) {
                out += to;
                i += std::string_view(from).size() - 1;
                entity = true;
                break;
            }
        if (!entity)
            out += text[i];
    }
    return out;
}

/// Fails for every corpus string in `output`, naming the output and where the string sits.
void expectNone(const std::string& what, const std::string& output, const std::vector<std::string>& corpus)
{
    ASSERT_FALSE(output.empty()) << what;
    const std::string plain = unescaped(output);
    for (const std::string& s : corpus)
        for (const std::string* text : {&output, &plain})
            if (const size_t at = text->find(s); at != std::string::npos) {
                ADD_FAILURE() << what << " carries \"" << s
                              << "\" near: " << text->substr(at > 80 ? at - 80 : 0, s.size() + 160);
                break;
            }
}

std::string jsonOf(const ShareResult& share)
{
    std::string json, error;
    EXPECT_TRUE(shareFileJson(share.bytes, json, error)) << error;
    return json;
}

ShareOptions withRedaction(std::string_view list)
{
    ShareOptions options;
    std::string error;
    EXPECT_TRUE(parseShareRedaction(list, options.redaction, error)) << error;
    return options;
}

/// Every output of a profile shared with `redaction`, by name: the share file (JSON, text form,
/// the JSON the text form decodes to), the forum post, and from the share file reopened: a share
/// file of it with and without redaction, its forum post and the op, summary, advice, steps and
/// memory reports the command line prints.
std::vector<std::pair<std::string, std::string>> everyOutput(
    const ProfileAnalysis& analysis, std::string_view redaction)
{
    std::vector<std::pair<std::string, std::string>> out;
    const ShareOptions options = withRedaction(redaction);
    const ShareResult share = buildShareFile(analysis, options);
    EXPECT_TRUE(share.ok()) << share.error;
    if (!share.ok())
        return out;
    out.emplace_back("share JSON", share.json);
    const std::string text = shareFileToText(share.bytes);
    out.emplace_back("share text", text);
    std::string bytes, error;
    EXPECT_TRUE(shareFileFromText(text, bytes, error)) << error;
    EXPECT_EQ(bytes, share.bytes);
    out.emplace_back("share JSON of the text form", jsonOf(share));

    ForumPostOptions forum;
    forum.redaction = options.redaction;
    forum.includeShareBlock = true;
    const ForumPost post = buildForumPost(analysis, forum);
    EXPECT_TRUE(post.ok()) << post.error;
    out.emplace_back("forum post", post.markdown);

    LoadResult reopened = loadProfileFromBytes(share.bytes, "shared.tpuscope");
    EXPECT_TRUE(reopened.ok()) << reopened.error;
    if (!reopened.ok())
        return out;
    const ProfileAnalysisPtr again = buildProfileAnalysis(reopened.profile);
    const Profile& profile = *reopened.profile;
    out.emplace_back("share of the share, not redacted", buildShareFile(*again).json);
    out.emplace_back("share of the share, redacted", buildShareFile(*again, options).json);
    ForumPostOptions plainForum;
    plainForum.redaction = {};
    plainForum.includeShareBlock = true;
    out.emplace_back("forum post of the share, not redacted", buildForumPost(*again, plainForum).markdown);
    for (auto [name, format] : {std::pair {"ops md", TableFormat::Markdown}, std::pair {"ops csv", TableFormat::Csv},
             std::pair {"ops json", TableFormat::Json}, std::pair {"ops table", TableFormat::Text}}) {
        out.emplace_back(std::string(name) + " of the share", opsReport(profile, again->breakdown, format));
        for (auto [by, group] : {std::pair {"category", GroupBy::Category}, std::pair {"program", GroupBy::Program},
                 std::pair {"framework op", GroupBy::FrameworkOp}, std::pair {"source", GroupBy::Source}})
            out.emplace_back(std::string(name) + " of the share by " + by,
                opsReport(profile, again->breakdownFor({}, group), format));
    }
    out.emplace_back("summary of the share", summaryReport(profile, again->summary, false));
    out.emplace_back("summary json of the share", summaryReport(profile, again->summary, true));
    for (auto [name, format] : {std::pair {"advice", AdviceFormat::Text}, std::pair {"advice json", AdviceFormat::Json},
             std::pair {"advice md", AdviceFormat::Markdown}})
        out.emplace_back(std::string(name) + " of the share", adviceReport(profile, again->advice, format));
    out.emplace_back("steps of the share", stepsReport(again->steps, TableFormat::Json));
    out.emplace_back("memory of the share", memoryReport(again->memory, TableFormat::Json));
    return out;
}

} // namespace

// The corpus reaches the outputs when nothing is redacted: the searches below can fail.
TEST(RedactionCorpus, CorpusReachesTheUnredactedShareFile)
{
    const ProfilePtr profile = corpusProfile();
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(profile);
    ASSERT_FALSE(analysis->advice.advice.empty());
    const ShareResult plain = buildShareFile(*analysis);
    ASSERT_TRUE(plain.ok()) << plain.error;
    for (const std::string& s : {kAlicePath, kBobPath, kCarolPath, kBucketPath, kUser, kHost})
        EXPECT_NE(plain.json.find(s), std::string::npos) << s;
    for (const char* field : {"frontend_attributes=", "backend_config=", "source_file=", "op_name="})
        EXPECT_NE(plain.json.find(field), std::string::npos) << field;
    // The tiny op's category reaches the "other" rows.
    json::Value doc;
    json::ParseError error;
    ASSERT_TRUE(json::parse(plain.json, doc, error)) << error.describe();
    bool tinyInOther = false;
    for (const json::Value& o : doc["other"].array())
        tinyInOther = tinyInOther || o["category"].string().find("(tiny) " + kBobPath) != std::string::npos;
    EXPECT_TRUE(tinyInOther);
}

TEST(RedactionCorpus, AllRemovesEveryPathUserAndHostFromEveryOutput)
{
    const ProfilePtr profile = corpusProfile();
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(profile);
    for (const auto& [what, output] : everyOutput(*analysis, "all"))
        expectNone(what, output, corpusAll());
    const std::string json = buildShareFile(*analysis, withRedaction("all")).json;
    for (const char* field : {"frontend_attributes", "backend_config", "metadata=", "stack_frame"})
        EXPECT_EQ(json.find(field), std::string::npos) << field;
}

TEST(RedactionCorpus, PathsRemovesEveryPathAndHostFromEveryOutput)
{
    const ProfilePtr profile = corpusProfile();
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(profile);
    std::vector<std::string> corpus = corpusPaths();
    corpus.insert(corpus.end(), corpusHosts().begin(), corpusHosts().end());
    for (const auto& [what, output] : everyOutput(*analysis, "paths"))
        expectNone(what, output, corpus);
}

// Host names go under any redaction (device.hosts become host0..): so do the other places a host
// name sits, the file name (xprof names a host's file after the host) and the core planes among them.
TEST(RedactionCorpus, NamesAndHashRemoveHostNames)
{
    const ProfilePtr profile = corpusProfile();
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(profile);
    for (const char* redaction : {"names", "hash"}) {
        SCOPED_TRACE(redaction);
        const ShareResult share = buildShareFile(*analysis, withRedaction(redaction));
        ASSERT_TRUE(share.ok()) << share.error;
        expectNone("share JSON", share.json, corpusHosts());
    }
}

// Redaction removes text, not the diagnosis: the reopened file gives the advice and the op rows the
// unredacted one gives.
TEST(RedactionCorpus, RedactedShareKeepsTheDiagnosis)
{
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(corpusProfile());
    auto reopen = [&](std::string_view redaction) {
        const ShareResult share = buildShareFile(*analysis, withRedaction(redaction));
        EXPECT_TRUE(share.ok()) << share.error;
        LoadResult reopened = loadProfileFromBytes(share.bytes, "shared.tpuscope");
        EXPECT_TRUE(reopened.ok()) << reopened.error;
        return buildProfileAnalysis(reopened.profile);
    };
    const ProfileAnalysisPtr plain = reopen("");
    for (const char* redaction : {"paths", "names", "all"}) {
        SCOPED_TRACE(redaction);
        const ProfileAnalysisPtr redacted = reopen(redaction);
        ASSERT_EQ(redacted->advice.advice.size(), plain->advice.advice.size());
        for (size_t i = 0; i < plain->advice.advice.size(); ++i) {
            EXPECT_EQ(redacted->advice.advice[i].rule, plain->advice.advice[i].rule);
            EXPECT_EQ(redacted->advice.advice[i].severity, plain->advice.advice[i].severity);
            EXPECT_DOUBLE_EQ(redacted->advice.advice[i].gainPs, plain->advice.advice[i].gainPs);
        }
        ASSERT_EQ(redacted->breakdown.rows.size(), plain->breakdown.rows.size());
        for (size_t i = 0; i < plain->breakdown.rows.size(); ++i) {
            EXPECT_EQ(redacted->breakdown.rows[i].opClass, plain->breakdown.rows[i].opClass) << i;
            EXPECT_DOUBLE_EQ(redacted->breakdown.rows[i].totalTimePs, plain->breakdown.rows[i].totalTimePs) << i;
        }
    }
}
