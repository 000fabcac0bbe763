// A struct that is a class template, used by a kernel template: refused, never a crash.
template <typename R> struct P { R x, y; };
template <typename R> __global__ void k(P<R>* p) { p[threadIdx.x].x = p[threadIdx.x].y; }
int main() { P<float>* d; cudaMalloc(&d, 64 * sizeof(P<float>)); k<float><<<1, 64>>>(d); return 0; }
