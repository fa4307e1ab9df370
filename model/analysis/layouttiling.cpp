// SPDX-License-Identifier: GPL-3.0-or-later
//
// The TPU tiling maths of layout.h (FORMATS.md §6.2): how much of a tiled array is padding.

#include "layout.h"
#include "layoutconstants.h"

#include <algorithm>

namespace tpuscope::model::layout {

using detail::kCombineDimension;
using hlo::PrimitiveType;

namespace {

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
                            && !checkedMul(
                                debit[static_cast<size_t>(dim.owner)], size, debit[static_cast<size_t>(dim.owner)]))) {
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

} // namespace tpuscope::model::layout
