// SPDX-License-Identifier: GPL-3.0-or-later
//
// The HLO shape text parser of layout.h: shapes, tuples and layouts with their tiles.

#include "layout.h"
#include "layoutconstants.h"

#include <cctype>
#include <limits>

namespace tpuscope::model::layout {

using detail::kCombineDimension;
using detail::kMaxNesting;
using hlo::PrimitiveType;

namespace {

// Quoted text in error messages is cut so that a whole HLO line does not end up in a tooltip.
constexpr size_t kMaxQuotedChars = 160;

class Parser
{
public:
    Parser(std::string_view text, size_t pos = 0)
        : m_text(text)
        , m_pos(pos)
    {
    }

    const std::string& error() const { return m_error; }
    bool failed() const { return !m_error.empty(); }
    size_t pos() const { return m_pos; }
    bool atEnd() const { return m_pos >= m_text.size(); }

    bool fail(std::string_view what) { return failAt(what, m_pos); }

    bool failAt(std::string_view what, size_t offset)
    {
        if (!m_error.empty())
            return false; // keep the first, innermost message
        std::string quoted(m_text.substr(0, kMaxQuotedChars));
        if (m_text.size() > kMaxQuotedChars)
            quoted += "...";
        m_error = std::string(what) + " at offset " + std::to_string(offset) + " in '" + quoted + "'";
        return false;
    }

    char peek() const { return atEnd() ? '\0' : m_text[m_pos]; }

    // Whitespace and /*...*/ comments: XLA prints "/*index=5*/" between tuple elements.
    void skipSpace()
    {
        while (!atEnd()) {
            char c = m_text[m_pos];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                ++m_pos;
            } else if (c == '/' && m_pos + 1 < m_text.size() && m_text[m_pos + 1] == '*') {
                size_t end = m_text.find("*/", m_pos + 2);
                if (end == std::string_view::npos) {
                    m_pos = m_text.size();
                    return;
                }
                m_pos = end + 2;
            } else {
                return;
            }
        }
    }

    bool consume(char c)
    {
        if (peek() != c)
            return false;
        ++m_pos;
        return true;
    }

    bool expect(char c)
    {
        if (consume(c))
            return true;
        return fail(std::string("expected '") + c + "'");
    }

    bool parseInt(int64_t& value)
    {
        skipSpace();
        size_t start = m_pos;
        bool negative = consume('-');
        if (!std::isdigit(static_cast<unsigned char>(peek())))
            return failAt("expected a number", start);
        uint64_t magnitude = 0;
        // One past INT64_MAX is allowed for the negative side only.
        const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + (negative ? 1 : 0);
        while (std::isdigit(static_cast<unsigned char>(peek()))) {
            uint64_t digit = static_cast<uint64_t>(m_text[m_pos] - '0');
            if (magnitude > (limit - digit) / 10)
                return failAt("number out of range", start);
            magnitude = magnitude * 10 + digit;
            ++m_pos;
        }
        value = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
        skipSpace();
        return true;
    }

    bool parseNonNegative(int64_t& value)
    {
        size_t start = m_pos;
        if (!parseInt(value))
            return false;
        if (value < 0)
            return failAt("expected a non-negative number", start);
        return true;
    }

    bool parseShape(hlo::Shape& shape, int depth)
    {
        if (depth > kMaxNesting)
            return fail("shape nested too deeply");
        skipSpace();
        if (consume('('))
            return parseTupleRest(shape, depth);
        return parseArrayShape(shape);
    }

