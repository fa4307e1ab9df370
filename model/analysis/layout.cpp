// SPDX-License-Identifier: GPL-3.0-or-later
#include "layout.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <unordered_set>

namespace tpuscope::model::layout {

using hlo::Instruction;
using hlo::PrimitiveType;

namespace {

// Deeply nested tuples/annotations in hostile text must not overflow the stack.
constexpr int kMaxNesting = 64;
// Quoted text in error messages is cut so that a whole HLO line does not end up in a tooltip.
constexpr size_t kMaxQuotedChars = 160;

constexpr int64_t kCombineDimension = -1;

bool checkedMul(int64_t a, int64_t b, int64_t& out)
{
    return !__builtin_mul_overflow(a, b, &out);
}

int64_t ceilDiv(int64_t a, int64_t b)
{
    if (b == 0) // a zero-size dim merged by '*' (e.g. bf16[16,0]{0,1:T(*,1)}): nothing to divide
        return 0;
    return a / b + (a % b != 0 ? 1 : 0);
}

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

std::string tilesToText(const std::vector<hlo::Tile>& tiles)
{
    if (tiles.empty())
        return {};
    std::string out = "T";
    for (const auto& tile : tiles) {
        out += '(';
        for (size_t i = 0; i < tile.dimensions.size(); ++i) {
            if (i)
                out += ',';
            out += tile.dimensions[i] == kCombineDimension ? std::string("*") : std::to_string(tile.dimensions[i]);
        }
        out += ')';
    }
    return out;
}

int64_t elementBits(const hlo::Shape& shape)
{
    if (shape.hasLayout && shape.layout.elementSizeInBits > 0)
        return shape.layout.elementSizeInBits;
    return hlo::primitiveTypeBits(shape.elementType);
}

bool elementsToBytes(int64_t elements, int64_t bits, int64_t& bytes)
{
    int64_t totalBits = 0;
    if (!checkedMul(elements, bits, totalBits))
        return false;
    bytes = ceilDiv(totalBits, 8);
    return true;
}

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

const char* semanticsName(DimSemantics semantics)
{
    switch (semantics) {
    case DimSemantics::Batch:
        return "batch";
    case DimSemantics::Feature:
        return "feature";
    case DimSemantics::Spatial:
        return "spatial";
    case DimSemantics::Contracting:
        return "contracting";
    case DimSemantics::NonContracting:
        return "non-contracting";
    case DimSemantics::Unknown:
        break;
    }
    return "unknown";
}

std::string PaddingInfo::usedOfTileText() const
{
    static constexpr const char* kDot = "\u00B7";
    std::string used, padded;
    auto append = [&](int64_t u, int64_t p) {
        if (!used.empty()) {
            used += kDot;
            padded += kDot;
        }
        used += std::to_string(u);
        padded += std::to_string(p);
    };
    for (const auto& dim : dims) {
        if (dim.tile > 0)
            append(dim.size, dim.padded);
    }
    if (implicitTilePadding > 1)
        append(1, implicitTilePadding);
    if (used.empty())
        return {};
    return used + " of " + padded + " used";
}

PaddingInfo computePadding(const hlo::Shape& shape, const std::vector<DimSemantics>& semantics)
{
    PaddingInfo info;
    switch (shape.elementType) {
    case PrimitiveType::Tuple:
        info.error = "tuple shapes have no single padding";
        return info;
    case PrimitiveType::Token:
    case PrimitiveType::Opaque:
    case PrimitiveType::Invalid:
        info.error = std::string("no array data in a ") + hlo::primitiveTypeName(shape.elementType) + " shape";
        return info;
    default:
        break;
    }
    const size_t rank = shape.dimensions.size();
    const int64_t bits = elementBits(shape);
    auto semanticsOf = [&](int64_t dim) {
        return static_cast<size_t>(dim) < semantics.size() ? semantics[static_cast<size_t>(dim)]
                                                           : DimSemantics::Unknown;
    };
    const char* overflow = "padded size overflows 64 bits";

    info.logicalElements = 1;
    for (size_t i = 0; i < rank; ++i) {
        if (shape.dimensions[i] < 0) {
            info.error = "dimension " + std::to_string(i) + " has no static bound";
            return info;
        }
        if (!checkedMul(info.logicalElements, shape.dimensions[i], info.logicalElements)) {
            info.error = overflow;
            return info;
        }
    }
    if (!elementsToBytes(info.logicalElements, bits, info.logicalBytes)) {
        info.error = overflow;
        return info;
    }

    if (!shape.hasLayout) {
        // Still useful as a size table; XLA's default layout is {rank-1, ..., 0}.
        for (size_t i = rank; i-- > 0;) {
            int64_t d = static_cast<int64_t>(i);
            info.dims.push_back({d, shape.dimensions[i], shape.dimensions[i], 0, semanticsOf(d)});
        }
        info.paddedElements = info.logicalElements;
        info.paddedBytes = info.logicalBytes;
        info.error = "shape has no layout";
        return info;
    }

    const hlo::Layout& layout = shape.layout;
    info.memorySpace = layout.memorySpace;
    info.tileText = tilesToText(layout.tiles);
    if (layout.minorToMajor.size() != rank) {
        info.error = "layout rank " + std::to_string(layout.minorToMajor.size()) + " does not match shape rank "
            + std::to_string(rank);
        return info;
    }
    std::vector<bool> seen(rank, false);
    for (int64_t d : layout.minorToMajor) {
        if (d < 0 || d >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(d)]) {
            info.error = "layout minor_to_major is not a permutation of the dimensions";
            return info;
        }
        seen[static_cast<size_t>(d)] = true;
    }

