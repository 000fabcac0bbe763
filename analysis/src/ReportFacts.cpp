#include "ReportFacts.h"

#include "relayout/analysis/Model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace relayout {

const char* reportLayoutName(Layout layout) {
  switch (layout) {
    case Layout::AoS:
      return "AoS (unchanged)";
    case Layout::SoA:
      return "SoA";
    case Layout::Clustered:
      return "clustered";
    case Layout::Aligned:
      return "AoS aligned to its size";
  }
  return "AoS (unchanged)";
}

std::string decisionLayoutName(const StructDecision& d) {
  std::string name = reportLayoutName(d.layout);
  if (d.layout == Layout::SoA && d.transposed) name += fmt::format(" stored transposed (rows of {})", d.transposeWidth);
  return name;
}

bool executed(const StructDecision& d) {
  return !d.sites.empty() && d.sites.front().verdict.cls != AccessClass::NotExecuted;
}

namespace {

const char* shortName(Layout layout) { return layout == Layout::AoS ? "AoS" : reportLayoutName(layout); }

// "36% less predicted cost than AoS" / "12% more predicted sectors than AoS"; `fewer` for a count.
std::string against(double value, double aos, const char* what, const char* fewer) {
  if (aos <= 0) return fmt::format("{} {:.4g}, AoS none", what, value);
  const double change = value / aos - 1;
  return fmt::format("{:.0f}% {} {} than AoS ({:.4g} against {:.4g})", std::fabs(100 * change),
                     change <= 0 ? fewer : "more", what, value, aos);
}

}  // namespace

std::string decisionLine(const Analysis& a, const StructDecision& d) {
  if (!executed(d)) return "AoS kept: no access to it executed";
  const bool model = a.mode == AnalyzeMode::Model;
  const LayoutSectors& measure = model ? d.cost : d.sectors;
  const char* what = model ? "predicted cost" : "predicted sectors";
  const char* forced = a.forced ? " (forced by --layout)" : "";
  // The other layout a kept AoS was weighed against: the cheaper of SoA and the clustered candidate.
  Layout other = d.layout;
  if (other == Layout::AoS)
    other = hasClusters(d) && measure.under(Layout::Clustered) < measure.under(Layout::SoA) ? Layout::Clustered
                                                                                            : Layout::SoA;
  // SoA stored transposed is priced apart from SoA (StructDecision::transposedCost).
  const double chosen = model && other == Layout::SoA && d.transposed ? d.transposedCost : measure.under(other);
  std::string margin = against(chosen, measure.under(Layout::AoS), what, model ? "less" : "fewer");
  if (!model) {
    double together = 0, apart = 0;
    for (const SiteEvidence& e : d.sites) (e.verdict.weight > 0 ? together : apart) += std::fabs(e.verdict.weight);
    const double total = together + apart;
    const bool split = d.layout == Layout::SoA;
    const std::string votes =
        total > 0 ? fmt::format("{:.0f}% of the paper rule's weighted executions vote to {} the elements",
                                100 * (split ? apart : together) / total, split ? "split" : "keep together")
                  : std::string("the paper rule had no votes");
    if (d.layout == Layout::AoS) return fmt::format("AoS kept{}: {}; {}: {}", forced, votes, shortName(other), margin);
    return fmt::format("{}{}: {}; {}", shortName(d.layout), forced, votes, margin);
  }
  if (d.layout != Layout::AoS) return fmt::format("{}{}: {}", decisionLayoutName(d), forced, margin);
  const double aos = measure.under(Layout::AoS), best = measure.under(other);
  if (a.forced || best >= aos) return fmt::format("AoS kept{}: {} would have {}", forced, shortName(other), margin);
  return fmt::format("AoS kept: {} would have {}, short of the {:.0f}% a change needs", shortName(other), margin,
                     100 * kModelMinGain);
}

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

std::string elementGrowth(const StructDecision& d) {
  const std::vector<ArrayAfter> arrays = arraysAfter(d);
  if (arrays.empty() || !d.info.size) return "";
  unsigned after = 0;
  for (const ArrayAfter& a : arrays) after += a.bytes;
  const double change = 100.0 * (double(after) / d.info.size - 1);
  return fmt::format("{} B per element in all, {} B before ({})", after, d.info.size,
                     after == d.info.size ? std::string("the same") : fmt::format("{:+.0f}%", change));
}

double changeFromAoS(double sectors, double aos) { return aos > 0 ? sectors / aos - 1 : 0; }

bool slowerUnderChosen(const StructDecision& d, const KernelSectors& k) {
  return d.layout != Layout::AoS && k.sectors.aos > 0 && k.sectors.under(d.layout) > k.sectors.aos * 1.05;
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
