#pragma once
#ifndef SCALE_BLOCK
#define SCALE_BLOCK 128
#endif
struct Sample {
  float value;
  int tag;
};
