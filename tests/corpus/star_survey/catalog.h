// A star catalogue of one survey field and the detections a night of observing produces.
// Positions are tangent-plane coordinates in arcseconds from the field centre.
#pragma once
#include <cuda_runtime.h>

enum StarFlags : unsigned { kVariable = 1u, kBinary = 2u };

struct Star {
  float xi, eta;      // position at the catalogue epoch
  float pmXi, pmEta;  // proper motion, arcsec per year
  float parallax;     // arcsec
  float mag;          // G magnitude
  float color;        // BP - RP
  unsigned flags;
};
static_assert(sizeof(Star) == 32, "one sector per star");

constexpr int kCandidates = 4;

// A source found on tonight's images and the catalogue stars near it (from the previous association).
struct Detection {
  float xi, eta;
  float mag, color;
  int candidates[kCandidates];
};

struct Match {
  int star;    // best candidate, or -1
  float chi2;  // its chi-square
};

// Where the Earth is on its orbit, as seen in the field: years since the catalogue epoch and the
// parallax factors along xi and eta.
struct Ephemeris {
  float years;
  float parallaxXi, parallaxEta;
};

// The field cut into square tiles (the night's pointing grid), row by row.
struct TileGrid {
  float origin;  // lower-left corner of the field, both axes
  float size;    // edge of a tile
  int perSide;

  __host__ __device__ int tileOf(float xi, float eta) const {
    int tx = int(floorf((xi - origin) / size)), ty = int(floorf((eta - origin) / size));
    tx = tx < 0 ? 0 : (tx >= perSide ? perSide - 1 : tx);
    ty = ty < 0 ? 0 : (ty >= perSide ? perSide - 1 : ty);
    return ty * perSide + tx;
  }
};

__host__ __device__ inline unsigned mixBits(unsigned x) {
  x ^= x >> 16;
  x *= 0x21f0aaadU;
  x ^= x >> 15;
  x *= 0x735a2d97U;
  x ^= x >> 15;
  return x;
}

// A deterministic standard-normal-ish draw (sum of four uniforms, rescaled) from a counter.
__host__ __device__ inline float noise(unsigned key) {
  float s = 0.f;
  for (unsigned k = 0; k < 4; ++k) s += float(mixBits(key * 4u + k) >> 8) * (1.f / 16777216.f);
  return (s - 2.f) * 1.7320508f;
}

// Where a star appears tonight.
__host__ __device__ inline float2 apparentPosition(const Star& s, const Ephemeris& e) {
  return make_float2(s.xi + s.pmXi * e.years + s.parallax * e.parallaxXi,
                     s.eta + s.pmEta * e.years + s.parallax * e.parallaxEta);
}

// Chi-square of a detection against a star: position, and photometry unless the star is variable.
__host__ __device__ inline float matchChi2(const Detection& d, const Star& s, const Ephemeris& e) {
  const float2 p = apparentPosition(s, e);
  const float dx = d.xi - p.x, dy = d.eta - p.y;
  float chi2 = (dx * dx + dy * dy) / (0.03f * 0.03f);
  const float dc = d.color - s.color;
  chi2 += dc * dc / (0.03f * 0.03f);
  if (!(s.flags & kVariable)) {
    const float dm = d.mag - s.mag;
    chi2 += dm * dm / (0.02f * 0.02f);
  }
  return chi2;
}

// Detection `i` of night `night`: star `star` seen with noise, its candidates the star and its
// catalogue neighbours in an order that depends on the detection.
__host__ __device__ inline Detection observe(const Star& s, int star, int n, int i, int night, const Ephemeris& e) {
  const unsigned key = unsigned(night) * 2654435761u + unsigned(i) * 40503u;
  const float2 p = apparentPosition(s, e);
  Detection d;
  d.xi = p.x + 0.02f * noise(key);
  d.eta = p.y + 0.02f * noise(key + 1u);
  d.mag = s.mag + 0.01f * noise(key + 2u) + ((s.flags & kVariable) ? 0.3f * noise(key + 3u) : 0.f);
  d.color = s.color + 0.02f * noise(key + 4u);
  const int near[kCandidates] = {star, star + 1 < n ? star + 1 : star - 3, star > 0 ? star - 1 : star + 3,
                                 star + 2 < n ? star + 2 : star - 2};
  const int rotate = int(mixBits(key + 5u) % kCandidates);
  for (int k = 0; k < kCandidates; ++k) d.candidates[k] = near[(k + rotate) % kCandidates];
  return d;
}

// The star detection `i` of night `night` sees.
__host__ __device__ inline int observedStar(int i, int night, int n) {
  return int(mixBits(unsigned(i) * 747796405u + unsigned(night) * 2891336453u) % unsigned(n));
}
