#include "relayout/analysis/Candidates.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace relayout {

namespace {

// More combinations than this are not enumerated: the pick's single-struct changes stand for them.
constexpr size_t kMaxCombinations = 512;

using Choice = std::vector<Layout>;  // one layout per varying struct

struct Varying {
  const StructDecision* decision;
  const StructPlan* plan;
};

std::string folderWord(const std::string& name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' ? c : '_';
  return out;
}

Plan planFor(const Analysis& analysis, const std::vector<Varying>& varying, const Choice& choice, AnalyzeMode mode,
             const std::string& name) {
  Plan plan = analysis.plan;
  for (size_t i = 0; i < varying.size(); ++i) {
    auto sp = std::find_if(plan.structs.begin(), plan.structs.end(),
                           [&](const StructPlan& p) { return p.name == varying[i].plan->name; });
    const StructDecision& d = *varying[i].decision;
    const Layout layout = choice[i];
    if (sp->layout == layout) continue;  // SoA stored transposed where the analysis chose that
    sp->layout = layout;
    sp->transpose = 0;
    sp->clusters.clear();
    sp->align = 0;  // aligned: to the record's size
    if (layout == Layout::SoA) sp->clusters = soaClusters(sp->fields);
    if (layout == Layout::Clustered)
      for (const FieldCluster& c : d.clustering->clusters) sp->clusters.push_back({c.name, c.fields, c.paddingBytes});
    const double aos = predictedCost(d, Layout::AoS, mode);
    sp->reason =
        fmt::format("candidate {}: {} (predicted cost {:.4g}, {:.0f}% of AoS's); the analysis chose {}", name,
                    toString(layout), predictedCost(d, layout, mode),
                    aos > 0 ? 100 * predictedCost(d, layout, mode) / aos : 100.0, toString(varying[i].plan->layout));
  }
  return plan;
}

}  // namespace

double predictedCost(const StructDecision& d, Layout layout, AnalyzeMode mode) {
  auto of = [&](const LayoutSectors& s) {
    switch (layout) {
      case Layout::AoS:
        return s.aos;
      case Layout::SoA:
        return d.transposed && mode == AnalyzeMode::Model ? d.transposedCost : s.soa;
      case Layout::Clustered:
        return s.clustered;
      case Layout::Aligned:
        return s.aligned;
    }
    return s.aos;
  };
  return mode == AnalyzeMode::Model ? of(d.cost) : of(d.sectors) * (1 + kL1WavefrontWeight / 4);
}

