// SPDX-License-Identifier: GPL-3.0-or-later
#include "neutraltext.h"

#include "utf8.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>

namespace tpuscope::model {

namespace {

enum class Newlines { Keep, Fold };

/// Valid UTF-8 with every control character replaced; newlines and tabs kept or folded to a space.
std::string withoutControls(std::string_view text, Newlines newlines)
{
    const std::string valid = toValidUtf8(text);
    std::string out;
    out.reserve(valid.size());
    for (size_t i = 0; i < valid.size(); ++i) {
        const auto c = static_cast<unsigned char>(valid[i]);
        if (c == '\n' || c == '\t') {
            out += newlines == Newlines::Keep ? static_cast<char>(c) : ' ';
        } else if (c < 0x20 || c == 0x7F) {
            out += kControlReplacement;
        } else if (c == 0xC2 && i + 1 < valid.size() && static_cast<unsigned char>(valid[i + 1]) <= 0x9F) {
            // U+0080..U+009F, the C1 controls (CSI is U+009B): two bytes, C2 80..C2 9F.
            out += kControlReplacement;
            ++i;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

/// Appends the HTML entity of `c` when it needs one (& < >, and " ' when `quotes`); false otherwise.
/// Markdown uses it too: a backslash before < does not stop every renderer from reading a tag.
bool appendEntity(std::string& out, char c, bool quotes)
{
    switch (c) {
    case '&':
        out += "&amp;";
        return true;
    case '<':
        out += "&lt;";
        return true;
    case '>':
        out += "&gt;";
        return true;
    case '"':
        if (quotes)
            out += "&quot;";
        return quotes;
    case '\'':
        if (quotes)
            out += "&#39;";
        return quotes;
    default:
        return false;
    }
}

bool looksLikeNumber(std::string_view text)
{
    if (text.empty())
        return false;
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    return error == std::errc() && end == text.data() + text.size();
}

} // namespace

std::string neutralForTerminal(std::string_view text)
{
    return withoutControls(text, Newlines::Keep);
}

std::string neutralForMarkdown(std::string_view text)
{
    const std::string clean = withoutControls(text, Newlines::Fold);
    std::string out;
    out.reserve(clean.size() + clean.size() / 8);
    for (const char c : clean) {
        switch (c) {
        case '\\':
        case '`':
        case '*':
        case '_':
        case '[':
        case ']':
        case '(':
        case ')':
        case '#':
        case '!':
        case '|':
            out += '\\';
            out += c;
            break;
        default:
            if (!appendEntity(out, c, false))
                out += c;
        }
    }
    return out;
}

std::string neutralMarkdownCode(std::string_view text)
{
    const std::string clean = withoutControls(text, Newlines::Fold);
    size_t longest = 0, run = 0;
    for (const char c : clean) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    const std::string fence(longest + 1, '`');
    // A space inside the fence when the text starts or ends with a backtick (CommonMark strips one).
    const bool pad = !clean.empty() && (clean.front() == '`' || clean.back() == '`');
    return fence + (pad ? " " : "") + clean + (pad ? " " : "") + fence;
}

std::string neutralForHtml(std::string_view text)
{
    const std::string clean = withoutControls(text, Newlines::Keep);
    std::string out;
    out.reserve(clean.size() + clean.size() / 8);
    for (const char c : clean)
        if (!appendEntity(out, c, true))
            out += c;
    return out;
}

std::string neutralCsvCell(std::string_view text, char separator)
{
    std::string cell = withoutControls(text, separator == '\t' ? Newlines::Fold : Newlines::Keep);
    if (!cell.empty() && (cell[0] == '=' || cell[0] == '+' || cell[0] == '-' || cell[0] == '@')
        && !looksLikeNumber(cell))
        cell.insert(0, 1, '\'');
    if (cell.find_first_of(std::string("\"\n") + separator) == std::string::npos)
        return cell;
    std::string quoted = "\"";
    for (const char c : cell) {
        if (c == '"')
            quoted += '"';
        quoted += c;
    }
    return quoted + '"';
}

} // namespace tpuscope::model
