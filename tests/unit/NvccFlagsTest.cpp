// nvcc's flags as relayout hands them to Clang (tool/build/NvccFlags.h): the translation table, the
// language nvcc gives a file, and the Clang arguments of a parse (tool/build/CompileFlags.h).
#include "TempDirs.h"
#include "build/CompileFlags.h"
#include "build/NvccFlags.h"

#include <gtest/gtest.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>

namespace relayout {
namespace {

using Flags = std::vector<std::string>;

bool contains(const Flags& flags, const std::string& flag) {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

// One row of the table: nvcc's flags and what Clang gets for every language and for CUDA only,
// how many flags are dropped with a note, and the architectures.
struct Row {
  Flags nvcc;
  Flags clang;
  Flags cuda = {};
  size_t notes = 0;
  Flags archs = {};
};

class TranslationTable : public ::testing::TestWithParam<Row> {};

TEST_P(TranslationTable, TranslatesOrDropsWithANote) {
  const Row& row = GetParam();
  NvccTranslation t = translateNvccFlags(row.nvcc);
  EXPECT_EQ(t.clangFlags, row.clang);
  EXPECT_EQ(t.cudaFlags, row.cuda);
  EXPECT_EQ(t.notes.size(), row.notes) << (t.notes.empty() ? "" : t.notes.front());
  EXPECT_EQ(t.gpuArchs, row.archs);
  EXPECT_TRUE(t.warnings.empty()) << t.warnings.front();
}

INSTANTIATE_TEST_SUITE_P(
    NvccFlags, TranslationTable,
    ::testing::Values(
        // -D, -U, -I, -isystem, -include: attached, apart, with '=', long names, nvcc's comma lists.
        Row{{"-DA", "-D", "B=2", "-D=C", "--define-macro=E,F", "-DG\\,H"},
            {"-DA", "-DB=2", "-DC", "-DE", "-DF", "-DG,H"}},
        Row{{"-UA", "-U", "B", "--undefine-macro=C"}, {"-UA", "-UB", "-UC"}},
        Row{{"-Iinc", "-I", "a", "-I=b", "--include-path=c,d", "--include-path", "e"},
            {"-Iinc", "-Ia", "-Ib", "-Ic", "-Id", "-Ie"}},
        Row{{"-isystem", "s1", "-isystem=s2", "--system-include=s3"},
            {"-isystem", "s1", "-isystem", "s2", "-isystem", "s3"}},
        Row{{"-include", "a.h", "--pre-include=b.h"}, {"-include", "a.h", "-include", "b.h"}},
        Row{{"-std=c++20"}, {"-std=c++20"}}, Row{{"-std", "c++17"}, {"-std=c++17"}},
        Row{{"--std=c++14"}, {"-std=c++14"}},
        // The host compiler's optimization level defines __OPTIMIZE__.
        Row{{"-O3"}, {"-O3"}}, Row{{"-O", "2"}, {"-O2"}}, Row{{"--optimize=1"}, {"-O1"}},
        // Architectures: nvcc's virtual architecture is the one compiled for.
        Row{{"-arch=sm_90"}, {}, {}, 0, {"sm_90"}}, Row{{"-arch", "compute_80"}, {}, {}, 0, {"sm_80"}},
        Row{{"--gpu-architecture=sm_90a"}, {}, {}, 0, {"sm_90a"}},
        Row{{"-gencode", "arch=compute_80,code=sm_80", "-gencode=arch=compute_90,code=[compute_90,sm_90]",
             "--generate-code=arch=compute_80,code=sm_86"},
            {},
            {},
            0,
            {"sm_80", "sm_90"}},
        Row{{"-arch=sm_100f"}, {}, {}, 0, {"sm_100"}}, Row{{"-code=sm_90"}, {}, {}, 0, {"sm_90"}},
        Row{{"-arch=compute_80", "-code=sm_80,sm_90"}, {}, {}, 0, {"sm_80"}}, Row{{"-arch=native"}, {}, {}, 1},
        Row{{"-arch=all-major"}, {}, {}, 1}, Row{{"-arch=sm_1"}, {}, {}, 1},
        // nvcc's macros, and Clang's equivalent where it has one.
        Row{{"-rdc=true"}, {}, {"-fgpu-rdc", "-D__CUDACC_RDC__"}},
        Row{{"--relocatable-device-code", "true"}, {}, {"-fgpu-rdc", "-D__CUDACC_RDC__"}},
        Row{{"-dc", "-rdc=true"}, {}, {"-fgpu-rdc", "-D__CUDACC_RDC__"}}, Row{{"-rdc=false"}, {}},
        Row{{"-dlto"}, {}, {"-fgpu-rdc", "-D__CUDACC_RDC__"}},
        Row{{"--extended-lambda"}, {}, {"-D__CUDACC_EXTENDED_LAMBDA__"}},
        Row{{"--expt-extended-lambda"}, {}, {"-D__CUDACC_EXTENDED_LAMBDA__"}},
        Row{{"--expt-relaxed-constexpr"}, {}, {"-D__CUDACC_RELAXED_CONSTEXPR__"}},
        Row{{"-G"}, {}, {"-D__CUDACC_DEBUG__"}}, Row{{"-ewp"}, {}, {"-D__CUDACC_EWP__"}},
        Row{{"--use_fast_math"}, {}, {"-fgpu-approx-transcendentals"}},
        Row{{"--default-stream", "per-thread"}, {"-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1"}},
        Row{{"--default-stream=legacy"}, {}}, Row{{"--machine=64", "-m64"}, {"-m64", "-m64"}}, Row{{"-w"}, {"-w"}},
        Row{{"-noeh"}, {"-fno-exceptions"}}, Row{{"-ftemplate-depth", "500"}, {"-ftemplate-depth=500"}},
        Row{{"-Wreorder", "-Wno-deprecated-declarations"}, {"-Wreorder", "-Wno-deprecated-declarations"}},
        // -Xcompiler: the host flags that change what the source means; the others with a note each.
        Row{{"-Xcompiler", "-fopenmp,-Wall,-fPIC", "-Xcompiler=-march=native", "--compiler-options=-DX -O2"},
            {"-fopenmp", "-Wall", "-march=native", "-DX", "-O2"},
            {},
            1},
        Row{{"-Xcompiler", "-Werror,-Wno-gcc-only-warning-name,-g,-Wl,-rpath"}, {}, {}, 5},
        Row{{"-Xcompiler", "-isystem,/h"}, {"-isystem", "/h"}},
        // Dropped with a note, their values with them.
        Row{{"-lineinfo",
             "-g",
             "-Xptxas",
             "-v",
             "-Xptxas=-O3",
             "-Xnvlink",
             "--suppress",
             "-Xlinker=-rpath,/x",
             "-maxrregcount",
             "32",
             "-maxrregcount=64",
             "--resource-usage",
             "--keep",
             "--keep-dir",
             "k",
             "-t",
             "4",
             "--threads=8",
             "-diag-suppress=177",
             "--diag-warn",
             "20012",
             "-ccbin",
             "g++-12",
             "-Werror",
             "all-warnings",
             "-Werror=cross-execution-space-call",
             "-L/usr/lib",
             "-lcublas",
             "-l",
             "m",
             "--library=cuda",
             "-cudart=shared",
             "--ftz=true",
             "-prec-div=false",
             "-fmad",
             "false",
             "-Wno-deprecated-gpu-targets",
             "-res-usage",
             "-split-compile=0",
             "-v",
             "-allow-unsupported-compiler",
             "--dopt=on",
             "-Ofc=max",
             "-nohdinitlist"},
            {},
            {},
            34},
        // What nvcc reads and writes: left out without a note.
        Row{{"-c", "a.cu", "-o", "a.o", "-MD", "-MF", "a.d", "-MT", "a.o", "--output-file=b.o", "-odir", "o", "b.o"},
            {}},
        // Flags nvcc hands to the host compiler.
        Row{{"-forward-unknown-to-host-compiler", "-Wall", "-fPIC", "-fno-rtti"}, {"-Wall", "-fno-rtti"}, {}, 1},
        Row{{"-Wextra", "--forward-unknown-opts"}, {"-Wextra"}}));

TEST(NvccFlags, UnknownFlagIsDroppedWithAWarning) {
  NvccTranslation t = translateNvccFlags({"--fancy-new-flag", "-DA"});
  EXPECT_EQ(t.clangFlags, Flags({"-DA"}));
  ASSERT_EQ(t.warnings.size(), 1u);
  EXPECT_EQ(t.warnings[0], "dropping compiler flag '--fancy-new-flag' that relayout does not translate for Clang");
}

TEST(NvccFlags, NoteNamesTheFlagAsWrittenAndWhy) {
  NvccTranslation t = translateNvccFlags({"-maxrregcount", "32", "-Xcompiler", "-fPIC"});
  ASSERT_EQ(t.notes.size(), 2u);
  EXPECT_EQ(t.notes[0], "dropping nvcc flag '-maxrregcount 32': it changes only the GPU code nvcc generates");
  EXPECT_EQ(t.notes[1],
            "dropping host-compiler flag '-Xcompiler -fPIC': it changes only the host code generated, not what the "
            "source means");
}

TEST(NvccFlags, LanguageFollowsXElseTheExtension) {
  EXPECT_EQ(translateNvccFlags({"-x", "cu"}).language, "cu");
  EXPECT_EQ(translateNvccFlags({"--x=c++"}).language, "c++");
  EXPECT_EQ(translateNvccFlags({"-x", "fortran"}).warnings.size(), 1u);
  EXPECT_EQ(nvccSourceLanguage("a.cpp", "cu"), SourceLanguage::Cuda);
  EXPECT_EQ(nvccSourceLanguage("a.cu", ""), SourceLanguage::Cuda);
  EXPECT_EQ(nvccSourceLanguage("a.cuh", ""), SourceLanguage::Cuda);
  for (const char* file : {"a.cpp", "a.cc", "a.cxx", "a.C"})
    EXPECT_EQ(nvccSourceLanguage(file, ""), SourceLanguage::Cxx);
  EXPECT_EQ(nvccSourceLanguage("a.c", ""), SourceLanguage::C);
  EXPECT_EQ(nvccSourceLanguage("a.cu", "c++"), SourceLanguage::Cxx);
}

TEST(NvccFlags, OptionsFilesAreReadInPlace) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("nvcc-options", "txt", path));
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(path, ec);
    out << "-DFROM_FILE \"-I/a b\" -lineinfo\n";
  }
  NvccTranslation t = translateNvccFlags({"-DFIRST", "--options-file", path.str().str(), "-DLAST"});
  EXPECT_EQ(t.clangFlags, Flags({"-DFIRST", "-DFROM_FILE", "-I/a b", "-DLAST"}));
  EXPECT_EQ(t.notes.size(), 1u);
  llvm::sys::fs::remove(path);
  EXPECT_EQ(translateNvccFlags({"-optf", "/nonexistent/flags.txt"}).warnings.size(), 1u);
}

