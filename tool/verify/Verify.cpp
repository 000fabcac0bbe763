#include "verify/Verify.h"

#include "relayout/formats/CopyKernels.h"

#include <fmt/format.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Regex.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace relayout::verify {

namespace {

bool isWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)); }
bool isSpace(char c) { return std::isspace(static_cast<unsigned char>(c)); }

// The length of the number that starts at word[at], or 0.
size_t numberLength(std::string_view word, size_t at) {
  size_t i = at;
  if (i < word.size() && (word[i] == '+' || word[i] == '-')) ++i;
  for (std::string_view special : {"infinity", "inf", "nan"}) {
    std::string_view rest = word.substr(i, special.size());
    bool same = rest.size() == special.size() &&
                std::equal(rest.begin(), rest.end(), special.begin(),
                           [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
    size_t end = i + special.size();
    if (same && (end == word.size() || !isWordChar(word[end]))) return end - at;
  }
  size_t digits = 0;
  while (i < word.size() && isDigit(word[i])) ++i, ++digits;
  if (i < word.size() && word[i] == '.') {
    size_t j = i + 1;
    while (j < word.size() && isDigit(word[j])) ++j, ++digits;
    if (digits > 0) i = j;
  }
  if (digits == 0) return 0;
  if (i < word.size() && (word[i] == 'e' || word[i] == 'E')) {
    size_t j = i + 1;
    if (j < word.size() && (word[j] == '+' || word[j] == '-')) ++j;
    if (j < word.size() && isDigit(word[j])) {
      while (j < word.size() && isDigit(word[j])) ++j;
      i = j;
    }
  }
  return i - at;
}

struct Line {
  size_t number;  // 1-based, in the whole output
  std::string_view text;
};

// The lines of `text` that no --ignore-lines expression matches; a final newline ends the last line.
std::vector<Line> keptLines(std::string_view text, std::vector<llvm::Regex>& ignore) {
  std::vector<Line> lines;
  size_t number = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    ++number;
    bool ignored = std::any_of(ignore.begin(), ignore.end(),
                               [&](llvm::Regex& re) { return re.match(llvm::StringRef(line.data(), line.size())); });
    if (!ignored) lines.push_back({number, line});
    start = end + 1;
  }
  return lines;
}

std::string inQuotes(std::string_view text) { return "\"" + std::string(text) + "\""; }

// Where two lines that differ byte for byte differ only in their numbers: the largest difference,
// absolute and relative to the original's value; none where words differ too.
struct NumbersApart {
  double absolute = 0, relative = 0;
};
std::optional<NumbersApart> onlyNumbersDiffer(std::string_view expected, std::string_view actual) {
  std::vector<Token> a = tokenize(expected), b = tokenize(actual);
  if (a.size() != b.size()) return std::nullopt;
  NumbersApart apart;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].number != b[i].number || (!a[i].number && a[i].text != b[i].text)) return std::nullopt;
    if (!a[i].number || a[i].value == b[i].value) continue;
    const double by = std::fabs(a[i].value - b[i].value);
    apart.absolute = std::max(apart.absolute, by);
    apart.relative = std::max(apart.relative, by / std::max(std::fabs(a[i].value), 1e-300));
  }
  return apart;
}