    // Physical dims, most major first; every dim of the tiled shape remembers which physical dim it
    // came from (-1 for the leading 1s a tile adds when it has more dims than the array).
    struct TiledDim
    {
        int64_t size;
        int64_t owner;
    };
    std::vector<int64_t> physical(rank);
    std::vector<TiledDim> current;
    for (size_t p = 0; p < rank; ++p) {
        physical[p] = layout.minorToMajor[rank - 1 - p];
        current.push_back({shape.dimensions[static_cast<size_t>(physical[p])], static_cast<int64_t>(p)});
    }
    std::vector<int64_t> firstTile(rank, 0);
    // A combining '*' moves a dim's extent into the next minor dim; credit/debit keep per-dim figures sane.
    std::vector<int64_t> credit(rank, 1), debit(rank, 1);

    for (size_t t = 0; t < layout.tiles.size(); ++t) {
        const auto& tile = layout.tiles[t].dimensions;
        if (tile.empty())
            continue;
        for (int64_t extent : tile) {
            if (extent <= 0 && extent != kCombineDimension) {
                info.error = "invalid tile dimension " + std::to_string(extent);
                return info;
            }
        }
        while (current.size() < tile.size())
            current.insert(current.begin(), TiledDim {1, -1});
        const size_t first = current.size() - tile.size();
        std::vector<TiledDim> counts, within;
        int64_t carry = 1;
        std::vector<int64_t> carriedOwners;
        for (size_t j = 0; j < tile.size(); ++j) {
            const TiledDim& dim = current[first + j];
            const bool last = j + 1 == tile.size();
            if (!checkedMul(carry, dim.size, carry)) {
                info.error = overflow;
                return info;
            }
            // A trailing '*' has no minor dim to merge into; it then behaves like an untiled dim.
            if (tile[j] == kCombineDimension && !last) {
                carriedOwners.push_back(dim.owner);
                continue;
            }
            const int64_t extent = tile[j] == kCombineDimension ? 1 : tile[j];
            for (size_t k = 0; k < carriedOwners.size(); ++k) {
                int64_t from = carriedOwners[k];
                int64_t size = current[first + j - carriedOwners.size() + k].size;
                if (from >= 0 && from != dim.owner) {
                    int64_t& c = credit[static_cast<size_t>(from)];
                    if (!checkedMul(c, size, c)
                        || (dim.owner >= 0
                            && !checkedMul(debit[static_cast<size_t>(dim.owner)], size,
                                debit[static_cast<size_t>(dim.owner)]))) {
                        info.error = overflow;
                        return info;
                    }
                }
            }
            carriedOwners.clear();
            counts.push_back({ceilDiv(carry, extent), dim.owner});
            within.push_back({extent, dim.owner});
            if (t == 0 && dim.owner >= 0)
                firstTile[static_cast<size_t>(dim.owner)] = extent;
            carry = 1;
        }
        current.resize(first);
        current.insert(current.end(), counts.begin(), counts.end());
        current.insert(current.end(), within.begin(), within.end());
    }

