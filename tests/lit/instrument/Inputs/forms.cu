// Access forms: pointers and references to elements, nested and array members, whole elements,
// templates, macros, loops of every kind, and pointers to struct arrays held inside structs.
struct Vec { float x, y, z; };
struct Particle {
  Vec pos;
  float3 vel;
  float hist[4];
  float mass;
};
struct Holder {
  Particle* parts;
  int n;
};

#define MASS(e) (e).mass
#define FIRST_MASS p[0].mass

__device__ void bump(Particle& q, float dt) { q.mass += dt; }

__device__ float weigh(const Particle* p, int i) { return p[i].mass + p->mass; }

__global__ void pointers(Particle* p, int n) {
  int i = threadIdx.x;
  (p + i)->mass = 1.0f;
  Particle& r = p[i];
  r.hist[2] = r.pos.x;
  Particle* q = &p[i];
  q->vel.y = (*q).hist[i & 3];
  bump(p[i], 0.5f);
  float w = weigh(p, i);
  float m = MASS(p[i]) + FIRST_MASS;
  p[i].mass = w + m;
}

__global__ void wholes(Particle* p, const Particle* in) {
  int i = threadIdx.x;
  Particle c = in[i];
  c.mass *= 2.0f;
  p[i] = c;
}

__global__ void held(Holder h, Holder* hp) {
  int i = threadIdx.x;
  if (i < h.n) h.parts[i].mass = hp->parts[i].mass + weigh(h.parts, i);
}

template <class T>
__global__ void scale(T* p, float s) {
  p[threadIdx.x].mass *= s;
}
template __global__ void scale<Particle>(Particle*, float);

__global__ void loops(Particle* p, int n) {
  float sum = 0.0f;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < 3; ++j) sum += p[k].hist[j];
  int k = 0;
  while (k < n) { sum += p[k].mass; ++k; }
  do sum -= 1.0f; while (sum > 100.0f);
  p[threadIdx.x].mass = sum;
}

// One text, two instantiations: one site whose index is known only per instantiation.
template <int N>
__global__ void shift(Particle* p) {
  p[threadIdx.x].hist[N] += 1.0f;
}
template __global__ void shift<0>(Particle*);
template __global__ void shift<3>(Particle*);