// What differs between two lines, or "" when they are equal under the tolerance.
std::string lineDifference(std::string_view expected, std::string_view actual, const Tolerance& tolerance) {
  if (!tolerance.numeric) {
    if (expected == actual) return "";
    size_t column = 0;
    while (column < expected.size() && column < actual.size() && expected[column] == actual[column]) ++column;
    std::string detail = fmt::format("the lines differ from column {}", column + 1);
    // A rewrite may round differently where the program prints its own error: nvcc contracts a
    // product and a sum into one fma by the shape of the code around them.
    if (std::optional<NumbersApart> apart = onlyNumbersDiffer(expected, actual)) {
      if (apart->absolute == 0) detail += " (the same numbers, written differently: --atol 0 compares them as numbers)";
      else
        detail += fmt::format(
            " (only numbers, by at most {:.2g}, {:.2g} of the original's value: where the program "
            "allows that, --atol or --rtol compare within it; nvcc contracts a product and a sum "
            "into one fma by the shape of the code, so a rewrite may round differently)",
            apart->absolute, apart->relative);
    }
    return detail;
  }
  std::vector<Token> a = tokenize(expected), b = tokenize(actual);
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    if (i >= a.size()) return fmt::format("the rewritten program's line goes on: {}", inQuotes(b[i].text));
    if (i >= b.size()) return fmt::format("the rewritten program's line stops before {}", inQuotes(a[i].text));
    if (a[i].number && b[i].number) {
      if (!numbersClose(a[i].value, b[i].value, tolerance))
        return fmt::format("{} and {} differ by {:g}, more than atol + rtol * |{}| = {:g}", a[i].text, b[i].text,
                           std::fabs(a[i].value - b[i].value), a[i].text,
                           tolerance.atol + tolerance.rtol * std::fabs(a[i].value));
    } else if (a[i].number != b[i].number || a[i].text != b[i].text) {
      return fmt::format("{} and {} differ", inQuotes(a[i].text), inQuotes(b[i].text));
    }
  }
  return "";
}

}  // namespace

std::vector<Token> tokenize(std::string_view line) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < line.size()) {
    if (isSpace(line[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < line.size() && !isSpace(line[end])) ++end;
    std::string_view word = line.substr(i, end - i);
    std::string text;
    for (size_t at = 0; at < word.size();) {
      bool canStart = at == 0 || !(isWordChar(word[at - 1]) || word[at - 1] == '.');
      size_t length = canStart ? numberLength(word, at) : 0;
      if (length == 0) {
        text += word[at++];
        continue;
      }
      if (!text.empty()) tokens.push_back({std::move(text), false, 0}), text.clear();
      std::string number(word.substr(at, length));
      tokens.push_back({number, true, std::strtod(number.c_str(), nullptr)});
      at += length;
    }
    if (!text.empty()) tokens.push_back({std::move(text), false, 0});
    i = end;
  }
  return tokens;
}

bool numbersClose(double expected, double actual, const Tolerance& tolerance) {
  if (std::isnan(expected) || std::isnan(actual)) return std::isnan(expected) && std::isnan(actual);
  if (std::isinf(expected) || std::isinf(actual)) return expected == actual;
  return std::fabs(actual - expected) <= tolerance.atol + tolerance.rtol * std::fabs(expected);
}

std::optional<Difference> compareOutputs(std::string_view expected, std::string_view actual, const Tolerance& tolerance,
                                         const std::string& output) {
  if (expected == actual) return std::nullopt;
  std::vector<llvm::Regex> ignore;
  for (const std::string& pattern : tolerance.ignoreLines) ignore.emplace_back(llvm::StringRef(pattern));
  std::vector<Line> a = keptLines(expected, ignore), b = keptLines(actual, ignore);
  Difference difference;
  difference.output = output;
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    difference.originalLine = i < a.size() ? a[i].number : (a.empty() ? 0 : a.back().number) + 1;
    difference.rewrittenLine = i < b.size() ? b[i].number : (b.empty() ? 0 : b.back().number) + 1;
    difference.original = i < a.size() ? std::string(a[i].text) : "";
    difference.rewritten = i < b.size() ? std::string(b[i].text) : "";
    if (i >= a.size() || i >= b.size()) {
      difference.detail =
          fmt::format("the {} program's output ends here ({} lines compared), the {}'s goes on",
                      i >= a.size() ? "original" : "rewritten", i, i >= a.size() ? "rewritten" : "original");
      return difference;
    }
    difference.detail = lineDifference(a[i].text, b[i].text, tolerance);
    if (!difference.detail.empty()) return difference;
  }
  // The kept lines are equal: only ignored lines differ, or (byte for byte) the final newline.
  bool newlineA = !expected.empty() && expected.back() == '\n', newlineB = !actual.empty() && actual.back() == '\n';
  if (tolerance.numeric || newlineA == newlineB) return std::nullopt;
  difference.detail = fmt::format("only the final newline differs: the {} program's output has one",
                                  newlineA ? "original" : "rewritten");
  return difference;
}

