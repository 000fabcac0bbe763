#include "relayout/clangsupport/DeviceConditionals.h"

#include <clang/Lex/Lexer.h>
#include <clang/Lex/MacroInfo.h>
#include <clang/Lex/PPCallbacks.h>
#include <llvm/ADT/STLExtras.h>
#include <llvm/ADT/StringExtras.h>

namespace relayout {

namespace {

class DeviceConditionalRecorder : public clang::PPCallbacks {
 public:
  DeviceConditionalRecorder(const clang::SourceManager& sm, const clang::LangOptions& lang, DeviceConditionals& out)
      : sm_(sm), lang_(lang), out_(out) {}

  void If(clang::SourceLocation loc, clang::SourceRange condition, ConditionValueKind) override {
    closedDevice_ = false;
    open_.push_back({loc, mentions(condition)});
  }
  void Elif(clang::SourceLocation, clang::SourceRange condition, ConditionValueKind, clang::SourceLocation) override {
    if (!open_.empty()) open_.back().device |= mentions(condition);
  }
  void Ifdef(clang::SourceLocation loc, const clang::Token& name, const clang::MacroDefinition&) override {
    closedDevice_ = false;
    open_.push_back({loc, deviceName(name)});
  }
  void Ifndef(clang::SourceLocation loc, const clang::Token& name, const clang::MacroDefinition&) override {
    closedDevice_ = false;
    open_.push_back({loc, deviceName(name)});
  }
  void Elifdef(clang::SourceLocation, const clang::Token& name, const clang::MacroDefinition&) override {
    if (!open_.empty()) open_.back().device |= deviceName(name);
  }
  void Elifdef(clang::SourceLocation, clang::SourceRange condition, clang::SourceLocation) override {
    if (!open_.empty()) open_.back().device |= mentions(condition);
  }
  void Elifndef(clang::SourceLocation, const clang::Token& name, const clang::MacroDefinition&) override {
    if (!open_.empty()) open_.back().device |= deviceName(name);
  }
  void Elifndef(clang::SourceLocation, clang::SourceRange condition, clang::SourceLocation) override {
    if (!open_.empty()) open_.back().device |= mentions(condition);
  }
  // Called after the directive that ends the skipped part: after #else or #elif its conditional is
  // still open, after #endif it was just closed.
  void SourceRangeSkipped(clang::SourceRange range, clang::SourceLocation) override {
    if (closedDevice_ || llvm::any_of(open_, [](const Open& o) { return o.device; })) out_.skipped.push_back(range);
  }
  void Endif(clang::SourceLocation loc, clang::SourceLocation) override {
    closedDevice_ = !open_.empty() && open_.back().device;
    if (open_.empty()) return;
    if (open_.back().device) out_.blocks.push_back({open_.back().begin, loc});
    open_.pop_back();
  }
  void MacroDefined(const clang::Token& name, const clang::MacroDirective* directive) override {
    bool device = llvm::any_of(open_, [](const Open& o) { return o.device; });
    if (const clang::MacroInfo* info = directive ? directive->getMacroInfo() : nullptr)
      for (const clang::Token& token : info->tokens())
        if (const clang::IdentifierInfo* id = token.getIdentifierInfo()) device |= deviceIdentifier(id->getName());
    if (device && name.getIdentifierInfo()) out_.macros.insert(name.getIdentifierInfo()->getName().str());
  }

 private:
  struct Open {
    clang::SourceLocation begin;
    bool device = false;
  };
  bool deviceIdentifier(llvm::StringRef name) const {
    return name.starts_with("__CUDA_ARCH") || name == "__NVPTX__" || name == "__HIP_DEVICE_COMPILE__" ||
           out_.macros.count(name.str());
  }
  bool deviceName(const clang::Token& name) const {
    return name.getIdentifierInfo() && deviceIdentifier(name.getIdentifierInfo()->getName());
  }
  bool mentions(clang::SourceRange condition) const {
    llvm::StringRef text = clang::Lexer::getSourceText(clang::CharSourceRange::getTokenRange(condition), sm_, lang_);
    std::string word;
    for (char c : text.str() + " ") {
      if (llvm::isAlnum(c) || c == '_') {
        word += c;
        continue;
      }
      if (!word.empty() && deviceIdentifier(word)) return true;
      word.clear();
    }
    return false;
  }

  const clang::SourceManager& sm_;
  const clang::LangOptions& lang_;
  DeviceConditionals& out_;
  std::vector<Open> open_;
  bool closedDevice_ = false;  // the last #endif closed a device conditional
};

}  // namespace

std::unique_ptr<clang::PPCallbacks> recordDeviceConditionals(const clang::SourceManager& sm,
                                                             const clang::LangOptions& lang, DeviceConditionals& out) {
  return std::make_unique<DeviceConditionalRecorder>(sm, lang, out);
}

}  // namespace relayout