    // After the opening '{' (braced) or from the start of the text (unbraced).
    bool parseLayoutBody(hlo::Layout& layout, bool braced)
    {
        skipSpace();
        auto atBodyEnd = [&] { return braced ? peek() == '}' : atEnd(); };
        if (!atBodyEnd() && peek() != ':') {
            while (true) {
                int64_t dim = 0;
                if (!parseNonNegative(dim))
                    return false;
                layout.minorToMajor.push_back(dim);
                if (!consume(','))
                    break;
            }
        }
        if (consume(':')) {
            while (true) {
                skipSpace();
                if (atBodyEnd())
                    break;
                if (!parseAnnotation(layout))
                    return false;
            }
        }
        if (braced)
            return expect('}');
        if (!atEnd())
            return fail(std::string("unexpected '") + peek() + "'");
        return true;
    }

private:
    bool parseTupleRest(hlo::Shape& shape, int depth)
    {
        shape.elementType = PrimitiveType::Tuple;
        skipSpace();
        if (consume(')'))
            return true;
        while (true) {
            hlo::Shape element;
            if (!parseShape(element, depth + 1))
                return false;
            shape.tupleShapes.push_back(std::move(element));
            skipSpace();
            if (consume(')'))
                return true;
            if (!consume(','))
                return fail("expected ',' or ')'");
        }
    }

    bool parseArrayShape(hlo::Shape& shape)
    {
        size_t typeStart = m_pos;
        std::string typeName;
        while (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_') {
            typeName += static_cast<char>(std::tolower(static_cast<unsigned char>(m_text[m_pos])));
            ++m_pos;
        }
        if (typeName.empty())
            return atEnd() ? fail("expected a shape") : fail("expected an element type");
        shape.elementType = hlo::primitiveTypeFromName(typeName);
        if (shape.elementType == PrimitiveType::Invalid || shape.elementType == PrimitiveType::Tuple)
            return failAt("unknown element type '" + typeName + "'", typeStart);
        if (!expect('['))
            return false;
        skipSpace();
        if (!consume(']')) {
            while (true) {
                int64_t dim = 0;
                skipSpace();
                if (consume('?')) {
                    dim = -1;
                    skipSpace();
                } else {
                    if (consume('<') && !expect('='))
                        return false;
                    if (!parseNonNegative(dim))
                        return false;
                }
                shape.dimensions.push_back(dim);
                if (consume(']'))
                    break;
                if (!consume(','))
                    return fail("expected ']'");
            }
        }
        // The layout must follow immediately: in an HLO line "f32[2] {" cannot occur, but
        // "f32[] constant(...)" with text after a space is common.
        size_t layoutStart = m_pos;
        if (consume('{')) {
            shape.hasLayout = true;
            if (!parseLayoutBody(shape.layout, true))
                return false;
            const auto& m2m = shape.layout.minorToMajor;
            const size_t rank = shape.dimensions.size();
            if (m2m.size() != rank) {
                return failAt("layout has " + std::to_string(m2m.size()) + " dimensions but the shape has rank "
                        + std::to_string(rank),
                    layoutStart);
            }
            std::vector<bool> seen(rank, false);
            for (int64_t d : m2m) {
                if (d >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(d)])
                    return failAt("layout is not a permutation of the dimensions", layoutStart);
                seen[static_cast<size_t>(d)] = true;
            }
        }
        return true;
    }

    bool parseTile(hlo::Tile& tile)
    {
        if (!expect('('))
            return false;
        skipSpace();
        if (consume(')'))
            return true;
        while (true) {
            skipSpace();
            int64_t value = 0;
            size_t start = m_pos;
            if (consume('*')) {
                value = kCombineDimension;
                skipSpace();
            } else {
                if (!parseInt(value))
                    return false;
                if (value <= 0 && value != kCombineDimension)
                    return failAt("tile dimension must be positive", start);
            }
            tile.dimensions.push_back(value);
            if (consume(')'))
                return true;
            if (!consume(','))
                return fail("expected ',' or ')' in tile");
        }
    }

    bool parseIntArgument(int64_t& value)
    {
        if (!expect('('))
            return false;
        if (!parseNonNegative(value))
            return false;
        return expect(')');
    }