PairVerdict judgePair(const RecordedRun& original, const RecordedRun& rewritten,
                      const std::vector<std::string>& compared, const Tolerance& tolerance) {
  auto failed = [](const RecordedRun& run, const char* which) {
    return fmt::format("the {} program {}", which,
                       run.failure.empty() ? fmt::format("exited with status {}", run.exitCode) : run.failure);
  };
  if (original.exitCode != 0 || !original.failure.empty())
    return {Verdict::OriginalFailed, std::nullopt, failed(original, "original")};
  if (rewritten.exitCode != 0 || !rewritten.failure.empty())
    return {Verdict::Mismatch, std::nullopt, failed(rewritten, "rewritten") + " (the original exited with 0)"};
  for (const std::string& output : compared) {
    auto a = original.outputs.find(output), b = rewritten.outputs.find(output);
    if (a == original.outputs.end())
      return {Verdict::OriginalFailed, std::nullopt, "the original program did not write " + output};
    if (b == rewritten.outputs.end())
      return {Verdict::Mismatch, std::nullopt, "the rewritten program did not write " + output + " (the original did)"};
    if (auto difference = compareOutputs(a->second, b->second, tolerance, output))
      return {Verdict::Mismatch, std::move(difference), ""};
  }
  return {};
}

int exitCode(Verdict verdict) {
  switch (verdict) {
    case Verdict::Equal:
      return 0;
    case Verdict::Mismatch:
      return 3;
    case Verdict::OriginalFailed:
      return 1;
  }
  return 1;
}

std::optional<Spread> spreadOf(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  double median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  return Spread{median, values.front(), values.back()};
}

std::optional<Spread> speedupOf(const std::vector<double>& original, const std::vector<double>& rewritten) {
  std::vector<double> a, b, ratios;
  for (size_t i = 0; i < std::min(original.size(), rewritten.size()); ++i) {
    if (!(original[i] > 0) || !(rewritten[i] > 0)) continue;  // nothing was timed
    a.push_back(original[i]);
    b.push_back(rewritten[i]);
    ratios.push_back(original[i] / rewritten[i]);
  }
  if (ratios.empty()) return std::nullopt;
  auto range = spreadOf(ratios);
  return Spread{spreadOf(a)->median / spreadOf(b)->median, range->min, range->max};
}

std::optional<RunTime> parseKernelTime(std::string_view text) {
  RunTime total;
  bool any = false;
  double ns = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = std::min(text.find('\n', start), text.size());
    nlohmann::json line = nlohmann::json::parse(text.substr(start, end - start), nullptr, false);
    start = end + 1;
    if (!line.is_object() || !line.contains("kernel_ns") || !line["kernel_ns"].is_number_unsigned() ||
        !line.contains("kernels") || !line["kernels"].is_number_unsigned())
      continue;
    ns += line["kernel_ns"].get<double>();
    total.kernels += line["kernels"].get<uint64_t>();
    any = true;
    // The kernels a rewrite's copies launch to place fields in the new layout (relayoutScatter...
    // and relayoutGather..., LayoutEmitter.cpp) are not the program's: the whole run's wall time
    // answers for them, as it does for copies staged on the host.
    if (line.contains("by_kernel") && line["by_kernel"].is_object())
      for (const auto& [name, one] : line["by_kernel"].items())
        if (isLayoutCopyKernel(name) && one.is_object() && one.contains("ns") && one["ns"].is_number_unsigned() &&
            one.contains("launches") && one["launches"].is_number_unsigned()) {
          ns -= one["ns"].get<double>();
          total.kernels -= std::min(total.kernels, one["launches"].get<uint64_t>());
        }
  }
  if (!any) return std::nullopt;
  total.kernelMs = ns / 1e6;
  return total;
}

