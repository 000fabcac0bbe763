// optimize --verify's judgement on recorded outputs (tool/verify/Verify.h): comparison byte for byte and
// within a tolerance, the first difference, the timing statistics and the verdict's exit status.
#include "verify/Verify.h"
#include "verify/VerifyPrograms.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace relayout::verify {
namespace {

Tolerance within(double rtol, double atol) {
  Tolerance tolerance;
  tolerance.rtol = rtol;
  tolerance.atol = atol;
  tolerance.numeric = true;
  return tolerance;
}

RecordedRun ran(std::string out, int exitCode = 0) {
  RecordedRun run;
  run.exitCode = exitCode;
  run.outputs["standard output"] = std::move(out);
  return run;
}

const std::vector<std::string> kStdout = {"standard output"};

TEST(VerifyCompareTest, ByteForByteEqualOutputsAreEqual) {
  EXPECT_FALSE(compareOutputs("a 1\nb 2\n", "a 1\nb 2\n", Tolerance{}, "standard output"));
  EXPECT_FALSE(compareOutputs("", "", Tolerance{}, "standard output"));
}

TEST(VerifyCompareTest, ByteForByteANumberWrittenDifferentlyDiffers) {
  // Without --rtol/--atol, 1.0 and 1.00 are different text even though they are the same number.
  auto d = compareOutputs("x 1.0\n", "x 1.00\n", Tolerance{}, "standard output");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->originalLine, 1u);
  EXPECT_EQ(d->detail,
            "the lines differ from column 6 (the same numbers, written differently: --atol 0 compares "
            "them as numbers)");
  EXPECT_FALSE(compareOutputs("x 1.0\n", "x 1.00\n", within(0, 0), "standard output"));
}

TEST(VerifyCompareTest, ByteForByteLinesThatDifferOnlyInNumbersSaySoAndByHowMuch) {
  // A program printing its own error: a rewrite that rounds once differently moves it.
  auto d = compareOutputs("largest difference from the CPU 7.418e-07\n", "largest difference from the CPU 7.600e-07\n",
                          Tolerance{}, "standard output");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->detail,
            "the lines differ from column 35 (only numbers, by at most 1.8e-08, 0.025 of the original's "
            "value: where the program allows that, --atol or --rtol compare within it; nvcc contracts a "
            "product and a sum into one fma by the shape of the code, so a rewrite may round differently)");
  // Words that differ: no such note.
  d = compareOutputs("CHECK PASSED 1\n", "CHECK FAILED 1\n", Tolerance{}, "standard output");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->detail, "the lines differ from column 7");
}

TEST(VerifyCompareTest, TheFirstDifferingLineIsReportedWithBothTexts) {
  auto d = compareOutputs("same\nsum 10\nmax 3\nend\n", "same\nsum 10\nmax 4\nend 2\n", Tolerance{}, "out.txt");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->output, "out.txt");
  EXPECT_EQ(d->originalLine, 3u);
  EXPECT_EQ(d->rewrittenLine, 3u);
  EXPECT_EQ(d->original, "max 3");
  EXPECT_EQ(d->rewritten, "max 4");
  d->run = 2;
  EXPECT_EQ(renderDifference(*d),
            "out.txt, line 3 (run 2): the lines differ from column 5 (only numbers, by at most 1, 0.33 of the "
            "original's value: where the program allows that, --atol or --rtol compare within it; nvcc contracts a "
            "product and a sum into one fma by the shape of the code, so a rewrite may round differently)\n"
            "  original:  max 3\n  rewritten: max 4\n");
}