unsigned transposeWidth(const StructDecision& d) {
  std::map<unsigned, double> byWidth;  // W -> thread-level executions of the sites indexed so
  double all = 0;
  for (const SiteEvidence& e : d.sites) {
    all += double(e.counters.laneExecs);
    if (e.site.rowWidth) byWidth[e.site.rowWidth] += double(e.counters.laneExecs);
  }
  auto most = std::max_element(byWidth.begin(), byWidth.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  return most != byWidth.end() && all > 0 && most->second >= all / 2 ? most->first : 0;
}

std::string describeLayouts(const CandidatePlan& candidate) {
  std::string out;
  for (const auto& [name, layout] : candidate.layouts) {
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", name, toString(layout));
    if (auto t = candidate.transposed.find(name); t != candidate.transposed.end())
      out += fmt::format(" transposed (rows of {})", t->second);
  }
  return out.empty() ? "every struct as it is" : out;
}

std::vector<CandidatePlan> rankCandidates(const Analysis& analysis, const CandidateOptions& options) {
  std::vector<CandidatePlan> out;
  if (analysis.forced) {
    CandidatePlan c;
    c.plan = analysis.plan;
    c.pick = true;
    for (const StructPlan& sp : analysis.plan.structs)
      if (sp.layout != Layout::AoS) c.layouts[sp.name] = sp.layout;
    if (c.layouts.empty()) return out;
    c.name = toString(c.layouts.begin()->second);
    for (const StructDecision& d : analysis.structs) {
      c.originalCost += predictedCost(d, Layout::AoS, analysis.mode);
      auto it = c.layouts.find(d.name);
      c.predictedCost += predictedCost(d, it == c.layouts.end() ? Layout::AoS : it->second, analysis.mode);
    }
    out.push_back(std::move(c));
    return out;
  }

  std::vector<Varying> varying;
  double fixedCost = 0;  // the structs that stay as they are
  for (const StructDecision& d : analysis.structs) {
    const StructPlan* sp = analysis.plan.findStruct(d.name);
    if (sp && d.weighed.size() > 1) varying.push_back({&d, sp});
    else fixedCost += predictedCost(d, Layout::AoS, analysis.mode);
  }
  if (varying.empty()) return out;

  // Every combination of the weighed layouts when there are few; else the pick and each struct's
  // other layouts with the rest as picked.
  std::vector<Choice> choices;
  size_t combinations = 1;
  for (const Varying& v : varying)
    combinations = std::min(kMaxCombinations + 1, combinations * v.decision->weighed.size());
  Choice pick;
  for (const Varying& v : varying) pick.push_back(v.plan->layout);
  if (combinations <= kMaxCombinations) {
    Choice c(varying.size());
    std::vector<size_t> at(varying.size(), 0);
    while (true) {
      for (size_t i = 0; i < varying.size(); ++i) c[i] = varying[i].decision->weighed[at[i]];
      choices.push_back(c);
      size_t i = 0;
      while (i < varying.size() && ++at[i] == varying[i].decision->weighed.size()) at[i++] = 0;
      if (i == varying.size()) break;
    }
  } else {
    choices.push_back(pick);
    for (size_t i = 0; i < varying.size(); ++i)
      for (Layout l : varying[i].decision->weighed)
        if (l != pick[i]) {
          Choice c = pick;
          c[i] = l;
          choices.push_back(c);
        }
  }
  auto cost = [&](const Choice& c) {
    double sum = fixedCost;
    for (size_t i = 0; i < varying.size(); ++i) sum += predictedCost(*varying[i].decision, c[i], analysis.mode);
    return sum;
  };
  auto changesNothing = [](const Choice& c) {
    return std::all_of(c.begin(), c.end(), [](Layout l) { return l == Layout::AoS; });
  };
  const double originalCost = cost(Choice(varying.size(), Layout::AoS));
  std::stable_sort(choices.begin(), choices.end(), [&](const Choice& a, const Choice& b) {
    if ((a == pick) != (b == pick)) return a == pick;
    return cost(a) < cost(b);
  });
  std::vector<Choice> taken;
  for (const Choice& c : choices)
    if (!changesNothing(c) && taken.size() < std::max(1u, options.count)) taken.push_back(c);
  if (options.everyUniformLayout)
    for (Layout uniform : {Layout::SoA, Layout::Clustered, Layout::Aligned}) {
      Choice c;
      for (const Varying& v : varying) {
        const std::vector<Layout>& w = v.decision->weighed;
        c.push_back(std::find(w.begin(), w.end(), uniform) != w.end() ? uniform : Layout::AoS);
      }
      if (!changesNothing(c) && std::find(taken.begin(), taken.end(), c) == taken.end()) taken.push_back(c);
    }

  // A choice's candidate before it is named: its costs and the layouts it changes.
  auto candidateOf = [&](const Choice& c) {
    CandidatePlan candidate;
    candidate.pick = c == pick;
    candidate.predictedCost = cost(c);
    candidate.originalCost = originalCost;
    for (size_t i = 0; i < varying.size(); ++i)
      if (c[i] != Layout::AoS) candidate.layouts[varying[i].plan->name] = c[i];
    return candidate;
  };
  std::set<std::string> names;
  size_t mixed = 0;
  for (const Choice& c : taken) {
    CandidatePlan candidate = candidateOf(c);
    std::set<Layout> used;
    for (const auto& [name, layout] : candidate.layouts) used.insert(layout);
    const bool everyStruct = candidate.layouts.size() == varying.size();
    if (used.size() == 1 && everyStruct) candidate.name = toString(*used.begin());
    else if (candidate.layouts.size() == 1)
      candidate.name = folderWord(candidate.layouts.begin()->first) + "-" + toString(candidate.layouts.begin()->second);
    else candidate.name = fmt::format("mixed-{}", ++mixed);
    const std::string base = candidate.name;
    for (unsigned k = 2; !names.insert(candidate.name).second; ++k) candidate.name = fmt::format("{}-{}", base, k);
    candidate.plan = planFor(analysis, varying, c, analysis.mode, candidate.name);
    out.push_back(std::move(candidate));
  }

  // The other storage of SoA for each struct whose accesses index a flattened 2-D array: stored
  // transposed where the analysis chose plain SoA or another layout, plain where it chose transposed.
  for (size_t i = 0; i < varying.size(); ++i) {
    const StructDecision& d = *varying[i].decision;
    const unsigned width = d.transposed ? d.transposeWidth : transposeWidth(d);
    if (!width || std::find(d.weighed.begin(), d.weighed.end(), Layout::SoA) == d.weighed.end()) continue;
    Choice c = pick;
    c[i] = Layout::SoA;
    CandidatePlan candidate = candidateOf(c);
    candidate.pick = false;
    const double soa = predictedCost(d, Layout::SoA, analysis.mode);
    const double other = d.transposed ? d.cost.soa : d.transposedCost;  // 0: not priced
    if (other > 0) candidate.predictedCost += other - soa;
    candidate.name = folderWord(d.name) + (d.transposed ? "-soa-untransposed" : "-soa-transposed");
    candidate.plan = planFor(analysis, varying, c, analysis.mode, candidate.name);
    for (StructPlan& sp : candidate.plan.structs) {
      if (sp.name != d.name) continue;
      sp.transpose = d.transposed ? 0 : width;
      sp.reason = d.transposed ? fmt::format(
                                     "candidate {}: soa, not transposed (predicted cost {:.4g}); the analysis "
                                     "chose soa stored transposed, rows of {}",
                                     candidate.name, d.cost.soa, width)
                  : other > 0 ? fmt::format(
                                    "candidate {}: soa stored transposed, rows of {} (predicted cost {:.4g}); "
                                    "the analysis chose {}",
                                    candidate.name, width, other, toString(varying[i].plan->layout))
                              : fmt::format(
                                    "candidate {}: soa stored transposed, rows of {} (its accesses index a "
                                    "flattened 2-D array; the model does not price the transposition, so it "
                                    "is measured); the analysis chose {}",
                                    candidate.name, width, toString(varying[i].plan->layout));
    }
    out.push_back(std::move(candidate));
  }
  // Every candidate names the structs its plan stores transposed (the pick's, kept by planFor, and the
  // alternatives above): read from the plan, the one place that says it.
  for (CandidatePlan& candidate : out)
    for (const StructPlan& sp : candidate.plan.structs)
      if (sp.transpose && sp.layout == Layout::SoA) candidate.transposed[sp.name] = sp.transpose;
  return out;
}

}  // namespace relayout