namespace {

// Per run pair K, the values both programs have.
struct Paired {
  std::vector<double> original, candidate;
};
Paired pairedTimes(const std::vector<RunTime>& original, const std::vector<RunTime>& candidate, bool kernel) {
  Paired paired;
  for (size_t i = 0; i < std::min(original.size(), candidate.size()); ++i) {
    const RunTime &a = original[i], &b = candidate[i];
    if (kernel && !(a.kernelMs && b.kernelMs)) continue;
    paired.original.push_back(kernel ? *a.kernelMs : a.wallMs);
    paired.candidate.push_back(kernel ? *b.kernelMs : b.wallMs);
  }
  return paired;
}

// Whether every run pair measured kernel times on both sides.
bool kernelsTimed(const std::vector<RunTime>& original, const std::vector<RunTime>& candidate) {
  const size_t n = std::min(original.size(), candidate.size());
  for (size_t i = 0; i < n; ++i)
    if (!original[i].kernelMs || !candidate[i].kernelMs) return false;
  return n > 0;
}

std::optional<Spread> programSpread(const std::vector<RunTime>& runs, bool kernel) {
  std::vector<double> values;
  for (const RunTime& run : runs)
    if (!kernel) values.push_back(run.wallMs);
    else if (run.kernelMs) values.push_back(*run.kernelMs);
  return spreadOf(values);
}

// (max - min) / median of some times; 0 for fewer than two.
double relativeSpread(const std::vector<double>& values) {
  std::optional<Spread> s = spreadOf(values);
  return s && s->median > 0 ? (s->max - s->min) / s->median : 0;
}

nlohmann::json spreadJson(const std::optional<Spread>& spread) {
  if (!spread) return nullptr;
  return {{"median", spread->median}, {"min", spread->min}, {"max", spread->max}};
}

nlohmann::json programJson(const std::vector<RunTime>& runs) {
  nlohmann::json list = nlohmann::json::array();
  for (const RunTime& run : runs)
    list.push_back({{"wall_ms", run.wallMs},
                    {"kernel_ms", run.kernelMs ? nlohmann::json(*run.kernelMs) : nlohmann::json(nullptr)},
                    {"kernels", run.kernels}});
  return {{"runs", list},
          {"wall_ms", spreadJson(programSpread(runs, false))},
          {"kernel_ms", spreadJson(programSpread(runs, true))}};
}

const char* verdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::Equal:
      return "equal";
    case Verdict::Mismatch:
      return "mismatch";
    case Verdict::OriginalFailed:
      return "original-failed";
  }
  return "?";
}

nlohmann::json differenceJson(const std::optional<Difference>& d) {
  if (!d) return nullptr;
  return {{"output", d->output},
          {"run", d->run},
          {"original_line", d->originalLine},
          {"rewritten_line", d->rewrittenLine},
          {"original", d->original},
          {"rewritten", d->rewritten},
          {"detail", d->detail}};
}

nlohmann::json speedupJson(const std::vector<RunTime>& original, const std::vector<RunTime>& candidate) {
  Paired kernel = pairedTimes(original, candidate, true), wall = pairedTimes(original, candidate, false);
  return {{"kernel", spreadJson(speedupOf(kernel.original, kernel.candidate))},
          {"wall", spreadJson(speedupOf(wall.original, wall.candidate))}};
}

std::string timeCell(const std::optional<Spread>& spread) {
  return spread ? fmt::format("{:.3f} ms", spread->median) : "not measured";
}
std::string speedupCell(const std::optional<Spread>& speedup) {
  return speedup ? fmt::format("{:.2f}x ({:.2f}-{:.2f})", speedup->median, speedup->min, speedup->max) : "-";
}

}  // namespace

