// The code inserted after a planned struct's definition: the device-layout struct (and the
// aligned cluster structs), and the host helpers the rewritten calls need; and the includes
// that code needs.
#pragma once

#include "DeviceLayout.h"
#include "Facts.h"

#include <llvm/Support/Error.h>

#include <set>
#include <string>

namespace relayout::rw {

struct EmittedLayout {
  std::string code;                  // goes right after the definition
  std::set<std::string> headers;     // standard headers it uses: "cstddef", "cstring"
  bool callsRuntime = false;         // it has helpers, which need cuda_runtime.h
};

// A cluster's name is the device struct's member: it must not hide a type that struct's other
// members are declared with (`size_t`, a field's type). Errors name the plan's struct and cluster.
llvm::Error checkGeneratedNames(const DeviceLayout& layout, const StructDef& def);

// `helpers` is a mask of Helper; relayoutPlace and the element size are always emitted. The
// helpers are guarded so that host-only code (g++ without CUDA) still builds with the structs.
EmittedLayout emitDeviceLayout(const DeviceLayout& layout, const StructDef& def, unsigned helpers);

// The struct through which the helpers reach private fields ("AtomSoAFields"), and the friend
// declaration the struct's definition gets for it, to insert at its closing brace.
std::string fieldAccessName(const DeviceLayout& layout);
Edit fieldAccessFriend(const DeviceLayout& layout, const StructDef& def, const std::string& contents);

// What one file's generated layouts include, once per file before the first of them (at namespace
// scope): `headers`, and cuda_runtime.h where a compiler can find it.
std::string emitIncludes(const std::set<std::string>& headers, bool cudaRuntime);

}  // namespace relayout::rw
