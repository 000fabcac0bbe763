// An index into a flattened 2-D array, `row * W + k` with W a constant and k provably in [0, W):
// the form in which ELL matrices and per-cell neighbour lists are written (`A[i * kEll + k]`).
// Stored transposed, entry (row, k) moves to k * rows + row, so that the lanes of a warp, one row
// each, read consecutive entries (issue 63, docs/analysis.md "Transposed arrays").
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>

#include <cstdint>
#include <optional>

namespace relayout {

struct RowMajorIndex {
  uint64_t width = 0;                   // W: a constant expression's value, at least 2
  const clang::Expr* row = nullptr;     // as written
  const clang::Expr* column = nullptr;  // as written: an integer constant, or a counted loop's variable
};

// `index` as `row * W + column` (either operand order of + and of *; parentheses, implicit and
// integral casts around the operands) where the column is proven to lie in [0, W) where the index
// is evaluated: an integer constant in range, or the variable of an enclosing for loop that starts
// at a constant >= 0, runs while it is below (or at most) a constant under W, only counts up, and
// is only read in the loop's body. Else nullopt.
std::optional<RowMajorIndex> rowMajorIndex(clang::ASTContext& context, const clang::Expr* index);

// The same, also through a local variable the index names that its function only reads and that
// was initialized so (`const size_t e = (size_t)i * kEll + k; ... A[e]`): the form its value has.
std::optional<RowMajorIndex> rowMajorIndexThroughLocal(clang::ASTContext& context, const clang::Expr* index);

}  // namespace relayout
