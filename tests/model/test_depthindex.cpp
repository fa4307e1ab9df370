// SPDX-License-Identifier: GPL-3.0-or-later
// What the load job computes so that opening a profile and selecting an op make no pass over the
// events on the GUI thread: the timeline's depth index, each op's first track and the
// occurrences of one op, each checked against a plain walk over the events of real profiles.
#include "testutil.h"

#include "analysis/profileanalysis.h"
#include "core/depthindex.h"
#include "loader/loader.h"

#include <bit>
#include <cstdio>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

const std::string kDemo = std::string(TPUSCOPE_TEST_DATA_DIR) + "/../../resources/demo.xplane.pb";

std::vector<ProfilePtr> realProfiles()
{
    std::vector<ProfilePtr> profiles;
    for (const char* name : {"tpu_v6e_inference.xplane.pb", "tpu_vllm_serving.trace.json.gz"}) {
        if (!haveSample(name))
            continue;
        LoadResult loaded = loadProfile(samplePath(name));
        EXPECT_TRUE(loaded.ok()) << name << ": " << loaded.error;
        if (loaded.ok())
            profiles.push_back(loaded.profile);
    }
    LoadResult demo = loadProfile(kDemo);
    EXPECT_TRUE(demo.ok()) << demo.error;
    if (demo.ok())
        profiles.push_back(demo.profile);
    return profiles;
}

} // namespace

TEST(DepthIndex, EveryEventIsOnTheRowOfItsDepthInStartOrder)
{
    size_t nestedTracks = 0, unorderedEnds = 0;
    for (const ProfilePtr& profile : realProfiles()) {
        const DepthIndex index = buildDepthIndex(*profile);
        ASSERT_EQ(index.tracks.size(), profile->tracks.size());
        for (TrackId t = 0; t < profile->tracks.size(); ++t) {
            const Track& track = profile->tracks[t];
            const std::vector<DepthEvents>& rows = index.tracks[t];
            ASSERT_EQ(rows.size(), size_t(track.maxDepth) + 1);
            nestedTracks += rows.size() > 1;
            // The plain walk: per depth, the events in index order.
            std::vector<std::vector<uint32_t>> expected(rows.size());
            for (uint32_t e = 0; e < track.size(); ++e)
                expected[std::min<size_t>(track.depth[e], rows.size() - 1)].push_back(e);
            for (size_t d = 0; d < rows.size(); ++d) {
                const DepthEvents& row = rows[d];
                ASSERT_EQ(row.count, expected[d].size()) << "track " << t << " depth " << d;
                bool monotone = true;
                TimePs maxEnd = std::numeric_limits<TimePs>::min();
                uint64_t pairs = 0;
                for (size_t k = 0; k < row.count; ++k) {
                    ASSERT_EQ(row.event(k), expected[d][k]);
                    const TimePs end = track.end(expected[d][k]);
                    monotone = monotone && end >= maxEnd;
                    maxEnd = std::max(maxEnd, end);
                    if (!row.monotoneEnds) {
                        EXPECT_EQ(row.prefixMaxEnd[k], maxEnd);
                    }
                    pairs += k > 0;
                }
                EXPECT_EQ(row.monotoneEnds, monotone);
                unorderedEnds += !monotone;
                uint64_t counted = 0;
                for (uint64_t n : row.startBitWidths)
                    counted += n;
                EXPECT_EQ(counted, pairs) << "one bit width per pair of consecutive starts";
            }
        }
    }
    EXPECT_GT(nestedTracks, 0u) << "no sample has a nested track to index";
    std::printf("%zu nested tracks, %zu rows with unordered ends\n", nestedTracks, unorderedEnds);
}

TEST(DepthIndex, AStoppedBuildReturnsNothing)
{
    LoadResult loaded = loadProfile(kDemo);
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    std::stop_source stop;
    stop.request_stop();
    EXPECT_TRUE(buildDepthIndex(*loaded.profile, stop.get_token()).tracks.empty());
}

TEST(DepthIndex, TheWindowsAnalysisCarriesItAndTheCliDoesNotBuildIt)
{
    LoadResult loaded = loadProfile(kDemo);
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    EXPECT_EQ(buildProfileAnalysis(loaded.profile)->depthIndex, nullptr);
    const ProfileAnalysisPtr forWindow = buildProfileAnalysis(loaded.profile, {}, {}, AnalysisFor::Window);
    ASSERT_NE(forWindow->depthIndex, nullptr);
    EXPECT_EQ(forWindow->depthIndex->tracks.size(), loaded.profile->tracks.size());
}

TEST(UtilizationSeries, TheWindowsAnalysisCarriesItAndTheCliDoesNotComputeIt)
{
    LoadResult loaded = loadProfile(kDemo);
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    ASSERT_TRUE(loaded.profile->hasTpuOps());
    EXPECT_TRUE(buildProfileAnalysis(loaded.profile)->utilization.flopsAverage.empty());
    const ProfileAnalysisPtr forWindow = buildProfileAnalysis(loaded.profile, {}, {}, AnalysisFor::Window);
    const UtilizationSeries expected = computeUtilization(*loaded.profile, analysisUtilizationOptions(*loaded.profile));
    ASSERT_EQ(forWindow->utilization.flopsAverage.size(), static_cast<size_t>(kAnalysisUtilizationBuckets));
    EXPECT_EQ(forWindow->utilization.flopsAverage, expected.flopsAverage);
    EXPECT_EQ(forWindow->utilization.hbmPeak, expected.hbmPeak);
}

TEST(OpOccurrences, FirstTrackAndOccurrencesAgreeWithAWalkOverTheEvents)
{
    for (const ProfilePtr& profile : realProfiles()) {
        std::vector<TrackId> firstTrack(profile->ops.size(), kNone);
        std::vector<size_t> events(profile->ops.size(), 0);
        for (TrackId t = 0; t < profile->tracks.size(); ++t)
            for (const OpId op : profile->tracks[t].op) {
                if (firstTrack[op] == kNone)
                    firstTrack[op] = t;
                ++events[op];
            }
        size_t checked = 0;
        for (OpId op = 0; op < profile->ops.size(); ++op) {
            ASSERT_EQ(profile->ops[op].firstTrack, firstTrack[op]) << profile->str(profile->ops[op].name);
            if (op % 7 != 0)
                continue; // every seventh op is plenty for the occurrences
            const OpOccurrences found = findOccurrences(*profile, op);
            ASSERT_EQ(found.size(), profile->tracks.size());
            size_t total = 0;
            for (TrackId t = 0; t < found.size(); ++t) {
                for (size_t k = 0; k < found[t].size(); ++k) {
                    EXPECT_EQ(profile->tracks[t].op[found[t][k]], op);
                    if (k > 0) {
                        EXPECT_LT(found[t][k - 1], found[t][k]);
                    }
                }
                total += found[t].size();
            }
            EXPECT_EQ(total, events[op]);
            ++checked;
        }
        EXPECT_GT(checked, 0u);
    }
}

TEST(OpOccurrences, AStoppedSearchReturnsNothing)
{
    LoadResult loaded = loadProfile(kDemo);
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    std::stop_source stop;
    stop.request_stop();
    // Stopping is seen at the first check (every 1024 events): the search of an op on the first
    // track reads more events than that.
    const Profile& profile = *loaded.profile;
    OpId op = 0;
    while (op < profile.ops.size() && profile.ops[op].firstTrack != 0)
        ++op;
    ASSERT_LT(op, profile.ops.size());
    ASSERT_GT(profile.eventCount(), 1024u);
    EXPECT_TRUE(findOccurrences(profile, op, stop.get_token()).empty());
}
