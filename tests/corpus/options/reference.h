// Host reference prices, in double precision.
#pragma once
#include "option_types.h"

void referenceBlackScholes(const OptionData* options, int count, double* price, double* delta);
void referenceBinomial(const OptionData* options, int count, int steps, double* price);
