#include "relayout/analysis/Ptx.h"

#include "relayout/core/Files.h"

#include <fmt/format.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringExtras.h>

#include <algorithm>
#include <cctype>
#include <set>

namespace relayout {

namespace {

// Bytes of a PTX element type (f32, b64, u8, b128...); 0 when `part` is none.
unsigned typeBytes(llvm::StringRef part) {
  if (part.size() < 2 || !llvm::is_contained(llvm::StringRef("bsuf"), part[0])) return 0;
  unsigned bits = 0;
  if (part.drop_front().getAsInteger(10, bits) || bits % 8 != 0 || bits == 0) return 0;
  return bits / 8;
}

struct Instruction {
  bool memory = false;
  PtxAccess access;
  unsigned fileId = 0;       // its .loc's file: nvcc writes the .file directives after the functions
  std::string branchTarget;  // a bra's label
};

// The memory access an instruction makes, if it is a global (or generic) load, store or atomic.
bool readAccess(llvm::StringRef opcode, PtxAccess& access) {
  llvm::SmallVector<llvm::StringRef, 8> parts;
  opcode.split(parts, '.');
  const llvm::StringRef op = parts.front();
  const bool load = op == "ld" || op == "ldu", store = op == "st", atomic = op == "atom" || op == "red";
  if (!load && !store && !atomic) return false;
  unsigned vector = 1, bytes = 0;
  bool global = false;
  for (llvm::StringRef part : llvm::ArrayRef(parts).drop_front()) {
    if (part == "global") global = true;
    else if (part == "param" || part == "local" || part == "const" || part == "tex" || part.starts_with("shared"))
      return false;
    else if (part.size() == 2 && part[0] == 'v' && std::isdigit(static_cast<unsigned char>(part[1])))
      vector = part[1] - '0';
    else if (unsigned b = typeBytes(part)) bytes = b;
  }
  (void)global;  // generic addressing may reach global memory too
  access.load = load || op == "atom";
  access.store = store || atomic;
  access.element = std::max(1u, bytes);
  access.width = vector * access.element;
  return true;
}

// Ends a function: each instruction's depth is the number of loops (a label with branches back to
// it from later on, up to the last of them) around it.
void finishFunction(std::vector<Instruction>& body, const std::map<std::string, size_t>& labels, PtxModule& out,
                    std::vector<unsigned>& fileIds) {
  std::map<size_t, size_t> loops;  // header position -> last back edge
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i].branchTarget.empty()) continue;
    auto label = labels.find(body[i].branchTarget);
    if (label == labels.end() || label->second > i) continue;
    size_t& end = loops[label->second];
    end = std::max(end, i);
  }
  for (size_t i = 0; i < body.size(); ++i) {
    if (!body[i].memory) continue;
    PtxAccess a = body[i].access;
    for (const auto& [begin, end] : loops) a.loopDepth += begin <= i && i <= end;
    out.accesses.push_back(std::move(a));
    fileIds.push_back(body[i].fileId);
  }
  body.clear();
}

// "a/b.cu" is "/x/a/b.cu": equal, or a trailing part of it at a folder boundary.
bool samePathTail(llvm::StringRef ptxFile, llvm::StringRef siteFile) {
  siteFile.consume_front("./");
  if (ptxFile == siteFile) return true;
  return ptxFile.ends_with(siteFile) && ptxFile.size() > siteFile.size() &&
         ptxFile[ptxFile.size() - siteFile.size() - 1] == '/';
}

}  // namespace

