// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 27, point 8: the share reader under the fuzz target's grammar-aware mutator
// (tests/fuzz/sharemutator.h), a short deterministic run. Every mutated file of the demo's share
// file and of the hostile corpus loads, or fails with a message; nothing crashes, hangs or takes
// more than the budget, and what loads goes through the analyses.
#include "../fuzz/sharemutator.h"
#include "analysis/profileanalysis.h"
#include "analysistestutil.h"
#include "loader/loader.h"
#include "share/sharefile.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <iostream>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

std::string shareJson(const std::string& file)
{
    std::string json, error;
    EXPECT_TRUE(shareFileJson(file, json, error)) << error;
    return json;
}

std::string shareFileOf(const std::string& json)
{
    return std::string(kShareMagic) + " " + std::to_string(kShareVersion) + "\n" + gzipBytes(json, 1);
}

} // namespace

TEST(ShareMutations, EveryMutatedFileLoadsOrSaysWhy)
{
    std::vector<std::string> seeds {shareJson(buildShareFile(*buildProfileAnalysis(demoProfile())).bytes)};
    for (const char* name : {"share_markup_names.tpuscope", "share_self_calling_fusions.tpuscope",
             "share_plane_out_of_range.tpuscope", "share_program_runs_in_1ms.tpuscope"})
        seeds.push_back(shareJson(readFile(dataPath(std::string("hostile/") + name))));
    LoadOptions options;
    options.memoryBudgetBytes = 256ull << 20;
    // The long runs belong to the fuzz target (tests/fuzz, fuzz_share); 40 mutations per seed
    // already reach both sides below, and 120 cost 13 s of the suite (80 s under ASan).
    constexpr int kMutationsPerSeed = 40;
    int loaded = 0, refused = 0;
    uint64_t seed = 27;
    for (const std::string& start : seeds) {
        std::string json = start;
        for (int i = 0; i < kMutationsPerSeed; ++i, ++seed) {
            // Chains of up to four mutations, then back to the seed.
            json = tpuscope::fuzz::ShareJsonMutator::mutate(i % 4 == 0 ? start : json, seed);
            const LoadResult r = loadProfileFromBytes(shareFileOf(json), "mutated.tpuscope", options);
            if (r.profile) {
                ++loaded;
                const ProfileAnalysisPtr analysis = buildProfileAnalysis(r.profile);
                ASSERT_TRUE(analysis);
            } else {
                ++refused;
                EXPECT_FALSE(r.error.empty()) << "seed " << seed;
            }
        }
    }
    std::cout << loaded << " mutated files loaded, " << refused << " refused\n";
    // The mutator reaches both sides: files the reader accepts and lies it refuses.
    EXPECT_GT(loaded, 35) << refused << " refused"; // 71 and 129 with these seeds
    EXPECT_GT(refused, 60) << loaded << " loaded";
}
