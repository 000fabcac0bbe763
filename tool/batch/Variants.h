// An application's hand-written variants (the manifest's `variants`): built here with the
// application's flags by plain nvcc, and timed against the original by relayout-verify, so that
// the summary can put relayout's speed-up beside the ones people wrote by hand.
#pragma once

#include "batch/Manifest.h"

#include <llvm/Support/Error.h>

#include <csignal>
#include <optional>
#include <string>

namespace relayout::batch {

// relayout-verify's options that come from the manifest (--run, --compare, --ignore-lines, --rtol,
// --atol, --repeat), shell-quoted, each with a leading space; for a variant's comparison, its
// variant_options follow (a hand-written program may print its own name, or round differently).
std::string verifyOptions(const App& app, bool forVariant = false);

// Builds `variant` of `app` into OUT/apps/NAME/variants/VARIANT/program (Paths.h).
llvm::Error buildVariant(const App& app, const Variant& variant, const std::string& outDir);

// Where there is a GPU: builds every variant of `app` and runs relayout-verify (found beside
// `relayout`) on the original program that optimize built and each variant, in the application's
// folder, one at a time with the application's time limit (or until `stop` is set). A variant that
// does not build or differs is reported and left out; it never changes the application's own result.
void verifyVariants(const App& app, const std::string& outDir, const std::string& relayout,
                    const volatile std::sig_atomic_t& stop);

// What a variant's verification measured: its kernel speed-up over the original (median, min,
// max), when its output equalled the original's.
struct VariantSpeedup {
  double median = 0, min = 0, max = 0;
};
std::optional<VariantSpeedup> variantSpeedup(const std::string& outDir, const std::string& name,
                                             const std::string& variant);

}  // namespace relayout::batch