    std::vector<int64_t> owned(rank, 1);
    info.paddedElements = 1;
    for (const auto& dim : current) {
        int64_t& target = dim.owner >= 0 ? owned[static_cast<size_t>(dim.owner)] : info.implicitTilePadding;
        if (!checkedMul(target, dim.size, target) || !checkedMul(info.paddedElements, dim.size, info.paddedElements)) {
            info.error = overflow;
            return info;
        }
    }
    if (layout.tailPaddingAlignment > 1) {
        int64_t aligned = 0;
        if (!checkedMul(
                ceilDiv(info.paddedElements, layout.tailPaddingAlignment), layout.tailPaddingAlignment, aligned)) {
            info.error = overflow;
            return info;
        }
        info.paddedElements = aligned;
    }
    if (!elementsToBytes(info.paddedElements, bits, info.paddedBytes)) {
        info.error = overflow;
        return info;
    }

    for (size_t p = rank; p-- > 0;) {
        int64_t padded = 0;
        if (!checkedMul(owned[p], credit[p], padded)) {
            info.error = overflow;
            return info;
        }
        padded = ceilDiv(padded, debit[p]);
        const int64_t logical = physical[p];
        info.dims.push_back(
            {logical, shape.dimensions[static_cast<size_t>(logical)], padded, firstTile[p], semanticsOf(logical)});
    }
    info.efficiency = info.paddedElements > 0
        ? static_cast<double>(info.logicalElements) / static_cast<double>(info.paddedElements)
        : 1.0;
    info.valid = true;
    return info;
}

// ---------------------------------------------------------------------------------------------
// Dimension semantics

namespace {

bool isComputeCore(const Instruction& instruction)
{
    return instruction.opcode == "convolution" || instruction.opcode == "dot";
}

bool callsComputation(const Instruction& instruction)
{
    return (instruction.opcode == "fusion" || instruction.opcode == "call")
        && !instruction.calledComputationIds.empty();
}

// Ops whose output dim i is operand dim i (bitcast/reshape only where sizes match, see mapAcross): the path
// from a fusion root back to its convolution usually goes through these (bias add, activation, convert).
bool isShapePreserving(std::string_view opcode)
{
    // clang-format off
    static const std::unordered_set<std::string_view> kOps = {
        "abs", "add", "and", "atan2", "bitcast", "bitcast-convert", "cbrt", "ceil", "clamp", "compare", "convert",
        "copy", "cosine", "divide", "erf", "exponential", "exponential-minus-one", "floor", "imag", "is-finite",
        "log", "log-plus-one", "logistic", "maximum", "minimum", "multiply", "negate", "not", "or", "popcnt",
        "power", "real", "reduce-precision", "remainder", "reshape", "round-nearest-afz", "round-nearest-even",
        "rsqrt", "select", "shift-left", "shift-right-arithmetic", "shift-right-logical", "sign", "sine", "sqrt",
        "subtract", "tan", "tanh", "xor", "optimization-barrier",
    };
    // clang-format on
    return kOps.count(opcode) != 0;
}

const Instruction* operandOf(
    const hlo::Module& module, const hlo::Computation* computation, const Instruction& instruction, size_t index)
{
    if (index >= instruction.operandIds.size())
        return nullptr;
    const int64_t id = instruction.operandIds[index];
    if (computation) {
        if (const Instruction* found = computation->findInstruction(id))
            return found;
    }
    return module.instructionById(id);
}

std::optional<size_t> operandRank(
    const hlo::Module& module, const hlo::Computation* computation, const Instruction& instruction, size_t index)
{
    if (index < instruction.operandShapes.size() && !instruction.operandShapes[index].isTuple()
        && instruction.operandShapes[index].elementType != PrimitiveType::Invalid)
        return instruction.operandShapes[index].dimensions.size();
    if (const Instruction* operand = operandOf(module, computation, instruction, index)) {
        if (!operand->shape.isTuple())
            return operand->shape.dimensions.size();
    }
    return std::nullopt;
}

void label(std::vector<DimSemantics>& out, int64_t dim, DimSemantics semantics)
{
    if (dim >= 0 && static_cast<size_t>(dim) < out.size())
        out[static_cast<size_t>(dim)] = semantics;
}

std::vector<DimSemantics> directOutputSemantics(const Instruction& instruction)
{
    if (instruction.shape.isTuple())
        return {};
    std::vector<DimSemantics> out(instruction.shape.dimensions.size(), DimSemantics::Unknown);
    if (instruction.opcode == "convolution") {
        if (!instruction.hasConvolutionDimensions)
            return {};
        const auto& numbers = instruction.convolution;
        label(out, numbers.outputBatch, DimSemantics::Batch);
        label(out, numbers.outputFeature, DimSemantics::Feature);
        for (int64_t d : numbers.outputSpatial)
            label(out, d, DimSemantics::Spatial);
        return out;
    }
    if (instruction.opcode == "dot") {
        // Dot output order is fixed: batch dims, then lhs non-contracting, then rhs non-contracting.
        const size_t batch = instruction.dot.lhsBatch.size();
        for (size_t i = 0; i < out.size(); ++i)
            out[i] = i < batch ? DimSemantics::Batch : DimSemantics::NonContracting;
        return out;
    }
    return {};
}

// Carries labels across an op whose operand has shape `from` and result has shape `to`.
std::optional<std::vector<DimSemantics>> mapAcross(
    const std::vector<DimSemantics>& semantics, const hlo::Shape& from, const hlo::Shape& to)
{
    if (from.isTuple() || to.isTuple() || from.dimensions.size() != to.dimensions.size()
        || semantics.size() != from.dimensions.size())
        return std::nullopt;
    std::vector<DimSemantics> out = semantics;
    for (size_t i = 0; i < out.size(); ++i) {
        if (from.dimensions[i] != to.dimensions[i])
            out[i] = DimSemantics::Unknown;
    }
    return out;
}

std::vector<DimSemantics> directOperandSemantics(
    const hlo::Module& module, const hlo::Computation* computation, const Instruction& instruction, size_t index)
{
    auto rank = operandRank(module, computation, instruction, index);
    if (!rank || index > 1)
        return {};
    std::vector<DimSemantics> out(*rank, DimSemantics::Unknown);
    if (instruction.opcode == "convolution") {
        if (!instruction.hasConvolutionDimensions)
            return {};
        const auto& numbers = instruction.convolution;
        if (index == 0) {
            label(out, numbers.inputBatch, DimSemantics::Batch);
            label(out, numbers.inputFeature, DimSemantics::Feature);
            for (int64_t d : numbers.inputSpatial)
                label(out, d, DimSemantics::Spatial);
        } else {
            label(out, numbers.kernelInputFeature, DimSemantics::Contracting);
            label(out, numbers.kernelOutputFeature, DimSemantics::Feature);
            for (int64_t d : numbers.kernelSpatial)
                label(out, d, DimSemantics::Spatial);
        }
        return out;
    }
    if (instruction.opcode == "dot") {
        const auto& batch = index == 0 ? instruction.dot.lhsBatch : instruction.dot.rhsBatch;
        const auto& contracting = index == 0 ? instruction.dot.lhsContracting : instruction.dot.rhsContracting;
        std::fill(out.begin(), out.end(), DimSemantics::NonContracting);
        for (int64_t d : batch)
            label(out, d, DimSemantics::Batch);
        for (int64_t d : contracting)
            label(out, d, DimSemantics::Contracting);
        return out;
    }
    return {};
}

// Walks HLO graphs that come from files: a visited set keeps malformed (cyclic) or highly shared
// graphs linear, the depth limit keeps the stack bounded.
class Walker
{
public:
    explicit Walker(const hlo::Module& module)
        : m_module(module)
    {
    }

