// Documents whose numbers are all counts, ids, sizes and offsets (the profile, the site map).
// nlohmann's get<unsigned>() of a number that was written as a float converts a double, which is
// undefined behaviour when it is out of the integer's range (1e300, -1.5, or an integer literal too
// long for 64 bits, which parses as a double): such documents are refused before they are read.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace relayout {

// "" when every number in `doc` is an integer, else "NUMBER at /JSON/POINTER is not an integer"
// for the first one in document order. Iterative: a deeply nested document does not overflow the stack.
std::string findNonIntegerNumber(const nlohmann::json& doc);

}  // namespace relayout
