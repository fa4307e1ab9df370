// SPDX-License-Identifier: GPL-3.0-or-later
// The advice registry is the one list of rules and thresholds: adviceThresholds() (and so
// `tpuscope-cli thresholds` and the README table) is made from it, each rule's thresholds carry
// its own name, and no threshold is declared in a rule's file without being in its entry.
#include "analysis/advice.h"
#include "analysis/advicerules.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

using namespace tpuscope::model;
using namespace tpuscope::model::advice_detail;

namespace {

std::string key(const AdviceThreshold& t)
{
    return std::string(t.rule) + "/" + t.name;
}

std::filesystem::path analysisDir()
{
    return std::filesystem::path(TPUSCOPE_TEST_DATA_DIR).parent_path().parent_path() / "model" / "analysis";
}

} // namespace

TEST(AdviceRegistry, EveryRuleIsOneEntryWithItsOwnThresholds)
{
    std::set<AdviceRuleId> ids;
    for (const AdviceRuleEntry* entry : adviceRules()) {
        ASSERT_NE(entry, nullptr);
        EXPECT_TRUE(ids.insert(entry->id).second) << adviceRuleName(entry->id) << " is registered twice";
        EXPECT_NE(entry->run, nullptr) << adviceRuleName(entry->id);
        for (const AdviceThreshold& t : entry->thresholds)
            EXPECT_STREQ(t.rule, adviceRuleName(entry->id)) << "threshold " << t.name << " is in another rule's entry";
    }
    EXPECT_EQ(ids.size(), static_cast<size_t>(AdviceRuleId::Count)) << "a rule id without an entry";
}

TEST(AdviceRegistry, TheThresholdListIsTheSharedOnesThenEachEntrysInOrder)
{
    std::vector<std::string> expected;
    for (const AdviceThreshold& t : sharedAdviceThresholds()) {
        EXPECT_STREQ(t.rule, "all");
        expected.push_back(key(t));
    }
    for (const AdviceRuleEntry* entry : adviceRules())
        for (const AdviceThreshold& t : entry->thresholds)
            expected.push_back(key(t));
    std::vector<std::string> listed;
    std::set<std::string> unique;
    for (const AdviceThreshold& t : adviceThresholds()) {
        listed.push_back(key(t));
        EXPECT_TRUE(unique.insert(key(t)).second) << key(t) << " is listed twice";
        EXPECT_GT(std::string(t.unit).size(), 0u) << key(t);
        EXPECT_GT(std::string(t.meaning).size(), 0u) << key(t);
    }
    EXPECT_EQ(listed, expected);
}

TEST(AdviceRegistry, NoThresholdIsDeclaredOutsideTheRegistry)
{
    // Every `constexpr AdviceThreshold kX {"rule", "name", ...}` in the advice sources is listed,
    // and a rule file holds no bare numeric constexpr a rule could compare against instead.
    std::set<std::string> listed;
    for (const AdviceThreshold& t : adviceThresholds())
        listed.insert(key(t));
    const std::regex declared(R"re(constexpr\s+AdviceThreshold\s+(\w+)\s*\{\s*"([^"]+)"\s*,\s*"([^"]+)")re");
    const std::regex bareNumber(R"(constexpr\s+(double|float|int|int64_t|size_t|uint64_t)\s+k\w+)");
    size_t files = 0, declarations = 0;
    for (const auto& file : std::filesystem::directory_iterator(analysisDir())) {
        const std::string name = file.path().filename().string();
        if (name.rfind("advice", 0) != 0)
            continue;
        ++files;
        std::ifstream in(file.path());
        std::stringstream text;
        text << in.rdbuf();
        const std::string source = text.str();
        for (std::sregex_iterator it(source.begin(), source.end(), declared), end; it != end; ++it) {
            ++declarations;
            EXPECT_TRUE(listed.count((*it)[2].str() + "/" + (*it)[3].str()))
                << name << ": " << (*it)[1] << " (" << (*it)[2] << "/" << (*it)[3] << ") is not in the registry";
        }
        std::smatch bare;
        EXPECT_FALSE(std::regex_search(source, bare, bareNumber))
            << name << ": " << bare.str() << " is a threshold outside the registry (make it an AdviceThreshold)";
    }
    EXPECT_GE(files, 10u) << "advice sources not found under " << analysisDir();
    // Some registered thresholds wrap a constant of the analysis they bound (deviceconsistency.h's
    // tolerance, opbreakdown.h's low-utilization line), so fewer are declared here than listed.
    EXPECT_GE(declarations, adviceThresholds().size() / 2) << "the declaration pattern no longer matches";
}