    // Skips one parenthesised group, brackets balanced (P(...) holds a whole shape with layout).
    bool skipGroup()
    {
        size_t start = m_pos;
        if (!expect('('))
            return false;
        std::string stack = ")";
        while (!stack.empty()) {
            if (atEnd())
                return failAt("unterminated '('", start);
            char c = m_text[m_pos++];
            if (c == '(')
                stack.push_back(')');
            else if (c == '[')
                stack.push_back(']');
            else if (c == '{')
                stack.push_back('}');
            else if (c == ')' || c == ']' || c == '}') {
                if (c != stack.back())
                    return failAt(std::string("unbalanced '") + c + "'", m_pos - 1);
                stack.pop_back();
            }
            if (stack.size() > static_cast<size_t>(kMaxNesting))
                return fail("annotation nested too deeply");
        }
        return true;
    }

    bool parseAnnotation(hlo::Layout& layout)
    {
        std::string name;
        while (std::isalpha(static_cast<unsigned char>(peek())) || peek() == '#' || peek() == '*')
            name += m_text[m_pos++];
        // Old XLA printed tiles without the 'T': "{1,0:(2,2)}".
        if (name == "T" || (name.empty() && peek() == '(')) {
            if (peek() != '(')
                return fail("expected '(' after 'T'");
            while (peek() == '(') {
                hlo::Tile tile;
                if (!parseTile(tile))
                    return false;
                layout.tiles.push_back(std::move(tile));
            }
            return true;
        }
        if (name.empty())
            return fail(atEnd() ? "expected '}'" : "expected a layout annotation");
        if (peek() != '(')
            return failAt("expected '(' after layout annotation '" + name + "'", m_pos);
        if (name == "E")
            return parseIntArgument(layout.elementSizeInBits);
        if (name == "S")
            return parseIntArgument(layout.memorySpace);
        if (name == "L")
            return parseIntArgument(layout.tailPaddingAlignment);
        // D(...), #(...), *(...), SC(..)(..), P(...), M(...) and whatever XLA adds next.
        while (peek() == '(') {
            if (!skipGroup())
                return false;
        }
        return true;
    }

    std::string_view m_text;
    size_t m_pos = 0;
    std::string m_error;
};

} // namespace

ShapeParseResult parseShape(std::string_view text)
{
    ShapeParseResult result;
    Parser parser(text);
    if (parser.parseShape(result.shape, 0)) {
        parser.skipSpace();
        if (!parser.atEnd())
            parser.fail(std::string("unexpected '") + parser.peek() + "' after the shape");
    }
    if (parser.failed()) {
        result.shape = {};
        result.error = parser.error();
    }
    return result;
}

std::optional<hlo::Layout> parseLayout(std::string_view text, std::string* error)
{
    Parser parser(text);
    hlo::Layout layout;
    parser.skipSpace();
    bool ok;
    if (parser.atEnd()) {
        ok = parser.fail("expected a layout");
    } else if (parser.consume('{')) {
        ok = parser.parseLayoutBody(layout, true);
        if (ok) {
            parser.skipSpace();
            if (!parser.atEnd())
                ok = parser.fail(std::string("unexpected '") + parser.peek() + "' after the layout");
        }
    } else {
        ok = parser.parseLayoutBody(layout, false);
    }
    if (!ok) {
        if (error)
            *error = parser.error();
        return std::nullopt;
    }
    if (error)
        error->clear();
    return layout;
}

ShapeParseResult parseInstructionResultShape(std::string_view hloTextLine)
{
    ShapeParseResult result;
    size_t equals = hloTextLine.find('=');
    if (equals == std::string_view::npos) {
        Parser parser(hloTextLine, hloTextLine.size());
        parser.fail("expected '=' before the result shape");
        result.error = parser.error();
        return result;
    }
    Parser parser(hloTextLine, equals + 1);
    if (!parser.parseShape(result.shape, 0)) {
        result.shape = {};
        result.error = parser.error();
    }
    return result;
}

} // namespace tpuscope::model::layout
