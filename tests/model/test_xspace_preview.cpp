// SPDX-License-Identifier: GPL-3.0-or-later
// The preview of an XSpace load (issue 24): while a large file's planes are decoded, the planes done
// so far are handed over as a partial profile, each track cut at one time and at most a bounded
// number of events copied, so the timeline has something to draw before the load ends. The gate is
// LoadOptions::previewAfterSeconds = 0: the preview is due at once, so it is sent the first time a
// decoded plane is seen (or right after the last one), never on a timer.
#include "testutil.h"

#include "decodethreads.h"
#include "loader/loader.h"
#include "loader/xspacemerge.h"
#include "synth/synth.h"

#include <cstdlib>
#include <map>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

std::string trackKey(const Profile& p, const Track& t)
{
    return p.str(p.planes[t.plane].name) + "|" + p.str(t.name) + "|" + std::to_string(t.lineId);
}

/// Every track of the preview is the start of the same track of the whole profile: the same
/// events, times and op names, in the same order.
void expectPrefixOf(const Profile& partial, const Profile& whole)
{
    std::map<std::string, const Track*> byKey;
    for (const Track& t : whole.tracks)
        byKey[trackKey(whole, t)] = &t;
    for (const Track& t : partial.tracks) {
        const auto it = byKey.find(trackKey(partial, t));
        ASSERT_NE(it, byKey.end()) << trackKey(partial, t);
        const Track& w = *it->second;
        ASSERT_LE(t.size(), w.size());
        for (size_t i = 0; i < t.size(); ++i) {
            ASSERT_EQ(t.start[i], w.start[i]) << trackKey(partial, t) << " event " << i;
            ASSERT_EQ(t.duration[i], w.duration[i]);
            ASSERT_EQ(partial.str(partial.ops[t.op[i]].name), whole.str(whole.ops[w.op[i]].name));
        }
    }
}

std::string benchXSpace(size_t events)
{
    SynthOptions options;
    std::string error, xspace;
    EXPECT_TRUE(parseSynthScenario("bench:" + std::to_string(events), options, error)) << error;
    EXPECT_TRUE(syntheticXSpaceBytes(options, xspace, error)) << error;
    return xspace;
}

} // namespace

TEST(XSpacePreview, DecodedPlanesAreHandedOverOnceBeforeTheLoadEnds)
{
    const std::string xspace = benchXSpace(200000); // 8 TPU cores
    for (int threads : {1, 2}) {
        DecodeThreads scope(threads);
        LoadOptions options;
        int calls = 0;
        ProfilePtr partial;
        options.preview = [&](ProfilePtr p) {
            ++calls;
            partial = std::move(p);
        };
        options.previewAfterSeconds = 0;
        const LoadResult whole = loadProfileFromBytes(xspace, "big.xplane.pb", options);
        ASSERT_TRUE(whole.ok()) << whole.error;
        EXPECT_EQ(calls, 1) << threads << " threads";
        ASSERT_TRUE(partial);
        EXPECT_GT(partial->eventCount(), 0u);
        EXPECT_LE(partial->eventCount(), whole.profile->eventCount());
        if (threads == 1) { // one plane decoded when the first poll comes: the others are missing
            EXPECT_LT(partial->eventCount(), whole.profile->eventCount());
        }
        EXPECT_EQ(partial->load.path, "big.xplane.pb");
        expectPrefixOf(*partial, *whole.profile);
        // The same device and cores: the preview's planes are the file's.
        EXPECT_EQ(partial->planes.size(), whole.profile->planes.size());
        EXPECT_EQ(partial->device.type, whole.profile->device.type);
        EXPECT_EQ(partial->device.cores, whole.profile->device.cores);
    }

    // Not before it is due, and never for a load that ends first.
    LoadOptions late;
    int calls = 0;
    late.preview = [&](ProfilePtr) { ++calls; };
    late.previewAfterSeconds = 3600;
    ASSERT_TRUE(loadProfileFromBytes(xspace, "big.xplane.pb", late).ok());
    EXPECT_EQ(calls, 0);
}

