// Option records and the Black-Scholes formula, shared by the kernels and the host reference.
#ifndef OPTION_TYPES_H
#define OPTION_TYPES_H

#include <math.h>

#ifdef __CUDACC__
#define OPT_FN __host__ __device__ inline
#else
#define OPT_FN inline
#endif

enum { EUROPEAN_CALL = 0, AMERICAN_PUT = 1 };

typedef struct {
  float spot;
  float strike;
  float rate;        // continuously compounded, per year
  float volatility;  // per sqrt(year)
  float expiry;      // years
  int style;         // EUROPEAN_CALL or AMERICAN_PUT
} OptionData;

typedef struct _OptionResult {
  float blackScholes;  // closed form (European exercise)
  float delta;
  float binomial;  // lattice price with the option's own exercise style
} OptionResult;

// Cumulative normal distribution, Abramowitz & Stegun 26.2.17 (|error| < 7.5e-8).
template <typename Real>
OPT_FN Real cndf(Real d) {
  const Real a1 = 0.31938153, a2 = -0.356563782, a3 = 1.781477937, a4 = -1.821255978, a5 = 1.330274429;
  const Real rsqrt2pi = 0.39894228040143267794;
  Real k = Real(1) / (Real(1) + Real(0.2316419) * fabs(d));
  Real cnd = rsqrt2pi * exp(Real(-0.5) * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  return d > 0 ? Real(1) - cnd : cnd;
}

// Black-Scholes price and delta of a European option on opt (a put for AMERICAN_PUT records).
template <typename Real>
OPT_FN void blackScholes(const OptionData& opt, Real& price, Real& delta) {
  Real s = opt.spot, x = opt.strike, r = opt.rate, v = opt.volatility, t = opt.expiry;
  Real sqrtT = sqrt(t);
  Real d1 = (log(s / x) + (r + Real(0.5) * v * v) * t) / (v * sqrtT);
  Real d2 = d1 - v * sqrtT;
  Real discountedStrike = x * exp(-r * t);
  if (opt.style == EUROPEAN_CALL) {
    price = s * cndf(d1) - discountedStrike * cndf(d2);
    delta = cndf(d1);
  } else {
    price = discountedStrike * cndf(-d2) - s * cndf(-d1);
    delta = cndf(d1) - Real(1);
  }
}

#endif
