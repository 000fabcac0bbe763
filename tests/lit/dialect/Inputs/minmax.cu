// nvcc's host-side min and max: every overload of crt/math_functions.hpp, and umin ... ullmax.
#include <cmath>
#include <cstdio>

struct Body {
  float m;
  int n;
};

__global__ void clamp(Body* b) {
  b[0].m = max(abs(b[0].m - 1.0f), 0.5f);
  b[0].n = min(b[0].n, 3);
}

float tolerance(float a, float b, float e) { return max(abs(a - b), e); }
int smaller(int i, int j) { return min(i, j) + max(i, j); }
double mixed(int i, float f, double d, unsigned u, long l, unsigned long ul, long long ll, unsigned long long ull) {
  return max(f, 2.0) + min(f, d) + max(d, f) + min(u, i) + max(i, u) + min(l, ul) + max(ll, ull) + min(ull, ll) +
         max(l, l) + min(u, u) + max(ul, ul) + max(ll, ll) + min(ull, ull) + min(1.5f, 2.5f) + max(1.5, 2.5);
}
unsigned long long named(unsigned a, long long b, unsigned long long c) {
  return umin(a, a) + umax(a, a) + llmin(b, b) + llmax(b, b) + ullmin(c, c) + ullmax(c, c);
}

int main() {
  std::printf("%g %d %g %llu\n", tolerance(1, 2, 3), smaller(1, 2), mixed(1, 2, 3, 4, 5, 6, 7, 8), named(1, 2, 3));
  return 0;
}