TEST(XSpacePreview, HasThePrograms)
{
    // The metadata plane is decoded first, so a preview has the HLO that gives ops their categories
    // (and so their colours) and the Details their HLO, as the whole profile will.
    TPUSCOPE_REQUIRE_SAMPLE("tpu_v6e_inference.xplane.pb");
    const std::string bytes = readFile(samplePath("tpu_v6e_inference.xplane.pb"));
    DecodeThreads scope(1);
    LoadOptions options;
    ProfilePtr partial;
    options.preview = [&](ProfilePtr p) { partial = std::move(p); };
    options.previewAfterSeconds = 0;
    const LoadResult whole = loadProfileFromBytes(bytes, "v6e.xplane.pb", options);
    ASSERT_TRUE(whole.ok()) << whole.error;
    ASSERT_TRUE(partial);
    ASSERT_EQ(whole.profile->programs.size(), 4u);
    ASSERT_EQ(partial->programs.size(), whole.profile->programs.size());
    for (size_t i = 0; i < partial->programs.size(); ++i) {
        EXPECT_EQ(partial->programs[i].id, whole.profile->programs[i].id);
        EXPECT_EQ(partial->programs[i].hlo, whole.profile->programs[i].hlo); // shared, not copied
    }
}

TEST(XSpacePreview, CopiesAtMostTheCapCutAtOneTimeForEveryTrack)
{
    using namespace tpuscope::model::xspace;
    ProfileBuilder source;
    source.addHost({});
    // Two decoded planes: a dense line (an event every 10 ps), a sparse one (every 1000 ps) and a
    // line of one long event; 1000 + 10 + 1 events over the same 10 ns.
    std::vector<LocalPlane> planes(2);
    for (size_t p = 0; p < planes.size(); ++p) {
        LocalPlane& local = planes[p];
        local.planeId = source.addPlane("/device:TPU:" + std::to_string(p), 0);
        local.kind = PlaneKind::TpuCore;
        EventMeta meta;
        meta.name = p == 0 ? "fusion.0" : "fusion.1";
        local.metas.push_back(meta);
        local.usedOps.emplace_back(0, true);
        local.lines.resize(3);
        const TimePs step[] = {10, 1000, 10000};
        for (size_t l = 0; l < 3; ++l) {
            LocalLine& line = local.lines[l];
            line.header.name = "XLA Ops " + std::to_string(l);
            line.kind = TrackKind::XlaOps;
            for (TimePs t = 0; t < 10000; t += step[l]) {
                line.start.push_back(t + static_cast<TimePs>(p));
                line.duration.push_back(std::min<TimePs>(step[l], 10000 - t));
                line.op.push_back(0);
            }
        }
    }
    const std::vector<const LocalPlane*> done = {&planes[0], &planes[1]};

    auto previewOf = [&](size_t cap) {
        ProfileBuilder preview;
        preview.addHost({});
        preview.addPlane("/device:TPU:0", 0);
        preview.addPlane("/device:TPU:1", 0);
        addPreviewPlanes(preview, done, cap);
        return preview.finish();
    };

    // Under the cap: everything.
    const auto all = previewOf(1u << 20);
    EXPECT_EQ(all->eventCount(), 2u * (1000 + 10 + 1));
    EXPECT_EQ(all->ops.size(), 2u);

    // Over it: at most 300 events, every track cut at the same time, nothing after the cut left out.
    const auto cut = previewOf(300);
    EXPECT_LE(cut->eventCount(), 300u);
    EXPECT_GT(cut->eventCount(), 250u); // the latest cut that fits, not merely some cut
    TimePs last = 0;
    for (const Track& t : cut->tracks)
        for (TimePs s : t.start)
            last = std::max(last, s);
    for (size_t p = 0; p < planes.size(); ++p)
        for (size_t l = 0; l < 3; ++l) {
            const LocalLine& line = planes[p].lines[l];
            size_t expected = 0;
            while (expected < line.start.size() && line.start[expected] <= last)
                ++expected;
            const Track& t = cut->tracks[p * 3 + l];
            EXPECT_EQ(t.size(), expected) << "plane " << p << " line " << l;
        }
    // The source planes are only read.
    EXPECT_EQ(planes[0].lines[0].start.size(), 1000u);
}