llvm::Expected<PtxModule> parsePtx(llvm::StringRef text, llvm::StringRef path) {
  PtxModule out;
  out.path = path.str();
  std::map<unsigned, std::string> files;
  std::vector<Instruction> body;
  std::map<std::string, size_t> labels;
  std::string function;
  std::vector<unsigned> fileIds;  // per access
  unsigned locFile = 0, locLine = 0, depth = 0, lineNumber = 0;
  bool sawVersion = false;
  llvm::SmallVector<llvm::StringRef, 0> lines;
  text.split(lines, '\n');
  for (llvm::StringRef raw : lines) {
    ++lineNumber;
    llvm::StringRef line = raw.trim();
    if (size_t comment = line.find("//"); comment != llvm::StringRef::npos) line = line.take_front(comment).rtrim();
    if (line.empty()) continue;
    if (line.starts_with(".version")) sawVersion = true;
    if (line.starts_with(".file")) {
      unsigned id = 0;
      llvm::StringRef rest = line.drop_front(5).ltrim();
      size_t open = rest.find('"'), close = rest.rfind('"');
      if (rest.take_until([](char c) { return std::isspace(static_cast<unsigned char>(c)); }).getAsInteger(10, id) ||
          open == llvm::StringRef::npos || close <= open)
        return fileError(path, fmt::format("line {}: cannot read this .file directive", lineNumber));
      files[id] = rest.substr(open + 1, close - open - 1).str();
      continue;
    }
    if (line.contains(".entry") || line.contains(".func")) {
      // `.visible .entry NAME(` or `.func (.param .b32 r) NAME(`: the name is the word before its '('.
      llvm::StringRef head = line;
      if (head.starts_with(".func") || head.contains(" .func")) {
        size_t close = head.find(')');
        if (head.find('(') < close && close != llvm::StringRef::npos) head = head.drop_front(close + 1);
      }
      function = head.take_until([](char c) { return c == '('; }).rtrim().rsplit(' ').second.trim().str();
      if (function.empty()) function = head.take_until([](char c) { return c == '('; }).trim().str();
      continue;
    }
    if (line == "{") {
      ++depth;
      continue;
    }
    if (line == "}") {
      if (depth > 0 && --depth == 0) {
        finishFunction(body, labels, out, fileIds);
        labels.clear();
      }
      continue;
    }
    if (depth == 0) continue;
    if (line.starts_with(".loc")) {
      llvm::SmallVector<llvm::StringRef, 4> words;
      line.drop_front(4).split(words, ' ', -1, false);
      unsigned id = 0, number = 0;
      if (words.size() >= 2 && !words[0].trim().getAsInteger(10, id) &&
          !words[1].trim().trim(',').getAsInteger(10, number))
        locFile = id, locLine = number;
      continue;
    }
    if (line.ends_with(":") && line.starts_with("$")) {
      labels[line.drop_back().str()] = body.size();
      continue;
    }
    if (line.starts_with(".")) continue;  // .reg, .shared, .pragma...
    llvm::StringRef statement = line;
    if (statement.starts_with("@"))
      statement = statement.drop_until([](char c) { return c == ' ' || c == '\t'; }).ltrim();
    llvm::StringRef opcode = statement.take_until([](char c) { return c == ' ' || c == '\t' || c == ';'; });
    Instruction ins;
    if (opcode == "bra" || opcode.starts_with("bra.")) {
      ins.branchTarget = statement.drop_front(opcode.size()).trim().rtrim(';').trim().str();
    } else if (readAccess(opcode, ins.access)) {
      ins.memory = true;
      ins.fileId = locFile;
      ins.access.line = locLine;
      ins.access.function = function;
    }
    body.push_back(std::move(ins));
  }
  if (!sawVersion) return fileError(path, "is not PTX (no .version directive)");
  for (size_t i = 0; i < out.accesses.size(); ++i)
    if (auto it = files.find(fileIds[i]); it != files.end()) out.accesses[i].file = it->second;
  return out;
}

llvm::Expected<PtxModule> loadPtx(llvm::StringRef path) {
  llvm::Expected<std::string> text = readFile(path);
  if (!text) return text.takeError();
  return parsePtx(*text, path);
}

namespace {

// The width nvcc can give one direction of `site` under `mapping` (see predictedRequests).
unsigned predictedWidth(const LayoutMapping& mapping, const StructInfo& s, const SiteInfo& site,
                        const std::vector<const SiteInfo*>& together, bool load) {
  auto fieldIndex = [&](const SiteInfo& t) -> std::optional<size_t> {
    for (size_t i = 0; i < s.fields.size(); ++i)
      if (s.fields[i].name == t.field) return i;
    return std::nullopt;
  };
  std::optional<size_t> index = fieldIndex(site);
  const FieldInfo* field = s.field(site.field);
  if (!index || !field) return 1;
  const unsigned inField = site.offset >= field->offset ? site.offset - field->offset : 0;
  const unsigned natural = naturalWidth(std::max(1u, site.size), inField, field->align);
  const FieldPlacement* p = mapping.place(*index);
  if (!p || p->runBytes || p->tiled || site.member.find("[]") != std::string::npos) return natural;
  const uint64_t align = mapping.clusters()[p->cluster].align;
  const uint64_t start = p->offset + inField, end = start + std::max(1u, site.size);
  for (uint64_t w = 16; w > natural; w /= 2) {
    if (w > align || end > (start / w) * w + w) continue;
    const uint64_t chunk = (start / w) * w;
    uint32_t covered = 0;  // one bit per byte of the chunk
    for (const SiteInfo* t : together) {
      if (load ? t->access == AccessKind::Write : t->access == AccessKind::Read) continue;
      std::optional<size_t> ti = fieldIndex(*t);
      const FieldInfo* tf = s.field(t->field);
      const FieldPlacement* tp = ti ? mapping.place(*ti) : nullptr;
      if (!tp || !tf || tp->cluster != p->cluster || tp->runBytes) continue;
      const uint64_t ts = tp->offset + (t->offset >= tf->offset ? t->offset - tf->offset : 0);
      for (uint64_t b = std::max(ts, chunk); b < std::min(ts + t->size, chunk + w); ++b) covered |= 1u << (b - chunk);
    }
    if (covered == (w == 32 ? ~0u : (1u << w) - 1)) return unsigned(w);
  }
  return natural;
}

}  // namespace

