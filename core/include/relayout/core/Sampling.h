// Undoing the runtime's sampling (applied once, by loadProfileForAnalysis in ProfileMatch.h). A profile classifies accesses in one block of every
// `block_period`, about one warp-level execution in `exec_period` and, with --sample-launches,
// only in the first launches of each kernel; it also
// records, per kernel, the blocks run and the blocks classified (units[].kernel_blocks). Scaling
// each kernel's counts by blocks run / blocks classified estimates the whole run, so kernels
// sampled differently (many launches against few) keep their true relative weights.
#pragma once

#include "relayout/core/Profile.h"
#include "relayout/core/SiteMap.h"

namespace relayout {

// Scales the unit's site, per-kernel and loop counters to the whole run and sets blockPeriod and
// execPeriod to 1 (the counts no longer need the periods applied). A site in a kernel scales by that kernel's
// factor, a site in a helper row by row with each calling kernel's factor (the unknown caller's row
// by block_period), a loop by its function's factor. A unit without kernel_blocks (profiles
// written before them) is left unchanged.
void scaleToWholeRun(UnitProfile& unit, const SiteMap& map);

// Why the unit's sampling record cannot be scaled, or "": a kernel that ran blocks but classified
// none (kernel_blocks' classified 0) while its own sites have counts (a classified block wrote
// them, so the record is wrong; scaling by 1 instead would silently change the decision).
std::string samplingProblem(const UnitProfile& unit, const SiteMap& map);

// The same for every unit of the profile that one of the site maps describes (by source hash).
void scaleToWholeRun(Profile& profile, const std::vector<const SiteMap*>& maps);

}  // namespace relayout
