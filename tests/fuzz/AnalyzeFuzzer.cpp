// libFuzzer target: the analysis on top of the readers, as `relayout analyze` runs it. The input is
// site maps, a profile and optionally a trace, separated by kPartSeparator lines (make_seeds.py
// joins them): the site maps are read, the profile matched to them (ProfileMatch.h), then paper
// mode, a forced clustered layout and, with a trace, model mode decide; each plan must read back
// and each report must render.
#include "FuzzSupport.h"

#include "relayout/analysis/Analyze.h"
#include "relayout/core/Files.h"
#include "relayout/core/ProfileMatch.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <unistd.h>

using namespace relayout;

static constexpr llvm::StringLiteral kProfilePath = "fuzz.profile.json";

// Model mode reads the trace from a file: one per fuzzing process, removed at exit.
static const std::string& tracePath() {
  static const std::string path = [] {
    std::string p = "/tmp/relayout-fuzz-" + std::to_string(::getpid()) + ".trace";
    std::atexit([] { llvm::sys::fs::remove(tracePath()); });
    return p;
  }();
  return path;
}

static void checkAnalysis(llvm::Expected<Analysis> analysis, const std::vector<SiteMapFile>& maps) {
  if (!analysis) {
    // Refusals name the profile, a site map or the trace.
    std::string message = llvm::toString(analysis.takeError());
    llvm::StringRef m(message);
    bool named = m.starts_with(kProfilePath) || m.starts_with(tracePath());
    for (const SiteMapFile& f : maps) named |= m.starts_with(f.path);
    if (!named) fuzz::broken("analysis error names no input file: " + message);
    return;
  }
  const std::string written = analysis->plan.toJson().dump(1);
  auto doc = parseJson(written, "written.plan.json");
  if (!doc) fuzz::broken("the analysis wrote a plan that is not JSON: " + llvm::toString(doc.takeError()));
  auto plan = Plan::fromJson(*doc, "written.plan.json");
  if (!plan) fuzz::broken("the analysis wrote a plan that does not read back: " + llvm::toString(plan.takeError()));
  (void)renderTerminalReport(*analysis);
  (void)renderMarkdownReport(*analysis);
  (void)renderHtmlReport(*analysis);
  (void)renderJsonReport(*analysis).dump(1);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<llvm::StringRef> parts = fuzz::splitParts(llvm::StringRef(reinterpret_cast<const char*>(data), size));
  std::optional<llvm::StringRef> traceBytes;
  if (parts.size() >= 3 && parts.back().starts_with(llvm::StringRef(kTraceMagic, sizeof kTraceMagic))) {
    traceBytes = parts.back();
    parts.pop_back();
  }
  if (parts.size() < 2) return 0;  // at least one site map and the profile

  std::vector<SiteMapFile> maps;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const std::string path = "fuzz" + std::to_string(i) + ".sites.json";
    auto doc = parseJson(parts[i], path);
    if (!doc) return fuzz::expectFileError(doc.takeError(), path), 0;
    auto map = SiteMap::fromJson(*doc, path);
    if (!map) return fuzz::expectFileError(map.takeError(), path), 0;
    maps.push_back({path, std::move(*map)});
  }
  auto doc = parseJson(parts.back(), kProfilePath);
  if (!doc) return fuzz::expectFileError(doc.takeError(), kProfilePath), 0;
  auto profile = Profile::fromJson(*doc, kProfilePath);
  if (!profile) return fuzz::expectFileError(profile.takeError(), kProfilePath), 0;

  std::vector<const SiteMap*> mapPointers;
  for (const SiteMapFile& m : maps) mapPointers.push_back(&m.map);
  auto matched = matchProfile(std::move(*profile), kProfilePath, mapPointers);
  if (!matched) return fuzz::expectFileError(matched.takeError(), kProfilePath), 0;
  const Profile& counters = matched->profile;

  AnalyzeOptions options;
  options.refusedStructs = matched->refusedStructs();
  checkAnalysis(analyzePaper(maps, counters, kProfilePath, options), maps);
  AnalyzeOptions forced = options;
  forced.forced = Layout::Clustered;
  checkAnalysis(analyzePaper(maps, counters, kProfilePath, forced), maps);
  if (traceBytes && counters.trace && matched->sameSources()) {
    {
      std::error_code ec;
      llvm::raw_fd_ostream out(tracePath(), ec);
      if (ec) fuzz::broken("cannot write " + tracePath() + ": " + ec.message());
      out << *traceBytes;
    }
    AnalyzeOptions model = options;
    model.mode = AnalyzeMode::Model;
    model.tracePath = tracePath();
    checkAnalysis(analyze(maps, counters, kProfilePath, model), maps);
  }
  if (counters.hw) (void)compareWithHardware(maps, counters, *counters.hw);
  return 0;
}
