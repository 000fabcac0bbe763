// Mistakes on relayout's command line answered with their fix before LLVM's parser guesses: nvcc
// flags before `--`, the profiled program before `--`, `--run -n 1000` unquoted, no source file.
#pragma once

#include <optional>
#include <string>

namespace relayout {

// The message for the first such mistake among argv[1, split) (split: the first `--`), or none.
std::optional<std::string> argumentHint(int split, char** argv);

}  // namespace relayout
