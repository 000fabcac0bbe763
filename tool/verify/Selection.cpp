#include "verify/Selection.h"

#include "verify/Verify.h"

#include "relayout/core/Files.h"

#include <fmt/format.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <algorithm>
#include <optional>

namespace relayout {

namespace fs = llvm::sys::fs;

namespace {

constexpr const char* kCandidatesFormat = "relayout-candidates";
constexpr const char* kSelectionFormat = "relayout-selection";

std::string join(const std::string& a, const std::string& b) {
  llvm::SmallString<256> out(a);
  llvm::sys::path::append(out, b);
  return std::string(out);
}

std::optional<Layout> layoutFromName(const std::string& name) {
  for (Layout l : kLayouts)
    if (name == toString(l)) return l;
  return std::nullopt;
}

// DIR/rewritten becomes a copy of the candidate's tree: built beside it, then renamed in.
llvm::Error installTree(const std::string& tree, const std::string& rewritten) {
  const std::string fresh = rewritten + ".relayout-new";
  fs::remove_directories(fresh);
  if (llvm::Error err = copyTree(tree, fresh, "plan.json")) {
    fs::remove_directories(fresh);
    return err;
  }
  if (std::error_code ec = fs::remove_directories(rewritten))
    return llvm::createStringError(ec, "cannot remove " + rewritten + ": " + ec.message());
  if (std::error_code ec = fs::rename(fresh, rewritten))
    return llvm::createStringError(ec, "cannot rename " + fresh + " to " + rewritten + ": " + ec.message());
  return llvm::Error::success();
}

// verify.json's numbers for one candidate, by name.
const nlohmann::json* measuredCandidate(const nlohmann::json& verify, const std::string& name) {
  if (!verify.contains("candidates") || !verify["candidates"].is_array()) return nullptr;
  for (const nlohmann::json& c : verify["candidates"])
    if (c.value("name", "") == name) return &c;
  return nullptr;
}

double number(const nlohmann::json& j, const char* a, const char* b) {
  if (!j.contains(a) || !j[a].is_object() || !j[a].contains(b) || !j[a][b].is_number()) return 0;
  return j[a][b].get<double>();
}

// A measured candidate's median speed-up on `basis` (kernel or wall), 0 when not measured.
double speedupMedian(const nlohmann::json& measured, const std::string& basis) {
  const nlohmann::json& sp = measured.value("speedup", nlohmann::json::object());
  return sp.contains(basis) && sp[basis].is_object() ? sp[basis].value("median", 0.0) : 0;
}

std::string ratio(double value) { return value > 0 ? fmt::format("{:.2f}x", value) : "-"; }

std::string selectionMarkdown(const nlohmann::json& s) {
  std::string md = "# Candidates measured against the original\n\n" + s.value("message", "") + "\n\n";
  md += fmt::format(
      "Predicted: the analysis's cost of the candidate over the original's (lower is better). Measured: the "
      "original's median {} time over the candidate's (higher is better), with its range over the interleaved run "
      "pairs; {}.\n\n",
      s.value("basis", "kernel"), verify::speedRuleText());
  md += fmt::format(
      "| candidate | layouts | predicted cost | measured time | speed-up | outputs | speed |\n"
      "|---|---|---|---|---|---|---|\n| original | as written | 1.00 | {:.3f} ms | | | |\n",
      s["original"].value("time_ms", 0.0));
  for (const nlohmann::json& c : s["candidates"]) {
    std::string name = c.value("name", "");
    if (c.value("pick", false)) name += " (analysis's pick)";
    if (c.value("applied", false)) name = "**" + name + "** applied";
    const nlohmann::json& sp = c["speedup"];
    std::string speedup = sp.is_object() ? fmt::format("{:.2f}x ({:.2f}-{:.2f})", sp.value("median", 0.0),
                                                       sp.value("min", 0.0), sp.value("max", 0.0))
                                         : "-";
    md += fmt::format("| {} | {} | {:.2f} | {} | {} | {} | {} |\n", name, c.value("layouts", ""),
                      c.value("predicted_ratio", 0.0),
                      c["time_ms"].is_number() ? fmt::format("{:.3f} ms", c["time_ms"].get<double>()) : "-", speedup,
                      c.value("outputs", ""), c["speed"].is_string() ? c["speed"].get<std::string>() : "-");
  }
  return md;
}

}  // namespace

std::string candidatesFolder(const std::string& outDir) { return join(outDir, "candidates"); }

const char* resultName(SelectionResult result) {
  switch (result) {
    case SelectionResult::Applied:
      return "applied";
    case SelectionResult::Untouched:
      return "untouched";
    case SelectionResult::Slower:
      return "slower";
    case SelectionResult::Rejected:
      return "rejected";
    case SelectionResult::Nothing:
      return "nothing";
  }
  return "?";
}

const char* resultMeaning(SelectionResult result) {
  switch (result) {
    case SelectionResult::Applied:
      return "a rewrite printed what the original printed and ran faster beyond the runs' spread: it is applied";
    case SelectionResult::Untouched:
      return "the rewrites printed what the original printed, none ran faster beyond the runs' spread: the "
             "sources stay as they are";
    case SelectionResult::Slower:
      return "the rewrites printed what the original printed but the best of them ran slower: the sources stay "
             "as they are";
    case SelectionResult::Rejected:
      return "no rewrite printed what the original printed: the sources stay as they are";
    case SelectionResult::Nothing:
      return "the analysis keeps every struct as it is, or the rewrite could apply none of the layouts it "
             "chose: nothing to measure";
  }
  return "";
}

namespace {

std::string nothingToMeasure(const Plan& plan) {
  std::map<std::string, Layout> changed;
  for (const StructPlan& sp : plan.structs)
    if (sp.layout != Layout::AoS) changed[sp.name] = sp.layout;
  if (changed.empty()) return "nothing to measure: the analysis keeps every struct as it is";
  return "nothing to measure: the rewrite could apply none of the layouts the analysis chose (" +
         describeLayouts(CandidatePlan{"", {}, changed, 0, 0, true}) + "); its warnings say why";
}

}  // namespace

std::string nothingToMeasure(const std::string& outDir) {
  llvm::Expected<Plan> plan = Plan::load(join(outDir, "plan.json"));
  if (!plan) {
    llvm::consumeError(plan.takeError());
    return nothingToMeasure(Plan{});
  }
  return nothingToMeasure(*plan);
}

nlohmann::json candidatesJson(const std::vector<StagedCandidate>& candidates, const std::string& outDir) {
  nlohmann::json list = nlohmann::json::array();
  auto relative = [&](const std::string& path) {
    llvm::StringRef p(path);
    return p.consume_front(outDir) ? p.ltrim('/').str() : path;
  };
  for (const StagedCandidate& c : candidates) {
    nlohmann::json layouts = nlohmann::json::object(), notApplied = nlohmann::json::object();
    for (const auto& [name, layout] : c.layouts) layouts[name] = toString(layout);
    for (const auto& [name, why] : c.notApplied) notApplied[name] = why;
    nlohmann::json transposed = nlohmann::json::object();
    for (const auto& [name, width] : c.transposed) transposed[name] = width;
    list.push_back({{"name", c.name},
                    {"pick", c.pick},
                    {"layouts", layouts},
                    {"not_applied", notApplied},
                    {"predicted_cost", c.predictedCost},
                    {"original_cost", c.originalCost},
                    {"tree", relative(c.tree)},
                    {"plan", relative(c.plan)}});
    if (!c.transposed.empty()) list.back()["transposed"] = transposed;
  }
  return {{"format", kCandidatesFormat}, {"version", 1}, {"candidates", list}};
}

llvm::Expected<std::vector<StagedCandidate>> readCandidates(const std::string& outDir) {
  const std::string path = join(candidatesFolder(outDir), "candidates.json");
  llvm::Expected<nlohmann::json> doc = readJsonFile(path);
  if (!doc) return doc.takeError();
  if (llvm::Error err = checkFormat(*doc, path, kCandidatesFormat, 1)) return std::move(err);
  std::vector<StagedCandidate> out;
  try {
    for (const nlohmann::json& c : doc->at("candidates")) {
      StagedCandidate s;
      s.name = c.at("name").get<std::string>();
      s.pick = c.at("pick").get<bool>();
      for (const auto& [name, layout] : c.at("layouts").items()) {
        std::optional<Layout> l = layoutFromName(layout.get<std::string>());
        if (!l) return fileError(path, "candidate " + s.name + ": unknown layout " + layout.get<std::string>());
        s.layouts[name] = *l;
      }
      for (const auto& [name, why] : c.at("not_applied").items()) s.notApplied[name] = why.get<std::string>();
      if (c.contains("transposed"))  // added later in version 1
        for (const auto& [name, width] : c.at("transposed").items()) s.transposed[name] = width.get<unsigned>();
      s.predictedCost = c.at("predicted_cost").get<double>();
      s.originalCost = c.at("original_cost").get<double>();
      s.tree = join(outDir, c.at("tree").get<std::string>());
      s.plan = join(outDir, c.at("plan").get<std::string>());
      out.push_back(std::move(s));
    }
  } catch (const nlohmann::json::exception& e) {
    return fileError(path, std::string("is not a candidates file relayout wrote: ") + e.what());
  }
  return out;
}

Plan keepEveryStruct(const Plan& plan, const std::string& why) {
  Plan kept = plan;
  for (StructPlan& sp : kept.structs) {
    sp.layout = Layout::AoS;
    sp.clusters.clear();
    sp.align = 0;
    sp.reason = why;
  }
  return kept;
}

llvm::Expected<Selection> applySelection(const std::string& outDir) {
  llvm::Expected<std::vector<StagedCandidate>> candidates = readCandidates(outDir);
  if (!candidates) return candidates.takeError();
  const std::string verifyPath = join(join(outDir, "verify"), "verify.json");
  nlohmann::json verify = nlohmann::json::object();
  if (!candidates->empty()) {
    llvm::Expected<nlohmann::json> v = readJsonFile(verifyPath);
    if (!v) return v.takeError();
    verify = std::move(*v);
  }
  const std::string rewritten = join(outDir, "rewritten"), planPath = join(outDir, "plan.json");
  llvm::Expected<Plan> analysisPlan = Plan::load(planPath);
  if (!analysisPlan) return analysisPlan.takeError();

  Selection selection;
  const std::string chosen =
      verify.contains("chosen") && verify["chosen"].is_string() ? verify["chosen"].get<std::string>() : "";
  const std::string verdict = verify.value("verdict", "");
  // The measured numbers beside the predicted ones, per candidate.
  nlohmann::json rows = nlohmann::json::array();
  std::string basis = "kernel";
  double originalMs = number(verify.value("original", nlohmann::json::object()), "kernel_ms", "median");
  if (originalMs == 0)
    basis = "wall", originalMs = number(verify.value("original", nlohmann::json::object()), "wall_ms", "median");
  std::vector<std::string> speedups;
  for (const StagedCandidate& c : *candidates) {
    const nlohmann::json* m = measuredCandidate(verify, c.name);
    nlohmann::json row = {
        {"name", c.name},
        {"pick", c.pick},
        {"applied", c.name == chosen},
        {"layouts", describeLayouts(CandidatePlan{c.name, {}, c.layouts, 0, 0, c.pick, c.transposed})},
        {"predicted_cost", c.predictedCost},
        {"predicted_ratio", c.originalCost > 0 ? c.predictedCost / c.originalCost : 1.0},
        {"time_ms", nullptr},
        {"speedup", nullptr},
        {"outputs", m ? (m->value("verdict", "") == "equal" ? "equal" : "differ") : "not run"},
        {"speed", nullptr}};
    if (m) {
      double ms = number(*m, basis == "kernel" ? "kernel_ms" : "wall_ms", "median");
      if (ms > 0) row["time_ms"] = ms;
      if ((*m)["speedup"].is_object() && (*m)["speedup"][basis].is_object()) row["speedup"] = (*m)["speedup"][basis];
      if ((*m)["speed"].is_string()) row["speed"] = (*m)["speed"];
      if (row["speedup"].is_object())
        speedups.push_back(fmt::format("{} {}", c.name, ratio(row["speedup"].value("median", 0.0))));
    }
    rows.push_back(std::move(row));
  }
  const std::string measuredText = speedups.empty() ? "" : " (" + fmt::format("{}", fmt::join(speedups, ", ")) + ")";

  if (candidates->empty()) {
    selection.result = SelectionResult::Nothing;
    selection.message = nothingToMeasure(*analysisPlan);
  } else if (!chosen.empty()) {
    auto it = std::find_if(candidates->begin(), candidates->end(),
                           [&](const StagedCandidate& c) { return c.name == chosen; });
    if (it == candidates->end())
      return fileError(verifyPath, "names a candidate " + chosen + " that " + outDir + " does not have");
    if (llvm::Error err = installTree(it->tree, rewritten)) return std::move(err);
    llvm::Expected<std::string> plan = readFile(it->plan);
    if (!plan) return plan.takeError();
    if (llvm::Error err = writeFileAtomically(planPath, *plan)) return std::move(err);
    selection.result = SelectionResult::Applied;
    selection.applied = chosen;
    const nlohmann::json* m = measuredCandidate(verify, chosen);
    selection.message =
        fmt::format("applied candidate {} ({}): {} time {} the original's, {}{}; {} holds it", chosen,
                    describeLayouts(CandidatePlan{chosen, {}, it->layouts, 0, 0, it->pick, it->transposed}), basis,
                    m ? ratio(speedupMedian(*m, basis)) : "-",
                    m && m->value("by_ranks", false)
                        ? "faster " + verify::byRanksText(m->value("rank_p", 1.0), m->value("margin", 0.0))
                        : fmt::format("beyond the runs' spread of {:.1f}%", m ? 100 * m->value("margin", 0.0) : 0.0),
                    measuredText, rewritten);
  } else {
    const bool anyEqual = verdict == "equal";
    const std::string speed = verify["speed"].is_string() ? verify["speed"].get<std::string>() : "";
    selection.result = !anyEqual           ? SelectionResult::Rejected
                       : speed == "slower" ? SelectionResult::Slower
                                           : SelectionResult::Untouched;
    if (selection.result == SelectionResult::Rejected) {
      const std::string rejected = join(outDir, "rejected");
      fs::remove_directories(rejected);
      if (fs::exists(rewritten))
        if (std::error_code ec = fs::rename(rewritten, rejected))
          return llvm::createStringError(ec, "cannot move " + rewritten + " to " + rejected + ": " + ec.message());
      selection.message = "kept the original: no candidate printed what the original printed (" + verifyPath +
                          " says what differed); the candidates' sources stay in " + candidatesFolder(outDir);
    } else {
      if (std::error_code ec = fs::remove_directories(rewritten))
        return llvm::createStringError(ec, "cannot remove " + rewritten + ": " + ec.message());
      selection.message = fmt::format(
          "kept the original: no candidate ran faster beyond the runs' spread{}{}; the "
          "candidates' sources stay in {}",
          selection.result == SelectionResult::Slower ? ", the best of them slower" : "", measuredText,
          candidatesFolder(outDir));
    }
    Plan kept = keepEveryStruct(*analysisPlan, selection.message);
    if (llvm::Error err = writeFileAtomically(planPath, kept.toJson().dump(1) + "\n")) return std::move(err);
  }
  nlohmann::json s = {
      {"format", kSelectionFormat},
      {"version", 1},
      {"result", resultName(selection.result)},
      {"applied", selection.applied.empty() ? nlohmann::json(nullptr) : nlohmann::json(selection.applied)},
      {"message", selection.message},
      {"basis", basis},
      {"original", {{"time_ms", originalMs}}},
      {"candidates", rows}};
  if (llvm::Error err = writeFileAtomically(join(outDir, "selection.json"), s.dump(1) + "\n")) return std::move(err);
  if (llvm::Error err = writeFileAtomically(join(outDir, "selection.md"), selectionMarkdown(s))) return std::move(err);
  return selection;
}

}  // namespace relayout
