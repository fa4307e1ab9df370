// SPDX-License-Identifier: GPL-3.0-or-later
//
// Share file redaction: the names a share file hashes and what it removes from the text it keeps
// (see the end of sharefile.cpp's schema comment for what goes where).

#include "shareredaction.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <set>

namespace tpuscope::model {

namespace {

bool isNameChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
}

// HLO attributes a redacted share file drops from HLO text. Nothing reads them (the op model reads
// shapes, operands and layouts), and each can say whose code an op is: metadata holds op_type,
// op_name, source_file, source_line and stack_frame_id; backend_config a kernel's own source (a
// Pallas kernel's MLIR carries file locations); frontend_attributes whatever the framework put there.
constexpr std::array<std::string_view, 3> kRedactedHloAttributes
    = {"metadata", "backend_config", "frontend_attributes"};

/// Where an HLO attribute value that starts at `i` ends: a {...} block or a "..." string (quotes and
/// escapes inside respected), else a bare word up to the next ',' or the enclosing '}'.
size_t endOfHloValue(std::string_view text, size_t i)
{
    int depth = 0;
    bool quoted = false;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '\\') {
                ++i;
            } else if (c == '"') {
                quoted = false;
                if (depth == 0)
                    return i + 1; // a "..." value
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == '{') {
            ++depth;
        } else if (c == '}') {
            if (depth == 0)
                return i;
            if (--depth == 0)
                return i + 1;
        } else if (c == ',' && depth == 0) {
            return i;
        }
    }
    return text.size();
}

/// Replaces `word` in `text` wherever no letter or digit touches it on either side.
void replaceWord(std::string& text, std::string_view word, std::string_view with)
{
    auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
    for (size_t at = text.find(word); !word.empty() && at != std::string::npos; at = text.find(word, at)) {
        const size_t end = at + word.size();
        if ((at > 0 && alnum(text[at - 1])) || (end < text.size() && alnum(text[end]))) {
            at = end;
            continue;
        }
        text.replace(at, word.size(), with);
        at += with.size();
    }
}

bool endsWithExtension(std::string_view file, std::initializer_list<std::string_view> extensions)
{
    const size_t dot = file.rfind('.');
    if (dot == std::string_view::npos || dot + 1 == file.size())
        return false;
    std::string extension(file.substr(dot + 1));
    for (char& c : extension)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return std::find(extensions.begin(), extensions.end(), extension) != extensions.end();
}

/// The segment after a home folder in `path` ("/home/NAME/", "/Users/NAME/", ".../users/NAME/"), one
/// per home folder, when a folder follows it (a user's folder, not a file called "home/x.py").
std::vector<std::string_view> homeFolderOwners(std::string_view path)
{
    std::vector<std::string_view> owners;
    auto separator = [](char c) { return c == '/' || c == '\\'; };
    for (std::string_view home : {"home", "Users", "users"})
        for (size_t at = path.find(home); at != std::string_view::npos; at = path.find(home, at + 1)) {
            const size_t begin = at + home.size() + 1;
            if ((at > 0 && !separator(path[at - 1])) || begin >= path.size() || !separator(path[begin - 1]))
                continue;
            size_t end = begin;
            while (end < path.size() && !separator(path[end]) && !std::isspace(static_cast<unsigned char>(path[end]))
                && path[end] != '"' && path[end] != '\'')
                ++end;
            if (end > begin && end < path.size() && separator(path[end]))
                owners.push_back(path.substr(begin, end - begin));
        }
    return owners;
}

