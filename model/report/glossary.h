// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Every metric and term tpuscope shows, in one sentence with its formula and source. Tooltips,
// Help → Glossary and `tpuscope-cli glossary` all read this one list, so they cannot disagree.

#include <string>
#include <string_view>
#include <vector>

namespace tpuscope::model {

struct GlossaryEntry
{
    const char* key; // stable id: "flops-utilization"
    const char* term; // "FLOPS utilization"
    const char* sentence; // what it means, in one sentence
    const char* formula; // how it is computed
    const char* source; // where the definition comes from
};

const std::vector<GlossaryEntry>& glossary();
/// The entry with this key; nullptr when there is none.
const GlossaryEntry* glossaryEntry(std::string_view key);
/// "sentence (formula)" of an entry, for tooltips; empty for an unknown key.
std::string glossaryTooltip(std::string_view key);
/// The whole glossary as a Markdown table.
std::string glossaryMarkdown();

} // namespace tpuscope::model
