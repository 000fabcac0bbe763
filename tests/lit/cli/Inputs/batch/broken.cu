// Does not parse: batch.test's application that fails.
struct Particle { float x; };
__global__ void step(Particle* p) { p[threadIdx.x].x += ; }