const char* speedName(Speed speed) {
  switch (speed) {
    case Speed::Faster:
      return "faster";
    case Speed::Same:
      return "same";
    case Speed::Slower:
      return "slower";
    case Speed::Unmeasured:
      return "unmeasured";
  }
  return "?";
}

SpeedJudgement judgeSpeed(const std::vector<RunTime>& original, const std::vector<RunTime>& candidate) {
  SpeedJudgement j;
  j.kernel = kernelsTimed(original, candidate);
  Paired paired = pairedTimes(original, candidate, j.kernel);
  j.speedup = speedupOf(paired.original, paired.candidate);
  if (!j.speedup) return j;
  j.margin = std::max({relativeSpread(paired.original), relativeSpread(paired.candidate), kMinSpeedMargin});
  j.speed = j.speedup->median > 1 + j.margin         ? Speed::Faster
            : j.speedup->median * (1 + j.margin) < 1 ? Speed::Slower
                                                     : Speed::Same;
  if (j.speed == Speed::Same && paired.original.size() >= kMinRankedRuns) {
    const double faster = rankTestP(paired.candidate, paired.original);
    const double slower = rankTestP(paired.original, paired.candidate);
    // 1e-12: p = 1/20 is kRankLevel itself, whatever the rounding of the division.
    if (faster <= kRankLevel + 1e-12 && j.speedup->median > 1 + kMinSpeedMargin)
      j.speed = Speed::Faster, j.byRanks = true, j.rankP = faster;
    else if (slower <= kRankLevel + 1e-12 && j.speedup->median * (1 + kMinSpeedMargin) < 1)
      j.speed = Speed::Slower, j.byRanks = true, j.rankP = slower;
  }
  if (j.speed == Speed::Faster && j.kernel) {
    // Faster kernels do not make a faster program when copies into the new layout cost more.
    Paired wall = pairedTimes(original, candidate, false);
    std::optional<Spread> whole = speedupOf(wall.original, wall.candidate);
    const double wallMargin =
        std::max({relativeSpread(wall.original), relativeSpread(wall.candidate), kMinSpeedMargin});
    if (whole && whole->median * (1 + wallMargin) < 1) j.speed = Speed::Slower, j.slowerRun = whole;
  }
  return j;
}

std::string speedRuleText() {
  return fmt::format(
      "faster or slower only beyond the larger spread of the two programs' runs, or by their ranks (one-sided "
      "Mann-Whitney, p <= {:g}, {} runs or more each), and by at least {:.0f}%",
      kRankLevel, kMinRankedRuns, 100 * kMinSpeedMargin);
}

std::string byRanksText(double rankP, double margin) {
  return fmt::format("by the runs' ranks (one-sided Mann-Whitney p = {:.3f}; spread {:.1f}%)", rankP, 100 * margin);
}

double rankTestP(const std::vector<double>& first, const std::vector<double>& second) {
  const size_t m = first.size(), n = second.size();
  if (m == 0 || n == 0) return 1;
  unsigned observed = 0;
  for (double a : first)
    for (double b : second) observed += a >= b;
  // ways[j][u]: the orderings of i runs of the first and j of the second with U = u, row i at a
  // time (adding a first-group run above all j others adds j to U).
  std::vector<std::vector<double>> ways(n + 1);
  for (size_t j = 0; j <= n; ++j) ways[j].assign(m * n + 1, 0), ways[j][0] = 1;  // i = 0
  for (size_t i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> next(n + 1, std::vector<double>(m * n + 1, 0));
    next[0][0] = 1;
    for (size_t j = 1; j <= n; ++j)
      for (size_t u = 0; u <= m * n; ++u) next[j][u] = next[j - 1][u] + (u >= j ? ways[j][u - j] : 0);
    ways = std::move(next);
  }
  double atMost = 0, all = 0;
  for (size_t u = 0; u <= m * n; ++u) (u <= observed ? atMost : all) += ways[n][u];
  return atMost / (atMost + all);
}

