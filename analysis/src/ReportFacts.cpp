#include "ReportFacts.h"

#include "relayout/analysis/Model.h"

#include <algorithm>

namespace relayout {

std::vector<ByteSpan> bytesBefore(const StructInfo& info) {
  std::vector<const FieldInfo*> fields;
  for (const FieldInfo& f : info.fields) fields.push_back(&f);
  std::stable_sort(fields.begin(), fields.end(),
                   [](const FieldInfo* a, const FieldInfo* b) { return a->offset < b->offset; });
  std::vector<ByteSpan> spans;
  unsigned end = 0;
  for (const FieldInfo* f : fields) {
    if (f->offset > end) spans.push_back({"", end, f->offset - end});
    spans.push_back({f->name, f->offset, f->size});
    end = std::max(end, f->offset + f->size);
  }
  if (info.size > end) spans.push_back({"", end, info.size - end});
  return spans;
}

std::vector<ArrayAfter> arraysAfter(const StructDecision& d) {
  std::vector<ArrayAfter> arrays;
  if (d.layout == Layout::SoA) {
    for (const FieldInfo& f : d.info.fields) arrays.push_back({f.name, f.size, {{f.name, 0, f.size}}, 0});
  } else if (d.layout == Layout::Clustered && d.clustering) {
    const std::string base = unqualifiedName(d.info.name);
    for (const FieldCluster& c : d.clustering->clusters) {
      // A one-field cluster is that field's own array; the others are sub-structs named after the struct.
      ArrayAfter a{c.fields.size() == 1 ? c.name : base + "_" + c.name, c.bytes, {}, c.paddingBytes};
      unsigned offset = 0;
      for (const std::string& name : c.fields)
        if (const FieldInfo* f = d.info.field(name)) {
          offset = (offset + std::max(1u, f->align) - 1) / std::max(1u, f->align) * std::max(1u, f->align);
          a.spans.push_back({name, offset, f->size});
          offset += f->size;
        }
      if (c.bytes > offset) a.spans.push_back({"", offset, c.bytes - offset});
      arrays.push_back(std::move(a));
    }
  }
  return arrays;
}

double kernelSectorsUnder(const KernelSectors& k, Layout layout) {
  switch (layout) {
    case Layout::SoA:
      return k.sectors.soa;
    case Layout::Clustered:
      return k.sectors.clustered;
    case Layout::AoS:
      break;
  }
  return k.sectors.aos;
}

double changeFromAoS(double sectors, double aos) { return aos > 0 ? sectors / aos - 1 : 0; }

bool slowerUnderChosen(const StructDecision& d, const KernelSectors& k) {
  return d.layout != Layout::AoS && k.sectors.aos > 0 && kernelSectorsUnder(k, d.layout) > k.sectors.aos * 1.05;
}

std::optional<Layout> paperPick(const StructDecision& d) {
  if (std::none_of(d.sites.begin(), d.sites.end(),
                   [](const SiteEvidence& e) { return e.verdict.cls != AccessClass::NotExecuted; }))
    return std::nullopt;
  double sum = 0;
  for (const SiteEvidence& e : d.sites) sum += e.verdict.weight;
  if (sum < 0) return Layout::SoA;
  return d.clustering && d.clustering->clusters.size() > 1 ? Layout::Clustered : Layout::AoS;
}

}  // namespace relayout
