#include "DeviceLayout.h"

#include <clang/Basic/IdentifierTable.h>
#include <clang/Basic/LangOptions.h>
#include <llvm/ADT/StringExtras.h>

#include <set>

namespace relayout::rw {

static llvm::Error planError(const llvm::Twine& message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static bool isIdentifier(llvm::StringRef s) {
  if (s.empty() || llvm::isDigit(s[0])) return false;
  return llvm::all_of(s, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

// A keyword of CUDA C++ (`int`, `and`, `co_await`) or a name reserved to the implementation
// (`__x`, `_X`): not a member name generated code may declare.
static bool isKeywordOrReserved(llvm::StringRef s) {
  clang::LangOptions lang;
  lang.CPlusPlus = lang.CPlusPlus11 = lang.CPlusPlus14 = lang.CPlusPlus17 = lang.CPlusPlus20 = true;
  lang.CXXOperatorNames = lang.Bool = lang.WChar = lang.Char8 = lang.Coroutines = lang.CUDA = true;
  clang::IdentifierTable table(lang);
  const clang::IdentifierInfo& id = table.get(s);
  return id.isKeyword(lang) || id.isCPlusPlusOperatorKeyword() || clang::isReservedInAllContexts(id.isReserved(lang));
}

// The stem of the names relayout declares for a struct: its name without the leading underscores
// that make `_Point` (the tag of `typedef struct _Point {...} Point;`) reserved, which
// `_PointSoA` would be too; only the last component of a qualified name.
static std::string declaredStem(const std::string& spelled) {
  const size_t last = spelled.rfind("::");
  const size_t begin = last == std::string::npos ? 0 : last + 2;
  llvm::StringRef name = llvm::StringRef(spelled).substr(begin);
  llvm::StringRef stem = name.ltrim('_');
  if (stem.empty() || !isKeywordOrReserved(name) || isKeywordOrReserved(stem) || llvm::isDigit(stem[0])) return spelled;
  return spelled.substr(0, begin) + stem.str();
}

const DeviceArray* DeviceLayout::arrayOf(const std::string& field) const {
  for (const DeviceArray& a : arrays)
    for (const std::string& f : a.fields)
      if (f == field) return &a;
  return nullptr;
}

std::vector<std::string> DeviceLayout::declaredNames() const {
  std::vector<std::string> names = {deviceName, constName, "k" + deviceName + "ElementBytes"};
  for (const DeviceArray& a : arrays)
    if (!a.clusterStruct.empty()) names.push_back(a.clusterStruct);
  return names;
}

std::vector<MappedField> mappedFields(const std::vector<FieldFacts>& fields) {
  std::vector<MappedField> out;
  for (const FieldFacts& f : fields) out.push_back({f.name, f.size, f.align, 0, f.dims});
  return out;
}

static std::vector<std::vector<std::string>> clustersOf(const DeviceLayout& layout) {
  std::vector<std::vector<std::string>> clusters;
  for (const DeviceArray& a : layout.arrays) clusters.push_back(a.fields);
  return clusters;
}

// Takes each array's storage from the mapping: its alignment and whether it is split.
static void applyStorage(DeviceLayout& layout) {
  for (size_t i = 0; i < layout.arrays.size(); ++i) {
    const ClusterStorage& c = layout.storage.clusters()[i];
    layout.arrays[i].align = c.align;
    layout.arrays[i].split = c.split;
  }
}

llvm::Expected<DeviceLayout> makeDeviceLayout(const StructPlan& plan, const std::string& baseName,
                                              const std::vector<FieldFacts>& fieldFacts) {
  const std::string& s = plan.name;
  std::vector<std::string> fields;
  for (const FieldFacts& f : fieldFacts) fields.push_back(f.name);
  std::set<std::string> known(fields.begin(), fields.end());
  for (const std::string& f : plan.fields)
    if (!known.count(f)) return planError("plan names field '" + f + "' of struct '" + s + "', which has no such field");
  if (plan.clusters.empty()) return planError("plan gives struct '" + s + "' no clusters");

  DeviceLayout layout;
  layout.structName = s;
  layout.baseName = baseName;
  layout.layout = plan.layout;
  layout.deviceName = declaredStem(baseName) + (plan.layout == Layout::SoA ? "SoA" : "Clusters");
  const size_t scope = layout.deviceName.rfind("::");
  layout.constName = layout.deviceName;
  layout.constName.insert(scope == std::string::npos ? 0 : scope + 2, "Const");
  std::set<std::string> placed, members;
  for (const Cluster& c : plan.clusters) {
    if (c.fields.empty()) return planError("plan gives struct '" + s + "' an empty cluster '" + c.name + "'");
    for (const std::string& f : c.fields) {
      if (!known.count(f))
        return planError("plan names field '" + f + "' of struct '" + s + "', which has no such field");
      if (!placed.insert(f).second)
        return planError("plan puts field '" + f + "' of struct '" + s + "' in more than one cluster");
    }
    DeviceArray array;
    array.fields = c.fields;
    if (c.fields.size() == 1) {
      array.member = c.fields[0];
    } else {
      if (plan.layout == Layout::SoA)
        return planError("plan lays out struct '" + s + "' as soa but its cluster '" + c.name + "' has several fields");
      if (!isIdentifier(c.name))
        return planError("plan's cluster '" + c.name + "' of struct '" + s + "' is not a C++ identifier");
      if (isKeywordOrReserved(c.name))
        return planError("plan's cluster '" + c.name + "' of struct '" + s + "' is a C++ keyword or reserved name");
      array.member = c.name;
      array.clusterStruct = declaredStem(baseName) + "_" + c.name;
    }
    if (!members.insert(array.member).second)
      return planError("plan's clusters of struct '" + s + "' would give two arrays the name '" + array.member + "'");
    layout.arrays.push_back(std::move(array));
  }
  for (const std::string& f : fields)
    if (!placed.count(f)) return planError("plan leaves field '" + f + "' of struct '" + s + "' out of every cluster");
  // A name no array has; used only where some array is split.
  for (layout.strideMember = "stride"; members.count(layout.strideMember);) layout.strideMember += "_";
  layout.transposeWidth = plan.transpose;
  for (layout.rowsMember = "rows"; members.count(layout.rowsMember);) layout.rowsMember += "_";
  layout.storage = LayoutMapping::clustered(mappedFields(fieldFacts), clustersOf(layout));
  applyStorage(layout);
  for (DeviceArray& array : layout.arrays) array.splittable = array.split;
  return layout;
}

std::optional<std::string> transposeHazard(unsigned helpers, const std::vector<FieldFacts>& fields) {
  static const std::pair<unsigned, const char*> hazards[] = {
      {kOffset | kConstOffset, "the program moves a pointer to its array (`p + off`)"},
      {kMemset | kMemsetAsync, "the program sets its array with cudaMemset"},
      {kSameLayoutCopy | kSameLayoutCopyAsync, "the program copies between two of its arrays on the device"},
      {kMallocManaged | kMallocHost | kHostAlloc, "host code reads its array in managed or pinned memory"},
  };
  for (const auto& [mask, why] : hazards)
    if (helpers & mask) return std::string(why) + ", which a transposed layout does not support yet";
  for (const FieldFacts& f : fields)
    if (f.isArray) return "its field '" + f.name + "' is an array, which a transposed layout does not support yet";
  return std::nullopt;
}

void decideSplits(DeviceLayout& layout, const std::map<std::string, std::string>& keptWhole) {
  std::set<std::string> kept;
  for (const DeviceArray& array : layout.arrays)
    if (array.splittable && keptWhole.count(array.fields[0])) kept.insert(array.fields[0]);
  layout.storage = LayoutMapping::clustered(layout.storage.fields(), clustersOf(layout), kept);
  applyStorage(layout);
  for (DeviceArray& array : layout.arrays)
    if (array.splittable && !array.split) array.keptWhy = keptWhole.at(array.fields[0]);
}

std::string splitIndex(const std::vector<uint64_t>& dims, const std::vector<Subscript>& subscripts,
                       const std::string& stride, const std::string& element) {
  std::vector<std::string> terms;
  uint64_t folded = 0, coefficient = 1;
  bool constant = true;
  for (size_t d = dims.size(); d-- > 0;) {  // innermost first: its coefficient is 1
    const Subscript& s = subscripts[d];
    if (s.value) {
      folded += *s.value * coefficient;
      if (*s.value != 0) terms.insert(terms.begin(), std::to_string(*s.value * coefficient));
    } else {
      constant = false;
      terms.insert(terms.begin(), coefficient == 1 ? s.text : std::to_string(coefficient) + " * " + s.text);
    }
    coefficient *= dims[d];
  }
  if (constant) terms = folded == 0 ? std::vector<std::string>{} : std::vector<std::string>{std::to_string(folded)};
  std::string runs;  // the run's offset: flat index times stride
  if (terms.size() == 1) runs = terms[0] == "1" ? stride : terms[0] + " * " + stride;
  else if (terms.size() > 1) runs = "(" + llvm::join(terms, " + ") + ") * " + stride;
  if (runs.empty()) return element.empty() ? "0" : element;
  return element.empty() ? runs : runs + " + " + element;
}

}  // namespace relayout::rw
