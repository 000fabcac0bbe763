// CPU version of the MD step (same cell list, same arithmetic in float) for the self-check.
#pragma once
#include <vector>

#include "lj.h"

void referenceForces(std::vector<Atom>& atoms, const Box& box, const MixtureTable& mix, std::vector<float>& potential);
void referenceStep(std::vector<Atom>& atoms, const Box& box, const MixtureTable& mix, float dt,
                   std::vector<float>& potential, std::vector<float>& kinetic);