bool undecidedCandidate(const std::vector<RunTime>& original, const CandidateRuns& candidate) {
  if (candidate.verdict != Verdict::Equal) return false;
  const SpeedJudgement j = judgeSpeed(original, candidate.runs);
  return j.speed == Speed::Same && j.speedup && j.speedup->median > 1 + kMinSpeedMargin;
}

std::optional<size_t> chooseCandidate(const Outcome& outcome) {
  if (outcome.verdict == Verdict::OriginalFailed) return std::nullopt;
  std::optional<size_t> best;
  double bestSpeedup = 0;
  for (size_t i = 0; i < outcome.candidates.size(); ++i) {
    const CandidateRuns& c = outcome.candidates[i];
    if (c.verdict != Verdict::Equal) continue;
    SpeedJudgement j = judgeSpeed(outcome.original, c.runs);
    if (j.speed == Speed::Faster && j.speedup->median > bestSpeedup) best = i, bestSpeedup = j.speedup->median;
  }
  return best;
}

std::optional<size_t> reportedCandidate(const Outcome& outcome) {
  if (outcome.candidates.empty()) return std::nullopt;
  if (std::optional<size_t> chosen = chooseCandidate(outcome)) return chosen;
  std::optional<size_t> best;
  double bestSpeedup = -1;
  for (size_t i = 0; i < outcome.candidates.size(); ++i) {
    if (outcome.candidates[i].verdict != Verdict::Equal) continue;
    SpeedJudgement j = judgeSpeed(outcome.original, outcome.candidates[i].runs);
    double s = j.speedup ? j.speedup->median : 0;
    if (!best || s > bestSpeedup) best = i, bestSpeedup = s;
  }
  return best ? best : std::optional<size_t>(0);
}

std::string renderTable(const Outcome& outcome) {
  size_t width = 12;
  for (const CandidateRuns& c : outcome.candidates) width = std::max(width, c.name.size() + 2);
  std::string out = fmt::format("{:<{}}{:>22}{:>22}{:>22}{:>22}  {}\n", "", width, "kernel time (median)",
                                "wall time (median)", "kernel speed-up", "wall speed-up", "outputs, speed");
  out += fmt::format("{:<{}}{:>22}{:>22}\n", "original", width, timeCell(programSpread(outcome.original, true)),
                     timeCell(programSpread(outcome.original, false)));
  size_t pairs = 0;
  for (const CandidateRuns& c : outcome.candidates) {
    Paired kernel = pairedTimes(outcome.original, c.runs, true), wall = pairedTimes(outcome.original, c.runs, false);
    SpeedJudgement j = judgeSpeed(outcome.original, c.runs);
    std::string verdict = c.verdict == Verdict::Equal ? "equal" : "differ";
    if (c.verdict == Verdict::Equal && j.speed != Speed::Unmeasured)
      verdict += j.slowerRun
                     ? fmt::format(", slower (whole run, though faster kernels)")
                     : fmt::format(", {} ({} time, margin {:.1f}%{})", speedName(j.speed), j.kernel ? "kernel" : "wall",
                                   100 * j.margin, j.byRanks ? ", " + byRanksText(j.rankP, j.margin) : "");
    out +=
        fmt::format("{:<{}}{:>22}{:>22}{:>22}{:>22}  {}\n", c.name, width, timeCell(programSpread(c.runs, true)),
                    timeCell(programSpread(c.runs, false)), speedupCell(speedupOf(kernel.original, kernel.candidate)),
                    speedupCell(speedupOf(wall.original, wall.candidate)), verdict);
    pairs = std::max(pairs, std::min(outcome.original.size(), c.runs.size()));
  }
  out += fmt::format(
      "({} of {} runs of each, interleaved; speed-up = original / candidate, median (range over run pairs); {}{})\n",
      pairs, outcome.repeat + outcome.extraRounds, speedRuleText(),
      outcome.extraRounds
          ? fmt::format("; {} rounds past --repeat {} for undecided candidates", outcome.extraRounds, outcome.repeat)
          : std::string());
  return out;
}