double predictedRequests(const LayoutMapping& mapping, const StructInfo& s, const SiteInfo& site,
                         const std::vector<const SiteInfo*>& together) {
  double requests = 0;
  for (bool load : {true, false}) {
    if (load ? site.access == AccessKind::Write : site.access == AccessKind::Read) continue;
    requests += double(std::max(1u, site.size)) / predictedWidth(mapping, s, site, together, load);
  }
  return requests;
}

unsigned sourceLoopDepth(const SiteMap& map, const SiteInfo& site) {
  unsigned depth = 0;
  std::optional<unsigned> loop = site.loop;
  std::set<unsigned> seen;
  while (loop && seen.insert(*loop).second) {
    auto it = std::find_if(map.loops.begin(), map.loops.end(), [&](const LoopInfo& l) { return l.id == *loop; });
    if (it == map.loops.end()) break;
    ++depth;
    loop = it->parent;
  }
  return depth;
}

unsigned naturalWidth(unsigned size, unsigned offsetInField, unsigned fieldAlign) {
  unsigned w = 16;
  while (w > 1 && (w > std::max(1u, fieldAlign) || size % w != 0 || offsetInField % w != 0)) w /= 2;
  return w;
}

double naturalRequests(const SiteInfo& site, const FieldInfo& field) {
  const unsigned inField = site.offset >= field.offset ? site.offset - field.offset : 0;
  const double one = double(std::max(1u, site.size)) / naturalWidth(std::max(1u, site.size), inField, field.align);
  return site.access == AccessKind::ReadWrite ? 2 * one : one;
}

std::vector<SiteCode> siteCode(const SiteMap& map, const std::vector<const PtxModule*>& modules) {
  std::vector<SiteCode> out(map.sites.size());
  std::set<std::string> kernels;
  for (const FunctionInfo& f : map.functions)
    if (f.isKernel) kernels.insert(f.name);
  for (const SiteInfo& site : map.sites) {
    if (site.id >= out.size()) continue;
    SiteCode& code = out[site.id];
    const unsigned srcDepth = sourceLoopDepth(map, site);
    const bool inKernel = kernels.count(site.function) > 0;
    std::vector<bool> directions;  // true: loads
    if (site.access != AccessKind::Write) directions.push_back(true);
    if (site.access != AccessKind::Read) directions.push_back(false);
    const StructInfo* owner = map.findStruct(site.structName);
    const FieldInfo* field = owner ? owner->field(site.field) : nullptr;
    const double natural = field ? naturalRequests(site, *field) / directions.size() : 1;
    double requests = 0;
    unsigned hoisted = 0;
    for (bool load : directions) {
      unsigned width = 0, maxDepth = 0;
      bool found = false;
      for (const PtxModule* m : modules)
        for (const PtxAccess& a : m->accesses) {
          if (a.line != site.location.line || (load ? !a.load : !a.store) || a.element > std::max(1u, site.size) ||
              !samePathTail(a.file, site.location.file))
            continue;
          found = true;
          width = std::max(width, a.width);
          maxDepth = std::max(maxDepth, a.loopDepth);
        }
      if (!found || width == 0) {
        requests += natural;
        continue;
      }
      code.found = true;
      code.width = std::max(code.width, width);
      requests += double(std::max(1u, site.size)) / double(width);
      const bool outside = inKernel ? maxDepth < srcDepth : maxDepth == 0 && srcDepth > 0;
      hoisted += outside;
    }
    code.requests = requests;
    code.hoisted = directions.empty() ? 0 : double(hoisted) / double(directions.size());
  }
  return out;
}

}  // namespace relayout
