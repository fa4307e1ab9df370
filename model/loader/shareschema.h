// SPDX-License-Identifier: GPL-3.0-or-later
// The share-file schema with a limit per field. A share file is posted on forums and opened by
// strangers, so the reader believes none of its counts: before it builds anything, this checks
// every array and count against the schema and what the file's size makes possible, and charges
// what the rest will build against the load's budget.
#pragma once

#include "../core/jsondom.h"
#include "../core/profile.h"

#include <cstdint>
#include <string>

namespace tpuscope::model {

/// Step windows the writer keeps in all, over every core, and the reader accepts: one constant
/// for both (share/sharehosts.h spreads them evenly over the cores; host_timing lists as many).
constexpr uint64_t kMaxShareStepWindows = 20000;
/// Hosts and TPU core planes a share file may list (a merge of per-host share files refuses more).
constexpr uint64_t kMaxShareHosts = 16384;
constexpr uint64_t kMaxShareCorePlanes = 16384;
/// The shortest program run or step a share file may claim: real ones take microseconds, so a
/// million runs inside a 1 ms span (1 ns each) is a damaged or hostile file.
constexpr int64_t kMinShareRunPs = 100'000;
/// Events a share file may rebuild per byte of the file: a program_runs entry of ~20 compressed
/// bytes may stand for thousands of runs, but not for more than this allows.
constexpr uint64_t kMaxShareEventsPerFileByte = 1024;

/// What a share document will build, once checkShareClaims accepted it.
struct ShareClaims
{
    uint64_t events = 0; // rebuilt step windows, program runs and idle-line runs
    uint64_t planes = 0;
    uint64_t ops = 0; // op rows, brief rows and "other" rows
    uint64_t hloInstructions = 0;
    uint64_t documentBytes = 0; // the parsed JSON tree, held while the profile is built
};

/// The parse options for a share document under `limits`: at most as many values as the budget
/// holds (a tree value costs ~48 times its text).
json::ParseOptions shareParseOptions(const LoadLimits& limits, uint64_t jsonBytes);

/// Empty when `doc` keeps to the schema, its claims are possible for a file of `fileBytes` bytes
/// and what it will build fits the builder's limits; otherwise an error that names the field
/// ("program_runs[3].runs: ...").
std::string checkShareClaims(
    const json::Value& doc, uint64_t fileBytes, ProfileBuilder& builder, ShareClaims* claims = nullptr);

} // namespace tpuscope::model
