// SPDX-License-Identifier: GPL-3.0-or-later
// Strings from a file are a stranger's text: a share file is posted on a forum and opened by
// someone else. Every writer passes such strings through the one function of its target, so that
// they stay text there: no terminal escape, no Markdown heading or link, no HTML tag, no
// spreadsheet formula, never invalid UTF-8. Each function also makes the text valid UTF-8.
#pragma once

#include <string>
#include <string_view>

namespace tpuscope::model {

/// The replacement for a control character: U+FFFD, visible and inert.
inline constexpr const char* kControlReplacement = "\xEF\xBF\xBD";

/// A whole terminal output: C0 controls (NUL, ESC, BEL, CR, ...) except newline and tab, DEL and
/// the C1 controls U+0080..U+009F become U+FFFD, so no file string can move the cursor, clear the
/// screen, set the title or write the clipboard (OSC 52).
std::string neutralForTerminal(std::string_view text);

/// Inline Markdown text from a file: controls become U+FFFD, newlines a space, and every character
/// Markdown or HTML would act on (\ ` * _ [ ] ( ) # ! < > | and &) is escaped, so a name cannot make
/// a heading, a link, an image, a tag, emphasis or a table cell.
std::string neutralForMarkdown(std::string_view text);

/// A Markdown code span of `text`: fenced by more backticks than any run inside, newlines folded,
/// controls replaced; nothing inside a code span renders.
std::string neutralMarkdownCode(std::string_view text);

/// HTML (and Qt rich text) from a file: & < > " ' escaped, controls replaced.
std::string neutralForHtml(std::string_view text);

/// One CSV or TSV cell: controls replaced (newlines too, for TSV), quoted when it holds the
/// separator, a quote or a newline, and a leading = + - @ (a spreadsheet formula) prefixed with '.
/// Numbers we print ("-3", "-0.5") are not formulas: a cell that parses as a number is kept.
std::string neutralCsvCell(std::string_view text, char separator);

} // namespace tpuscope::model
