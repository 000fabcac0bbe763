// The judgement of `relayout optimize --verify`, as pure functions on recorded runs: do the original
// and the rewritten program print (and write) the same, within a tolerance for numbers, and how do
// their times compare. VerifyRun.cpp builds and runs the programs; docs/formats.md, "Verification",
// describes verify.json.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace relayout::verify {

// How outputs compare. Without `numeric`, byte for byte. With it (--rtol/--atol given), line by
// line and token by token: numbers within atol + rtol * |original's value|, other text equal.
struct Tolerance {
  double rtol = 0;
  double atol = 0;
  bool numeric = false;
  std::vector<std::string> ignoreLines;  // regular expressions: matching lines are left out on both sides
};

// A piece of a line in numeric mode. Whitespace separates words; within a word a number starts at
// its beginning or after a character that is not a letter, digit, '_' or '.', and is a decimal
// (optional sign, digits, fraction, exponent) or nan/inf/infinity (any case, optional sign, not
// followed by a letter, digit or '_'). So `kernel_ms=1.5;` is "kernel_ms=", 1.5, ";" while `sm_90`,
// `x2` and `v1.2` stay text. What follows a number (a unit, as in `12ms`) is text of its own.
struct Token {
  std::string text;
  bool number = false;
  double value = 0;
};
std::vector<Token> tokenize(std::string_view line);

// Whether `actual` (the rewritten program's) is within the tolerance of `expected` (the
// original's): |a - e| <= atol + rtol * |e|. nan equals only nan (of either sign); an infinity
// equals only the same infinity.
bool numbersClose(double expected, double actual, const Tolerance& tolerance);

// The first place where two outputs differ.
struct Difference {
  std::string output;                          // "standard output" or the --compare file
  unsigned run = 0;                            // 1-based pair of runs, 0 when not set
  size_t originalLine = 0, rewrittenLine = 0;  // 1-based line numbers in each output
  std::string original, rewritten;             // the two lines ("" past the end)
  std::string detail;                          // what differs, in a few words
};

// Compares the rewritten program's output `actual` with the original's `expected`.
std::optional<Difference> compareOutputs(std::string_view expected, std::string_view actual, const Tolerance& tolerance,
                                         const std::string& output);

// What one run of a program left: its exit status and, by name, the outputs compared ("standard
// output", then each --compare file; an absent file is not in `outputs`).
struct RecordedRun {
  int exitCode = 0;     // -1 when it could not run or died of a signal (see `failure`)
  std::string failure;  // why it failed, when it did
  std::map<std::string, std::string> outputs;
};

enum class Verdict { Equal, Mismatch, OriginalFailed };

// The verdict on run K of each program, comparing `compared` outputs in that order.
struct PairVerdict {
  Verdict verdict = Verdict::Equal;
  std::optional<Difference> difference;  // Mismatch: what differs
  std::string why;                       // OriginalFailed, or a mismatch that is a failed run: what happened
};
PairVerdict judgePair(const RecordedRun& original, const RecordedRun& rewritten,
                      const std::vector<std::string>& compared, const Tolerance& tolerance);

// 0: equal, the rewrite stands; 3: mismatch, the rewrite is rejected; 1: the original failed.
int exitCode(Verdict verdict);

// Median (of an even count: the mean of the middle two), least and greatest of some values.
struct Spread {
  double median = 0, min = 0, max = 0;
};
std::optional<Spread> spreadOf(std::vector<double> values);

// Speed-up of the rewritten program over the original: the ratio of their medians, and the least
// and greatest ratio of run K of the original to run K of the rewritten (interleaved runs).
std::optional<Spread> speedupOf(const std::vector<double>& original, const std::vector<double>& rewritten);

// The times of one run: wall time, and the kernels' GPU time when it was measured.
struct RunTime {
  double wallMs = 0;
  std::optional<double> kernelMs;
  uint64_t kernels = 0;
};

// Sums the lines `{"kernel_ns": N, "kernels": K, ...}` of a $RELAYOUT_KERNEL_TIME file (one per
// process); nothing when it holds none that can be read.
std::optional<RunTime> parseKernelTime(std::string_view text);

// Whether a candidate runs faster than the original, beyond what the runs themselves vary.
enum class Speed { Faster, Same, Slower, Unmeasured };
const char* speedName(Speed speed);  // faster, same, slower, unmeasured