TEST(VerifyCompareTest, RelativeToleranceScalesWithTheOriginalsValue) {
  Tolerance rtol = within(1e-3, 0);
  EXPECT_FALSE(compareOutputs("e = 1000.0\n", "e = 1000.9\n", rtol, "o"));  // 0.9 <= 1e-3 * 1000
  EXPECT_TRUE(compareOutputs("e = 1000.0\n", "e = 1001.1\n", rtol, "o"));   // 1.1 > 1
  EXPECT_FALSE(compareOutputs("e = 1000.0\n", "e = 999.1\n", rtol, "o"));   // below, too
  EXPECT_TRUE(compareOutputs("e = 1000.0\n", "e = 998.9\n", rtol, "o"));
  // |actual - expected| <= rtol * |expected|: the original's value is the reference, so it is not symmetric.
  EXPECT_FALSE(numbersClose(100, 110, within(0.095, 0)));  // 10 > 9.5
  EXPECT_TRUE(numbersClose(110, 100, within(0.095, 0)));   // 10 <= 10.45
}

TEST(VerifyCompareTest, AbsoluteToleranceHelpsNearZero) {
  EXPECT_TRUE(compareOutputs("err 0\n", "err 3e-9\n", within(1e-6, 0), "o"));
  EXPECT_FALSE(compareOutputs("err 0\n", "err 3e-9\n", within(1e-6, 1e-8), "o"));
  EXPECT_FALSE(compareOutputs("err 0\n", "err -3e-9\n", within(0, 1e-8), "o"));
  auto d = compareOutputs("err 0\n", "err -3e-8\n", within(0, 1e-8), "o");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->detail, "0 and -3e-8 differ by 3e-08, more than atol + rtol * |0| = 1e-08");
}

TEST(VerifyCompareTest, NanEqualsOnlyNanAndInfinityOnlyTheSameInfinity) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  Tolerance loose = within(1e9, 1e9);
  EXPECT_TRUE(numbersClose(nan, -nan, loose));
  EXPECT_FALSE(numbersClose(nan, 0, loose));
  EXPECT_FALSE(numbersClose(0, nan, loose));
  EXPECT_TRUE(numbersClose(inf, inf, loose));
  EXPECT_FALSE(numbersClose(inf, -inf, loose));
  EXPECT_FALSE(numbersClose(inf, 1e300, loose));
  EXPECT_FALSE(numbersClose(1e300, inf, loose));
  // As printed by printf: nan, -nan, inf, -inf, any case.
  EXPECT_FALSE(compareOutputs("r nan x -inf\n", "r -nan x -INF\n", within(0, 0), "o"));
  EXPECT_TRUE(compareOutputs("r nan\n", "r 0\n", loose, "o"));
  EXPECT_TRUE(compareOutputs("r inf\n", "r -inf\n", loose, "o"));
}

TEST(VerifyCompareTest, NumbersAreFoundInsideWordsButNotInsideNames) {
  std::vector<Token> tokens = tokenize("kernel_ms=1.5e3; sm_90 x2 (12ms) -4 info v1.2");
  std::vector<std::string> texts;
  std::vector<bool> numbers;
  for (const Token& t : tokens) texts.push_back(t.text), numbers.push_back(t.number);
  EXPECT_EQ(texts, (std::vector<std::string>{"kernel_ms=", "1.5e3", ";", "sm_90", "x2", "(", "12", "ms)", "-4", "info",
                                             "v1.2"}));
  EXPECT_EQ(numbers, (std::vector<bool>{false, true, false, false, false, false, true, false, true, false, false}));
  EXPECT_DOUBLE_EQ(tokens[1].value, 1500);
  // sm_90 is a name: sm_91 differs however loose the tolerance.
  EXPECT_TRUE(compareOutputs("arch sm_90\n", "arch sm_91\n", within(1, 1), "o"));
}

TEST(VerifyCompareTest, NonNumericTokensMustBeEqual) {
  auto d = compareOutputs("check: PASS (err 1e-7)\n", "check: FAIL (err 1e-7)\n", within(0.5, 0), "o");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->detail, "\"PASS\" and \"FAIL\" differ");
  auto shorter = compareOutputs("a b c\n", "a b\n", within(0.5, 0), "o");
  ASSERT_TRUE(shorter);
  EXPECT_EQ(shorter->detail, "the rewritten program's line stops before \"c\"");
  // Whitespace only separates tokens in numeric mode.
  EXPECT_FALSE(compareOutputs("a  1.0\tb\n", "a 1 b", within(0, 0), "o"));
}