/// Whether one token of free text names a file or folder: a URL (gs://...), an absolute path with a
/// folder (/home/x, C:\\x), a path through a home folder, or a source file ("train.py:42"; data
/// files such as x.json only with a folder). "/device:TPU:0", "GB/s" and framework scopes
/// ("jit(f)/dense/dot_general") are not paths.
bool isPathToken(std::string_view token)
{
    if (token.empty())
        return false;
    if (token.find("://") != std::string_view::npos || token.starts_with("\\\\"))
        return true;
    if (token.size() >= 3 && std::isalpha(static_cast<unsigned char>(token[0])) && token[1] == ':'
        && (token[2] == '\\' || token[2] == '/'))
        return true;
    const auto slashes = std::count(token.begin(), token.end(), '/') + std::count(token.begin(), token.end(), '\\');
    const bool rooted
        = token[0] == '/' || token.starts_with("~/") || token.starts_with("./") || token.starts_with("../");
    if ((rooted && slashes >= 2) || !homeFolderOwners(token).empty())
        return true;
    // A source location: the file, then ":line" or ":line:column".
    std::string_view file = token;
    for (int i = 0; i < 2; ++i)
        if (const size_t colon = file.rfind(':'); colon != std::string_view::npos && colon + 1 < file.size()
            && std::all_of(file.begin() + colon + 1, file.end(),
                [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
            file = file.substr(0, colon);
    if (const size_t slash = file.find_last_of("/\\"); slash != std::string_view::npos)
        file = file.substr(slash + 1);
    if (endsWithExtension(file,
            {"py", "pyi", "pyx", "ipynb", "cc", "cpp", "cxx", "c", "h", "hh", "hpp", "cu", "cuh", "jl", "rs", "go",
                "java", "scala", "kt", "js", "ts", "sh", "mlir"}))
        return true;
    return slashes > 0
        && endsWithExtension(file,
            {"pb", "pbtxt", "json", "gz", "txt", "log", "yaml", "yml", "csv", "proto", "npy", "npz", "pkl", "ckpt",
                "tpuscope"});
}

/// Every token of `text` that isPathToken replaced by "[path]". Tokens end at spaces, quotes and
/// the punctuation that separates HLO attributes and list items; parentheses and a sentence's
/// final '.' or ':' around a token are not part of it.
std::string withoutPaths(std::string_view text)
{
    auto separates = [](char c) {
        return std::isspace(static_cast<unsigned char>(c))
            || std::string_view("\"'`,;[]{}<>|=").find(c) != std::string_view::npos;
    };
    std::string out;
    out.reserve(text.size());
    size_t i = 0;
    while (i < text.size()) {
        if (separates(text[i])) {
            out += text[i++];
            continue;
        }
        size_t end = i;
        while (end < text.size() && !separates(text[end]))
            ++end;
        size_t begin = i, last = end;
        while (begin < last && (text[begin] == '(' || text[begin] == '<'))
            ++begin;
        while (last > begin && std::string_view(").:").find(text[last - 1]) != std::string_view::npos)
            --last;
        out.append(text.substr(i, begin - i));
        out.append(isPathToken(text.substr(begin, last - begin)) ? "[path]" : text.substr(begin, last - begin));
        out.append(text.substr(last, end - last));
        i = end;
    }
    return out;
}

} // namespace

// ---------------------------------------------------------------------------------------------

std::string redactedName(std::string_view name, std::string_view prefix)
{
    // FNV-1a, 64 bit: stable across runs and platforms (std::hash is neither).
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : name) {
        h ^= c;
        h *= 1099511628211ull;
    }
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%08x", static_cast<unsigned>((h >> 32) ^ (h & 0xffffffffu)));
    return std::string(prefix) + buffer;
}

bool parseShareRedaction(std::string_view list, ShareRedaction& out, std::string& error)
{
    out = {};
    size_t i = 0;
    while (i <= list.size()) {
        size_t comma = list.find(',', i);
        if (comma == std::string_view::npos)
            comma = list.size();
        std::string_view item = list.substr(i, comma - i);
        while (!item.empty() && item.front() == ' ')
            item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ')
            item.remove_suffix(1);
        if (item == "paths")
            out.paths = true;
        else if (item == "names")
            out.names = true;
        else if (item == "hash")
            out.hashNames = true;
        else if (item == "all")
            out = {true, true, true};
        else if (item == "none")
            out = {};
        else if (!item.empty()) {
            error = "unknown redaction '" + std::string(item) + "' (use paths, names, hash, all or none)";
            return false;
        }
        i = comma + 1;
    }
    return true;
}

std::string shareRedactionList(const ShareRedaction& redaction)
{
    if (!redaction.any())
        return "none";
    if (redaction.paths && redaction.names && redaction.hashNames)
        return "all";
    std::string list;
    for (const auto& [on, name] : {std::pair {redaction.paths, "paths"}, std::pair {redaction.names, "names"},
             std::pair {redaction.hashNames, "hash"}})
        if (on)
            list += (list.empty() ? "" : ",") + std::string(name);
    return list;
}

namespace share_detail {

void NameMap::add(const std::string& name, std::string_view prefix)
{
    if (!m_enabled || name.empty() || m_map.count(name))
        return;
    std::string hashed = redactedName(name, prefix);
    for (int salt = 1; m_used.count(hashed); ++salt)
        hashed = redactedName(name + "#" + std::to_string(salt), prefix);
    m_used.insert(hashed);
    m_map.emplace(name, std::move(hashed));
}

std::string NameMap::name(const std::string& original) const
{
    if (!m_enabled)
        return original;
    if (auto it = m_map.find(original); it != m_map.end())
        return it->second;
    return text(original);
}

std::string NameMap::text(std::string_view in) const
{
    if (!m_enabled)
        return std::string(in);
    std::string out;
    out.reserve(in.size());
    size_t i = 0;
    while (i < in.size()) {
        if (!isNameChar(in[i])) {
            out += in[i++];
            continue;
        }
        size_t end = i;
        while (end < in.size() && isNameChar(in[end]))
            ++end;
        // A sentence may end right after a name ("... in fusion.3."): try shorter tokens.
        size_t len = end - i;
        bool replaced = false;
        while (len > 0) {
            auto it = m_map.find(std::string(in.substr(i, len)));
            if (it != m_map.end()) {
                out += it->second;
                out.append(in.substr(i + len, end - i - len));
                replaced = true;
                break;
            }
            const char last = in[i + len - 1];
            if (last != '.' && last != '-')
                break;
            --len;
        }
        if (!replaced)
            out.append(in.substr(i, end - i));
        i = end;
    }
    return out;
}

/// HLO text without its kRedactedHloAttributes clauses (", metadata={...}", ", backend_config=\"...\"").
std::string stripHloAttributes(std::string_view text)
{
    std::string out;
    size_t copied = 0;
    while (true) {
        size_t at = std::string_view::npos, nameSize = 0;
        for (std::string_view name : kRedactedHloAttributes)
            for (size_t found = text.find(name, copied); found != std::string_view::npos && found < at;
                 found = text.find(name, found + 1))
                if ((found == 0 || !isNameChar(text[found - 1])) && found + name.size() < text.size()
                    && text[found + name.size()] == '=') {
                    at = found;
                    nameSize = name.size();
                    break;
                }
        if (at == std::string_view::npos)
            break;
        size_t cut = at;
        while (cut > copied && (text[cut - 1] == ' ' || text[cut - 1] == ','))
            --cut;
        out.append(text.substr(copied, cut - copied));
        copied = endOfHloValue(text, at + nameSize + 1);
    }
    out.append(text.substr(copied));
    return out;
}

TextRedactor::TextRedactor(const Profile& profile, const ShareRedaction& redaction, const NameMap& names)
    : m_names(names)
    , m_active(redaction.any())
    , m_paths(redaction.paths)
{
    if (!m_active)
        return;
    for (size_t h = 0; h < profile.hosts.size(); ++h) {
        const std::string& host = profile.hosts[h];
        const std::string standIn = "host" + std::to_string(h);
        addWord(host, standIn);
        addWord(host.substr(0, host.find('.')), standIn); // the short name of a domain name
    }
    if (m_paths) {
        std::unordered_set<StringId> seen;
        auto scan = [&](std::string_view path) {
            for (std::string_view owner : homeFolderOwners(path))
                addWord(std::string(owner), "[user]");
        };
        scan(profile.load.path);
        for (const OpInfo& op : profile.ops)
            for (StringId id : {op.source, op.longName, op.tfOp})
                if (seen.insert(id).second)
                    scan(profile.str(id));
        std::unordered_set<std::string_view> files;
        for (const Program& program : profile.programs)
            if (program.hlo)
                for (const hlo::Computation& c : program.hlo->computations)
                    for (const hlo::Instruction& in : c.instructions)
                        if (files.insert(in.sourceFile).second)
                            scan(in.sourceFile);
    }
    std::stable_sort(
        m_words.begin(), m_words.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

std::string TextRedactor::scrub(std::string_view in) const
{
    if (!m_active)
        return std::string(in);
    std::string out = m_paths ? withoutPaths(in) : std::string(in);
    for (const auto& [word, standIn] : m_words)
        replaceWord(out, word, standIn);
    return out;
}

void TextRedactor::addWord(const std::string& word, std::string standIn)
{
    // Short words ("a", "me") and account names that name no one would garble every text.
    static const std::set<std::string, std::less<>> kNobody = {"root", "user", "runner", "ubuntu", "admin"};
    if (word.size() >= 3 && !kNobody.count(word))
        m_words.emplace_back(word, std::move(standIn));
}

} // namespace share_detail

namespace {

share_detail::NameMap profileNames(const Profile& profile, bool hash)
{
    share_detail::NameMap names(hash);
    for (const OpInfo& op : profile.ops)
        names.add(profile.str(op.name), "op_");
    for (const Program& program : profile.programs)
        names.add(program.name, "prog_");
    return names;
}

} // namespace

ExportRedactor::ExportRedactor(const Profile& profile, const ShareRedaction& redaction)
    : m_redaction(redaction)
    , m_path(profile.load.path)
    , m_names(profileNames(profile, redaction.hashNames))
    , m_texts(profile, redaction, m_names)
{
    if (redaction.names)
        for (const OpInfo& op : profile.ops)
            if (const std::string& name = profile.str(op.tfOp); !name.empty())
                m_frameworkOps.emplace(name, redactedName(name, "fw_"));
}

std::string ExportRedactor::text(std::string_view in) const
{
    if (!m_frameworkOps.empty())
        if (auto it = m_frameworkOps.find(std::string(in)); it != m_frameworkOps.end())
            return it->second;
    return m_texts.text(in);
}

std::string ExportRedactor::fileName() const
{
    if (m_redaction.paths)
        return {};
    const size_t slash = m_path.find_last_of("/\\");
    return m_texts.scrub(slash == std::string::npos ? m_path : m_path.substr(slash + 1));
}

} // namespace tpuscope::model
