// Device-wide sort and scan (thrust), behind a plain interface so that only sorting.cu pays
// for thrust's compile time.
#pragma once

// Sorts keys[0, n) ascending on the device, moving values along; equal keys keep their order.
void stableSortByKey(float* keys, int* values, int n);
// out[i] = in[0] + ... + in[i - 1]; returns the total.
int exclusiveScan(const int* in, int* out, int n);