TEST(VerifyCompareTest, DifferentLineCountsDiffer) {
  auto more = compareOutputs("a\nb\n", "a\nb\nc\n", Tolerance{}, "standard output");
  ASSERT_TRUE(more);
  EXPECT_EQ(more->originalLine, 3u);
  EXPECT_EQ(more->rewrittenLine, 3u);
  EXPECT_EQ(more->original, "");
  EXPECT_EQ(more->rewritten, "c");
  EXPECT_EQ(more->detail, "the original program's output ends here (2 lines compared), the rewritten's goes on");
  auto fewer = compareOutputs("1\n2\n3\n", "1\n2\n", within(1, 1), "o");
  ASSERT_TRUE(fewer);
  EXPECT_EQ(fewer->originalLine, 3u);
  EXPECT_EQ(fewer->detail, "the rewritten program's output ends here (2 lines compared), the original's goes on");
  auto newline = compareOutputs("a\n", "a", Tolerance{}, "o");
  ASSERT_TRUE(newline);
  EXPECT_EQ(newline->detail, "only the final newline differs: the original program's output has one");
}

TEST(VerifyCompareTest, IgnoredLinesLeaveBothOutputsAndLineNumbersStayTheOutputs) {
  Tolerance tolerance;
  tolerance.ignoreLines = {"^RESULT ", "took [0-9.]+ ms"};
  EXPECT_FALSE(compareOutputs("x 1\nRESULT kernel_ms=3.1\nstep took 4.5 ms\ny 2\n",
                              "x 1\nRESULT kernel_ms=2.9\nstep took 3.0 ms\ny 2\n", tolerance, "o"));
  auto d = compareOutputs("RESULT a\nx 1\ny 2\n", "x 1\ny 3\n", tolerance, "o");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->originalLine, 3u);
  EXPECT_EQ(d->rewrittenLine, 2u);
  EXPECT_EQ(renderDifference(*d).substr(0, 50), "o, line 3 of the original's, line 2 of the rewritt");
}

TEST(VerifyJudgeTest, AVerdictPerPairOfRuns) {
  EXPECT_EQ(judgePair(ran("a 1\n"), ran("a 1\n"), kStdout, Tolerance{}).verdict, Verdict::Equal);
  PairVerdict mismatch = judgePair(ran("a 1\n"), ran("a 2\n"), kStdout, Tolerance{});
  EXPECT_EQ(mismatch.verdict, Verdict::Mismatch);
  ASSERT_TRUE(mismatch.difference);
  EXPECT_EQ(mismatch.difference->output, "standard output");

  PairVerdict originalFailed = judgePair(ran("", 2), ran("a 1\n"), kStdout, Tolerance{});
  EXPECT_EQ(originalFailed.verdict, Verdict::OriginalFailed);
  EXPECT_EQ(originalFailed.why, "the original program exited with status 2");
  PairVerdict rewrittenFailed = judgePair(ran("a 1\n"), ran("a 1\n", 1), kStdout, Tolerance{});
  EXPECT_EQ(rewrittenFailed.verdict, Verdict::Mismatch);
  EXPECT_EQ(rewrittenFailed.why, "the rewritten program exited with status 1 (the original exited with 0)");
  RecordedRun crashed = ran("");
  crashed.exitCode = -2;
  crashed.failure = "died: Segmentation fault";
  EXPECT_EQ(judgePair(ran("a\n"), crashed, kStdout, Tolerance{}).why,
            "the rewritten program died: Segmentation fault (the original exited with 0)");
}