std::string renderDifference(const Difference& d) {
  std::string where =
      d.originalLine == d.rewrittenLine
          ? fmt::format("line {}", d.originalLine)
          : fmt::format("line {} of the original's, line {} of the rewritten's", d.originalLine, d.rewrittenLine);
  return fmt::format("{}, {}{}: {}\n  original:  {}\n  rewritten: {}\n", d.output, where,
                     d.run ? fmt::format(" (run {})", d.run) : "", d.detail, d.original, d.rewritten);
}

nlohmann::json renderJson(const Outcome& outcome, const Tolerance& tolerance, const std::vector<std::string>& compared,
                          const std::vector<std::string>& runArgs, const std::string& result) {
  const std::optional<size_t> chosen = chooseCandidate(outcome), reported = reportedCandidate(outcome);
  nlohmann::json candidates = nlohmann::json::array();
  for (const CandidateRuns& c : outcome.candidates) {
    SpeedJudgement j = judgeSpeed(outcome.original, c.runs);
    nlohmann::json one = programJson(c.runs);
    one["name"] = c.name;
    one["program"] = c.program;
    one["verdict"] = verdictName(c.verdict);
    one["why"] = c.why.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.why);
    one["difference"] = differenceJson(c.difference);
    one["speedup"] = speedupJson(outcome.original, c.runs);
    one["speed"] = c.verdict == Verdict::Equal ? nlohmann::json(speedName(j.speed)) : nlohmann::json(nullptr);
    one["by_ranks"] = j.byRanks;
    one["rank_p"] = j.byRanks ? nlohmann::json(j.rankP) : nlohmann::json(nullptr);
    one["speed_basis"] = !j.speedup    ? nlohmann::json(nullptr)
                         : j.slowerRun ? nlohmann::json("wall")
                                       : nlohmann::json(j.kernel ? "kernel" : "wall");
    one["margin"] = j.speedup ? nlohmann::json(j.margin) : nlohmann::json(nullptr);
    candidates.push_back(std::move(one));
  }
  // The fields of version 1's single rewrite describe the candidate the verdict speaks of.
  static const std::vector<RunTime> none;
  const CandidateRuns* r = reported ? &outcome.candidates[*reported] : nullptr;
  const std::optional<Difference>& difference =
      r && r->verdict == Verdict::Mismatch ? r->difference : std::optional<Difference>();
  std::string why = outcome.why;
  if (why.empty() && r && r->verdict == Verdict::Mismatch) why = r->why;
  return {{"format", "relayout-verify"},
          {"version", 1},
          {"verdict", verdictName(outcome.verdict)},
          {"result", result},
          {"why", why.empty() ? nlohmann::json(nullptr) : nlohmann::json(why)},
          {"difference", differenceJson(difference)},
          {"original_unsteady",
           outcome.originalUnsteady ? nlohmann::json(*outcome.originalUnsteady) : nlohmann::json(nullptr)},
          {"compared", compared},
          {"run_args", runArgs},
          {"tolerance",
           {{"numeric", tolerance.numeric},
            {"rtol", tolerance.rtol},
            {"atol", tolerance.atol},
            {"ignore_lines", tolerance.ignoreLines}}},
          {"repeat", outcome.repeat},
          {"extra_rounds", outcome.extraRounds},
          {"original", programJson(outcome.original)},
          {"rewritten", programJson(r ? r->runs : none)},
          {"speedup", speedupJson(outcome.original, r ? r->runs : none)},
          {"speed", r && r->verdict == Verdict::Equal ? speedName(judgeSpeed(outcome.original, r->runs).speed)
                                                      : nlohmann::json(nullptr)},
          {"reported", r ? nlohmann::json(r->name) : nlohmann::json(nullptr)},
          {"chosen", chosen ? nlohmann::json(outcome.candidates[*chosen].name) : nlohmann::json(nullptr)},
          {"min_margin", kMinSpeedMargin},
          {"candidates", candidates}};
}

}  // namespace relayout::verify
