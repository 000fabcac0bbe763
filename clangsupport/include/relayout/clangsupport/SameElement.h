// Which struct-field accesses reach the same array element in the same straight-line code: those
// nvcc may carry with one wider load or store (re and im of one `t[xp]` as one ld.v2 when the
// record is aligned). Sampled execution counts cannot tell this (each site is drawn on its own), so
// the instrumenter records it from the source, and the analysis prices merged accesses by it.
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>

#include <string>

namespace relayout {

// The element expression an access reaches: `p[i]` of `p[i].pos.x` and of `p[i].a[3]`; `p` of
// `p->x`; the expression itself when it is neither (a whole element, `p[i]`).
const clang::Expr* accessedElement(const clang::Expr* access);

// A key that two accesses of one function share when they reach the same element, spelled alike,
// in the same branch of the code around them (the same `if` arm, `?:` arm, right side of && or
// ||, `case`, and after the same early `return`/`break`/`continue`/`goto`): the element's spelling
// without blanks (a macro's invocation where a macro spells it whole), then `@line:col` of the
// branch where there is one. Empty where the element is spelled only inside a macro's body, or
// holds a comment or bytes outside ASCII: the access shares its key with nothing.
std::string sameElementKey(clang::ASTContext& context, const clang::Expr* element);

}  // namespace relayout