TEST(VerifyJudgeTest, ComparedFilesMustBeWrittenByBothAndBeEqual) {
  const std::vector<std::string> compared = {"standard output", "out.txt"};
  RecordedRun a = ran("ok\n"), b = ran("ok\n");
  EXPECT_EQ(judgePair(a, b, compared, Tolerance{}).verdict, Verdict::OriginalFailed);  // the original wrote none
  a.outputs["out.txt"] = "1 2 3\n";
  PairVerdict missing = judgePair(a, b, compared, Tolerance{});
  EXPECT_EQ(missing.verdict, Verdict::Mismatch);
  EXPECT_EQ(missing.why, "the rewritten program did not write out.txt (the original did)");
  b.outputs["out.txt"] = "1 2 3.0000001\n";
  PairVerdict differs = judgePair(a, b, compared, Tolerance{});
  ASSERT_TRUE(differs.difference);
  EXPECT_EQ(differs.difference->output, "out.txt");
  EXPECT_EQ(judgePair(a, b, compared, within(1e-6, 0)).verdict, Verdict::Equal);
}

TEST(VerifyJudgeTest, ExitStatusOfEachVerdict) {
  EXPECT_EQ(exitCode(Verdict::Equal), 0);
  EXPECT_EQ(exitCode(Verdict::Mismatch), 3);
  EXPECT_EQ(exitCode(Verdict::OriginalFailed), 1);
}

TEST(VerifyStatsTest, MedianAndSpread) {
  EXPECT_FALSE(spreadOf({}));
  Spread odd = *spreadOf({5, 1, 3});
  EXPECT_DOUBLE_EQ(odd.median, 3);
  EXPECT_DOUBLE_EQ(odd.min, 1);
  EXPECT_DOUBLE_EQ(odd.max, 5);
  EXPECT_DOUBLE_EQ(spreadOf({4, 1, 3, 10})->median, 3.5);  // the mean of the middle two
}

TEST(VerifyStatsTest, SpeedUpIsTheRatioOfMediansWithTheRangeOfRunByRunRatios) {
  // Interleaved runs: original 10, 12, 11; rewritten 5, 4, 5.5.
  Spread s = *speedupOf({10, 12, 11}, {5, 4, 5.5});
  EXPECT_DOUBLE_EQ(s.median, 11.0 / 5.0);
  EXPECT_DOUBLE_EQ(s.min, 2.0);                             // 10/5 and 11/5.5
  EXPECT_DOUBLE_EQ(s.max, 3.0);                             // 12/4
  EXPECT_FALSE(speedupOf({1}, {0}));                        // nothing was timed
  EXPECT_DOUBLE_EQ(speedupOf({10, 10}, {5})->median, 2.0);  // only complete pairs count
}

TEST(VerifyStatsTest, KernelTimeLinesAreSummedOverProcesses) {
  auto one =
      parseKernelTime("{\"format\":\"relayout-kernel-time\",\"version\":1,\"kernel_ns\":2500000,\"kernels\":4}\n");
  ASSERT_TRUE(one && one->kernelMs);
  EXPECT_DOUBLE_EQ(*one->kernelMs, 2.5);
  EXPECT_EQ(one->kernels, 4u);
  auto two = parseKernelTime("{\"kernel_ns\":1000000,\"kernels\":1}\ngarbage\n{\"kernel_ns\":500000,\"kernels\":2}");
  ASSERT_TRUE(two && two->kernelMs);
  EXPECT_DOUBLE_EQ(*two->kernelMs, 1.5);
  EXPECT_EQ(two->kernels, 3u);
  EXPECT_FALSE(parseKernelTime(""));
  // A rewrite's own copy kernels are left out: the program's kernels are what is compared.
  auto copies = parseKernelTime(
      "{\"kernel_ns\":3000000,\"kernels\":5,\"by_kernel\":{\"_Z4stepP1P\":{\"launches\":3,\"ns\":2000000},"
      "\"_ZL30relayoutScatterParticleSoAChunk11ParticleSoAPK8Particlemm\":{\"launches\":1,\"ns\":600000},"
      "\"_ZL29relayoutGatherParticleSoAChunkP8Particle11ParticleSoAmm\":{\"launches\":1,\"ns\":400000}}}");
  ASSERT_TRUE(copies);
  EXPECT_DOUBLE_EQ(*copies->kernelMs, 2.0);
  EXPECT_EQ(copies->kernels, 3u);
  EXPECT_FALSE(parseKernelTime("{\"kernel_ns\":-1,\"kernels\":1}\n"));
}

