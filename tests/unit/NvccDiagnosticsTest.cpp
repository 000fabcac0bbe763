// nvcc's diagnostics on the generate mode's instrumented copies, as the user's compile prints them
// (tool/build/NvccDiagnostics.h). The inputs are what nvcc 13 printed for such copies.
#include "build/NvccDiagnostics.h"

#include <gtest/gtest.h>

namespace relayout {
namespace {

const NvccDiagnosticPaths kPaths{"/tmp/relayout-nvcc-8b5793", {{"/home/u/app/h.cu", "h.cu"}}};

const std::string kError =
    "/home/u/app/h.cu(4): error: expression must have a constant value\n"
    "    float arr[n];\n"
    "              ^\n"
    "/home/u/app/h.cu(4): note #2689-D: the value of variable \"n\" (declared at line 3) "
    "cannot be used as a constant\n"
    "    float arr[n];\n"
    "              ^\n"
    "\n";

TEST(NvccDiagnostics, ADiagnosticTheCopiesRepeatIsPrintedOnceAndCountedOnce) {
  const std::string nvcc = kError + kError + kError +
                           "3 errors detected in the compilation of "
                           "\"/tmp/relayout-nvcc-8b5793/home/u/app/h.cu\".\n";
  EXPECT_EQ(tidyNvccDiagnostics(nvcc, kPaths),
            "h.cu(4): error: expression must have a constant value\n"
            "    float arr[n];\n"
            "              ^\n"
            "h.cu(4): note #2689-D: the value of variable \"n\" (declared at line 3) cannot be used as a constant\n"
            "    float arr[n];\n"
            "              ^\n"
            "\n"
            "1 error detected in the compilation of \"h.cu\".\n");
}

TEST(NvccDiagnostics, DistinctDiagnosticsAndOtherLinesStay) {
  const std::string warning =
      "/home/u/app/h.cu(8): warning #177-D: variable \"unused\" was declared but never "
      "referenced\n    int unused = 3;\n        ^\n\n";
  const std::string remark = "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n\n";
  const std::string other = "/home/u/app/h.cu(9): error: identifier \"q\" is undefined\n    q = 1;\n    ^\n\n";
  const std::string ptxas = "ptxas info    : Used 8 registers\n";
  const std::string nvcc = warning + remark + warning + kError + other + kError + ptxas + ptxas +
                           "3 errors detected in the compilation of \"/home/u/app/h.cu\".\n";
  const std::string tidy = tidyNvccDiagnostics(nvcc, kPaths);
  EXPECT_EQ(tidy.find("/home/u/app"), std::string::npos) << tidy;
  EXPECT_NE(tidy.find("h.cu(9): error: identifier \"q\""), std::string::npos) << tidy;
  EXPECT_NE(tidy.find(ptxas + ptxas), std::string::npos) << tidy;  // not a diagnostic: kept as printed
  EXPECT_NE(tidy.find("2 errors detected in the compilation of \"h.cu\"."), std::string::npos) << tidy;
  EXPECT_EQ(tidy.find("warning #177-D"), tidy.rfind("warning #177-D")) << tidy;
  EXPECT_EQ(tidy.find("Remark:"), tidy.rfind("Remark:")) << tidy;
}

TEST(NvccDiagnostics, OutputWithoutDiagnosticsPassesUnchanged) {
  const std::string nvcc = "ptxas info    : 0 bytes gmem\nptxas info    : Compiling entry function '_Z1kv'\n";
  EXPECT_EQ(tidyNvccDiagnostics(nvcc, kPaths), nvcc);
  EXPECT_EQ(tidyNvccDiagnostics("", kPaths), "");
}

}  // namespace
}  // namespace relayout