// nvcc's macros: __NVCC__ and the configured toolkit's version, as numbers.
TEST(NvccFlags, MacrosNameTheToolkitVersion) {
  Flags macros = nvccMacroFlags();
  EXPECT_TRUE(contains(macros, "-D__NVCC__"));
  for (const char* name : {"__CUDACC_VER_MAJOR__", "__CUDACC_VER_MINOR__", "__CUDACC_VER_BUILD__"}) {
    auto at = std::find_if(macros.begin(), macros.end(), [&](const std::string& m) {
      return llvm::StringRef(m).starts_with(std::string("-D") + name + "=");
    });
    ASSERT_NE(at, macros.end()) << name;
    llvm::StringRef value = llvm::StringRef(*at).split('=').second;
    unsigned number = 0;
    EXPECT_FALSE(value.getAsInteger(10, number)) << *at;
  }
}

TEST(CompileFlags, CudaParseHasNvccsMacrosAndTheDialectHeader) {
  Flags args = clangParseArguments(translateNvccFlags({"-x", "cu", "-rdc=true", "-DUSER"}), "src/a.cpp");
  EXPECT_EQ(args[0], "-x");
  EXPECT_EQ(args[1], "cuda");
  EXPECT_TRUE(contains(args, "--cuda-host-only"));
  EXPECT_TRUE(contains(args, "--cuda-gpu-arch=sm_90"));  // none named
  EXPECT_TRUE(contains(args, "-D__NVCC__"));
  EXPECT_TRUE(contains(args, "-D__CUDACC_RDC__"));
  auto include = std::find(args.begin(), args.end(), "-include");
  ASSERT_NE(include, args.end());
  ASSERT_NE(include + 1, args.end());
  EXPECT_TRUE(llvm::StringRef(include[1]).ends_with("relayout-nvcc-dialect.h"));
  EXPECT_TRUE(llvm::sys::fs::exists(include[1]));
  // The user's flags come last, so that they can undo relayout's.
  EXPECT_EQ(args.back(), "-DUSER");
}

