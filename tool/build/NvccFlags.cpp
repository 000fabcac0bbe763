#include "build/NvccFlags.h"

#include "build/MpiCompiler.h"
#include "build/NvccOptionTable.h"
#include "build/Toolchain.h"

#include <clang/Basic/DiagnosticIDs.h>
#include <clang/Basic/OffloadArch.h>
#include <llvm/ADT/STLExtras.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/StringSaver.h>

namespace relayout {

namespace {

using nvcc::Action;
using nvcc::attachedValueOption;
using nvcc::kHostCode;
using nvcc::kWerror;
using nvcc::NvccOption;
using nvcc::optionsByName;

// nvcc's lists ("-DA,B", "-I d1,d2"): split at commas, "\," keeps one.
std::vector<std::string> splitNvccList(llvm::StringRef list) {
  std::vector<std::string> items(1);
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i] == '\\' && i + 1 < list.size() && list[i + 1] == ',') items.back() += list[++i];
    else if (list[i] == ',') items.emplace_back();
    else items.back() += list[i];
  }
  llvm::erase_if(items, [](const std::string& item) { return item.empty(); });
  return items;
}

// "sm_90" for sm_90 / compute_90, "sm_90a" for sm_90a, the base architecture for a family
// (sm_100f: sm_100); empty for a name Clang does not know.
std::string clangGpuArch(llvm::StringRef nvccArch) {
  nvccArch = nvccArch.trim();
  if (!nvccArch.consume_front("sm_") && !nvccArch.consume_front("compute_") && !nvccArch.consume_front("lto_"))
    return "";
  std::string name = ("sm_" + nvccArch).str();
  if (clang::IsNVIDIAOffloadArch(clang::StringToOffloadArch(name))) return name;
  if (nvccArch.ends_with("f")) {
    name.pop_back();
    if (clang::IsNVIDIAOffloadArch(clang::StringToOffloadArch(name))) return name;
  }
  return "";
}

bool knownClangWarning(llvm::StringRef name) {
  name.consume_front("no-");
  return clang::DiagnosticIDs::getGroupForWarningOption(name).has_value();
}

// nvcc reads more flags from `--options-file F` / `-optf F` (also F1,F2): they are put in place of
// the option, read as a shell would split them; files naming files are followed 8 deep.
std::vector<std::string> expandOptionsFiles(const std::vector<std::string>& flags, std::vector<std::string>& warnings,
                                            int depth = 0) {
  std::vector<std::string> out;
  for (size_t i = 0; i < flags.size(); ++i) {
    llvm::StringRef flag = flags[i];
    std::string files;
    for (llvm::StringRef name : {"--options-file", "-optf"}) {
      if (flag == name && i + 1 < flags.size()) files = flags[++i];
      else if (flag.starts_with((name + "=").str())) files = flag.substr(name.size() + 1).str();
    }
    if (files.empty()) {
      out.push_back(flags[i]);
      continue;
    }
    for (const std::string& name : splitNvccList(files)) {
      auto buffer = llvm::MemoryBuffer::getFile(name);
      if (!buffer || depth >= 8) {
        warnings.push_back("cannot read the options file '" + name + "'" +
                           (buffer ? ": options files nest too deep" : ": " + buffer.getError().message()));
        continue;
      }
      llvm::BumpPtrAllocator allocator;
      llvm::StringSaver saver(allocator);
      llvm::SmallVector<const char*, 32> tokens;
      llvm::cl::TokenizeGNUCommandLine((*buffer)->getBuffer(), saver, tokens);
      std::vector<std::string> read(tokens.begin(), tokens.end());
      for (std::string& f : expandOptionsFiles(read, warnings, depth + 1)) out.push_back(std::move(f));
    }
  }
  return out;
}