    std::vector<DimSemantics> outputSemantics(const Instruction& instruction, int depth)
    {
        if (instruction.shape.isTuple() || depth > kMaxNesting)
            return {};
        if (isComputeCore(instruction))
            return directOutputSemantics(instruction);
        if (!callsComputation(instruction))
            return {};
        const hlo::Computation* computation = m_module.computation(instruction.calledComputationIds.front());
        const Instruction* root = computation ? computation->root() : nullptr;
        if (!root)
            return {};
        auto semantics = semanticsThrough(*computation, *root, depth + 1);
        if (!semantics || semantics->size() != instruction.shape.dimensions.size())
            return {};
        return *semantics;
    }

    const Instruction* findCore(const Instruction& instruction, int depth)
    {
        if (depth > kMaxNesting)
            return nullptr;
        if (isComputeCore(instruction))
            return &instruction;
        if (!callsComputation(instruction))
            return nullptr;
        const hlo::Computation* computation = m_module.computation(instruction.calledComputationIds.front());
        const Instruction* root = computation ? computation->root() : nullptr;
        return root ? coreBelow(*computation, *root, depth + 1) : nullptr;
    }

    // Walks from a core operand down to fused parameter `parameter`, carrying labels across each op.
    std::optional<std::vector<DimSemantics>> labelsAtParameter(const hlo::Computation& computation,
        const Instruction& instruction, const std::vector<DimSemantics>& semantics, int64_t parameter, int depth)
    {
        if (instruction.opcode == "parameter")
            return instruction.parameterNumber == parameter ? std::optional(semantics) : std::nullopt;
        if (depth > kMaxNesting || !isShapePreserving(instruction.opcode) || !firstVisit(instruction))
            return std::nullopt;
        for (size_t i = 0; i < instruction.operandIds.size(); ++i) {
            const Instruction* operand = operandOf(m_module, &computation, instruction, i);
            if (!operand)
                continue;
            auto mapped = mapAcross(semantics, instruction.shape, operand->shape);
            if (!mapped)
                continue;
            if (auto found = labelsAtParameter(computation, *operand, *mapped, parameter, depth + 1))
                return found;
        }
        return std::nullopt;
    }

private:
    bool firstVisit(const Instruction& instruction) { return m_visited.insert(&instruction).second; }