// A candidate is faster (slower) when the ratio of the medians, original over candidate, is above
// 1 + margin (below 1 - margin), where the margin is the larger spread of the two programs' own
// runs ((max - min) / median), and at least kMinSpeedMargin: a gain smaller than the runs' own
// variation is not told from noise, and one under 1% is not worth a rewrite. With at least
// kMinRankedRuns runs of each, the runs' ranks also tell it (a gain of kMinSpeedMargin still
// needed): a one-sided Mann-Whitney test of the candidate's runs against the original's at level
// kRankLevel (rankTestP) — with three runs each, the candidate's slowest run beat the original's
// fastest, which two equal programs do one round in 20. A median asked to clear the wider spread
// misses a gain of 9% in every run when one of the original's runs strays by 12% (epidemic,
// docs/results/selection-h200.md).
inline constexpr double kMinSpeedMargin = 0.01;
inline constexpr size_t kMinRankedRuns = 3;
inline constexpr double kRankLevel = 0.05;
// Rounds run past --repeat (3 or more) while a candidate is undecided (undecidedCandidate): only
// the original and those candidates run in them. Five runs each let the ranks tolerate a stray run
// of either program (U up to 4 of 25 at the 5% level).
inline constexpr unsigned kExtraRounds = 4;

// The one-sided exact Mann-Whitney p-value that the `first` runs are shorter than the `second`:
// the share of the ways to deal the pooled runs into groups of these sizes whose U (pairs with the
// first's run the longer; a tie counts as one) is at most the one observed.
double rankTestP(const std::vector<double>& first, const std::vector<double>& second);

// The rule above in words, as the table, verify's messages and selection.md state it: "faster or
// slower only beyond the larger spread ..., or by their ranks (...), and by at least 1%".
std::string speedRuleText();
// How a judgement by ranks reads: "by the runs' ranks (one-sided Mann-Whitney p = 0.048; spread 30.0%)".
std::string byRanksText(double rankP, double margin);

struct SpeedJudgement {
  Speed speed = Speed::Unmeasured;
  bool kernel = false;            // judged on kernel times (every run of both measured them), else wall times
  std::optional<Spread> speedup;  // on that basis: original / candidate
  double margin = 0;              // the relative spread the speed-up had to leave behind
  // Decided by the runs' ranks (rankTestP at kRankLevel), not by the spread; its p-value then.
  bool byRanks = false;
  double rankP = 1;
  // Kernel time faster, but the whole run slower beyond its wall times' spread (the layout's host
  // conversions cost more than its kernels saved): judged slower, as the program is as run.
  std::optional<Spread> slowerRun;  // the wall speed-up that overruled the kernels' then
};
SpeedJudgement judgeSpeed(const std::vector<RunTime>& original, const std::vector<RunTime>& candidate);

// One program run against the original: the rewritten program, or one of several candidate rewrites.
struct CandidateRuns {
  std::string name;                      // "rewritten" for a single rewrite; a candidate's name otherwise
  std::string program;                   // as given
  Verdict verdict = Verdict::Equal;      // Mismatch: an output differed, or it failed; it ran no further
  std::optional<Difference> difference;  // Mismatch: what differs
  std::string why;                       // a mismatch that is a failed run: what happened
  std::string failedStderr;              // the end of its failed run's standard error
  std::vector<RunTime> runs;             // runs done, in order
};

struct Outcome {
  // Equal: at least one candidate's outputs equal the original's; Mismatch: none does;
  // OriginalFailed: the original failed (`why`), nothing was judged.
  Verdict verdict = Verdict::Equal;
  std::string why;
  std::vector<RunTime> original;  // runs done, in order
  std::vector<CandidateRuns> candidates;
  unsigned repeat = 0;       // runs of each program asked for
  unsigned extraRounds = 0;  // rounds run past them for undecided candidates (kExtraRounds at most)
  // Where the original's own outputs differed between two of its runs ("standard output, line 4:
  // ..."), when they did: a difference from a candidate then says nothing about the rewrite.
  std::optional<std::string> originalUnsteady;
};

// Whether more runs may decide a candidate: its outputs equal so far, judged the same, though its
// median gain is above kMinSpeedMargin (the spread or too few runs held it back).
bool undecidedCandidate(const std::vector<RunTime>& original, const CandidateRuns& candidate);

// The candidate to apply: outputs equal to the original's and faster (judgeSpeed), the greatest
// median speed-up among those; none when no candidate is both.
std::optional<size_t> chooseCandidate(const Outcome& outcome);
// The candidate the verdict speaks of: the chosen one, else the fastest with equal outputs, else
// the first (none when there is no candidate).
std::optional<size_t> reportedCandidate(const Outcome& outcome);

// The short table printed after the runs: per program the medians of kernel and wall time, per
// candidate its speed-ups, outputs and speed.
std::string renderTable(const Outcome& outcome);
// The lines that say what differs (file, line numbers, both texts).
std::string renderDifference(const Difference& difference);
// verify.json (docs/formats.md, "Verification").
nlohmann::json renderJson(const Outcome& outcome, const Tolerance& tolerance, const std::vector<std::string>& compared,
                          const std::vector<std::string>& runArgs, const std::string& result);

}  // namespace relayout::verify