// Builds one NvccTranslation, flag by flag.
class Translator {
 public:
  NvccTranslation run(const std::vector<std::string>& givenFlags) {
    const std::vector<std::string> flags = expandOptionsFiles(givenFlags, out_.warnings);
    // nvcc forwards the flags it does not know wherever -forward-unknown-to-host-compiler stands.
    forwardUnknown_ = llvm::any_of(flags, [](llvm::StringRef flag) {
      const NvccOption* option = optionsByName().lookup(flag.ltrim('-'));
      return flag.starts_with("-") && option && option->action == Action::ForwardUnknown;
    });
    for (size_t i = 0; i < flags.size(); ++i) {
      llvm::StringRef flag = flags[i];
      if (!flag.starts_with("-") || flag == "-") continue;  // an input file: the tool adds the one it parses
      llvm::StringRef name = flag.ltrim('-').split('=').first;
      const NvccOption* option = optionsByName().lookup(name);
      std::string value;
      std::string written = flag.str();  // the flag as the user wrote it, value included, for notes
      if (option && option->takesValue) {
        if (flag.contains('=')) value = flag.split('=').second.str();
        else if (i + 1 < flags.size()) value = flags[++i], written += " " + value;
      } else if (option && flag.contains('=')) {
        option = nullptr;  // a flag nvcc does not take with a value
      }
      if (!option) {
        llvm::StringRef attached;
        option = attachedValueOption(flag, attached);
        if (option) value = attached.str();
      }
      if (!option) {
        unknown(flags, i);
        continue;
      }
      apply(*option, value, written);
    }
    if (out_.gpuArchs.empty()) out_.gpuArchs = codeArchs_;
    return std::move(out_);
  }

 private:
  void drop(const std::string& written, llvm::StringRef why) {
    out_.notes.push_back("dropping nvcc flag '" + written + "': " + why.str());
  }

  void addArch(llvm::StringRef nvccArch, std::vector<std::string>& archs, const std::string& written) {
    std::string arch = clangGpuArch(nvccArch);
    if (arch.empty()) {
      drop(written, "Clang does not know the GPU architecture '" + nvccArch.str() + "'");
      return;
    }
    if (!llvm::is_contained(archs, arch)) archs.push_back(arch);
  }

  void apply(const NvccOption& option, const std::string& value, const std::string& written) {
    std::vector<std::string>& clang = out_.clangFlags;
    switch (option.action) {
      case Action::Silent:
        return;
      case Action::Drop:
        return drop(written, option.text);
      case Action::CudaMacro:
        out_.cudaFlags.push_back(("-D" + option.text).str());
        return;
      case Action::Clang:
        clang.push_back(option.text.str());
        return;
      case Action::CudaClang:
        out_.cudaFlags.push_back(option.text.str());
        return;
      case Action::Define:
        for (const std::string& item : splitNvccList(value)) clang.push_back("-D" + item);
        return;
      case Action::Undefine:
        for (const std::string& item : splitNvccList(value)) clang.push_back("-U" + item);
        return;
      case Action::IncludePath:
        for (const std::string& item : splitNvccList(value)) clang.push_back("-I" + item);
        return;
      case Action::SystemInclude:
        // Two arguments: Clang would read "-isystem=DIR" as DIR below the sysroot.
        for (const std::string& item : splitNvccList(value)) clang.insert(clang.end(), {"-isystem", item});
        return;
      case Action::PreInclude:
        for (const std::string& item : splitNvccList(value)) clang.insert(clang.end(), {"-include", item});
        return;
      case Action::Std:
        clang.push_back("-std=" + value);
        return;
      case Action::Optimize:
        if (llvm::is_contained({"0", "1", "2", "3", "s", "z"}, value)) clang.push_back("-O" + value);
        else drop(written, kHostCode);
        return;
      case Action::Arch:
        if (value.starts_with("sm_") || value.starts_with("compute_")) return addArch(value, out_.gpuArchs, written);
        return drop(written, "relayout parses for one architecture it can name; give -arch=sm_XX to choose it");
      case Action::Code:
        for (const std::string& item : splitNvccList(value)) addArch(item, codeArchs_, written);
        return;
      case Action::Gencode: {
        // arch=compute_90,code=[compute_90,sm_90]: the virtual architecture is the one compiled for.
        llvm::StringRef spec = value;
        size_t at = spec.find("arch=");
        if (at == llvm::StringRef::npos) return drop(written, "it names no arch=");
        return addArch(spec.substr(at + 5).split(',').first, out_.gpuArchs, written);
      }
      case Action::Language:
        if (!llvm::is_contained({"cu", "c++", "c"}, value))
          out_.warnings.push_back("nvcc's '" + written +
                                  "' names no language relayout knows; it parses by the "
                                  "file's extension");
        else out_.language = value;
        return;
      case Action::HostOptions: {
        std::vector<std::string> tokens;
        for (const std::string& item : splitNvccList(value)) {
          llvm::SmallVector<llvm::StringRef, 4> words;
          llvm::StringRef(item).split(words, ' ', -1, /*KeepEmpty=*/false);
          for (llvm::StringRef word : words) tokens.push_back(word.str());
        }
        for (size_t i = 0; i < tokens.size(); ++i) hostFlag(tokens, i, "-Xcompiler");
        return;
      }
      case Action::Rdc:
        if (option.takesValue && value != "true") return;  // -rdc=false: nvcc's default
        if (!llvm::is_contained(out_.cudaFlags, "-fgpu-rdc"))
          out_.cudaFlags.insert(out_.cudaFlags.end(), {"-fgpu-rdc", "-D__CUDACC_RDC__"});
        return;
      case Action::HostCompiler: {
        if (!isMpiCompilerWrapper(value)) return drop(written, option.text);
        auto mpi = mpiCompileFlags(value);
        if (!mpi) {
          out_.warnings.push_back("nvcc's '" + written + "': cannot ask it for MPI's include folders (" +
                                  llvm::toString(mpi.takeError()) + "); give them with -I");
          return;
        }
        clang.insert(clang.end(), mpi->begin(), mpi->end());
        return;
      }
      case Action::Machine:
        if (value == "64") clang.push_back("-m64");
        else drop(written, "nvcc compiles for 64-bit hosts only");
        return;
      case Action::DefaultStream:
        if (value == "per-thread") clang.push_back("-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1");
        return;
      case Action::ForwardUnknown:
        forwardUnknown_ = true;
        return;
      case Action::TemplateDepth:
        clang.push_back("-ftemplate-depth=" + value);
        return;
      case Action::TemplateBacktrace:
        clang.push_back("-ftemplate-backtrace-limit=" + value);
        return;
    }
  }