TEST(CompileFlags, HostCppParseIsHostCxxWithNvccsMacros) {
  Flags args = clangParseArguments(translateNvccFlags({"-arch=sm_80", "-rdc=true", "-std=c++17"}), "src/a.cpp");
  EXPECT_EQ(args[1], "c++");
  EXPECT_TRUE(contains(args, "-D__NVCC__"));
  EXPECT_TRUE(contains(args, "-D__CUDA_ARCH_LIST__=800"));
  EXPECT_TRUE(contains(args, "-std=c++17"));
  EXPECT_FALSE(contains(args, "-D__CUDACC_RDC__"));
  EXPECT_FALSE(contains(args, "--cuda-host-only"));
  EXPECT_FALSE(contains(args, "-include"));
  Flags c = clangParseArguments(translateNvccFlags({"-std=c++17"}), "src/b.c");
  EXPECT_EQ(c[1], "c");
  EXPECT_FALSE(contains(c, "-std=c++17"));
}

TEST(CompileFlags, EveryArchitectureIsGivenToClang) {
  Flags args = clangParseArguments(
      translateNvccFlags({"-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90a,code=sm_90a"}),
      "a.cu");
  EXPECT_TRUE(contains(args, "--cuda-gpu-arch=sm_80"));
  EXPECT_TRUE(contains(args, "--cuda-gpu-arch=sm_90a"));
  EXPECT_FALSE(contains(args, "--cuda-gpu-arch=sm_90"));
}

}  // namespace
}  // namespace relayout

