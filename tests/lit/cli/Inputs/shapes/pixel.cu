// A 4-byte RGBA pixel read and written whole: one 32-bit load and one 32-bit store per thread.
struct __align__(4) Pixel {
  unsigned char r, g, b, a;
};

__global__ void invert(Pixel* image, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Pixel p = image[i];
  p.r = 255 - p.r;
  p.g = 255 - p.g;
  p.b = 255 - p.b;
  image[i] = p;
}