  // A flag nvcc does not know: the host compiler's when nvcc forwards those, else a warning.
  void unknown(const std::vector<std::string>& flags, size_t& i) {
    if (forwardUnknown_) return hostFlag(flags, i, "");
    out_.warnings.push_back("dropping compiler flag '" + flags[i] + "' that relayout does not translate for Clang");
  }

  // One flag for the host compiler (from -Xcompiler, or forwarded): kept when it changes what the
  // source means and Clang reads it the same way; `i` moves past a value given apart.
  void hostFlag(const std::vector<std::string>& flags, size_t& i, llvm::StringRef from) {
    llvm::StringRef flag = flags[i];
    std::string written = from.empty() ? flag.str() : (from + " " + flag).str();
    auto note = [&](llvm::StringRef why) {
      out_.notes.push_back("dropping host-compiler flag '" + written + "': " + why.str());
    };
    for (llvm::StringRef separate : {"-D", "-U", "-I", "-isystem", "-include", "-iquote", "-idirafter"}) {
      if (flag == separate) {
        out_.clangFlags.push_back(flag.str());
        if (i + 1 < flags.size()) out_.clangFlags.push_back(flags[++i]);
        return;
      }
      if (flag.starts_with(separate)) return out_.clangFlags.push_back(flag.str());
    }
    if (flag.starts_with("-Werror") || flag == "-pedantic-errors") return note(kWerror);
    if (flag.starts_with("-Wl,") || flag.starts_with("-Wa,") || flag.starts_with("-Wp,")) return note(kHostCode);
    if (flag.starts_with("-W")) {
      if (knownClangWarning(flag.drop_front(2))) return out_.clangFlags.push_back(flag.str());
      return note("Clang has no such warning");
    }
    // What changes the macros or the language the host compiler sees; the rest is code generation.
    static const llvm::StringRef kExact[] = {"-w",
                                             "-O0",
                                             "-O1",
                                             "-O2",
                                             "-O3",
                                             "-Os",
                                             "-Oz",
                                             "-fexceptions",
                                             "-fno-exceptions",
                                             "-frtti",
                                             "-fno-rtti",
                                             "-fsigned-char",
                                             "-funsigned-char",
                                             "-fno-signed-char",
                                             "-fno-unsigned-char",
                                             "-ffast-math",
                                             "-fno-fast-math",
                                             "-ffinite-math-only",
                                             "-fno-finite-math-only",
                                             "-fchar8_t",
                                             "-fno-char8_t",
                                             "-m64",
                                             "-mfma",
                                             "-mf16c",
                                             "-mbmi",
                                             "-mbmi2",
                                             "-mpopcnt",
                                             "-mlzcnt",
                                             "-pthread",
                                             "-fno-openmp"};
    static const llvm::StringRef kPrefixes[] = {
        "-std=", "-fopenmp", "-march=", "-mtune=",           "-mcpu=",
        "-msse", "-mavx",    "-mno-",   "-ftemplate-depth=", "-ftemplate-backtrace-limit="};
    if (llvm::is_contained(kExact, flag) ||
        llvm::any_of(kPrefixes, [&](llvm::StringRef prefix) { return flag.starts_with(prefix); }))
      return out_.clangFlags.push_back(flag.str());
    note(kHostCode);
  }

