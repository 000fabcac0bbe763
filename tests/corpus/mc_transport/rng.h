// A counter-based random number generator: the n-th number of a stream is a hash of (key, n), so a
// particle's numbers do not depend on which thread, kernel or CPU loop draws them.
#pragma once

#ifdef __CUDACC__
#define MC_HD __host__ __device__
#else
#define MC_HD
#endif

class CounterRng {
 public:
  MC_HD CounterRng(unsigned int key, unsigned int counter) : key_(key), counter_(counter) {}

  // Uniform in (0, 1]: never 0, so -log(u) is finite.
  MC_HD float uniform() { return (static_cast<float>(next() >> 8) + 1.0f) * (1.0f / 16777216.0f); }

  MC_HD unsigned int counter() const { return counter_; }

 private:
  // Two rounds of a 32-bit multiply-xorshift mix over the key and the counter (after Squares/Philox).
  MC_HD unsigned int next() {
    unsigned int x = key_ * 0x9E3779B9u + counter_++ * 0x85EBCA6Bu;
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return x ^ (key_ >> 3);
  }

  unsigned int key_;
  unsigned int counter_;
};
