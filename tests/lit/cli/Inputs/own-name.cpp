// A stand-in for a program that prints the name it was started under, as many CUDA samples do
// ("[./prog] - Starting..."): relayout-verify must start the original and the rewrite alike.
#include <cstdio>

int main(int argc, char** argv) {
  std::printf("[%s] - Starting...\n", argv[0]);
  std::printf("result %d\n", argc);
  return 0;
}