  NvccTranslation out_;
  std::vector<std::string> codeArchs_;  // from -code: used when no -arch or -gencode names one
  bool forwardUnknown_ = false;
};

}  // namespace

NvccTranslation translateNvccFlags(const std::vector<std::string>& nvccFlags) { return Translator().run(nvccFlags); }

bool NvccInvocation::has(llvm::StringRef longName) const { return llvm::is_contained(options, longName); }

bool NvccInvocation::producesNoObject() const {
  static const llvm::StringRef kNoObject[] = {
      "preprocess", "generate-dependencies", "generate-nonsystem-dependencies", "help", "version",
      "list-gpu-code", "list-gpu-arch", "dryrun", "cuda", "ptx", "cubin", "fatbin", "optix-ir", "ltoir",
      "fdevice-syntax-only"};
  return llvm::any_of(kNoObject, [&](llvm::StringRef name) { return has(name); });
}

bool NvccInvocation::links() const {
  static const llvm::StringRef kNoLink[] = {"compile", "device-c", "device-w", "device-link", "lib"};
  return !inputs.empty() && !producesNoObject() &&
         llvm::none_of(kNoLink, [&](llvm::StringRef name) { return has(name); });
}

NvccInvocation readNvccInvocation(const std::vector<std::string>& args) {
  NvccInvocation out;
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef arg = args[i];
    if (arg.starts_with("@")) {
      out.unreadable = "it names a response file (" + arg.str() + ")";
      continue;
    }
    if (!arg.starts_with("-") || arg == "-") {
      out.inputs.push_back(i);
      continue;
    }
    llvm::StringRef name = arg.ltrim('-').split('=').first;
    if (name == "options-file" || name == "optf") {
      out.unreadable = "it reads an options file, whose inputs relayout does not see";
      if (!arg.contains('=')) ++i;
      continue;
    }
    const NvccOption* option = optionsByName().lookup(name);
    if (!option) {  // -Ifoo, -DX, -lm: a short option with its value attached
      llvm::StringRef attached;
      option = attachedValueOption(arg, attached);
      if (!option) continue;  // unknown to nvcc: the host compiler's, one argument
    } else if (option->takesValue && !arg.contains('=')) {
      if (i + 1 < args.size()) ++i;
      if (option->longName == "x") out.language = args[i];
    } else if (option->longName == "x") {
      out.language = arg.split('=').second.str();
    }
    if (!out.has(option->longName)) out.options.push_back(option->longName.str());
  }
  return out;
}

SourceLanguage nvccSourceLanguage(llvm::StringRef file, llvm::StringRef xValue) {
  if (xValue == "cu") return SourceLanguage::Cuda;
  if (xValue == "c++") return SourceLanguage::Cxx;
  if (xValue == "c") return SourceLanguage::C;
  llvm::StringRef extension = llvm::sys::path::extension(file);
  if (llvm::is_contained({".cpp", ".cc", ".cxx", ".c++", ".cp", ".CPP", ".C"}, extension)) return SourceLanguage::Cxx;
  if (extension == ".c") return SourceLanguage::C;
  return SourceLanguage::Cuda;
}

std::vector<std::string> nvccMacroFlags() {
  // The toolkit's version, read by CMake from the toolkit relayout was configured with.
  return {"-D__NVCC__",
          "-D__CUDACC_VER_MAJOR__=" RELAYOUT_CUDA_VERSION_MAJOR,
          "-D__CUDACC_VER_MINOR__=" RELAYOUT_CUDA_VERSION_MINOR,
          "-D__CUDACC_VER_BUILD__=" RELAYOUT_CUDA_VERSION_BUILD,
          "-D__CUDA_API_VER_MAJOR__=" RELAYOUT_CUDA_VERSION_MAJOR,
          "-D__CUDA_API_VER_MINOR__=" RELAYOUT_CUDA_VERSION_MINOR};
}

std::string dialectHeaderPath() {
  static const std::string path = [] {
    std::string header = relayoutPrefix() + "/" RELAYOUT_DIALECT_HEADER_INSTALLED;
    return llvm::sys::fs::exists(header) ? header : std::string();
  }();
  return path;
}

}  // namespace relayout