TEST(VerifyReportTest, TableAndJsonCarryMediansAndSpeedUps) {
  Outcome outcome;
  outcome.repeat = 3;
  outcome.original = {{100, 10.0, 2}, {120, 12.0, 2}, {110, 11.0, 2}};
  CandidateRuns rewritten{"rewritten", "out/rewritten"};
  rewritten.runs = {{90, 5.0, 2}, {100, 4.0, 2}, {95, std::nullopt, 0}};
  outcome.candidates = {rewritten};
  std::string table = renderTable(outcome);
  EXPECT_NE(table.find("11.000 ms"), std::string::npos) << table;          // original kernels
  EXPECT_NE(table.find("4.500 ms"), std::string::npos) << table;           // rewritten kernels: 2 of 3 measured
  EXPECT_NE(table.find("2.44x (2.00-3.00)"), std::string::npos) << table;  // 11/4.5 over the two timed pairs
  EXPECT_NE(table.find("1.16x (1.11-1.20)"), std::string::npos) << table;  // wall 110/95
  // One run pair lacks kernel times: the speed is judged on wall times, 1.16x beyond their 20% spread? No:
  // the original's wall times spread (120 - 100) / 110 = 18%, so 1.16x is within it.
  EXPECT_NE(table.find("equal, same (wall time, margin 18.2%)"), std::string::npos) << table;
  nlohmann::json json = renderJson(outcome, within(1e-6, 0), {"standard output"}, {"-n", "4"}, "out/rewritten");
  EXPECT_EQ(json["format"], "relayout-verify");
  EXPECT_EQ(json["verdict"], "equal");
  EXPECT_EQ(json["result"], "out/rewritten");
  EXPECT_TRUE(json["difference"].is_null());
  EXPECT_EQ(json["original"]["runs"].size(), 3u);
  EXPECT_TRUE(json["rewritten"]["runs"][2]["kernel_ms"].is_null());
  EXPECT_DOUBLE_EQ(json["original"]["kernel_ms"]["median"].get<double>(), 11.0);
  EXPECT_DOUBLE_EQ(json["speedup"]["kernel"]["max"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(json["tolerance"]["rtol"].get<double>(), 1e-6);
  EXPECT_EQ(json["speed"], "same");
  EXPECT_TRUE(json["chosen"].is_null());
  EXPECT_EQ(json["candidates"].size(), 1u);
  EXPECT_EQ(json["candidates"][0]["speed_basis"], "wall");
}

// Kernel times of `ms`, one run each.
static std::vector<RunTime> kernelRuns(std::initializer_list<double> ms) {
  std::vector<RunTime> runs;
  for (double m : ms) runs.push_back({m * 1.5, m, 1});
  return runs;
}

TEST(VerifySpeedTest, FasterOrSlowerOnlyBeyondTheRunsSpread) {
  // The original's kernel times spread 2% (99-101): a candidate must gain more than that.
  const std::vector<RunTime> original = kernelRuns({100, 99, 101, 100, 100});
  SpeedJudgement faster = judgeSpeed(original, kernelRuns({90, 90.5, 89.5, 90, 90}));
  EXPECT_EQ(faster.speed, Speed::Faster);
  EXPECT_TRUE(faster.kernel);
  EXPECT_NEAR(faster.margin, 0.02, 1e-9);
  EXPECT_NEAR(faster.speedup->median, 100.0 / 90.0, 1e-9);
  // 1.5% < 2%, and two runs among the original's: the ranks do not tell it either (U = 5, p 0.075).
  EXPECT_EQ(judgeSpeed(original, kernelRuns({98.5, 99.5, 100.5, 98.5, 98.5})).speed, Speed::Same);
  // 1.5% < 2%, but each run faster than each of the original's: decided by the ranks (below).
  EXPECT_TRUE(judgeSpeed(original, kernelRuns({98.5, 98.6, 98.4, 98.5, 98.5})).byRanks);
  EXPECT_EQ(judgeSpeed(original, kernelRuns({112, 111, 113, 112, 112})).speed, Speed::Slower);
  // A candidate whose own runs spread widely is not called faster on a lucky median.
  EXPECT_EQ(judgeSpeed(original, kernelRuns({90, 70, 110, 90, 90})).speed, Speed::Same);
  // Steady runs still need 1%: 0.5% is no gain worth a rewrite.
  EXPECT_EQ(judgeSpeed(kernelRuns({100, 100, 100}), kernelRuns({99.5, 99.5, 99.5})).speed, Speed::Same);
  EXPECT_NEAR(judgeSpeed(kernelRuns({100, 100, 100}), kernelRuns({99.5, 99.5, 99.5})).margin, kMinSpeedMargin, 1e-12);
  EXPECT_EQ(judgeSpeed(original, {}).speed, Speed::Unmeasured);
}

TEST(VerifySpeedTest, RankTestIsTheExactMannWhitneyTail) {
  // Three runs each, all of the first shorter: one way in C(6, 3) = 20.
  EXPECT_NEAR(rankTestP({1, 2, 3}, {4, 5, 6}), 1.0 / 20, 1e-12);
  EXPECT_NEAR(rankTestP({4, 5, 6}, {1, 2, 3}), 1.0, 1e-12);
  // Five each: U = 1 (one pair the other way) in 2 of C(10, 5) = 252 ways at most; U <= 4 in 12.
  EXPECT_NEAR(rankTestP({1, 2, 3, 4, 6}, {5, 7, 8, 9, 10}), 2.0 / 252, 1e-12);
  EXPECT_NEAR(rankTestP({1, 2, 3, 4, 9}, {5, 6, 7, 8, 10}), 12.0 / 252, 1e-12);  // U = 4: p 0.048
  // A tie counts against the first.
  EXPECT_NEAR(rankTestP({1, 2, 4}, {4, 5, 6}), 2.0 / 20, 1e-12);
  // Unequal sizes: 2 and 3, all apart, 1 of C(5, 2) = 10.
  EXPECT_NEAR(rankTestP({1, 2}, {3, 4, 5}), 0.1, 1e-12);
  EXPECT_EQ(rankTestP({}, {1, 2}), 1.0);
}

TEST(VerifySpeedTest, RanksDecideWithThreeRunsOrMore) {
  // epidemic's aligned record on an H200: each run faster than each of the original's, whose one
  // stray run (4.12 ms) widened its spread to 12%, past the 9% median gain.
  const std::vector<RunTime> original = kernelRuns({3.804, 4.124, 3.664});
  SpeedJudgement apart = judgeSpeed(original, kernelRuns({3.591, 3.408, 3.490}));
  EXPECT_EQ(apart.speed, Speed::Faster);
  EXPECT_TRUE(apart.byRanks);
  EXPECT_NEAR(apart.rankP, 0.05, 1e-12);
  EXPECT_GT(apart.margin, apart.speedup->median - 1);  // the spread alone would not have told it
  // One candidate run inside the original's range: undecided, and more runs may tell.
  CandidateRuns overlap{"aligned", "aligned"};
  overlap.runs = kernelRuns({3.591, 3.408, 3.700});
  EXPECT_EQ(judgeSpeed(original, overlap.runs).speed, Speed::Same);
  EXPECT_FALSE(judgeSpeed(original, overlap.runs).byRanks);
  EXPECT_TRUE(undecidedCandidate(original, overlap));
  // Two more runs each, both faster: U = 1 of 25, p = 2/252.
  std::vector<RunTime> longer = original;
  for (RunTime r : kernelRuns({3.8, 3.75})) longer.push_back(r);
  for (RunTime r : kernelRuns({3.45, 3.5})) overlap.runs.push_back(r);
  SpeedJudgement decided = judgeSpeed(longer, overlap.runs);
  EXPECT_EQ(decided.speed, Speed::Faster);
  EXPECT_NEAR(decided.rankP, 2.0 / 252, 1e-12);
  EXPECT_FALSE(undecidedCandidate(longer, overlap));
  // A candidate whose outputs differed, or one not 1% faster by the medians, is not run further.
  overlap.verdict = Verdict::Mismatch;
  EXPECT_FALSE(undecidedCandidate(original, overlap));
  CandidateRuns even{"soa", "soa"};
  even.runs = kernelRuns({3.80, 3.81, 3.79});
  EXPECT_FALSE(undecidedCandidate(original, even));
  // Two runs each are too few for the ranks: apart by chance one round in six.
  EXPECT_EQ(judgeSpeed(kernelRuns({100, 112}), kernelRuns({97, 98})).speed, Speed::Same);
  // Apart but under 1%: no gain worth a rewrite.
  EXPECT_EQ(judgeSpeed(kernelRuns({100, 100.2, 101}), kernelRuns({99.3, 99.4, 99.5})).speed, Speed::Same);
  // Slower the same way: each run slower than each of the original's, one of which strayed low.
  SpeedJudgement slower = judgeSpeed(kernelRuns({100, 100, 90}), kernelRuns({104, 104, 104}));
  EXPECT_EQ(slower.speed, Speed::Slower);
  EXPECT_TRUE(slower.byRanks);
  // Decided by the spread: not marked as by ranks.
  EXPECT_FALSE(judgeSpeed(kernelRuns({100, 99, 101}), kernelRuns({90, 90, 90})).byRanks);
}

TEST(VerifySpeedTest, FasterKernelsInASlowerRunAreSlower) {
  // stencil25's SoA on an H200: kernels 1.15x faster, the whole run 0.64x (host transposition).
  auto runs = [](std::initializer_list<std::pair<double, double>> wallAndKernel) {
    std::vector<RunTime> out;
    for (auto [wall, kernel] : wallAndKernel) out.push_back({wall, kernel, 1});
    return out;
  };
  const std::vector<RunTime> original = runs({{3850, 1554}, {3860, 1553}, {3855, 1554}});
  SpeedJudgement j = judgeSpeed(original, runs({{6050, 1353}, {6040, 1352}, {6060, 1353}}));
  EXPECT_EQ(j.speed, Speed::Slower);
  EXPECT_TRUE(j.kernel);
  EXPECT_NEAR(j.speedup->median, 1554.0 / 1353.0, 1e-9);  // the kernels' speed-up, still reported
  ASSERT_TRUE(j.slowerRun.has_value());
  EXPECT_NEAR(j.slowerRun->median, 3855.0 / 6050.0, 1e-9);
  // A whole run slower only within its spread (startup noise) leaves the kernels' verdict standing.
  SpeedJudgement noisy = judgeSpeed(runs({{100, 50}, {120, 50}, {110, 50}}), runs({{115, 40}, {105, 40}, {112, 40}}));
  EXPECT_EQ(noisy.speed, Speed::Faster);
  EXPECT_FALSE(noisy.slowerRun.has_value());
}

TEST(VerifySpeedTest, TheFastestEqualCandidateIsChosenOnlyWhenFaster) {
  Outcome outcome;
  outcome.repeat = 3;
  outcome.original = kernelRuns({100, 100, 100});
  CandidateRuns soa{"soa", "soa"}, clustered{"clustered", "clustered"}, wrong{"mixed-1", "mixed-1"};
  soa.runs = kernelRuns({80, 80, 80});
  clustered.runs = kernelRuns({70, 70, 70});
  wrong.runs = kernelRuns({50});
  wrong.verdict = Verdict::Mismatch;  // fastest of all, but its outputs differ
  outcome.candidates = {soa, clustered, wrong};
  ASSERT_TRUE(chooseCandidate(outcome));
  EXPECT_EQ(*chooseCandidate(outcome), 1u);
  EXPECT_EQ(renderJson(outcome, {}, {"standard output"}, {}, "")["chosen"], "clustered");

  // None faster: nothing chosen; the verdict speaks of the fastest with equal outputs.
  outcome.candidates[0].runs = kernelRuns({103, 103, 103});
  outcome.candidates[1].runs = kernelRuns({110, 110, 110});
  EXPECT_FALSE(chooseCandidate(outcome));
  EXPECT_EQ(*reportedCandidate(outcome), 0u);
  nlohmann::json json = renderJson(outcome, {}, {"standard output"}, {}, "");
  EXPECT_TRUE(json["chosen"].is_null());
  EXPECT_EQ(json["speed"], "slower");
  EXPECT_EQ(json["reported"], "soa");
  EXPECT_EQ(json["candidates"][1]["speed"], "slower");
  EXPECT_TRUE(json["candidates"][2]["speed"].is_null());  // outputs differ: no speed

  // An original that failed decides nothing.
  outcome.verdict = Verdict::OriginalFailed;
  outcome.candidates[0].runs = kernelRuns({50, 50, 50});
  EXPECT_FALSE(chooseCandidate(outcome));
}

// The options both optimize --verify and relayout-verify take (VerifyPrograms.h).
TEST(VerifyOptions, CheckedAndRepeatedAsArguments) {
  Options options;
  EXPECT_EQ(llvm::toString(options.check()), "");
  EXPECT_FALSE(options.tolerance().numeric);
  EXPECT_TRUE(options.arguments().empty());
  EXPECT_EQ(options.compared(), (std::vector<std::string>{"standard output"}));

  options.compare = {"out.txt"};
  options.rtol = 1e-6;
  options.rtolGiven = true;
  options.repeat = 3;
  options.repeatGiven = true;
  options.ignoreLines = {"^RESULT "};
  EXPECT_EQ(llvm::toString(options.check()), "");
  EXPECT_TRUE(options.tolerance().numeric);
  EXPECT_EQ(options.compared(), (std::vector<std::string>{"standard output", "out.txt"}));
  EXPECT_EQ(options.arguments(), (std::vector<std::string>{"--compare", "out.txt", "--rtol", "1e-06", "--repeat", "3",
                                                           "--ignore-lines", "^RESULT "}));

  auto why = [](const Options& bad) { return llvm::toString(bad.check()); };
  Options bad = options;
  bad.atol = -1;
  EXPECT_EQ(why(bad), "--atol must be a number >= 0, not -1");
  bad = options;
  bad.rtol = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(why(bad), "--rtol must be a number >= 0, not nan");
  bad = options;
  bad.repeat = 0;
  EXPECT_EQ(why(bad), "--repeat must be at least 1");
  bad = options;
  bad.ignoreLines = {"("};
  EXPECT_EQ(why(bad), "--ignore-lines '(': parentheses not balanced");
  bad = options;
  bad.compare = {"stdout"};
  EXPECT_NE(why(bad).find("would be kept under the same name stdout"), std::string::npos);
  bad.compare = {"a/out.txt", "./a/out.txt"};
  EXPECT_NE(why(bad).find("--compare ./a/out.txt: another file"), std::string::npos);
}

}  // namespace
}  // namespace relayout::verify
