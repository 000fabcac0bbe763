#include "reference.h"

#include <algorithm>
#include <cmath>
#include <vector>

void referenceBlackScholes(const OptionData* options, int count, double* price, double* delta) {
  for (int i = 0; i < count; ++i) blackScholes<double>(options[i], price[i], delta[i]);
}

void referenceBinomial(const OptionData* options, int count, int steps, double* price) {
  std::vector<double> values(steps + 1);
  for (int k = 0; k < count; ++k) {
    const OptionData& opt = options[k];
    const double dt = opt.expiry / steps;
    const double up = std::exp(opt.volatility * std::sqrt(dt));
    const double growth = std::exp(opt.rate * dt);
    const double pUp = (growth - 1.0 / up) / (up - 1.0 / up);
    const bool american = opt.style == AMERICAN_PUT;
    double s = opt.spot * std::pow(up, -steps);
    for (int i = 0; i <= steps; ++i, s *= up * up)
      values[i] = american ? std::max(opt.strike - s, 0.0) : std::max(s - opt.strike, 0.0);
    for (int level = steps - 1; level >= 0; --level) {
      double node = opt.spot * std::pow(up, -level);
      for (int i = 0; i <= level; ++i, node *= up * up) {
        double hold = (pUp * values[i + 1] + (1.0 - pUp) * values[i]) / growth;
        values[i] = american ? std::max(hold, opt.strike - node) : hold;
      }
    }
    price[k] = values[0];
  }
}