namespace relayout {
namespace {

// -ccbin naming an MPI compiler wrapper: its include folders and macros reach the parse, as the
// wrapper gives them to the host compiler. A stand-in wrapper answers Open MPI's question.
TEST(NvccFlags, AnMpiCompilerWrapperAsHostCompilerGivesItsIncludeFolders) {
  test::TempDirs temps;
  const std::string dir = temps.make("relayout-mpi-test");
  ASSERT_FALSE(dir.empty());
  const std::string wrapper = dir + "/mpicxx";
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(wrapper, ec);
    ASSERT_FALSE(ec);
    out << "#!/bin/sh\n[ \"$1\" = --showme:compile ] || exit 1\n"
        << "echo '-I/opt/mpi/include -I /opt/mpi/include/openmpi -DOMPI_SKIP_MPICXX=1 -pthread'\n";
  }
  llvm::sys::fs::setPermissions(wrapper, llvm::sys::fs::all_exe | llvm::sys::fs::owner_read);
  const NvccTranslation mpi = translateNvccFlags({"-ccbin", wrapper, "-O3"});
  EXPECT_EQ(mpi.clangFlags, (Flags{"-isystem", "/opt/mpi/include", "-isystem", "/opt/mpi/include/openmpi",
                                   "-DOMPI_SKIP_MPICXX=1", "-O3"}));
  EXPECT_TRUE(mpi.warnings.empty());
  EXPECT_TRUE(mpi.notes.empty());

  // Another host compiler is dropped with a note; a wrapper that cannot answer gets a warning.
  const NvccTranslation gxx = translateNvccFlags({"-ccbin=g++-12"});
  EXPECT_TRUE(gxx.clangFlags.empty());
  ASSERT_EQ(gxx.notes.size(), 1u);
  const NvccTranslation missing = translateNvccFlags({"-ccbin", dir + "/none/mpicxx"});
  ASSERT_EQ(missing.warnings.size(), 1u);
  EXPECT_NE(missing.warnings[0].find("give them with -I"), std::string::npos) << missing.warnings[0];
}

}  // namespace
}  // namespace relayout
