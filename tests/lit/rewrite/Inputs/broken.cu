// Does not compile: the rewriter must refuse to rewrite anything.
struct Particle { float x; };

__global__ void k(Particle* p) { p[0].x = undefined_thing; }