    std::optional<std::vector<DimSemantics>> semanticsThrough(
        const hlo::Computation& computation, const Instruction& instruction, int depth)
    {
        if (depth > kMaxNesting || !firstVisit(instruction))
            return std::nullopt;
        if (isComputeCore(instruction) || callsComputation(instruction)) {
            auto direct = outputSemantics(instruction, depth + 1);
            if (direct.empty())
                return std::nullopt;
            return direct;
        }
        if (!isShapePreserving(instruction.opcode))
            return std::nullopt;
        for (size_t i = 0; i < instruction.operandIds.size(); ++i) {
            const Instruction* operand = operandOf(m_module, &computation, instruction, i);
            if (!operand)
                continue;
            auto below = semanticsThrough(computation, *operand, depth + 1);
            if (!below)
                continue;
            if (auto mapped = mapAcross(*below, operand->shape, instruction.shape))
                return mapped;
        }
        return std::nullopt;
    }

    const Instruction* coreBelow(const hlo::Computation& computation, const Instruction& instruction, int depth)
    {
        if (depth > kMaxNesting || !firstVisit(instruction))
            return nullptr;
        if (isComputeCore(instruction) || callsComputation(instruction))
            return findCore(instruction, depth + 1);
        // Multi-output fusions return a tuple of the core's result and its users.
        if (!isShapePreserving(instruction.opcode) && instruction.opcode != "tuple")
            return nullptr;
        for (size_t i = 0; i < instruction.operandIds.size(); ++i) {
            if (const Instruction* operand = operandOf(m_module, &computation, instruction, i)) {
                if (const Instruction* core = coreBelow(computation, *operand, depth + 1))
                    return core;
            }
        }
        return nullptr;
    }

    const hlo::Module& m_module;
    std::unordered_set<const Instruction*> m_visited;
};

} // namespace

std::vector<DimSemantics> inferOutputSemantics(const hlo::Module& module, const Instruction& instruction)
{
    return Walker(module).outputSemantics(instruction, 0);
}

const Instruction* findComputeCore(const hlo::Module& module, const Instruction& instruction)
{
    return Walker(module).findCore(instruction, 0);
}

std::vector<DimSemantics> inferOperandSemantics(
    const hlo::Module& module, const Instruction& instruction, size_t operandIndex)
{
    if (isComputeCore(instruction))
        return directOperandSemantics(module, nullptr, instruction, operandIndex);
    if (!callsComputation(instruction))
        return {};
    const hlo::Computation* computation = module.computation(instruction.calledComputationIds.front());
    const Instruction* core = findComputeCore(module, instruction);
    // A core inside a nested fusion would need a second parameter mapping; not worth it.
    if (!computation || !core || computation->findInstruction(core->id) != core)
        return {};
    for (size_t i = 0; i < core->operandIds.size(); ++i) {
        Walker walker(module);
        const Instruction* operand = operandOf(module, computation, *core, i);
        auto semantics = directOperandSemantics(module, computation, *core, i);
        if (!operand || semantics.empty())
            continue;
        if (auto found
            = walker.labelsAtParameter(*computation, *operand, semantics, static_cast<int64_t>(operandIndex), 0))
            return *found;
    }
    return {};
}

} // namespace tpuscope::model::layout
