// Weighted k-means (Lloyd's algorithm) on points in 3D.
#pragma once
#include <cuda_runtime.h>

#define KMEANS_MAX_K 64

typedef struct _Point {
  float3 pos;
  float weight;
  int cluster;  // index of the nearest centroid, -1 before the first assignment
} Point;

typedef struct {
  float3 pos;
  float3 sum;  // weighted sum of the member positions
  float weightSum;
  int count;  // members
} Centroid;

// Runs `iterations` assignment/update rounds on points in managed memory; returns the last round's
// number of points that changed cluster.
int kmeansGpu(Point* points, int n, Centroid* centroids, int k, int iterations);
