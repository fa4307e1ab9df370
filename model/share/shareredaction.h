// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What a share file leaves out (ShareRedaction), and how its writer leaves it out: one map for the
// names it hashes (NameMap) and one redactor for every other string it keeps (TextRedactor). The
// share_detail part serves the writer (sharefile.cpp, hloreducer.cpp) and nothing else.

#include "../core/profile.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace tpuscope::model {

/// What a share file leaves out. Any option also turns host names into host0.. wherever they are
/// quoted, core plane names into the bare core, and drops the HLO text's metadata, backend_config
/// and frontend_attributes and the original's format limitations.
struct ShareRedaction
{
    /// Source file:line, HLO source_file/source_line, the original file name, and in every other
    /// string any path-like token ("[path]") and the user names of home folders ("[user]").
    bool paths = false;
    bool names = false; // framework op names (tf_op / provenance, HLO op_type/op_name metadata)
    bool hashNames = false; // HLO op, computation and program names → stable short hashes
    bool any() const { return paths || names || hashNames; }
};

/// Parses "paths,names,hash" (any subset, comma-separated; "all" = every option, "none" = no option).
bool parseShareRedaction(std::string_view list, ShareRedaction& out, std::string& error);

/// The list parseShareRedaction reads back: "none", "all" or the options ("paths,names").
std::string shareRedactionList(const ShareRedaction& redaction);

/// What every export leaves out unless the user chose otherwise (the share file, the forum post,
/// the share card, the op table's copies and PNG, `tpuscope-cli share`): local paths and the user
/// names of home folders (paths), and with them host names (any option).
inline ShareRedaction defaultShareRedaction()
{
    ShareRedaction redaction;
    redaction.paths = true;
    return redaction;
}

/// Stable short hash used for name redaction ("op_1a2b3c4d").
std::string redactedName(std::string_view name, std::string_view prefix = "op_");

namespace share_detail {

/// The names a share file hashes (with hash redaction), each mapped to one hash wherever it is
/// written; without hash redaction every name stays as it is.
class NameMap
{
public:
    explicit NameMap(bool enabled)
        : m_enabled(enabled)
    {
    }

    /// Gives `name` its hash ("op_…", "prog_…", "comp_…"); a hash already taken gets a salt, so the
    /// order in which names are added decides which of two colliding names keeps the plain hash.
    void add(const std::string& name, std::string_view prefix);
    /// The hash of a known name; any other string as text() redacts it.
    std::string name(const std::string& original) const;
    /// Replaces every known name that appears as a whole token (HLO names use [A-Za-z0-9_.-]).
    std::string text(std::string_view in) const;

private:
    bool m_enabled;
    std::unordered_map<std::string, std::string> m_map;
    std::unordered_set<std::string> m_used;
};

/// HLO text without its metadata, backend_config and frontend_attributes clauses (", metadata={...}",
/// ", backend_config=\"...\"").
std::string stripHloAttributes(std::string_view text);

/// What a redacted share file removes from the free text it keeps (HLO text, categories, shapes,
/// notes, line names, advice titles and numbers), wherever it is quoted and not only in the field it
/// came from: the profile's host names (with any redaction: host0.., as device.hosts), and with
/// paths redaction every token that looks like a path and the user names of the home folders that
/// the profile's paths go through.
class TextRedactor
{
public:
    TextRedactor(const Profile& profile, const ShareRedaction& redaction, const NameMap& names);

    /// Text whose words are not HLO names (opcodes, categories, shapes, notes): an opcode may
    /// spell an instruction's name, so no name is hashed.
    std::string scrub(std::string_view in) const;

    /// Text that names HLO ops (HLO text, advice): names hashed (hash redaction), then scrubbed.
    std::string text(std::string_view in) const { return scrub(m_names.text(in)); }

private:
    void addWord(const std::string& word, std::string standIn);

    const NameMap& m_names;
    bool m_active;
    bool m_paths;
    std::vector<std::pair<std::string, std::string>> m_words; // host and user names → stand-ins, longest first
};

} // namespace share_detail

/// The share file's redaction for text that is not in a share file: the op table's copies and PNG
/// and the share card. Each string goes through the same name map (hash: the profile's op and
/// program names) and text redactor (host names, paths, user names) as a share file's free text;
/// with names redaction a framework op name becomes a stable hash ("fw_…") as a table cell.
class ExportRedactor
{
public:
    ExportRedactor(const Profile& profile, const ShareRedaction& redaction);

    const ShareRedaction& redaction() const { return m_redaction; }
    /// `in` as it may leave the machine.
    std::string text(std::string_view in) const;
    /// The profile's file name, empty when the redaction leaves it out (with paths, as the share
    /// file does: in xprof's runs the file name is the host's name).
    std::string fileName() const;

private:
    ShareRedaction m_redaction;
    std::string m_path;
    share_detail::NameMap m_names;
    share_detail::TextRedactor m_texts; // reads m_names: declared after it
    std::unordered_map<std::string, std::string> m_frameworkOps; // names redaction: name → hash
};

} // namespace tpuscope::model
