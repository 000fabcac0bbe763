#include "build/NvccOptionTable.h"

namespace relayout::nvcc {

namespace {

// Every option of `nvcc --help` (CUDA 13.0), plus older ones build systems still pass.
const NvccOption kNvccOptions[] = {
    // What nvcc produces, reads and writes.
    {"compile", "c", false, Action::Silent},
    {"output-file", "o", true, Action::Silent},
    {"output-directory", "odir", true, Action::Silent},
    {"dependency-output", "MF", true, Action::Silent},
    {"generate-dependencies-with-compile", "MD", false, Action::Silent},
    {"generate-nonsystem-dependencies-with-compile", "MMD", false, Action::Silent},
    {"generate-dependency-targets", "MP", false, Action::Silent},
    {"dependency-target-name", "MT", true, Action::Silent},
    {"cuda", "", false, Action::Drop, kMode},
    {"cubin", "", false, Action::Drop, kMode},
    {"fatbin", "", false, Action::Drop, kMode},
    {"ptx", "", false, Action::Drop, kMode},
    {"optix-ir", "", false, Action::Drop, kMode},
    {"ltoir", "", false, Action::Drop, kMode},
    {"preprocess", "E", false, Action::Drop, kMode},
    {"generate-dependencies", "M", false, Action::Drop, kMode},
    {"generate-nonsystem-dependencies", "MM", false, Action::Drop, kMode},
    {"device-c", "dc", false, Action::Rdc},
    {"device-w", "dw", false, Action::Drop, kMode},
    {"device-link", "dlink", false, Action::Drop, kLinking},
    {"link", "", false, Action::Drop, kLinking},
    {"lib", "", false, Action::Drop, kLinking},
    {"run", "", false, Action::Drop, kMode},
    {"fdevice-syntax-only", "", false, Action::Drop, kMode},
    {"list-gpu-code", "code-ls", false, Action::Drop, kMode},
    {"list-gpu-arch", "arch-ls", false, Action::Drop, kMode},
    {"help", "h", false, Action::Drop, kMode},
    {"version", "V", false, Action::Drop, kMode},
    // What the source means.
    {"pre-include", "include", true, Action::PreInclude},
    {"define-macro", "D", true, Action::Define},
    {"undefine-macro", "U", true, Action::Undefine},
    {"include-path", "I", true, Action::IncludePath},
    {"system-include", "isystem", true, Action::SystemInclude},
    {"x", "", true, Action::Language},
    {"std", "", true, Action::Std},
    {"optimize", "O", true, Action::Optimize},
    {"gpu-architecture", "arch", true, Action::Arch},
    {"gpu-code", "code", true, Action::Code},
    {"generate-code", "gencode", true, Action::Gencode},
    {"relocatable-device-code", "rdc", true, Action::Rdc},
    {"dlink-time-opt", "dlto", false, Action::Rdc},
    {"lto", "", false, Action::Rdc},
    {"expt-relaxed-constexpr", "", false, Action::CudaMacro, "__CUDACC_RELAXED_CONSTEXPR__"},
    {"extended-lambda", "", false, Action::CudaMacro, "__CUDACC_EXTENDED_LAMBDA__"},
    {"expt-extended-lambda", "", false, Action::CudaMacro, "__CUDACC_EXTENDED_LAMBDA__"},
    {"extensible-whole-program", "ewp", false, Action::CudaMacro, "__CUDACC_EWP__"},
    {"device-debug", "G", false, Action::CudaMacro, "__CUDACC_DEBUG__"},
    {"default-stream", "", true, Action::DefaultStream},
    {"machine", "m", true, Action::Machine},
    {"m64", "", false, Action::Clang, "-m64"},
    {"no-exceptions", "noeh", false, Action::Clang, "-fno-exceptions"},
    {"disable-warnings", "w", false, Action::Clang, "-w"},
    {"use_fast_math", "", false, Action::CudaClang, "-fgpu-approx-transcendentals"},
    {"ftemplate-depth", "", true, Action::TemplateDepth},
    {"ftemplate-backtrace-limit", "", true, Action::TemplateBacktrace},
    {"compiler-options", "Xcompiler", true, Action::HostOptions},
    {"forward-unknown-to-host-compiler", "", false, Action::ForwardUnknown},
    {"forward-unknown-opts", "", false, Action::ForwardUnknown},
    {"Wreorder", "", false, Action::Clang, "-Wreorder"},
    {"Wno-deprecated-declarations", "", false, Action::Clang, "-Wno-deprecated-declarations"},
    {"Wdefault-stream-launch", "", false, Action::Drop, kNoClang},
    {"Wmissing-launch-bounds", "", false, Action::Drop, kNoClang},
    {"Wext-lambda-captures-this", "", false, Action::Drop, kNoClang},
    {"Wno-deprecated-gpu-targets", "", false, Action::Drop, kNoClang},
    {"Werror", "", true, Action::Drop, kWerror},
    {"no-host-device-initializer-list", "nohdinitlist", false, Action::Drop, kNoClang},
    {"no-host-device-move-forward", "nohdmoveforward", false, Action::Drop, kNoClang},
    {"diag-error", "", true, Action::Drop, kDiagNumbers},
    {"diag-suppress", "", true, Action::Drop, kDiagNumbers},
    {"diag-warn", "", true, Action::Drop, kDiagNumbers},
    // The host compiler, the linker and the archiver.
    {"compiler-bindir", "ccbin", true, Action::HostCompiler, kHostCompiler},
    {"allow-unsupported-compiler", "", false, Action::Drop, kHostCompiler},
    {"use-local-env", "", false, Action::Drop, kHostCompiler},
    {"force-cl-env-setup", "", false, Action::Drop, kHostCompiler},
    {"library", "l", true, Action::Drop, kLinking},
    {"library-path", "L", true, Action::Drop, kLinking},
    {"linker-options", "Xlinker", true, Action::Drop, kLinking},
    {"archive-options", "Xarchive", true, Action::Drop, kLinking},
    {"nvlink-options", "Xnvlink", true, Action::Drop, kLinking},
    {"archiver-binary", "arbin", true, Action::Drop, kLinking},
    {"cudart", "", true, Action::Drop, kLinking},
    {"cudadevrt", "", true, Action::Drop, kLinking},
    {"shared", "", false, Action::Drop, kLinking},
    {"forward-unknown-to-host-linker", "", false, Action::Drop, kLinking},
    {"no-device-link", "nodlink", false, Action::Drop, kLinking},
    {"host-linker-script", "hls", true, Action::Drop, kLinking},
    {"augment-host-linker-script", "aug-hls", false, Action::Drop, kLinking},
    {"relocatable-link", "r", false, Action::Drop, kLinking},
    {"profile", "pg", false, Action::Drop, kHostCode},
    {"no-align-double", "", false, Action::Drop, kHostCode},
    {"static-global-template-stub", "", true, Action::Drop, kHostCode},
    {"device-entity-has-hidden-visibility", "", true, Action::Drop, kHostCode},
    {"debug", "g", false, Action::Drop, kDebugInfo},
    {"generate-line-info", "lineinfo", false, Action::Drop, kDebugInfo},
    // The GPU code.
    {"ptxas-options", "Xptxas", true, Action::Drop, kGpuCode},
    {"fatbin-options", "Xfatbin", true, Action::Drop, kGpuCode},
    {"libdevice-directory", "ldir", true, Action::Drop, kGpuCode},
    {"dopt", "", true, Action::Drop, kGpuCode},
    {"gen-opt-lto", "", false, Action::Drop, kGpuCode},
    {"Ofast-compile", "Ofc", true, Action::Drop, kGpuCode},
    {"entries", "e", true, Action::Drop, kGpuCode},
    {"maxrregcount", "", true, Action::Drop, kGpuCode},
    {"ftz", "", true, Action::Drop, kGpuCode},
    {"prec-div", "", true, Action::Drop, kGpuCode},
    {"prec-sqrt", "", true, Action::Drop, kGpuCode},
    {"fmad", "", true, Action::Drop, kGpuCode},
    {"extra-device-vectorization", "", false, Action::Drop, kGpuCode},
    {"keep-device-functions", "", false, Action::Drop, kGpuCode},
    {"source-in-ptx", "src-in-ptx", false, Action::Drop, kGpuCode},
    {"restrict", "", false, Action::Drop, kGpuCode},
    {"no-compress", "", false, Action::Drop, kGpuCode},
    {"compress-mode", "", true, Action::Drop, kGpuCode},
    {"compile-as-tools-patch", "astoolspatch", false, Action::Drop, kGpuCode},
    {"jump-table-density", "jtd", true, Action::Drop, kGpuCode},
    {"relocatable-ptx", "reloc-ptx", false, Action::Drop, kGpuCode},
    {"device-stack-protector", "", true, Action::Drop, kGpuCode},
    {"frandom-seed", "", true, Action::Drop, kGpuCode},
    {"sanitize", "", true, Action::Drop, kGpuCode},
    // How nvcc runs.
    {"objdir-as-tempdir", "objtemp", false, Action::Drop, kDriver},
    {"target-directory", "target-dir", true, Action::Drop, kDriver},
    {"optimization-info", "opt-info", true, Action::Drop, kDriver},
    {"dont-use-profile", "noprof", false, Action::Drop, kDriver},
    {"dryrun", "", false, Action::Drop, kDriver},
    {"verbose", "v", false, Action::Drop, kDriver},
    {"threads", "t", true, Action::Drop, kDriver},
    {"split-compile", "", true, Action::Drop, kDriver},
    {"split-compile-extended", "", true, Action::Drop, kDriver},
    {"fdevice-time-trace", "", true, Action::Drop, kDriver},
    {"keep", "", false, Action::Drop, kDriver},
    {"keep-dir", "", true, Action::Drop, kDriver},
    {"save-temps", "", false, Action::Drop, kDriver},
    {"clean-targets", "clean", false, Action::Drop, kDriver},
    {"time", "", true, Action::Drop, kDriver},
    {"run-args", "", true, Action::Drop, kDriver},
    {"input-drive-prefix", "idp", true, Action::Drop, kDriver},
    {"dependency-drive-prefix", "ddp", true, Action::Drop, kDriver},
    {"drive-prefix", "dp", true, Action::Drop, kDriver},
    {"resource-usage", "res-usage", false, Action::Drop, kDriver},
    {"qpp-config", "", true, Action::Drop, kDriver},
    {"display-error-number", "err-no", false, Action::Drop, kDriver},
    {"no-display-error-number", "no-err-no", false, Action::Drop, kDriver},
    {"brief-diagnostics", "brief-diag", true, Action::Drop, kDriver},
    {"jobserver", "", false, Action::Drop, kDriver},
    {"cudafe-options", "Xcudafe", true, Action::Drop, kDriver},
};

// Short options whose value may be attached: -DNAME, -Idir, -lname, -O3, ...
constexpr llvm::StringLiteral kAttachedValue[] = {"isystem", "D", "U", "I", "L", "l", "O"};

}  // namespace

const NvccOption* attachedValueOption(llvm::StringRef flag, llvm::StringRef& value) {
  if (!flag.starts_with("-") || flag.starts_with("--")) return nullptr;
  llvm::StringRef rest = flag.drop_front(1);
  for (llvm::StringRef shortName : kAttachedValue)
    if (rest.starts_with(shortName)) {
      value = rest.drop_front(shortName.size());
      return optionsByName().lookup(shortName);
    }
  return nullptr;
}

const llvm::StringMap<const NvccOption*>& optionsByName() {
  static const llvm::StringMap<const NvccOption*> byName = [] {
    llvm::StringMap<const NvccOption*> map;
    for (const NvccOption& option : kNvccOptions) {
      map[option.longName] = &option;
      if (!option.shortName.empty()) map[option.shortName] = &option;
    }
    return map;
  }();
  return byName;
}

}  // namespace relayout::nvcc
